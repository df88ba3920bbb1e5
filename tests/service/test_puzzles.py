"""Training from one's own mistakes: GET /api/players/{name}/puzzles/, GET /api/puzzles/{id}/,
POST /api/puzzles/{id}/attempts/, POST /api/puzzles/ (a coach's pick), and SM-2.

The property: a puzzle's table is the engine's replay of the record to exactly the start of
the finding's turn, from the seat; the witness solves it; the turn as played is short by the
finding's points and comes back sooner."""

from __future__ import annotations

import functools
from datetime import date, timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from buraco.analysis import Finding, analyze
from buraco.analysis.puzzles import makes_puzzle
from buraco.analysis.witness import witness_start
from buraco.notation import Record, loads
from buraco.replay import state_at
from records.models import Match
from training.scheduling import FIRST_INTERVAL, Schedule, quality_of, review
from training.services import own_seats

from .conftest import record_text
from .helpers import (
    fast_passwords,  # noqa: F401  (a fixture)
    upload_one,
)

pytestmark = pytest.mark.usefixtures("fast_passwords")

SEEDS = (3, 5, 8)
TEXTS = {seed: record_text("cerrado", hands=1, seed=seed, mistakes=0.3) for seed in SEEDS}
TEXT = TEXTS[3]
PLAYER = "Bot 1"


@functools.cache
def engine(text: str) -> tuple[Record, tuple[Finding, ...]]:
    record = loads(text)
    return record, tuple(f for f in analyze(record) if makes_puzzle(f))


def finding_of(text: str, puzzle: dict[str, Any]) -> Finding:
    _, findings = engine(text)
    return next(f for f in findings if (f.hand, f.ply, f.seat, f.kind) ==
                (puzzle["hand"], puzzle["ply"], puzzle["seat"], puzzle["kind"]))


def played_turn(record: Record, finding: Finding) -> list[str]:
    """The finding's turn as the record played it."""
    actions = record.hands[finding.hand - 1].parsed
    turn = []
    for action in actions[witness_start(record, finding) - 1:]:
        if action.seat != finding.seat:
            break
        turn.append(action.text)
    return turn


def puzzles(client: APIClient, name: str = PLAYER, **query: Any) -> Any:
    return client.get(f"/api/players/{name}/puzzles/", {"page_size": 500, **query})


def attempt(client: APIClient, puzzle_id: int, actions: list[str], **query: Any) -> Any:
    suffix = "?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else ""
    return client.post(f"/api/puzzles/{puzzle_id}/attempts/{suffix}", {"actions": actions}, format="json")


@pytest.fixture
def match_id(owner_api: APIClient, upload: Any) -> int:
    return upload_one(upload, owner_api, TEXT, "mine.brn")


# --- SM-2 -------------------------------------------------------------------------------


def test_sm2_starts_at_ease_2_5_and_grows_the_interval_with_each_solve() -> None:
    today = date(2026, 3, 1)
    schedule = Schedule()
    assert schedule.ease == 2.5
    intervals = []
    for _ in range(4):
        schedule = review(schedule, 5, today)
        intervals.append(schedule.interval)
    assert intervals[:2] == [FIRST_INTERVAL, 6]
    assert intervals[2] == round(6 * schedule.ease - 0.0) or intervals[2] > 6
    assert intervals == sorted(intervals) and schedule.repetitions == 4
    assert schedule.due == today + timedelta(days=intervals[-1])


def test_sm2_a_failure_starts_over_in_one_day_and_lowers_the_ease() -> None:
    today = date(2026, 3, 1)
    solved = review(review(Schedule(), 5, today), 5, today)
    failed = review(solved, 2, today)
    assert (failed.repetitions, failed.interval, failed.due) == (0, 1, today + timedelta(days=1))
    assert failed.ease < solved.ease
    assert review(Schedule(), 0, today).ease == 1.7  # 2.5 + 0.1 - 5 * (0.08 + 5 * 0.02)
    floor = Schedule()
    for _ in range(10):
        floor = review(floor, 0, today)
    assert floor.ease == 1.3


