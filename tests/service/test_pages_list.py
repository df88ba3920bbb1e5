"""The match list says what each match is at a glance: each side's total as a number (or
none), an illegal match apart from scores that differ, how many findings its analysis
stored, its file and batch, a mark on the matches others shared with me; and it offers
"only mine" only to someone logged in."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from analysis import services as analysis_services
from buraco.analysis import MISSED_CANASTA, Finding
from buraco.notation import loads
from buraco.replay import verify
from records.models import Job, Match

from .conftest import record_text
from .helpers import (
    fast_passwords,  # noqa: F401  (a fixture)
    illegal_record,
    logged_in,
    named,
    upload_one,
)

pytestmark = pytest.mark.usefixtures("fast_passwords")


def rows(client: Client, **query: Any) -> dict[int, dict[str, str]]:
    """The list's rows by match id: each cell's text (tags stripped) by its class."""
    response = client.get("/", query)
    assert response.status_code == 200
    body = response.content.decode()
    found = {}
    for match_id, row in re.findall(r'<tr data-match="(\d+)">(.*?)</tr>', body, re.S):
        cells = re.findall(r'<td class="([\w-]+)[^"]*"[^>]*>(.*?)</td>', row, re.S)
        found[int(match_id)] = {name: html.unescape(" ".join(re.sub(r"<[^>]+>", " ", text).split()))
                                for name, text in cells}
    return found


def test_it_shows_each_sides_total_as_a_number(owner: User, owner_api: APIClient, upload: Any) -> None:
    text = record_text("cerrado", hands=2, seed=801)
    legal = upload_one(upload, owner_api, text)
    illegal = upload_one(upload, owner_api, illegal_record(seed=802).text)  # its first hand is illegal
    listed = rows(logged_in(owner))
    totals = verify(loads(text)).totals
    assert listed[legal]["totals"] == f"{totals[0]} / {totals[1]}"
    assert listed[illegal]["totals"] == "\u2014", "no total is computed: not [0, 0]"
    assert "[" not in listed[legal]["totals"]


def test_it_says_which_hand_a_partial_total_runs_through(owner: User, owner_api: APIClient, upload: Any) -> None:
    text = record_text("cerrado", hands=2, seed=803)
    first = loads(text).hands[1].actions[0]  # hand 2's first draw, played out of turn below
    assert re.fullmatch(r"p[12] draw", first)
    at = text.index("[[hands]]", text.index("[[hands]]") + 1)
    broken = text[:at] + text[at:].replace(f'"{first}",', f'"p{3 - int(first[1])} draw",', 1)
    match_id = upload_one(upload, owner_api, broken)
    report = verify(loads(broken))
    assert report.error is not None and report.error.hand == 2 and report.totals_through == 1
    cell = rows(logged_in(owner))[match_id]["totals"]
    assert cell == f"{report.totals[0]} / {report.totals[1]} (through hand 1)"


def test_it_labels_an_illegal_action_apart_from_scores_that_differ(owner: User, owner_api: APIClient, upload: Any) -> None:
    illegal = upload_one(upload, owner_api, illegal_record(seed=804).text)
    differs = upload_one(upload, owner_api, record_text("cerrado", hands=1, seed=805, mistakes=1.0))
    agrees = upload_one(upload, owner_api, record_text("cerrado", hands=1, seed=806))
    listed = rows(logged_in(owner))
    assert listed[illegal]["status-invalid"] == "invalid: illegal action in hand 1"
    assert listed[differs]["status-differ"] == "verified, scores differ"
    assert listed[agrees]["status-verified"] == "verified"


def test_it_counts_each_matchs_findings_without_a_query_per_match(
    owner: User, owner_api: APIClient, upload: Any
) -> None:
    ids = [upload_one(upload, owner_api, record_text("cerrado", hands=1, seed=810 + i)) for i in range(2)]
    planted = [Finding(hand=1, ply=3 + n, seat=1, side=1, kind=MISSED_CANASTA, points=100, message=f"m{n}")
               for n in range(3)]
    analysis_services.findings_store(match_id=ids[0], findings=planted)
    analysis_services.findings_store(match_id=ids[1], findings=[])
    client = logged_in(owner)
    listed = rows(client)
    assert listed[ids[0]]["findings"] == "3" and listed[ids[1]]["findings"] == "0"

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get("/").status_code == 200
        return len(captured)

    few = queries()
    for i in range(4):
        upload_one(upload, owner_api, record_text("cerrado", hands=1, seed=820 + i))
    assert queries() == few, "one query for the rows however many there are"


def test_it_says_how_an_analysis_not_yet_done_stands(owner: User, owner_api: APIClient, upload: Any) -> None:
    waiting = upload_one(upload, owner_api, record_text("cerrado", hands=1, seed=830))
    Job.objects.filter(match_id=waiting, kind=Job.Kind.ANALYZE).update(status=Job.Status.PENDING)
    unverified = owner_api.post("/api/matches/", {"file": named(record_text(hands=1, seed=831), "u.brn")},
                                format="multipart").json()["id"]  # never run here
    listed = rows(logged_in(owner))
    assert listed[waiting]["findings"] == "waiting"
    assert listed[unverified]["findings"] == "\u2014" and listed[unverified]["totals"] == "\u2014"


def test_it_names_the_file_and_the_batch_label(owner: User, owner_api: APIClient, upload: Any) -> None:
    alone = upload_one(upload, owner_api, record_text("cerrado", hands=1, seed=840), name="club/tuesday.brn")
    batch = upload(owner_api, ("a.brn", record_text(hands=1, seed=841)), ("b.brn", record_text(hands=1, seed=842)),
                   label="<night> cup").json()
    listed = rows(logged_in(owner))
    assert listed[alone]["file"] == "tuesday.brn"
    for match in batch["matches"]:
        assert listed[match["id"]]["file"] in ("a.brn batch: <night> cup", "b.brn batch: <night> cup")
    body = logged_in(owner).get("/").content.decode()
    assert f'href="/batches/{batch["batch"]}/"' in body and "<night>" not in body


def test_it_marks_the_matches_shared_with_me(
    owner: User, owner_api: APIClient, coach: User, coach_api: APIClient, upload: Any
) -> None:
    shared = upload_one(upload, owner_api, record_text("cerrado", hands=1, seed=850))
    public = upload_one(upload, owner_api, record_text("cerrado", hands=1, seed=851), visibility="public")
    own = upload_one(upload, coach_api, record_text("cerrado", hands=1, seed=852))
    Match.objects.get(pk=shared).shared_with.add(coach)
    listed = rows(logged_in(coach))
    assert set(listed) == {shared, public, own}
    assert listed[shared]["id"] == f"{shared} shared with you by ana"
    assert listed[public]["id"] == str(public) and listed[own]["id"] == str(own)
    assert rows(logged_in(owner))[shared]["id"] == str(shared), "not to its owner"


def test_it_offers_only_mine_to_someone_logged_in(owner: User, owner_api: APIClient, upload: Any) -> None:
    upload_one(upload, owner_api, record_text("cerrado", hands=1, seed=860), visibility="public")
    anonymous = Client().get("/").content.decode()
    assert 'name="mine"' not in anonymous and "only mine" not in anonymous
    assert Client().get("/", {"mine": "on"}).status_code == 200
    assert 'name="mine"' in logged_in(owner).get("/").content.decode()
