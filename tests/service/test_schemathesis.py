"""Schemathesis against /api/schema/: every operation, on the real WSGI application, in process.

Requests are generated from the schema the service serves (valid and invalid ones: the
coverage phase's boundary and type cases, then Hypothesis' fuzzing), sent to Django's WSGI
handler on the test database as the owner of real uploaded matches (verified by the real
engine), and every response is checked: no 5xx, a documented status code, a documented
content type and headers, a body that matches the documented schema.

Most generated ids are replaced by real ones (and some bodies by real records, users, plies)
so that successes are checked too, not only 404s. Bounded for CI: few examples per
operation, a fixed seed and Hypothesis derandomized (the same requests on every run), no
example database, no deadline.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import schemathesis
import schemathesis.specs.openapi.checks  # noqa: F401  (registers the OpenAPI checks)
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.wsgi import get_wsgi_application
from django.test import override_settings
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from schemathesis.checks import CHECKS as CHECK_REGISTRY
from schemathesis.checks import CheckFunction

from .conftest import record_text
from .helpers import fast_passwords, illegal_record, upload_one  # noqa: F401  (fast_passwords: a fixture)

pytestmark = pytest.mark.usefixtures("fast_passwords")

# A TOML body (a record) goes on the wire as the text it is.
schemathesis.serializer.alias("application/toml", "text/plain")

# Django's WSGI handler as buraco_site.wsgi builds it, without that module's start of the
# embedded job runner (a thread of its own; the tests run jobs inline).
application = get_wsgi_application()

SEED = 20_240_808  # any fixed number: CI sends the same requests every run
EXAMPLES = 20  # fuzzed requests per operation (valid and invalid); the coverage phase adds its own cases
STATEFUL_EXAMPLES = 25  # sequences of linked calls (each up to 6 steps)

# Every check schemathesis has (--checks all): what the earlier run checked (no 5xx, documented
# statuses, content types, headers and bodies), and that invalid data is refused and valid data
# accepted, required headers asked for, other methods refused, deleted things gone,
# authentication not ignored.
CHECKS: list[CheckFunction] = list(CHECK_REGISTRY.get_all())
# (See CONFIG: an upload's multipart body cannot be told invalid on the wire.)
UPLOAD_CHECKS = [check for check in CHECKS if check.__name__ != "negative_data_rejection"]

# The rate limits would answer 429 (documented, with Retry-After) once the run has sent more
# sign-ups or uploads than a person would: high rates keep every operation tested past that.
HIGH_RATES = {scope: "100000/min" for scope in ("login", "login-failures", "signup", "upload", "try", "review")}


class Data:
    """What the run's requests are about: real ids, so that most requests reach real rows."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self.matches: list[int] = []
        self.disposable: list[int] = []  # matches DELETE may remove
        self.hands: dict[int, int] = {}
        self.reviews: list[int] = []
        self.comments: list[int] = []
        self.batches: list[int] = []
        self.puzzles: list[int] = []
        self.players: list[str] = []
        self.usernames: list[str] = []
        self.plies: dict[tuple[int, int], int] = {}  # (match, hand): the hand's actions
        self.records: list[bytes] = []  # readable records, not uploaded yet
        self.token = ""
        self.reviewed = 0  # the match the reviews are of


# Valid data the schema cannot tell from invalid: what a record says (an upload), a hand or ply
# past the match's own (a comment, a try), a user who does not exist (sharing), a password
# Django's validators find too common, a puzzle's turn the engine cannot play, a finding that
# makes no puzzle: these operations may refuse schema-valid data with a 400.
SEMANTIC_400 = ["matches_create", "matches_reviews_comments_create", "matches_hands_try_create",
                "matches_shared_with_create", "auth_signup_create", "puzzles_attempts_create", "puzzles_create"]
CONFIG = schemathesis.Config.from_dict(
    {
        "seed": SEED,
        "generation": {"max-examples": EXAMPLES, "deterministic": True, "database": "none"},
        "continue-on-failure": True,
        "operations": [
            *({"include-operation-id": operation_id,
               "checks": {"positive_data_acceptance": {"expected-statuses": ["2xx", "400", "401", "403", "404", "409", "429"]}}}
              for operation_id in SEMANTIC_400 if operation_id != "matches_create"),
            # An upload's multipart body: a list of files and one file are the same parts on the
            # wire, so the coverage phase's "invalid" bodies (a list where one is declared, say)
            # reach the view as valid ones: their refusal cannot be judged there.
            {"include-operation-id": "matches_create",
             "checks": {"positive_data_acceptance": {"expected-statuses": ["2xx", "400", "401", "403", "404", "409", "429"]}}},
        ],
    }
)
# Loaded once, at collection: the schema view reads no database.
schema = schemathesis.openapi.from_wsgi("/api/schema/", application, config=CONFIG)
DATA = Data()

def _pick(options: list[Any], value: Any) -> Any:
    """One of ``options``, chosen by the generated value: the same value picks the same option
    on every run (crc32, not hash(): Python salts the hash of a string per process)."""
    return options[zlib.crc32(repr(value).encode()) % len(options)] if options else value