def test_sm2_a_puzzle_failed_comes_back_sooner_than_one_solved() -> None:
    today = date(2026, 3, 1)
    assert review(Schedule(), 2, today).due < review(Schedule(), 5, today).due
    assert review(Schedule(), 3, today).due == review(Schedule(), 5, today).due


def test_quality_falls_with_how_short_the_answer_is() -> None:
    assert quality_of("best", 0, 100) == 5
    assert quality_of("good", 50, 100) == 3
    assert [quality_of("short", by, 100) for by in (100, 150, 201)] == [2, 1, 0]
    with pytest.raises(ValueError):
        review(Schedule(), 6, date(2026, 3, 1))


def test_the_seat_one_trains_on_is_the_one_named_as_the_user_or_every_seat() -> None:
    assert own_seats(["Ana", "Bo"], "ANA") == [1]
    assert own_seats(["Bot 1", "Bot 2"], "ana") == [1, 2]
    assert own_seats(["ana", "Bo", "ana", "Di"], "ana") == [1, 3]


# --- the property -------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_a_puzzles_table_is_the_replay_to_its_turn_and_its_witness_solves_it(
    owner_api: APIClient, upload: Any, seed: int
) -> None:
    text = TEXTS[seed]
    upload_one(upload, owner_api, text, f"seed-{seed}.brn")
    record, findings = engine(text)
    listed = [*puzzles(owner_api, "Bot 1").json()["results"], *puzzles(owner_api, "Bot 2").json()["results"]]
    assert len(listed) == len(findings) > 0
    for puzzle in listed:
        finding = finding_of(text, puzzle)
        body = owner_api.get(f"/api/puzzles/{puzzle['id']}/").json()
        position = body["position"]
        ply = witness_start(record, finding) - 1
        table = state_at(record, finding.hand - 1, ply).to_json()
        seat = finding.seat
        assert body["question"] == "What is your turn?"
        assert (position["ply"], position["turn"], position["step"]) == (ply, seat, "draw")
        assert position["hand"] == table["hands"][str(seat)]
        assert position["melds"] == table["melds"]
        assert position["discard"] == table["discard"]
        assert position["stock"] == table["stock"] and position["dead"] == table["dead"]
        assert position["others"] == {k: len(v) for k, v in table["hands"].items() if k != str(seat)}
        assert "hands" not in position and "witness" not in body["puzzle"]
        # never another hand's cards, nor the stock's beyond the card a draw gives
        assert set(position) == {"seat", "turn", "step", "ply", "hand", "others", "melds", "discard", "stock", "dead",
                                 "dead_taken", "running", "draw"}
        if finding.witness[0].split()[1] == "draw" and len(finding.witness[0].split()) == 3:
            assert position["draw"] == finding.witness[0].split()[2]
        answer = attempt(owner_api, puzzle["id"], list(finding.witness))
        assert answer.status_code == 200, answer.content
        result = answer.json()
        assert result["verdict"] == "best"
        assert result["short_by"] == 0 and result["points"] == result["best_points"]
        assert result["best_points"] - result["played_points"] == finding.points
        assert result["witness"] == list(finding.witness)
        assert result["next_due"] == (timezone.now().date() + timedelta(days=FIRST_INTERVAL)).isoformat()


def test_the_turn_as_played_is_short_by_the_findings_points_and_comes_back_sooner(
    owner_api: APIClient, match_id: int
) -> None:
    record, _ = engine(TEXT)
    listed = puzzles(owner_api, "Bot 2").json()["results"]
    assert len(listed) >= 2
    solved, failed = listed[0], listed[1]
    best = attempt(owner_api, solved["id"], list(finding_of(TEXT, solved).witness)).json()
    finding = finding_of(TEXT, failed)
    short = attempt(owner_api, failed["id"], played_turn(record, finding)).json()
    assert short["verdict"] == "short"
    assert short["short_by"] == finding.points
    assert short["points"] == short["played_points"]
    assert short["interval_days"] == 1 and short["repetitions"] == 0
    assert date.fromisoformat(short["next_due"]) < date.fromisoformat(best["next_due"])
    # due first: the failed puzzle is listed before the solved one
    order = [p["id"] for p in puzzles(owner_api, "Bot 2").json()["results"]]
    assert order.index(failed["id"]) < order.index(solved["id"])
    # a failure after a solve starts it over
    again = attempt(owner_api, solved["id"], played_turn(record, finding_of(TEXT, solved))).json()
    assert again["verdict"] == "short" and again["interval_days"] == 1


