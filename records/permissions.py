"""Who may do what with a match: the one policy every page and API endpoint asks.

- **read** (see the match, its report, timeline, findings, source; try other plays):
  its owner, a user it is shared with, anyone when it is public, and whoever holds
  its share link;
- **manage** (share, unshare, make or revoke the link, delete): its owner only;
- **review** (coaching reviews: notes on the match): its owner, or a user it is shared
  with, a coach. Never a share-link holder nor a stranger, even on a public match.

A batch (its progress, its page) is its owner's alone: :func:`owned_batch`.

A match one may not read is answered 404 (as a missing one); one that one may read but
not manage or review, 403.
"""

from __future__ import annotations

import hmac

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Q

from .models import Batch, Match, MatchQuerySet

AnyUser = User | AnonymousUser


def readable_matches(*, user: AnyUser) -> MatchQuerySet:
    """The matches ``user`` may read without a share link: own, shared with them, public."""
    public = Q(visibility=Match.Visibility.PUBLIC)
    if not user.is_authenticated:
        return Match.objects.filter(public)
    return Match.objects.filter(public | Q(owner=user) | Q(shared_with=user)).distinct()


def is_owner(user: AnyUser, match: Match) -> bool:
    return bool(user.is_authenticated and user.pk == match.owner_id)


def is_shared_with(user: AnyUser, match: Match) -> bool:
    return bool(user.is_authenticated and match.shared_with.filter(pk=user.pk).exists())


def share_link_opens(match: Match, share: str | None) -> bool:
    """Does ``share`` hold this match's (unrevoked) share-link token?"""
    return bool(share and match.share_token and hmac.compare_digest(share.encode(), match.share_token.encode()))


def can_read(user: AnyUser, match: Match, share: str | None = None) -> bool:
    if match.visibility == Match.Visibility.PUBLIC or share_link_opens(match, share):
        return True
    return is_owner(user, match) or is_shared_with(user, match)


def can_manage(user: AnyUser, match: Match) -> bool:
    return is_owner(user, match)


def can_review(user: AnyUser, match: Match) -> bool:
    return is_owner(user, match) or is_shared_with(user, match)


def abilities(user: AnyUser, match: Match, share: str | None = None) -> dict[str, bool]:
    """The three answers at once, as the API and the pages show them."""
    return {
        "read": can_read(user, match, share),
        "manage": can_manage(user, match),
        "review": can_review(user, match),
    }


def owned_batch(user: AnyUser, batch_id: int) -> Batch | None:
    """The batch if ``user`` uploaded it; None for anyone else (answered 404, as a batch that
    does not exist)."""
    if not user.is_authenticated:
        return None
    return Batch.objects.filter(pk=batch_id, owner_id=user.pk).first()
