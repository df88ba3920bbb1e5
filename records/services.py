"""Writes: storing uploads, jobs (claim, release, fail, finish, requeue), verifying matches.
Keyword-only, typed.

Reading an upload never half-writes: every file of an upload is parsed first,
and only if all are readable BRN is anything stored, in one transaction.

Every kind of job (verify here, analyze in :mod:`analysis`) is a :class:`~records.models.Job`
row claimed by the one :func:`job_claim`, so that two workers never do one job twice.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.auth import password_validation
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

import buraco
from buraco.errors import NotationError
from buraco.notation import Record, loads
from buraco.replay import MatchReport, verify

from .models import Batch, Hand, Job, Match

ENGINE_VERSION = buraco.__version__
CLAIM_LEASE = dt.timedelta(minutes=5)  # longer than any job task's hard time limit
ANALYSIS_QUEUE = "analysis"


class UploadError(Exception):
    """One or more uploaded files are not readable BRN; nothing was stored."""

    def __init__(self, errors: list[dict[str, Any]], hint: str | None = None) -> None:
        super().__init__(f"nothing was stored: {len(errors)} problem{'s' if len(errors) != 1 else ''} with the upload")
        self.errors = errors
        self.hint = hint  # what to send instead, when the way it was sent is the likely cause


@dataclass
class UploadedFile:
    name: str
    content: bytes


@dataclass
class UploadResult:
    matches: list[Match]
    created: list[bool]
    batch: Batch | None = None
    errors: list[dict[str, Any]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)  # each match's file in this upload (a zip's member)

    @property
    def duplicates(self) -> list[tuple[str, Match]]:
        """The files of this upload that the owner had uploaded already, with their match."""
        return [(name, match) for name, match, new in zip(self.names, self.matches, self.created) if not new]


def expand_upload(files: Iterable[UploadedFile]) -> list[UploadedFile]:
    """Unpack zips into their ``.brn`` and ``.json`` members; keep other files as they are.

    The whole request has one budget (``DATA_UPLOAD_MAX_MEMORY_SIZE`` x 4 bytes unpacked, at
    most ``BURACO_MAX_UPLOAD_RECORDS`` records), checked on every zip's headers
    (``ZipInfo.file_size``) before any member is unpacked: several zips share it.
    """
    limit = settings.BURACO_MAX_UPLOAD_RECORDS
    max_bytes = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    budget = max_bytes * 4  # what one request may unpack to, in all
    planned: list[tuple[UploadedFile, zipfile.ZipFile | None, list[zipfile.ZipInfo]]] = []
    records = size = 0
    try:
        for upload in files:
            if len(upload.content) > max_bytes:
                raise UploadError([{"file": upload.name, "line": None, "column": None,
                                    "message": f"the file has {len(upload.content)} bytes; the limit is {max_bytes}"}])
            if upload.content[:4] == b"PK\x03\x04" or upload.name.lower().endswith(".zip"):
                opened, members = _zip_plan(upload)
                planned.append((upload, opened, members))
                records += len(members)
                for info in members:
                    size += info.file_size
                    if info.file_size > max_bytes or size > budget:
                        raise UploadError([{"file": f"{upload.name}/{info.filename}", "line": None, "column": None,
                                            "message": "the zip unpacks to more than the upload limit allows "
                                                       f"({budget} bytes for the whole upload)"}])
            else:
                planned.append((upload, None, []))
                records += 1
                size += len(upload.content)
                if size > budget:
                    raise UploadError([{"file": upload.name, "line": None, "column": None,
                                        "message": f"the upload unpacks to more than {budget} bytes in all"}])
            if records > limit:
                raise UploadError([{"file": upload.name, "line": None, "column": None,
                                    "message": f"an upload holds at most {limit} records"}])
        out: list[UploadedFile] = []
        for upload, archive, members in planned:
            out.extend(_zip_read(upload, archive, members) if archive is not None else [upload])
        return out
    finally:
        for _, unpacked, _ in planned:
            if unpacked is not None:
                unpacked.close()


def _zip_plan(upload: UploadedFile) -> tuple[zipfile.ZipFile, list[zipfile.ZipInfo]]:
    """The zip, opened, and the members to unpack (from its headers: nothing is unpacked)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(upload.content))
    except zipfile.BadZipFile:
        raise UploadError([{"file": upload.name, "line": None, "column": None,
                            "message": "not a readable zip archive"}]) from None
    members = [
        info for info in archive.infolist()
        if not info.is_dir() and not info.filename.startswith("__MACOSX/")
        and info.filename.lower().endswith((".brn", ".json", ".toml"))
    ]
    if not members:
        archive.close()
        raise UploadError([{"file": upload.name, "line": None, "column": None,
                            "message": "the zip holds no .brn files"}])
    return archive, members