def test_an_illegal_action_is_a_400_naming_it(owner_api: APIClient, match_id: int) -> None:
    puzzle = puzzles(owner_api, "Bot 2").json()["results"][0]
    seat = puzzle["seat"]
    response = attempt(owner_api, puzzle["id"], [f"p{seat} draw", f"p{seat} discard 9x"])
    assert response.status_code == 400
    body = response.json()
    assert f"p{seat} discard 9x" in body["message"] and "action 2" in body["message"]
    assert body["extra"]["index"] == 1
    hand = owner_api.get(f"/api/puzzles/{puzzle['id']}/").json()["position"]["hand"]
    missing = next(c for c in ("As", "Kh", "Qd", "7c", "3s") if c not in hand and c != "JK")
    response = attempt(owner_api, puzzle["id"], [f"p{seat} draw", f"p{seat} meld {missing} {missing} {missing}"])
    assert response.status_code == 400 and f"meld {missing}" in response.json()["message"]
    other = 1 if seat == 2 else 2
    assert "not p" in attempt(owner_api, puzzle["id"], [f"p{other} draw"]).json()["message"]
    unfinished = attempt(owner_api, puzzle["id"], [f"p{seat} draw"])
    assert unfinished.status_code == 400 and "not over" in unfinished.json()["message"]
    assert attempt(owner_api, puzzle["id"], []).status_code == 400
    # nothing refused was kept: the puzzle is still new
    assert owner_api.get(f"/api/puzzles/{puzzle['id']}/").json()["attempts"] == 0


# --- personas -----------------------------------------------------------------------------


def test_nobody_else_sees_a_private_matchs_puzzles(
    owner_api: APIClient, stranger_api: APIClient, anonymous_api: APIClient, match_id: int
) -> None:
    puzzle = puzzles(owner_api).json()["results"][0]
    finding = finding_of(TEXT, puzzle)
    token = owner_api.post(f"/api/matches/{match_id}/share-link/").json()
    share = Match.objects.get(pk=match_id).share_token
    assert share, token
    # a stranger, with the share link too: no puzzles, and 404 for one of another's
    for query in ({}, {"share": share}):
        assert puzzles(stranger_api, **query).status_code == 404
        assert stranger_api.get(f"/api/puzzles/{puzzle['id']}/", query).status_code == 404
        assert attempt(stranger_api, puzzle["id"], list(finding.witness), **query).status_code == 404
    # anonymous, with the share link too: training needs an account
    for query in ({}, {"share": share}):
        assert puzzles(anonymous_api, **query).status_code == 401
        assert anonymous_api.get(f"/api/puzzles/{puzzle['id']}/", query).status_code == 401
        assert attempt(anonymous_api, puzzle["id"], list(finding.witness), **query).status_code == 401
    assert stranger_api.get(f"/training/{puzzle['id']}/").status_code in (302, 404)
    # the stranger's attempts changed nothing
    assert owner_api.get(f"/api/puzzles/{puzzle['id']}/").json()["attempts"] == 0


def test_a_public_match_makes_puzzles_for_its_owner_only(
    owner_api: APIClient, stranger_api: APIClient, upload: Any
) -> None:
    upload_one(upload, owner_api, TEXTS[5], "public.brn", visibility="public")
    assert puzzles(owner_api).json()["count"] > 0
    assert puzzles(stranger_api).status_code == 404


