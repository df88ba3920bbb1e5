"""The match page lists each hand's findings by kind, with points, message, the better line and
a link to the ply; a small form sets the smallest stake worth showing. Everything is escaped."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from analysis import services as analysis_services
from buraco.analysis import DANGEROUS_DISCARD, MISSED_CANASTA, SCORING_MISTAKE, Finding, analyze
from buraco.notation import loads

from .conftest import record_text
from .helpers import (
    fast_passwords,  # noqa: F401  (a fixture)
    logged_in,
    upload_one,
    with_players,
)

pytestmark = pytest.mark.usefixtures("fast_passwords")


def page(client: Client, match_id: int, **query: Any) -> str:
    response = client.get(f"/matches/{match_id}/", query)
    assert response.status_code == 200
    return response.content.decode()


def findings_of_hand(text: str, number: int) -> str:
    start = text.index(f'id="findings-hand-{number}"')
    end = text.find('id="hand-', start + 1)
    return text[start:end if end != -1 else len(text)]


PLANTED = [
    Finding(hand=1, ply=12, seat=1, side=1, kind=MISSED_CANASTA, points=200,
            message="p1 could have laid 3h..9h as a clean canasta (200)",
            witness=("p1 draw", "p1 meld 3h 4h 5h 6h 7h 8h 9h", "p1 discard Kc")),
    Finding(hand=1, ply=15, seat=2, side=2, kind=DANGEROUS_DISCARD, points=30,
            message="p2's discard <b>Qd</b> & gave p1 the pile", witness=("p2 draw", "p2 discard 4c")),
    Finding(hand=1, ply=None, seat=None, side=1, kind=SCORING_MISTAKE, points=100,
            message="side 1 claimed 580; the cards give 680", cause="going-out-missing",
            causes=(("going-out-missing",),)),
]


@pytest.fixture
def planted(owner_api: APIClient, upload: Any) -> int:
    """A match whose stored findings are the three above (the page is what is tested here)."""
    match_id = upload_one(upload, owner_api, record_text(hands=2, seed=91))
    analysis_services.findings_store(match_id=match_id, findings=PLANTED)
    return match_id


def test_it_lists_a_hands_findings_as_key_moments_with_points_and_message(owner: User, planted: int) -> None:
    card = findings_of_hand(page(logged_in(owner), planted), 1)
    key = card[card.index('class="key-moments"'):]
    assert "200 points" in key and "30 points" in key and "100 points" in key  # three: each a key moment
    assert 'class="finding-group"' not in card
    assert "p1 could have laid 3h..9h as a clean canasta (200)" in card
    assert 'id="findings-hand-2"' not in page(logged_in(owner), planted)


def test_past_three_the_rest_are_folded_by_kind_in_the_engines_order(owner_api: APIClient, owner: User, upload: Any) -> None:
    more = [*PLANTED,
            Finding(hand=1, ply=20, seat=1, side=1, kind=DANGEROUS_DISCARD, points=10, message="small one",
                    witness=("p1 draw", "p1 discard 4c")),
            Finding(hand=1, ply=24, seat=2, side=2, kind=MISSED_CANASTA, points=20, message="small two",
                    witness=("p2 draw", "p2 discard 5c"))]
    match_id = upload_one(upload, owner_api, record_text(hands=2, seed=92))
    analysis_services.findings_store(match_id=match_id, findings=more)
    card = findings_of_hand(page(logged_in(owner), match_id), 1)
    key = card[card.index('class="key-moments"'):card.index("</ul>", card.index('class="key-moments"'))]
    assert [p in key for p in ("200 points", "100 points", "30 points", "10 points", "20 points")] == [
        True, True, True, False, False]
    groups = [card.index(f'class="finding-kind">{kind}') for kind in (MISSED_CANASTA, DANGEROUS_DISCARD)]
    assert groups == sorted(groups)  # in the engine's order of kinds, each folded (a <details> not open)
    assert card.count('<details class="finding-group"') == 2 and " open" not in card
    assert "small one" in card and "small two" in card


def test_it_shows_the_witness_as_the_better_line(owner: User, planted: int) -> None:
    card = findings_of_hand(page(logged_in(owner), planted), 1)
    assert "The better line" in card
    line = card[card.index("The better line"):]
    positions = [line.index(f"<code>{action}</code>") for action in PLANTED[0].witness]
    assert positions == sorted(positions)


def test_it_links_each_finding_to_its_ply(owner: User, planted: int) -> None:
    card = findings_of_hand(page(logged_in(owner), planted), 1)
    assert f'href="/matches/{planted}/hands/1/replay/?ply=12"' in card
    assert f'href="/matches/{planted}/hands/1/replay/?ply=15"' in card
    assert card.count('class="ply-link"') == 2  # a scoring mistake belongs to the hand, not a ply


def test_its_links_keep_the_share_token(owner_api: APIClient, planted: int) -> None:
    token = owner_api.post(f"/api/matches/{planted}/share-link/").json()["share_token"]
    card = findings_of_hand(page(Client(), planted, share=token), 1)
    assert f'href="/matches/{planted}/hands/1/replay/?ply=12&amp;share={token}"' in card
    assert f'name="share" value="{token}"' in page(Client(), planted, share=token)
    assert Client().get(f"/matches/{planted}/hands/1/replay/", {"ply": 12, "share": token}).status_code == 200


def test_it_shows_only_findings_worth_the_smallest_stake_asked_for(owner: User, planted: int) -> None:
    client = logged_in(owner)
    text = page(client, planted, min_points=100)
    card = findings_of_hand(text, 1)
    assert "200 points" in card and "100 points" in card and "30 points" not in card
    assert 'name="min_points"' in text and 'value="100"' in text
    assert 'id="findings-hand-1"' not in page(client, planted, min_points=500)
    assert "30 points" in page(client, planted, min_points="not a number")  # ignored, not an error


def test_it_escapes_what_it_shows(owner: User, planted: int) -> None:
    text = page(logged_in(owner), planted)
    assert "<b>Qd</b>" not in text
    assert "p2&#x27;s discard &lt;b&gt;Qd&lt;/b&gt; &amp; gave p1 the pile" in text


def test_it_shows_what_the_engine_found_in_the_record(owner: User, owner_api: APIClient, upload: Any) -> None:
    text = with_players(record_text("cerrado", hands=2, seed=94, mistakes=1.0), "<i>Ana</i>", "Bia & Co")
    match_id = upload_one(upload, owner_api, text)
    shown = page(logged_in(owner), match_id)
    found = analyze(loads(text))
    assert found, "analyze() finds the planted scoring mistakes"
    for finding in found:
        assert html.escape(finding.message) in shown
    assert "<i>Ana</i>" not in shown
    assert 'id="analysis-status">Analysis: done' in shown


def test_it_hides_the_findings_of_a_private_match_from_others(planted: int, stranger: User) -> None:
    assert logged_in(stranger).get(f"/matches/{planted}/").status_code == 404
    assert Client().get(f"/matches/{planted}/").status_code == 404
