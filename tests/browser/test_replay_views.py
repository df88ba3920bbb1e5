"""A seat's view of the replay shows what that seat saw: the other seats' stock draws are
"drew a card", never the card (the last-action bar and the move list); its own draws, every
take, meld, lay-off and discard, and the every-hand view, name the cards as written."""

from __future__ import annotations

from typing import Any

import pytest

from buraco.notation import loads

from .conftest import ROOT
from .test_replay import open_replay, shown_ply, upload

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Worked by hand, one hand, Ana (p1) and Bia (p2); every draw names its card ("p2 draw 8d").
RECORD = (ROOT / "docs" / "examples" / "abierto.brn").read_text()
ACTIONS = loads(RECORD).hands[0].actions


def ply_of(action: str) -> int:
    return ACTIONS.index(action) + 1


def move_text(page: Any, ply: int) -> str:
    return str(page.inner_text(f".move[data-ply='{ply}'] code"))


def test_a_seat_view_does_not_name_the_other_seats_draws(new_page: Any, player: Any) -> None:
    page = new_page()
    match_id = upload(page, player, RECORD)
    theirs, mine, take = ply_of("p2 draw 8d"), ply_of("p1 draw Kd"), ply_of("p2 take")

    open_replay(page, match_id, query=f"?ply={theirs}&view=1")
    assert shown_ply(page) == theirs
    bar = page.inner_text("#last-action")
    assert "p2 drew a card" in bar and "8d" not in bar, bar
    assert move_text(page, theirs) == "p2 drew a card"
    assert move_text(page, mine) == "p1 draw Kd"  # one's own draw, as written
    assert move_text(page, take) == "p2 take"  # taking the pile is seen by all
    assert move_text(page, ply_of("p2 meld 5d 6d 7d 8d")) == "p2 meld 5d 6d 7d 8d"
    page.click(f".move[data-ply='{mine}'] a")
    assert "p1 draw Kd" in page.inner_text("#last-action")

    page.keyboard.press("f")  # p2's view: now p1's draws are the hidden ones
    assert page.get_attribute("#replay", "data-view") == "2"
    assert "p1 drew a card" in page.inner_text("#last-action")
    assert move_text(page, mine) == "p1 drew a card"
    assert move_text(page, theirs) == "p2 draw 8d"

    page.keyboard.press("f")  # every hand: every card named
    assert page.get_attribute("#replay", "data-view") == "full"
    assert "p1 draw Kd" in page.inner_text("#last-action")
    assert move_text(page, theirs) == "p2 draw 8d" and move_text(page, mine) == "p1 draw Kd"

    open_replay(page, match_id, query=f"?ply={theirs}&view=2")  # the seat itself sees its card
    assert "p2 draw 8d" in page.inner_text("#last-action")
    assert page.errors == []