def test_an_unknown_puzzle_is_a_404(owner_api: APIClient, match_id: int) -> None:
    assert owner_api.get("/api/puzzles/999999/").status_code == 404
    assert attempt(owner_api, 999999, ["p1 draw"]).status_code == 404


def test_only_the_seat_named_as_the_user_makes_puzzles(owner_api: APIClient, upload: Any) -> None:
    text = TEXT.replace('"Bot 1"', '"ana"', 1)
    upload_one(upload, owner_api, text, "named.brn")
    _, findings = engine(TEXT)
    assert puzzles(owner_api, "ANA").json()["count"] == sum(1 for f in findings if f.seat == 1) > 0
    assert puzzles(owner_api, "Bot 2").status_code == 404


def test_a_coach_picks_a_puzzle_for_the_owner(
    owner: User, owner_api: APIClient, coach: User, coach_api: APIClient, stranger_api: APIClient, upload: Any
) -> None:
    text = TEXT.replace('"Bot 1"', '"ana"', 1)
    match_id = upload_one(upload, owner_api, text, "named.brn")
    assert puzzles(owner_api, "Bot 2").status_code == 404  # not ana's seat
    findings = coach_api.get(f"/api/matches/{match_id}/findings/", {"page_size": 500})
    assert findings.status_code == 404  # not shared yet
    Match.objects.get(pk=match_id).shared_with.add(coach)
    rows = coach_api.get(f"/api/matches/{match_id}/findings/", {"page_size": 500}).json()["results"]
    seat_two = next(r for r in rows if r["seat"] == 2 and r["witness"] and r["kind"] != "scoring-mistake")
    from analysis.models import Finding as FindingRow

    finding_id = FindingRow.objects.get(match_id=match_id, hand=seat_two["hand"], ply=seat_two["ply"],
                                        kind=seat_two["kind"], seat=2).pk
    assert stranger_api.post("/api/puzzles/", {"finding": finding_id}, format="json").status_code == 404
    picked = coach_api.post("/api/puzzles/", {"finding": finding_id}, format="json")
    assert picked.status_code == 201, picked.content
    assert picked.json()["shared_by"] == "coach"
    assert coach_api.post("/api/puzzles/", {"finding": finding_id}, format="json").status_code == 200
    listed = puzzles(owner_api, "Bot 2").json()["results"]
    assert [p["id"] for p in listed] == [picked.json()["id"]]
    # the puzzle is the owner's: the coach does not train on it
    assert puzzles(coach_api, "Bot 2").status_code == 404
    assert coach_api.get(f"/api/puzzles/{picked.json()['id']}/").status_code == 404


def stored_again(match_id: int, findings: Any) -> None:
    """The match's analysis stored again (a reverify, or a new analysis version, runs it anew)."""
    from analysis import services as analysis_services

    analysis_services.findings_store(match_id=match_id, findings=list(findings))


def test_a_match_analysed_again_keeps_its_puzzles_and_their_progress(owner_api: APIClient, match_id: int) -> None:
    from analysis.models import Finding as FindingRow
    from training.models import Attempt, Puzzle

    record, _ = engine(TEXT)
    listed = puzzles(owner_api, "Bot 2").json()["results"]
    assert len(listed) >= 2
    solved = listed[0]
    best = attempt(owner_api, solved["id"], list(finding_of(TEXT, solved).witness)).json()
    assert best["verdict"] == "best" and best["repetitions"] == 1
    before = {p.pk: (p.finding_id, p.ease, p.interval_days, p.repetitions, p.due) for p in Puzzle.objects.all()}

    stored_again(match_id, analyze(record))

    after = {p.pk: (p.finding_id, p.ease, p.interval_days, p.repetitions, p.due) for p in Puzzle.objects.all()}
    assert after.keys() == before.keys()  # every puzzle kept
    for pk, (finding_id, *schedule) in after.items():
        assert finding_id != before[pk][0]  # now on the new analysis's row of its chance
        assert schedule == list(before[pk][1:])
        old = FindingRow.objects.filter(pk=before[pk][0])
        assert not old.exists()
    assert Attempt.objects.filter(puzzle_id=solved["id"]).count() == 1
    assert owner_api.get(f"/api/puzzles/{solved['id']}/").status_code == 200
    chances = [(p["id"], p["hand"], p["ply"], p["kind"]) for p in puzzles(owner_api, "Bot 2").json()["results"]]
    assert sorted(chances) == sorted((p["id"], p["hand"], p["ply"], p["kind"]) for p in listed)