def _kept(value: Any) -> bool:
    """Is this generated value sent as it is? Anything but an integer (a request the URL patterns
    or the serializers refuse), and one integer in eleven (most likely about nothing that exists)."""
    return not isinstance(value, int) or isinstance(value, bool) or value % 11 == 7


def _real_ids(data: Data, label: str, parameters: dict[str, Any] | None) -> dict[str, Any] | None:
    """The generated path parameters, most of them replaced by ids and numbers that exist."""
    if not parameters:
        return parameters
    out = dict(parameters)
    if "match_id" in out and not _kept(out["match_id"]):
        pool = data.disposable if label == "DELETE /api/matches/{match_id}/" else data.matches
        out["match_id"] = _pick(pool, out["match_id"])
    match_id = out.get("match_id")
    if "hand" in out and not _kept(out["hand"]):
        out["hand"] = 1 + out["hand"] % data.hands.get(match_id, 2)
    hand = out.get("hand")
    if "ply" in out and not _kept(out["ply"]):
        out["ply"] = out["ply"] % (data.plies.get((match_id, hand), 40) + 2)  # past the last one at times
    for name, pool in (("review_id", data.reviews), ("comment_id", data.comments), ("batch_id", data.batches),
                       ("puzzle_id", data.puzzles)):
        if name in out and not _kept(out[name]):
            out[name] = _pick(pool, out[name])
            if name == "review_id" and not _kept(parameters["match_id"]):
                out["match_id"] = data.reviewed  # the review's own match, or every request is a 404
    if "name" in out and isinstance(out["name"], str) and len(out["name"]) % 3:
        out["name"] = _pick(data.players, out["name"])
    if "username" in out and isinstance(out["username"], str) and len(out["username"]) % 3:
        out["username"] = _pick(data.usernames, out["username"])
    return out


def _real_body(data: Data, label: str, body: Any) -> Any:
    """The generated body, some of it replaced by what exists (a record, a user, a ply in
    range), so that the operations' successes are checked too, not only their refusals."""
    if not isinstance(body, dict):
        return body
    out = dict(body)
    if label == "POST /api/matches/" and isinstance(out.get("files"), list):
        # Few generated bodies are uploads at all: each of those uploads a real record.
        out["files"] = [_pick(data.records, out["files"])]
    elif zlib.crc32(repr(sorted(body.items(), key=str)).encode()) % 4 == 0:
        return body  # one in four as generated
    elif label.endswith("/comments/") and isinstance(out.get("hand"), int) and isinstance(out.get("ply"), int):
        out["hand"] = 1 + out["hand"] % 2
        out["ply"] = out["ply"] % 30
    elif label.endswith("/try/") and isinstance(out.get("ply"), int):
        out["ply"] = out["ply"] % 30
    elif label.endswith("/shared-with/") and isinstance(out.get("username"), str):
        out["username"] = _pick(data.usernames, out["username"])
    elif label == "POST /api/auth/token/" and isinstance(out.get("username"), str):
        out.update(username="ana", password="pw-ana-123456")
    return out


@pytest.fixture
def stored(transactional_db: Any, upload: Callable[..., Any], django_capture_on_commit_callbacks: Any) -> Data:
    """An owner with real uploads (verified by the engine), a coach they share one with, a
    review with a comment: the rows the generated requests mostly ask about."""
    owner = User.objects.create_user("ana", password="pw-ana-123456")
    User.objects.create_user("coach", password="pw-coach-123456")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=owner).key}")
    data = DATA  # the hooks read it: they are the schema's, made at import
    data.clear()
    first = upload_one(upload, api, record_text("cerrado", hands=2, seed=71))
    second = upload_one(upload, api, illegal_record(seed=72).text, name="illegal.brn")
    third = upload_one(upload, api, record_text("burraco", players=4, hands=1, seed=73), visibility="public")
    data.matches = [first, second, third]
    data.hands = {first: 2, second: 2, third: 1}
    data.disposable = [upload_one(upload, api, record_text("cerrado", hands=1, seed=80 + i)) for i in range(2)]
    batch = upload(api, ("b1.brn", record_text(hands=1, seed=91)), ("b2.brn", record_text(hands=1, seed=92)))
    assert batch.status_code == 202, batch.content
    data.batches = [batch.json()["batch"]]
    assert api.post(f"/api/matches/{first}/shared-with/", {"username": "coach"}).status_code == 204
    review = api.post(f"/api/matches/{first}/reviews/")
    assert review.status_code == 201, review.content
    data.reviews = [review.json()["id"]]
    data.reviewed = first
    comment = api.post(f"/api/matches/{first}/reviews/{data.reviews[0]}/comments/",
                       {"hand": 1, "ply": 3, "text": "the discard gives the pile away", "tag": "mistake"})
    assert comment.status_code == 201, comment.content
    data.comments = [comment.json()["id"]]
    # A finished review too (a comment on it is a 409, which the schema says), and the author's
    # new open one (one open review per author and match).
    finished = data.reviews[0]
    assert api.patch(f"/api/matches/{first}/reviews/{finished}/", {"finished": True}, format="json").status_code == 200
    opened = api.post(f"/api/matches/{first}/reviews/")
    assert opened.status_code == 201, opened.content
    data.reviews = [opened.json()["id"], finished]
    for match_id in data.matches:
        detail = api.get(f"/api/matches/{match_id}/").json()
        data.players = sorted({*data.players, *detail["players"]})
        data.plies.update({(match_id, hand["number"]): hand["actions"] for hand in detail["hands"]})
    for name in data.players:  # the owner's puzzles are made as they are listed
        listed = api.get(f"/api/players/{name}/puzzles/", {"page_size": 500})
        data.puzzles.extend(p["id"] for p in (listed.json()["results"] if listed.status_code == 200 else []))
    data.records = [record_text(hands=1, seed=100 + i).encode() for i in range(3)]
    data.usernames = ["coach", "ana"]
    data.token = Token.objects.get(user=owner).key
    return data