def _zip_read(upload: UploadedFile, archive: zipfile.ZipFile, members: list[zipfile.ZipInfo]) -> list[UploadedFile]:
    out = []
    for info in members:
        name = f"{upload.name}/{info.filename}"
        try:
            # zipfile stops at the header's file_size: a member cannot unpack to more than was checked.
            out.append(UploadedFile(name, archive.read(info)))
        except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError) as error:
            raise UploadError([{"file": name, "line": None, "column": None,
                                "message": f"cannot unpack: {error}"}]) from None
    return out


def parse_uploads(files: Sequence[UploadedFile]) -> list[tuple[UploadedFile, Record]]:
    """Read every file; raise UploadError listing every unreadable one with its position."""
    parsed = []
    errors = []
    for upload in files:
        not_object = _json_not_object(upload.content)
        if not_object:
            errors.append({"file": upload.name, "line": 1, "column": 1,
                           "message": f"a BRN record is a JSON object ({{...}}); this is JSON {not_object}"})
            continue
        try:
            parsed.append((upload, loads(upload.content)))
        except NotationError as error:
            errors.append({"file": upload.name, **error.as_dict()})
    if errors:
        raise UploadError(errors)
    return parsed


def _json_not_object(content: bytes) -> str | None:
    """What JSON value other than an object the content is (``a list``, ``null``...), or None:
    such a body is JSON, not TOML, and is said to be the wrong kind of JSON."""
    head = content.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if not head or head == b"{" or head not in b'[n"tf-0123456789':
        return None
    try:
        value = json.loads(content.decode("utf-8-sig"))
    except (ValueError, RecursionError):
        return None
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "null"
    return {str: "a string", bool: "a boolean"}.get(type(value), "a number")


def upload_create(
    *,
    owner: User,
    files: Sequence[UploadedFile],
    visibility: str = Match.Visibility.PRIVATE,
    label: str = "",
) -> UploadResult:
    """Store readable uploads as pending matches and queue their verification.

    One file is a user's own upload (the interactive queue); several files or a
    zip make a batch (the bulk queue), whose progress the API reports.
    """
    expanded = expand_upload(files)
    if not expanded:
        raise UploadError([{"file": None, "line": None, "column": None, "message": "no file was uploaded"}])
    parsed = parse_uploads(expanded)
    bulk = len(expanded) > 1 or any(f.name.lower().endswith(".zip") for f in files)
    queue = "bulk" if bulk else "interactive"
    with transaction.atomic():
        batch = Batch.objects.create(owner=owner, label=label, total=0) if bulk else None
        matches, created = [], []
        for upload, record in parsed:
            match, is_new = _match_store(owner=owner, upload=upload, record=record, batch=batch,
                                         visibility=visibility, queue=queue)
            matches.append(match)
            created.append(is_new)
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
        transaction.on_commit(lambda: jobs_send(match_ids=[*to_queue, *retry], kind=Job.Kind.VERIFY, queue=queue))
    return UploadResult(matches, created, batch, names=[upload.name for upload, _ in parsed])


