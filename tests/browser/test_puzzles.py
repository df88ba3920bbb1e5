"""Training in Chromium, at desktop and phone width (issue 16): the due puzzles listed, one
solved with the witness typed and Enter, one failed with the turn as played, and the failed
one coming back sooner than the solved one."""

from __future__ import annotations

import re
from typing import Any

import pytest

from buraco.analysis.witness import witness_start
from buraco.notation import dumps, loads
from buraco.selfplay import play_match

from .conftest import ROOT
from .test_replay import upload

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENSHOTS = ROOT / "docs" / "screenshots"
TEXT = dumps(play_match("cerrado", players=2, hands=1, seed=3, mistakes=0.3))


def played_turn(puzzle_id: int) -> list[str]:
    from training.models import Puzzle

    finding = Puzzle.objects.get(pk=puzzle_id).finding.as_engine()
    record = loads(TEXT)
    turn = []
    for action in record.hands[finding.hand - 1].parsed[witness_start(record, finding) - 1:]:
        if action.seat != finding.seat:
            break
        turn.append(action.text)
    return turn


def witness(puzzle_id: int) -> list[str]:
    from training.models import Puzzle

    return list(Puzzle.objects.get(pk=puzzle_id).finding.witness)


def due_ids(page: Any, which: str = "#puzzles-due") -> list[int]:
    return [int(item.get_attribute("data-puzzle")) for item in page.locator(f"{which} li").all()]


@pytest.mark.parametrize("width", [1280, 390])
def test_a_puzzle_solved_and_one_failed_comes_back_sooner(new_page: Any, player: Any, width: int) -> None:
    page = new_page(width=width, height=900)
    upload(page, player, TEXT)
    shot = "phone" if width < 600 else "desktop"
    page.goto("/")
    page.click("#training-link")  # the home page leads to training
    page.wait_for_url(re.compile(r"/training/$"))
    due = due_ids(page)
    assert len(due) >= 2
    solved, failed = due[0], due[1]

    # solve the first: the witness typed in the field, Enter submits
    page.locator(f"#puzzles-due li[data-puzzle='{solved}'] a").click()
    page.wait_for_url(re.compile(rf"/training/{solved}/$"))
    assert page.inner_text("h1") == "What is your turn?"
    assert page.locator("#puzzle-hand .pz-card").count() > 0
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1  # no sideways scroll
    page.screenshot(path=str(SCREENSHOTS / f"puzzle-{shot}.png"), full_page=True)
    field = page.locator("#puzzle-actions")
    field.focus()  # the field has the focus first (autofocus); type and Enter, no mouse
    page.keyboard.type("; ".join(witness(solved)))
    page.keyboard.press("Enter")
    page.wait_for_selector("#puzzle-answer")
    assert page.get_attribute("#puzzle-answer", "data-verdict") == "best"
    assert page.locator("#puzzle-witness code").count() == len(witness(solved))
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
    page.screenshot(path=str(SCREENSHOTS / f"puzzle-{shot}-solved.png"), full_page=True)

    # an illegal action is named, the puzzle unchanged
    page.goto(f"/training/{failed}/")
    seat = played_turn(failed)[0].split()[0]
    page.fill("#puzzle-actions", f"{seat} draw; {seat} discard 9x")
    page.keyboard.press("Enter")
    page.wait_for_selector("#puzzle-error")
    assert "9x" in page.inner_text("#puzzle-error")

    # fail the second: the turn as it was played
    page.fill("#puzzle-actions", "; ".join(played_turn(failed)))
    page.locator("#puzzle-form button[type=submit]").click()
    page.wait_for_selector("#puzzle-answer")
    assert page.get_attribute("#puzzle-answer", "data-verdict") == "short"
    assert "Short by" in page.inner_text("#puzzle-answer h2")
    assert page.locator("#puzzle-witness code").count() > 0
    page.screenshot(path=str(SCREENSHOTS / f"puzzle-{shot}-failed.png"), full_page=True)

    # both are off the due list; the failed one comes back first
    page.goto("/training/")
    assert solved not in due_ids(page) and failed not in due_ids(page)
    later = due_ids(page, "#puzzles-later")
    assert later.index(failed) < later.index(solved)
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
    assert not page.errors


@pytest.mark.parametrize("width", [1280, 390])
def test_a_finding_picked_on_the_match_page_is_due_in_training(new_page: Any, player: Any, width: int) -> None:
    page = new_page(width=width, height=900)
    match_id = upload(page, player, TEXT)
    page.goto(f"/matches/{match_id}/")
    button = page.locator("li.finding-missed-canasta form.pick-form button").first
    assert button.inner_text() == "Train on this"  # the owner picks for themselves
    button.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / f"match-pick-{'phone' if width < 600 else 'desktop'}.png"))
    finding = int(button.locator("xpath=ancestor::li[contains(@class, 'finding')]").get_attribute("id").split("-")[1])
    button.click()
    page.wait_for_url(re.compile(rf"/matches/{match_id}/#finding-{finding}$"))
    assert "is now in your training" in page.inner_text("main")
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1

    from training.models import Puzzle

    picked = Puzzle.objects.get(finding_id=finding, user=player)
    page.goto("/training/")
    assert picked.pk in due_ids(page)
    assert not page.errors
