"""The replay page on a phone (390 px wide): the controls stay near the top, they are
touch-sized, and the match chart's labels do not sit on its lines. Measured as the
browser lays the page out (bounding boxes, in CSS pixels)."""

from __future__ import annotations

from typing import Any

import pytest

from buraco.notation import dumps
from buraco.selfplay import play_match

from .test_replay import open_replay, upload

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = (390, 844)
TOUCH = 44  # the usual smallest touch target, in CSS pixels
TWO_HANDS = dumps(play_match("cerrado", players=2, hands=2, seed=3))


def box(page: Any, selector: str) -> dict[str, float]:
    found = page.locator(selector).first.bounding_box()
    assert found is not None, f"{selector} is not laid out"
    return dict(found)


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def test_a_one_hand_matchs_chart_leaves_the_controls_near_the_top_on_a_phone(new_page: Any, player: Any) -> None:
    page = new_page(*PHONE)
    match_id = upload(page, player)  # test_replay's record: one hand
    open_replay(page, match_id)
    chart = box(page, "#match-chart")
    controls = box(page, ".controls")
    # Before: the chart was drawn 90 px tall and the controls began 266 px down the page.
    assert chart["height"] <= 32, chart
    assert controls["y"] <= PHONE[1] / 4, controls
    assert controls["y"] - (chart["y"] + chart["height"]) <= 16, "nothing else between the chart and the controls"
    # Folded, not gone: its summary says the totals, and opening it draws the chart.
    summary = page.inner_text("#match-chart summary")
    assert "825" in summary and "620" in summary and "3000" in summary, summary
    page.click("#match-chart summary")
    assert box(page, "#match-chart svg")["height"] > 60
    assert page.errors == []


def test_the_replay_controls_are_touch_sized_on_a_phone(new_page: Any, player: Any) -> None:
    page = new_page(*PHONE)
    match_id = upload(page, player)
    open_replay(page, match_id)
    controls = page.locator(".controls button, .controls select").all()
    assert len(controls) == 10  # seven steps, play among them, the speed, the view, the keys
    for control in controls:
        size = control.bounding_box()
        assert size is not None
        # Before: 35 x 35 px buttons and 19 px tall selects.
        assert size["height"] >= TOUCH and size["width"] >= TOUCH, (control.get_attribute("aria-label"), size)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]


def test_the_match_charts_target_label_sits_on_no_line(new_page: Any, player: Any) -> None:
    desktop = new_page(1280, 900)
    match_id = upload(desktop, player, TWO_HANDS)
    phone = new_page(*PHONE)
    phone.context.add_cookies(desktop.context.cookies())
    for page in (phone, desktop):
        open_replay(page, match_id)
        drawn = page.evaluate("""() => {
          const chart = document.querySelector('#match-chart svg');
          const texts = [...chart.querySelectorAll('text')];
          const rect = (node) => { const r = node.getBoundingClientRect(); return {x: r.x, y: r.y, width: r.width, height: r.height}; };
          return {
            label: rect(texts.find((t) => t.textContent.trim() === 'target')),
            lines: [...chart.querySelectorAll('polyline, line.target')].map(rect),
            texts: texts.filter((t) => t.textContent.trim() !== 'target').map(rect),
          };
        }""")
        label = drawn["label"]
        assert label["width"] > 0
        # Before: "target" was drawn at the lines' right end, where the leading side's line meets it.
        plot_left = min(line["x"] for line in drawn["lines"])
        assert label["x"] + label["width"] <= plot_left, (page.viewport_size, label, plot_left)
        assert not any(overlap(label, text) for text in drawn["texts"]), (page.viewport_size, label)
        assert page.errors == []