def test_a_puzzle_goes_when_the_new_analysis_no_longer_finds_its_chance(owner_api: APIClient, match_id: int) -> None:
    from training.models import Attempt

    record, _ = engine(TEXT)
    listed = puzzles(owner_api, "Bot 2").json()["results"]
    dropped = finding_of(TEXT, listed[0])
    attempt(owner_api, listed[0]["id"], list(dropped.witness))

    stored_again(match_id, [f for f in analyze(record) if f != dropped])

    assert owner_api.get(f"/api/puzzles/{listed[0]['id']}/").status_code == 404
    assert not Attempt.objects.filter(puzzle_id=listed[0]["id"]).exists()
    kept = [p["id"] for p in puzzles(owner_api, "Bot 2").json()["results"]]
    assert kept == [p["id"] for p in listed[1:]]


def test_two_chances_that_become_one_run_keep_the_puzzle_trained_on_most(owner_api: APIClient, match_id: int) -> None:
    import dataclasses

    from training.models import Puzzle

    record, _ = engine(TEXT)
    findings = analyze(record)
    first = finding_of(TEXT, puzzles(owner_api, "Bot 2").json()["results"][0])
    assert first.ply is not None
    # The same chance a few plies earlier, as an older analysis might have told it apart.
    earlier = dataclasses.replace(first, ply=first.ply - 4, first_ply=first.ply - 4, last_ply=first.ply - 4)
    stored_again(match_id, [earlier, *findings])
    split = {p["ply"]: p["id"] for p in puzzles(owner_api, "Bot 2").json()["results"]
             if (p["hand"], p["kind"]) == (first.hand, first.kind) and p["ply"] in (first.ply, earlier.ply)}
    assert len(split) == 2
    Puzzle.objects.filter(pk=split[earlier.ply]).update(repetitions=3)  # solved three times in a row
    merged = dataclasses.replace(first, first_ply=earlier.ply, last_ply=first.ply, turns=first.turns + 1)

    stored_again(match_id, [merged if f == first else f for f in findings])

    rows = Puzzle.objects.filter(finding__match_id=match_id, finding__hand=first.hand, finding__kind=first.kind,
                                 finding__ply=first.ply)
    assert [p.pk for p in rows] == [split[earlier.ply]]
    assert not Puzzle.objects.filter(pk=split[first.ply]).exists()