def _positive(case: Any) -> bool:
    """Is the case meant to be valid? (A negative one is sent as generated: its invalid part
    must reach the view.)"""
    if case.meta is None:
        return True
    modes = [case.meta.generation.mode, *(component.mode for component in case.meta.components.values())]
    return all(mode.name.lower() == "positive" for mode in modes)


@pytest.fixture
def rates() -> Iterator[None]:
    cache.clear()
    with override_settings(BURACO_THROTTLE_RATES=HIGH_RATES):
        yield
    cache.clear()


@schema.parametrize()
# The rows are set up once per operation, not per request: the requests of one operation share
# them as a client's requests share a real service (a DELETE may leave a later request a 404).
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_every_operation_answers_as_documented(case: Any, stored: Data, rates: None) -> None:
    if case.path_parameters:
        if case.meta is not None and case.meta.phase.name.value == "coverage":
            # The coverage phase's cases are made before the rows exist, with "0" for every path
            # parameter it does not vary: those become real ids, so that what it varies (a
            # body's bounds, a query's types) reaches the view instead of a 404 for match 0.
            fillers = {name: 0 for name, value in case.path_parameters.items() if str(value) == "0"}
            real = _real_ids(stored, case.operation.label, {**case.path_parameters, **fillers}) or {}
            case.path_parameters.update({name: real[name] for name in fillers})
        elif _positive(case):
            case.path_parameters = _real_ids(stored, case.operation.label, case.path_parameters)
    if _positive(case):
        case.body = _real_body(stored, case.operation.label, case.body)
    case.call_and_validate(
        # identity: schemathesis reads a WSGI answer as it comes, and the stored timelines come
        # gzipped (Content-Encoding) to a client that accepts gzip.
        headers={"Authorization": f"Token {stored.token}", "Accept-Encoding": "identity"},
        checks=UPLOAD_CHECKS if case.operation.label == "POST /api/matches/" else CHECKS,
    )


def test_linked_operations_hold_together(stored: Data, rates: None) -> None:
    """The stateful phase: sequences of calls that follow the schema's links (an upload's match
    read, reviewed and commented on; a review's comments answered), every check on every step."""
    from hypothesis import settings as hypothesis_settings
    from hypothesis.stateful import run_state_machine_as_test

    # The training operations link to nothing and nothing links to them (their ids come from a
    # list): left out of the sequences, whose first steps they would otherwise take up; the test
    # above checks each of them.
    base = schema.exclude(path_regex=r"puzzles").as_state_machine()
    calls: list[tuple[str, int]] = []

    class Workflow(base):  # type: ignore[valid-type, misc]
        def before_call(self, case: Any) -> None:
            # A first step's ids and bodies made real as in the test above (valid cases only),
            # so that creates succeed and their links are followed.
            if _positive(case):
                if case.path_parameters and not calls:
                    case.path_parameters = _real_ids(stored, case.operation.label, case.path_parameters)
                case.body = _real_body(stored, case.operation.label, case.body)

        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            return {"headers": {"Authorization": f"Token {stored.token}", "Accept-Encoding": "identity"}}

        def validate_response(self, response: Any, case: Any, additional_checks: Any = (), **kwargs: Any) -> None:
            calls.append((case.operation.label, response.status_code))
            checks = UPLOAD_CHECKS if case.operation.label == "POST /api/matches/" else CHECKS
            case.validate_response(response, checks=checks, **kwargs)

    run_state_machine_as_test(Workflow, settings=hypothesis_settings(
        max_examples=STATEFUL_EXAMPLES, stateful_step_count=6, deadline=None, derandomize=True, database=None,
        suppress_health_check=list(HealthCheck),
    ))
    created = {label for label, code in calls if code in (201, 202)}
    # Links were there to follow: a create (an upload's 202, a review's or comment's 201) succeeded
    # in some sequence. Which creates come first depends on the schema's operations (the run is
    # derandomised, not fixed in its choices as the schema grows): any one of them will do.
    assert created & {"POST /api/matches/", "POST /api/matches/{match_id}/reviews/",
                      "POST /api/matches/{match_id}/reviews/{review_id}/comments/"}, calls[:20]
