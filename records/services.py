"""Writes: storing uploads, verifying matches, accounts and sharing. Keyword-only, typed.

Reading an upload never half-writes: every file of an upload is parsed first,
and only if all are readable BRN is anything stored, in one transaction.

Every kind of job (verify here, analyze in :mod:`analysis`) is a :class:`~records.models.Job`
row claimed by the one :func:`records.jobs.job_claim`, so that two workers never do one job twice.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.db.models import Exists, Field, Model, OuterRef, Q
from django.utils import timezone

import buraco
from apikit.errors import ServiceError
from buraco.notation import Record, dumps_stored, game_key
from buraco.replay import HandReport, MatchReport, verify

from . import signals
from .bulk import rows_insert
from .jobs import job_claim, job_finish, jobs_requeue, jobs_send
from .models import Batch, Hand, Job, Match, UploadKey
from .reading import record_of
from .text import json_safe
from .uploads import UploadedFile, UploadError, expand_upload, parse_uploads, read_uploads  # noqa: F401 - read through services too

ENGINE_VERSION = buraco.__version__


@dataclass
class UploadResult:
    matches: list[Match]
    created: list[bool]
    batch: Batch | None = None
    errors: list[dict[str, Any]] = field(default_factory=list)  # the records not stored, each with its place
    names: list[str] = field(default_factory=list)  # each match's file in this upload (a zip's member)
    # Per file: the review its notes made on a match stored before (an exported review uploaded again).
    reviews: list[int | None] = field(default_factory=list)

    @property
    def duplicates(self) -> list[tuple[str, Match]]:
        """The files of this upload that the owner had uploaded already, with their match."""
        return [(name, match) for name, match, new in zip(self.names, self.matches, self.created) if not new]


def upload_create(
    *,
    owner: User,
    files: Sequence[UploadedFile],
    visibility: str = Match.Visibility.PRIVATE,
    label: str = "",
) -> UploadResult:
    """Store readable uploads as pending matches and queue their verification.

    One file is a user's own upload (the interactive queue); several files or a
    zip make a batch (the bulk queue), whose progress the API reports. Of several files,
    every readable record is stored and each unreadable one is listed in ``errors`` with its
    place (nothing of it is stored); when none is readable, or the one file is not,
    :class:`UploadError` says why and nothing is stored.

    The same game as a match the owner stored before (``buraco.notation.game_key``: an
    exported review uploaded again, say) is answered with that match; its notes, if no
    review of that match holds them already, become a review of it.
    """
    expanded = expand_upload(files)
    if not expanded:
        raise UploadError([{"file": None, "line": None, "column": None, "message": "no file was uploaded"}])
    parsed, errors = read_uploads(expanded)
    bulk = len(expanded) > 1 or any(f.name.lower().endswith(".zip") for f in files)
    if not parsed or (errors and not bulk):
        raise UploadError(errors)
    queue = "bulk" if bulk else "interactive"
    with transaction.atomic():
        batch = Batch.objects.create(owner=owner, label=label, total=0) if bulk else None
        stored = _matches_store(owner=owner, parsed=parsed, batch=batch, visibility=visibility, queue=queue)
        matches = [match for match, _, _ in stored]
        created = [is_new for _, is_new, _ in stored]
        if batch is not None:
            # A batch tracks the matches it stored; records already uploaded are answered as duplicates.
            batch.total = sum(created)
            batch.save(update_fields=["total"])
        to_queue = [m.pk for m, new in zip(matches, created) if new]
        # An upload that repeats a match whose verification failed retries it.
        old = [m.pk for m, new in zip(matches, created) if not new]
        retry = list(
            Job.objects.filter(match_id__in=old, kind=Job.Kind.VERIFY, status=Job.Status.FAILED)
            .values_list("match_id", flat=True)
        )
        if retry:
            jobs_requeue(match_ids=retry, kind=Job.Kind.VERIFY, queue=queue, send=False)
        # robust: the match is stored whatever the broker says (what it refuses waits in the outbox).
        transaction.on_commit(
            lambda: jobs_send(match_ids=[*to_queue, *retry], kind=Job.Kind.VERIFY, queue=queue), robust=True
        )
    return UploadResult(
        matches, created, batch, errors=errors, names=[upload.name for upload, _ in parsed],
        reviews=[review for _, _, review in stored],
    )


# Rows per INSERT when an upload is stored in bulk: a few MB of sources per statement.
MATCHES_PER_INSERT = 200
HANDS_PER_INSERT = 1000
DIGESTS_PER_QUERY = 500  # sha256 values per IN (...) looking for records uploaded before


def _matches_store(
    *,
    owner: User,
    parsed: Sequence[tuple[UploadedFile, Record]],
    batch: Batch | None,
    visibility: str,
    queue: str,
) -> list[tuple[Match, bool, int | None]]:
    """Store the owner's new games of one upload in bulk, in the caller's transaction: each
    new match with its verify job, its hands and its notes' review. Returns, for each file in
    order, its match, whether it is new, and the review its notes made on a match stored
    before. A game the owner stored before (the same bytes, or the same
    ``buraco.notation.game_key``), or a second copy in this upload, is answered with the
    match already stored.

    A few statements for a whole batch, instead of six per match: the matches, jobs and hands
    go in with one INSERT per ``MATCHES_PER_INSERT`` matches. If a concurrent upload stores
    one of the same records meanwhile (the owner-and-sha256 constraint refuses the INSERT),
    that group is stored one match at a time instead (:func:`_match_store`).
    """
    digests = [hashlib.sha256(upload.content).hexdigest() for upload, _ in parsed]
    games = [game_key(record) for _, record in parsed]
    stored: dict[str, tuple[Match, bool]] = {}  # by game
    wanted_digests, wanted_games = list(dict.fromkeys(digests)), list(dict.fromkeys(games))
    by_digest = dict(zip(digests, games, strict=True))
    for start in range(0, max(len(wanted_digests), len(wanted_games)), DIGESTS_PER_QUERY):
        earlier = Match.objects.filter(owner=owner).filter(
            Q(sha256__in=wanted_digests[start:start + DIGESTS_PER_QUERY])
            | Q(game_key__in=wanted_games[start:start + DIGESTS_PER_QUERY])
        ).order_by("id")
        for match in earlier:
            game = match.game_key or by_digest.get(match.sha256, "")
            stored.setdefault(game, (match, False))
            if match.sha256 in by_digest:
                stored.setdefault(by_digest[match.sha256], (match, False))
    first: dict[str, int] = {}  # each new game's first file in this upload
    for index, game in enumerate(games):
        if game not in stored:
            first.setdefault(game, index)
    new = list(first.values())
    for start in range(0, len(new), MATCHES_PER_INSERT):
        group = [(*parsed[index], digests[index]) for index in new[start:start + MATCHES_PER_INSERT]]
        inserted = _matches_insert(owner=owner, group=group, batch=batch, visibility=visibility, queue=queue)
        for index, outcome in zip(new[start:start + MATCHES_PER_INSERT], inserted, strict=True):
            stored[games[index]] = outcome
    answers: list[tuple[Match, bool, int | None]] = []
    for index, game in enumerate(games):
        match, is_new = stored[game]
        if is_new and first.get(game) == index:
            answers.append((match, True, None))
            continue
        # The same game again (a later copy, or a match stored before): its notes may be new.
        record = parsed[index][1]
        review = _notes_review_once(match=match, record=record) if any(h.notes for h in record.hands) else None
        answers.append((match, False, review))
    return answers


def _matches_insert(
    *,
    owner: User,
    group: Sequence[tuple[UploadedFile, Record, str]],
    batch: Batch | None,
    visibility: str,
    queue: str,
) -> list[tuple[Match, bool]]:
    matches = [
        _match_new(owner=owner, upload=upload, record=record, digest=digest, batch=batch, visibility=visibility)
        for upload, record, digest in group
    ]
    try:
        with transaction.atomic():
            Match.objects.bulk_create(matches)
    except IntegrityError:  # a concurrent request stored one of these meanwhile: one by one
        return [
            _match_store(owner=owner, upload=upload, record=record, batch=batch, visibility=visibility, queue=queue)
            for upload, record, _ in group
        ]
    records = [record for _, record, _ in group]
    _matches_complete(matches=matches, records=records, queue=queue)
    return [(match, True) for match in matches]


def _match_store(
    *, owner: User, upload: UploadedFile, record: Record, batch: Batch | None, visibility: str, queue: str
) -> tuple[Match, bool]:
    """Store one record as a new match (with its job, hands and review), or answer the match
    the owner stored for it before."""
    digest = hashlib.sha256(upload.content).hexdigest()
    existing = Match.objects.filter(owner=owner, sha256=digest).first()
    if existing is not None:
        return existing, False
    match = _match_new(owner=owner, upload=upload, record=record, digest=digest, batch=batch, visibility=visibility)
    try:
        with transaction.atomic():
            match.save()
    except IntegrityError:  # the same upload, stored meanwhile by a concurrent request
        return Match.objects.get(owner=owner, sha256=digest), False
    _matches_complete(matches=[match], records=[record], queue=queue)
    return match, True


def _match_new(
    *, owner: User, upload: UploadedFile, record: Record, digest: str, batch: Batch | None, visibility: str
) -> Match:
    """The unsaved row of a new match."""
    metadata = json_safe(dict(record.metadata))
    return Match(
        owner=owner,
        batch=batch,
        visibility=visibility,
        filename=json_safe(upload.name[:255]),
        source=upload.content,
        source_format=record.source_format,
        sha256=digest,
        game_key=game_key(record),
        parsed=dumps_stored(record),
        variant=record.variant,
        players=json_safe(list(record.players)),
        player_names=json_safe("\n".join(p.lower() for p in record.players)),
        metadata={**metadata, **({"target": record.target} if record.target is not None else {})},
        hand_count=len(record.hands),
        played_on=_date_of(metadata.get("date")),
    )


def _matches_complete(*, matches: Sequence[Match], records: Sequence[Record], queue: str) -> None:
    """What every new match has beside its row: its verify job (pending; sent once the upload
    commits), its hands and the review of its notes."""
    now = timezone.now()
    Job.objects.bulk_create([Job(match=match, kind=Job.Kind.VERIFY, queue=queue, enqueued_at=now) for match in matches])
    rows_insert(
        Hand,
        ({
            "match_id": match.pk,
            "number": number,
            "dealer": hand.dealer,
            "deal": _deal_data(hand),
            "actions": list(hand.actions),
            "claimed": _claimed(hand),
        }
         for match, record in zip(matches, records, strict=True)
         for number, hand in enumerate(record.hands, start=1)),
        batch_size=HANDS_PER_INSERT,
    )
    # Announced in this transaction: reviews makes a review of each record's notes.
    signals.matches_stored.send(sender=Match, matches=list(matches), records=list(records))


def _notes_review_once(*, match: Match, record: Record) -> int | None:
    """The record's notes as a review of ``match`` (a game stored before), unless a review of
    the match holds the same comments already (``signals.game_stored_again``; reviews
    answers): the review made, or None."""
    answers = signals.game_stored_again.send(sender=Match, match=match, record=record)
    return next((int(review) for _, review in answers if review is not None), None)


def _date_of(value: Any) -> dt.date | None:
    if not isinstance(value, str):
        return None
    try:
        return dt.date.fromisoformat(value[:10])
    except ValueError:
        return None


def _deal_data(hand: Any) -> dict[str, Any]:
    from buraco.cards import format_cards

    data: dict[str, Any] = {"dealt": [format_cards(c) for c in hand.dealt]}
    if hand.dead:
        data["dead"] = [format_cards(c) for c in hand.dead]
    if hand.discard is not None:
        data["discard"] = format_cards((hand.discard,))
    if hand.stock is not None:
        data["stock"] = format_cards(hand.stock)
    return data


def _claimed(hand: Any) -> dict[str, Any] | None:
    if hand.result is None:
        return None
    claimed: dict[str, Any] = {"scores": list(hand.result.scores)}
    if hand.result.totals is not None:
        claimed["totals"] = list(hand.result.totals)
    return claimed


# --- verification ----------------------------------------------------------------------


def match_verify(*, match_id: int) -> str:
    """Replay one stored match with the engine and store its verdict. Idempotent."""
    if not job_claim(match_id=match_id, kind=Job.Kind.VERIFY):
        return "skipped"
    report = verify(record_of(match_id=match_id))
    _store_verdict(match_id, report)
    return Match.Status.VERIFIED if report.valid else Match.Status.INVALID


@transaction.atomic
def _store_verdict(match_id: int, report: MatchReport) -> None:
    """Each hand's verdict on its row, the match's summary on the match, the job done, and
    the analysis queued: all or nothing, four statements and a commit whatever the number of
    hands (then, once committed, the analysis job's message)."""
    _hand_verdicts_store(match_id, report.hands)
    summary = json_safe({"error": report.as_dict()["error"], "winner": report.winner_dict()})
    Match.objects.filter(pk=match_id).update(
        valid=report.valid,
        scores_match=report.scores_match,
        error=summary["error"],
        totals=report.totals,
        winner=summary["winner"],
        sides=[list(seats) for seats in report.sides],
        engine_version=ENGINE_VERSION,
        verified_at=timezone.now(),
    )
    job_finish(match_id=match_id, kind=Job.Kind.VERIFY, version=ENGINE_VERSION)
    # Announced in this transaction: analysis queues the match's analysis (after a reverify too).
    signals.verdict_stored.send(sender=Match, match_id=match_id)


# The verdict's columns of a hand row, in the order _hand_verdicts_store writes them, with
# the type PostgreSQL is told for each (a VALUES list is otherwise typed text, or from its first row).
_HAND_VERDICT = (
    ("number", "integer"),
    ("valid", "boolean"),
    ("finished", "boolean"),
    ("error", "jsonb"),
    ("scores", "jsonb"),
    ("parts", "jsonb"),
    ("mismatches", "jsonb"),
    ("ended_by", "text"),
    ("out_by", "integer"),
    ("plies", "integer"),
)


def _hand_verdicts_store(match_id: int, hands: Sequence[HandReport]) -> None:
    """Every hand's verdict on its row in one UPDATE ... FROM (VALUES ...), joined on the
    match and the hand's number (a report's hand that has no row changes nothing).

    The ORM has no such statement: one UPDATE per hand cost a round trip and a statement's
    parse and plan each, and ``bulk_update`` builds a CASE expression per field and hand in
    Python, which cost more than the engine's own replay (bench/ingest.py profile). The JSON
    columns get the text ``JSONField`` itself would store (``json.dumps``; None is NULL).
    """
    if not hands:
        return
    rows: list[Any] = []
    for hand in hands:
        rows += [
            hand.hand,
            hand.valid,
            hand.finished,
            _json_text(json_safe(hand.error.as_dict()) if hand.error else None),
            _json_text(hand.scores),
            _json_text([p.as_dict() for p in hand.parts] if hand.parts is not None else None),
            _json_text(json_safe(hand.mismatches)),
            hand.ended_by or "",
            hand.out_by,
            hand.plies,
        ]
    quote = connection.ops.quote_name
    typed = connection.vendor == "postgresql"
    names = [quote(name) for name, _ in _HAND_VERDICT]
    value = "(" + ", ".join(f"%s::{kind}" if typed else "%s" for _, kind in _HAND_VERDICT) + ")"
    table = quote(Hand._meta.db_table)
    sets = ", ".join(f"{quote(_column(Hand, name))} = v.{quote(name)}" for name, _ in _HAND_VERDICT[1:])
    sql = (
        f"WITH v ({', '.join(names)}) AS (VALUES {', '.join([value] * len(hands))}) "
        f"UPDATE {table} SET {sets} FROM v "
        f"WHERE {table}.{quote(_column(Hand, 'match'))} = %s AND {table}.{quote(_column(Hand, 'number'))} = v.{names[0]}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*rows, match_id])


def _column(model: type[Model], name: str) -> str:
    field = model._meta.get_field(name)
    assert isinstance(field, Field) and field.column, f"{model.__name__}.{name} is not a column"
    return str(field.column)


def _json_text(value: Any) -> str | None:
    return None if value is None else json.dumps(value)


def matches_requeue_outdated(*, queue: str = "reverify", include_failed: bool = True) -> int:
    """Queue again every match verified by another engine version (and failed ones)."""
    verify_jobs = Job.objects.filter(match=OuterRef("pk"), kind=Job.Kind.VERIFY)
    done = Exists(verify_jobs.filter(status=Job.Status.DONE))
    outdated = Q(done, valid__isnull=False) & ~Q(engine_version=ENGINE_VERSION)
    if include_failed:
        outdated |= Q(Exists(verify_jobs.filter(status=Job.Status.FAILED)))
    ids = list(Match.objects.filter(outdated).values_list("pk", flat=True))
    if not ids:
        return 0
    with transaction.atomic():
        jobs_requeue(match_ids=ids, kind=Job.Kind.VERIFY, queue=queue)
    return len(ids)


def match_delete(*, match: Match) -> None:
    match.delete()


def share_link_create(*, match: Match) -> tuple[str, bool]:
    """The match's share link, made if it has none: its token, and whether it was made now.
    Asking twice answers the same link (rotating it is :func:`share_link_rotate`)."""
    with transaction.atomic():
        current = Match.objects.select_for_update().values_list("share_token", flat=True).get(pk=match.pk)
        if current:
            match.share_token = current
            return current, False
        return share_link_rotate(match=match), True


def share_link_rotate(*, match: Match) -> str:
    """A new share link for the match: the old one opens nothing from now on."""
    match.share_token = Match.new_share_token()
    match.save(update_fields=["share_token"])
    return match.share_token


def share_link_revoke(*, match: Match) -> None:
    match.share_token = None
    match.save(update_fields=["share_token"])


def match_share_with(*, match: Match, user: User) -> None:
    match.shared_with.add(user)


def match_unshare_with(*, match: Match, user: User) -> None:
    match.shared_with.remove(user)


# --- idempotent uploads -----------------------------------------------------------------

UPLOAD_KEY_HOURS = 24  # how long an Idempotency-Key answers its first answer


class UploadKeyReused(ServiceError):
    """An Idempotency-Key sent again with another upload (422: the key names another request)."""

    status_code = 422


def upload_digest(*, files: Sequence[UploadedFile], visibility: str, label: str) -> str:
    """What makes two uploads the same request: their files (names and bytes) and fields."""
    digest = hashlib.sha256()
    for upload in files:
        for part in (upload.name.encode("utf-8", "surrogatepass"), upload.content):
            digest.update(len(part).to_bytes(8, "big"))
            digest.update(part)
    digest.update(f"\x00{visibility}\x00{label}".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def upload_key_answer(*, owner: User, key: str, digest: str) -> UploadKey | None:
    """The answer an earlier upload with ``key`` got, when it was this same upload; None when
    the key is new (or older than ``UPLOAD_KEY_HOURS``). :class:`UploadKeyReused` when the key
    went with another upload."""
    UploadKey.objects.filter(owner=owner, created_at__lt=timezone.now() - dt.timedelta(hours=UPLOAD_KEY_HOURS)).delete()
    earlier = UploadKey.objects.filter(owner=owner, key=key).first()
    if earlier is None:
        return None
    if earlier.digest != digest:
        raise UploadKeyReused(
            "this Idempotency-Key went with another upload: send a new key for a new upload",
            extra={"fields": {"Idempotency-Key": ["used for another upload"]}},
        )
    return earlier


def upload_key_keep(*, owner: User, key: str, digest: str, status: int, answer: dict[str, Any], location: str) -> None:
    """Keep an upload's answer under its Idempotency-Key, in the upload's transaction. A
    concurrent request with the same key that committed first wins: this one then rolls
    back (IntegrityError) and the caller answers what that one stored."""
    UploadKey.objects.create(owner=owner, key=key, digest=digest, status=status, answer=answer, location=location)
