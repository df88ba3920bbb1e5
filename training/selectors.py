"""Which puzzles a user may train on, and the table a puzzle shows."""

from __future__ import annotations

from typing import Any, cast

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.db.models import QuerySet

from analysis.models import player_key
from buraco.analysis.puzzles import position, seat_view, turn_ply
from records import permissions
from records import selectors as records_selectors

from .models import Puzzle
from .services import sync_puzzles


def trainable(user: AbstractBaseUser | AnonymousUser) -> QuerySet[Puzzle]:
    """The user's puzzles whose match the user may still read (never through a share link):
    own uploads, and those a coach shared of matches the user owns."""
    if not user.is_authenticated:
        return Puzzle.objects.none()
    sync_puzzles(user)
    readable = permissions.readable_matches(user=cast(User, user)).values("pk")
    return (Puzzle.objects.filter(user_id=user.pk, finding__match__in=readable)
            .select_related("finding", "finding__match", "shared_by").order_by("due", "id"))


def puzzles_of_player(user: AbstractBaseUser | AnonymousUser, name: str) -> QuerySet[Puzzle]:
    """The user's puzzles of the findings of the player named ``name`` in the records
    (compared without case), due first."""
    return trainable(user).filter(finding__players__contains=player_key(name))


def puzzle_for(user: AbstractBaseUser | AnonymousUser, puzzle_id: int) -> Puzzle | None:
    return trainable(user).filter(pk=puzzle_id).first()


def player_name(puzzle: Puzzle) -> str:
    players = list(puzzle.finding.match.players or [])
    seat = puzzle.finding.seat or 0
    return str(players[seat - 1]) if 0 < seat <= len(players) else f"p{seat}"


def puzzle_position(puzzle: Puzzle) -> dict[str, Any]:
    """The puzzle's table from its seat (``buraco.analysis.puzzles.seat_view``) and the ply it
    stands at (the hand's plies played before the turn's draw step)."""
    record = records_selectors.match_record(match=puzzle.finding.match)
    finding = puzzle.finding.as_engine()
    view = seat_view(position(record, finding), finding.seat or 0)
    view["ply"] = turn_ply(record, finding)
    return view
