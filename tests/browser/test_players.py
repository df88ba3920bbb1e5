"""The player page and the findings explorer in Chromium, at desktop and phone width
(issue 16): a name links to its page, the chart draws a dot per match, the explorer's
filters narrow the rows and a row's link opens the replay at its ply."""

from __future__ import annotations

import re
from typing import Any

import pytest

from buraco.analysis import analyze
from buraco.notation import dumps, loads
from buraco.selfplay import play_match

from .conftest import ROOT
from .test_replay import shown_ply, upload

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENSHOTS = ROOT / "docs" / "screenshots"
FIRST = dumps(play_match("cerrado", players=2, hands=1, seed=1, mistakes=0.3))
SECOND = dumps(play_match("cerrado", players=2, hands=1, seed=2, mistakes=0.5))


def two_matches(page: Any, player: Any) -> list[int]:
    first = upload(page, player, FIRST)
    page.goto("/upload/")
    page.set_input_files("input[type=file]", files=[{"name": "two.brn", "mimeType": "text/plain",
                                                      "buffer": SECOND.encode()}])
    page.locator("main form button[type=submit], main form input[type=submit]").first.click()
    page.wait_for_url(re.compile(r"/matches/\d+/$"))
    return [first, int(re.search(r"/matches/(\d+)/", page.url).group(1))]  # type: ignore[union-attr]


@pytest.mark.parametrize("width", [1280, 390])
def test_a_name_leads_to_the_player_page_with_its_figures_and_chart(new_page: Any, player: Any, width: int) -> None:
    page = new_page(width=width, height=900)
    ids = two_matches(page, player)
    name = str(loads(FIRST).players[0])
    page.goto("/")
    page.locator(f"tr[data-match='{ids[0]}'] td.players a", has_text=name).first.click()
    page.wait_for_url(re.compile(r"/players/"))
    assert page.inner_text("h1") == name
    assert page.locator("#player-figures tr[data-figure]").count() == 2
    chart = page.locator(".player-chart[data-figure='points_lost_per_hand'] circle.dot")
    assert chart.count() == 2  # a dot per match
    assert {int(dot.get_attribute("data-match")) for dot in chart.all()} == set(ids)
    box = page.locator(".player-chart svg").first.bounding_box()
    assert box["width"] <= width  # the chart fits the screen
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1  # no sideways scroll
    assert not page.errors
    page.screenshot(path=str(SCREENSHOTS / f"player-{'phone' if width < 600 else 'desktop'}.png"), full_page=True)


@pytest.mark.parametrize("width", [1280, 390])
def test_the_explorer_filters_and_opens_the_replay_at_a_findings_ply(new_page: Any, player: Any, width: int) -> None:
    page = new_page(width=width, height=900)
    ids = two_matches(page, player)
    found = analyze(loads(FIRST)) + analyze(loads(SECOND))
    page.goto("/findings/")
    assert page.locator("tr.finding-row").count() == len(found)
    page.select_option("#id_kind", "missed-canasta")
    page.select_option("#id_severity", "mistake")
    page.locator("#explorer-filters button[type=submit]").click()
    page.wait_for_url(re.compile(r"kind=missed-canasta"))
    wanted = [f for f in found if f.kind == "missed-canasta" and f.severity in ("mistake", "blunder")]
    assert wanted, "the records should have a missed canasta graded a mistake"
    rows = page.locator("tr.finding-row")
    assert rows.count() == len(wanted)
    points = [int(r.locator("td.points").inner_text()) for r in rows.all()]
    assert points == sorted(points, reverse=True)  # the most at stake first
    assert "kind=missed-canasta" in (page.get_attribute("a.export", "href") or "")
    link = rows.first.locator("a.ply-link")
    ply = int(link.inner_text().split()[-1])
    match_id = int(rows.first.get_attribute("data-match"))
    assert match_id in ids
    page.screenshot(path=str(SCREENSHOTS / f"findings-{'phone' if width < 600 else 'desktop'}.png"), full_page=True)
    link.click()
    page.wait_for_selector("#replay[data-ready=true]")
    assert shown_ply(page) == ply and f"/matches/{match_id}/" in page.url
    assert not page.errors