def _match_store(
    *, owner: User, upload: UploadedFile, record: Record, batch: Batch | None, visibility: str, queue: str
) -> tuple[Match, bool]:
    digest = hashlib.sha256(upload.content).hexdigest()
    existing = Match.objects.filter(owner=owner, sha256=digest).first()
    if existing is not None:
        return existing, False
    metadata = json_safe(dict(record.metadata))
    match = Match(
        owner=owner,
        batch=batch,
        visibility=visibility,
        filename=json_safe(upload.name[:255]),
        source=upload.content,
        source_format=record.source_format,
        sha256=digest,
        variant=record.variant,
        players=json_safe(list(record.players)),
        player_names=json_safe("\n".join(p.lower() for p in record.players)),
        metadata={**metadata, **({"target": record.target} if record.target is not None else {})},
        hand_count=len(record.hands),
        played_on=_date_of(metadata.get("date")),
    )
    try:
        with transaction.atomic():
            match.save()
    except IntegrityError:  # the same upload, stored meanwhile by a concurrent request
        return Match.objects.get(owner=owner, sha256=digest), False
    # Every stored match has its verify job from the start; it is sent once the upload commits.
    Job.objects.create(match=match, kind=Job.Kind.VERIFY, queue=queue, enqueued_at=timezone.now())
    Hand.objects.bulk_create(
        Hand(
            match=match,
            number=number,
            dealer=hand.dealer,
            deal=_deal_data(hand),
            actions=list(hand.actions),
            claimed=_claimed(hand),
        )
        for number, hand in enumerate(record.hands, start=1)
    )
    # The record's [[hands.notes]] become a review of the match (imported here: reviews import records).
    from reviews.services import review_from_notes

    review_from_notes(match=match, record=record)
    return match, True


def json_safe(value: Any) -> Any:
    """PostgreSQL text and jsonb cannot hold NUL: stored copies show U+FFFD instead
    (the upload itself is kept byte for byte)."""
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd")
    if isinstance(value, list):
        return [json_safe(v) for v in value]
    if isinstance(value, dict):
        return {json_safe(k): json_safe(v) for k, v in value.items()}
    return value


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


# --- jobs: one claim, release, fail and finish for every kind -------------------------


def _job_task(kind: str) -> Any:
    """The Celery task that runs jobs of ``kind`` (imported here: tasks import services)."""
    if kind == Job.Kind.VERIFY:
        from .tasks import verify_match

        return verify_match
    if kind == Job.Kind.ANALYZE:
        from analysis.tasks import analyze_match

        return analyze_match
    raise ValueError(f"no task runs {kind!r} jobs")


def jobs_send(*, match_ids: Sequence[int], kind: str, queue: str) -> None:
    """Send the jobs' messages to ``queue``; called after the transaction that queued them commits."""
    task = _job_task(kind)
    for match_id in match_ids:
        task.apply_async(args=(match_id,), queue=queue)


def enqueue(*, match_ids: Sequence[int], queue: str) -> None:
    """Send verification jobs (the matches' jobs are pending already)."""
    jobs_send(match_ids=match_ids, kind=Job.Kind.VERIFY, queue=queue)


def jobs_requeue(*, match_ids: Sequence[int], kind: str, queue: str, send: bool = True) -> None:
    """Make the matches' jobs of ``kind`` pending on ``queue`` (creating missing ones) and,
    with ``send``, send them once the current transaction commits.

    A job running meanwhile is made pending too: its worker's finish then changes nothing
    and the job runs again on what is stored now.
    """
    if not match_ids:
        return
    now = timezone.now()
    Job.objects.bulk_create(
        [Job(match_id=match_id, kind=kind, queue=queue, enqueued_at=now) for match_id in match_ids],
        update_conflicts=True,
        unique_fields=["match", "kind"],
        update_fields=["status", "queue", "enqueued_at", "claimed_at", "error"],
    )
    if send:
        ids = list(match_ids)
        transaction.on_commit(lambda: jobs_send(match_ids=ids, kind=kind, queue=queue))


def job_claim(*, match_id: int, kind: str) -> bool:
    """Take a match's job of ``kind`` atomically: one worker only, unless an earlier claim's
    lease ran out (its worker died). Every kind of job is claimed here."""
    now = timezone.now()
    claimable = Q(status=Job.Status.PENDING) | Q(status=Job.Status.RUNNING, claimed_at__lt=now - CLAIM_LEASE)
    claimed = Job.objects.filter(claimable, match_id=match_id, kind=kind).update(
        status=Job.Status.RUNNING, claimed_at=now, attempts=F("attempts") + 1
    )
    return claimed == 1


def job_finish(*, match_id: int, kind: str, version: str) -> None:
    """Mark a running job done; called in the transaction that stores its result."""
    Job.objects.filter(match_id=match_id, kind=kind, status=Job.Status.RUNNING).update(
        status=Job.Status.DONE, finished_at=timezone.now(), error=None, version=version
    )


def job_release(*, match_id: int, kind: str) -> None:
    """Give a claimed job back so that a retry can claim it again."""
    Job.objects.filter(match_id=match_id, kind=kind, status=Job.Status.RUNNING).update(
        status=Job.Status.PENDING, claimed_at=None
    )