def test_a_coach_picks_a_puzzle_with_the_match_pages_button(
    owner: User, coach: User, stranger: User, owner_api: APIClient, upload: Any, client: Any
) -> None:
    from analysis.models import Finding as FindingRow
    from training.models import Puzzle

    text = record_text("cerrado", hands=1, seed=3, mistakes=1.0)  # a claimed score planted wrong, too
    match_id = upload_one(upload, owner_api, text, "picked.brn")
    match = Match.objects.get(pk=match_id)
    match.shared_with.add(coach)
    rows = FindingRow.objects.filter(match_id=match_id)
    pickable = rows.filter(kind="missed-canasta").first()
    scoring = rows.filter(kind="scoring-mistake").first()
    assert pickable is not None and scoring is not None
    pick = f"/training/pick/{pickable.pk}/"

    client.force_login(coach)
    page = client.get(f"/matches/{match_id}/").content.decode()
    assert f'action="{pick}"' in page and "Make it a puzzle for ana" in page
    assert f'action="/training/pick/{scoring.pk}/"' not in page  # a scoring mistake makes no puzzle
    answer = client.post(pick)
    assert answer.status_code == 302 and answer["Location"] == f"/matches/{match_id}/#finding-{pickable.pk}"
    puzzle = Puzzle.objects.get(finding=pickable)
    assert (puzzle.user_id, puzzle.shared_by_id) == (owner.pk, coach.pk)
    shown = client.get(answer["Location"]).content.decode()
    assert f"the missed-canasta of hand 1 at ply {pickable.ply} is now in ana&#x27;s training" in shown
    assert "is already in ana&#x27;s training" in client.post(pick, follow=True).content.decode()
    assert Puzzle.objects.filter(finding=pickable).count() == 1
    refused = client.post(f"/training/pick/{scoring.pk}/", follow=True).content.decode()
    assert "makes a puzzle" in refused and not Puzzle.objects.filter(finding=scoring).exists()

    client.force_login(stranger)  # may not review the match: as if the finding did not exist
    assert client.post(pick).status_code == 404
    assert client.get(pick).status_code == 405  # a pick is a POST
    client.logout()
    assert client.post(pick).status_code == 302 and Puzzle.objects.count() == 1  # to the log-in page
    from records import services as records_services

    records_services.share_link_rotate(match=match)
    link = client.get(f"/matches/{match_id}/", {"share": Match.objects.get(pk=match_id).share_token})
    assert link.status_code == 200 and "The better line" in link.content.decode()
    assert 'class="inline pick-form"' not in link.content.decode()  # a link reads, it does not review

    client.force_login(owner)
    assert "Train on this" in client.get(f"/matches/{match_id}/").content.decode()


def test_the_schema_describes_the_training_endpoints(db: Any) -> None:
    import yaml

    schema = yaml.safe_load(APIClient().get("/api/schema/").content)
    for path, method in [("/api/players/{name}/puzzles/", "get"), ("/api/puzzles/{puzzle_id}/", "get"),
                         ("/api/puzzles/{puzzle_id}/attempts/", "post"), ("/api/puzzles/", "post")]:
        assert method in schema["paths"][path]
    answer = schema["components"]["schemas"]["PuzzleAnswer"]["properties"]
    assert {"verdict", "points", "best_points", "short_by", "witness", "next_due", "interval_days"} <= set(answer)


# --- pages ----------------------------------------------------------------------------------


def test_the_pages_list_the_due_puzzles_and_judge_a_turn(owner: User, match_id: int, client: Any) -> None:
    client.force_login(owner)
    page = client.get("/training/")
    assert page.status_code == 200 and b"Due now" in page.content
    puzzle = Match.objects.get(pk=match_id).findings.filter(puzzles__user=owner).first().puzzles.get(user=owner)
    shown = client.get(f"/training/{puzzle.pk}/")
    assert shown.status_code == 200 and b"What is your turn?" in shown.content
    finding = puzzle.finding.as_engine()
    answered = client.post(f"/training/{puzzle.pk}/", {"actions": "; ".join(finding.witness)})
    assert answered.status_code == 200 and b'data-verdict="best"' in answered.content
    refused = client.post(f"/training/{puzzle.pk}/", {"actions": f"p{finding.seat} draw; p{finding.seat} discard 9x"})
    assert refused.status_code == 400 and b"9x" in refused.content
    assert client.get("/training/999999/").status_code == 404


def test_the_pages_show_nobody_else_a_puzzle(owner: User, stranger: User, match_id: int, client: Any) -> None:
    client.force_login(owner)
    assert client.get("/training/").status_code == 200
    puzzle = owner.puzzles.first()
    assert puzzle is not None
    client.logout()
    assert client.get(f"/training/{puzzle.pk}/").status_code == 302  # to the log-in page
    client.force_login(stranger)
    assert client.get(f"/training/{puzzle.pk}/").status_code == 404
    assert client.post(f"/training/{puzzle.pk}/", {"actions": "p1 draw"}).status_code == 404
    assert f"/training/{puzzle.pk}/".encode() not in client.get("/training/").content


def test_training_stands_below_pages() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "training"
    for source in root.rglob("*.py"):
        text = source.read_text()
        assert "from pages" not in text and "import pages" not in text, source