def job_fail(*, match_id: int, kind: str, reason: str) -> None:
    """A job that cannot finish (time limit, retries used up, a bug) is marked, not lost."""
    Job.objects.filter(match_id=match_id, kind=kind, status=Job.Status.RUNNING).update(
        status=Job.Status.FAILED, finished_at=timezone.now(), error={"kind": "failed", "message": reason}
    )


# --- verification ----------------------------------------------------------------------


def match_verify(*, match_id: int) -> str:
    """Replay one stored match with the engine and store its verdict. Idempotent."""
    if not job_claim(match_id=match_id, kind=Job.Kind.VERIFY):
        return "skipped"
    match = Match.objects.get(pk=match_id)
    record = loads(bytes(match.source))
    report = verify(record)
    _store_verdict(match, report)
    return Match.Status.VERIFIED if report.valid else Match.Status.INVALID


@transaction.atomic
def _store_verdict(match: Match, report: MatchReport) -> None:
    """Each hand's verdict on its row, the match's summary on the match, the job done, and
    the analysis queued: all or nothing."""
    # One plain UPDATE per hand: bulk_update builds CASE expressions in Python, which
    # cost more than the engine's own replay (bench/ingest.py profile).
    hand_ids = dict(Hand.objects.filter(match=match).values_list("number", "pk"))
    for hand_report in report.hands:
        hand_id = hand_ids.get(hand_report.hand)
        if hand_id is None:
            continue
        Hand.objects.filter(pk=hand_id).update(
            valid=hand_report.valid,
            finished=hand_report.finished,
            error=json_safe(hand_report.error.as_dict()) if hand_report.error else None,
            scores=hand_report.scores,
            parts=[p.as_dict() for p in hand_report.parts] if hand_report.parts is not None else None,
            mismatches=json_safe(hand_report.mismatches),
            ended_by=hand_report.ended_by or "",
            out_by=hand_report.out_by,
            plies=hand_report.plies,
        )
    summary = json_safe({"error": report.as_dict()["error"], "winner": report.winner_dict()})
    match.valid = report.valid
    match.scores_match = report.scores_match
    match.error = summary["error"]
    match.totals = report.totals
    match.winner = summary["winner"]
    match.sides = [list(seats) for seats in report.sides]
    match.engine_version = ENGINE_VERSION
    match.verified_at = timezone.now()
    match.save(update_fields=[
        "valid", "scores_match", "error", "totals", "winner", "sides", "engine_version", "verified_at",
    ])
    job_finish(match_id=match.pk, kind=Job.Kind.VERIFY, version=ENGINE_VERSION)
    # A new verdict is analysed again (after a reverify too): below interactive and bulk work.
    jobs_requeue(match_ids=[match.pk], kind=Job.Kind.ANALYZE, queue=ANALYSIS_QUEUE)


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


class SignupError(Exception):
    """The account cannot be made: ``errors`` maps each field to its sentences."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__(next(iter(errors.values()))[0])
        self.errors = errors


@transaction.atomic
def user_create(*, username: str, password: str) -> User:
    """A new account, its password checked by Django's password validators."""
    from django.contrib.auth.validators import UnicodeUsernameValidator
    from django.core.exceptions import ValidationError

    errors: dict[str, list[str]] = {}
    try:
        UnicodeUsernameValidator()(username)
    except ValidationError as error:
        errors["username"] = list(error.messages)
    if User.objects.filter(username__iexact=username).exists():
        errors["username"] = [f"the username {username!r} is taken"]
    candidate = User(username=username)
    try:
        password_validation.validate_password(password, candidate)
    except ValidationError as error:
        errors["password"] = list(error.messages)
    if errors:
        raise SignupError(errors)
    try:
        with transaction.atomic():
            return User.objects.create_user(username=username, password=password)
    except IntegrityError:  # the same name, taken meanwhile
        raise SignupError({"username": [f"the username {username!r} is taken"]}) from None


def token_for(*, user: User) -> str:
    """The user's API token (made on first use)."""
    from rest_framework.authtoken.models import Token

    token, _ = Token.objects.get_or_create(user=user)
    return str(token.key)


def match_delete(*, match: Match) -> None:
    match.delete()


def share_link_create(*, match: Match) -> str:
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
