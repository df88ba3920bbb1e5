"""The replay page in a real browser: the table it draws is the engine's timeline.

Each test logs in, uploads a self-play record through the upload page (verified and
analysed in process), and drives /matches/{id}/hands/{n}/replay/ with the keyboard.
Screenshots of the page go to docs/screenshots/ (README, "Replay").
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import Resolver404, resolve

from buraco.analysis import SEVERITIES, analyze
from buraco.analysis.witness import replay_witness, witness_start
from buraco.notation import dumps, loads
from buraco.replay import timeline, verify
from buraco.selfplay import play_match
from records.models import Match

from .conftest import PASSWORD, ROOT

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENSHOTS = ROOT / "docs" / "screenshots"
# One hand of 213 plies with findings of every turn kind (missed canastas, dangerous discards).
RECORD = dumps(play_match("cerrado", players=2, hands=1, seed=1, mistakes=0.3))


def upload(page: Any, player: Any, text: str = RECORD, verified: str = "verified") -> int:
    """Log in and upload through the pages; the match's id once it is verified."""
    page.goto("/accounts/login/")
    page.fill("#id_username", player.username)
    page.fill("#id_password", PASSWORD)
    page.locator("main form button, main form input[type=submit]").first.click()
    page.wait_for_url(re.compile(r"/$"))
    page.goto("/upload/")
    page.set_input_files("input[type=file]", files=[{"name": "hand.brn", "mimeType": "text/plain", "buffer": text.encode()}])
    page.locator("main form button[type=submit], main form input[type=submit]").first.click()
    page.wait_for_url(re.compile(r"/matches/\d+/$"))
    match_id = int(re.search(r"/matches/(\d+)/", page.url).group(1))  # type: ignore[union-attr]
    assert Match.objects.with_status().get(pk=match_id).status == verified
    return match_id


def open_replay(page: Any, match_id: int, hand: int = 1, query: str = "") -> None:
    page.goto(f"/matches/{match_id}/hands/{hand}/replay/{query}")
    page.wait_for_selector("#replay[data-ready=true]")


def shown_ply(page: Any) -> int:
    return int(page.get_attribute("#replay", "data-ply"))


def table_of(page: Any) -> dict[str, Any]:
    """What the page draws: each seat's face-up cards and count, melds, discard, stock, scores."""
    return page.evaluate(
        """() => {
      const cards = (root) => [...root.querySelectorAll('.pc[data-card]')].map((c) => c.dataset.card);
      const table = document.getElementById('table');
      const seats = {};
      for (const seat of table.querySelectorAll('.seat')) {
        seats[seat.dataset.seat] = {cards: cards(seat), shown: seat.querySelectorAll('.pc').length,
                                    hidden: seat.classList.contains('hidden-hand')};
      }
      const melds = [...table.querySelectorAll('.meld')].map((m) => ({
        id: m.dataset.meld, side: Number(m.closest('.side').dataset.side), cards: cards(m),
        stand_ins: [...m.querySelectorAll('.pc.wild')].map((c) => c.getAttribute('aria-label')),
      }));
      const running = [...table.querySelectorAll('[data-side-score]')].map((s) => s.textContent);
      return {seats, melds, discard: cards(document.getElementById('discard')),
              stock: Number(document.getElementById('stock-count').textContent), running,
              marked: [...table.querySelectorAll('.mark-new, .mark-thrown')].map((c) => c.dataset.card),
              fresh: [...table.querySelectorAll('.meld-new')].map((m) => m.dataset.meld)};
    }"""
    )


def assert_table_is(page: Any, state: dict[str, Any], view: int | None = None) -> None:
    drawn = table_of(page)
    for seat, cards in state["hands"].items():
        if view is None or int(seat) == view:
            assert drawn["seats"][seat]["cards"] == cards, f"seat {seat} at ply {state['ply']}"
        else:
            assert drawn["seats"][seat]["cards"] == [] and drawn["seats"][seat]["hidden"]
            assert drawn["seats"][seat]["shown"] == len(cards), "a face-down card for every card held"
    by_side = sorted(state["melds"], key=lambda m: m["side"])  # drawn side by side, in the order laid
    assert [(m["id"], m["side"], m["cards"]) for m in drawn["melds"]] == [(m["id"], m["side"], m["cards"]) for m in by_side]
    for meld, shown in zip(by_side, drawn["melds"]):
        wilds = [e for e in meld["layout"] if e.get("as")]
        assert len(shown["stand_ins"]) == len(wilds)
        for label in shown["stand_ins"]:  # "2 of hearts, standing for 6 of hearts" (a set's: "for a 7")
            assert re.fullmatch(r"(2 of \w+|joker), standing for (a \w+|\w+ of (clubs|diamonds|hearts|spades))( \(just played\))?", label), label
    assert drawn["discard"] == state["discard"]
    assert drawn["stock"] == state["stock"]
    assert [int(text.split()[0]) for text in drawn["running"]] == [r["melded"] for r in state["running"]]


def try_endpoint_exists() -> bool:
    try:
        resolve("/api/matches/1/hands/1/try/")
    except Resolver404:
        return False
    return True


needs_try = pytest.mark.skipif(
    not try_endpoint_exists(), reason="POST /api/matches/{id}/hands/{n}/try/ is not in this build yet"
)


def test_stepping_with_the_keys_shows_the_engines_timeline(new_page: Any, player: Any) -> None:
    page = new_page()
    match_id = upload(page, player)
    states = timeline(loads(RECORD), 0)
    open_replay(page, match_id)
    assert shown_ply(page) == 0
    assert_table_is(page, states[0])
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    assert shown_ply(page) == 5
    assert_table_is(page, states[5])
    page.keyboard.press("ArrowLeft")
    assert shown_ply(page) == 4
    assert_table_is(page, states[4])
    page.keyboard.press("End")
    assert shown_ply(page) == len(states) - 1
    assert_table_is(page, states[-1])
    page.keyboard.press("Home")
    assert shown_ply(page) == 0
    # Down jumps a whole turn: to the next draw or take.
    page.keyboard.press("ArrowDown")
    first_turn = shown_ply(page)
    page.keyboard.press("ArrowDown")
    second_turn = shown_ply(page)
    assert first_turn == 1 and second_turn > first_turn + 1
    verb = lambda ply: loads(RECORD).hands[0].actions[ply - 1].split()[1]  # noqa: E731
    assert verb(second_turn) in ("draw", "take")
    assert_table_is(page, states[second_turn])
    page.keyboard.press("ArrowUp")
    assert shown_ply(page) == first_turn
    # The move list jumps too, and the action played is highlighted.
    page.click(".move[data-ply='12'] a")
    assert shown_ply(page) == 12
    assert_table_is(page, states[12])
    action = loads(RECORD).hands[0].actions[11]
    assert action in page.inner_text("#last-action")
    assert page.get_attribute(".move.current a", "aria-current") == "step"
    if action.split()[1] == "discard":
        assert table_of(page)["marked"] == [action.split()[2]]
    # Cards say what they are.
    label = page.get_attribute("#discard .pc:last-child", "aria-label")
    assert re.match(r"^(ace|[2-9]|10|jack|queen|king) of (clubs|diamonds|hearts|spades)|^joker", label)
    page.keyboard.press("?")
    assert page.is_visible("#help")
    assert page.errors == []


def test_a_seat_view_hides_the_other_hands(new_page: Any, player: Any) -> None:
    page = new_page()
    match_id = upload(page, player)
    states = timeline(loads(RECORD), 0)
    open_replay(page, match_id, query="?ply=40")
    assert_table_is(page, states[40])
    page.keyboard.press("f")
    assert page.get_attribute("#replay", "data-view") == "1"
    assert_table_is(page, states[40], view=1)
    page.keyboard.press("ArrowRight")
    assert_table_is(page, states[41], view=1)
    page.keyboard.press("f")
    assert_table_is(page, states[41], view=2)
    assert "view=2" in page.url
    page.keyboard.press("f")
    assert page.get_attribute("#replay", "data-view") == "full"
    assert_table_is(page, states[41])


def test_a_deep_link_opens_that_ply_and_back_walks_the_plies_visited(new_page: Any, player: Any) -> None:
    page = new_page()
    match_id = upload(page, player)
    states = timeline(loads(RECORD), 0)
    open_replay(page, match_id, query="?ply=77")
    assert shown_ply(page) == 77
    assert_table_is(page, states[77])
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("End")
    assert page.url.endswith(f"?ply={len(states) - 1}")
    page.go_back()
    page.wait_for_function("document.getElementById('replay').dataset.ply === '79'")
    assert_table_is(page, states[79])
    page.go_back()
    page.wait_for_function("document.getElementById('replay').dataset.ply === '78'")
    page.go_forward()
    page.wait_for_function("document.getElementById('replay').dataset.ply === '79'")
    # The hash form opens the same moment.
    open_replay(page, match_id, query="#ply=30")
    assert shown_ply(page) == 30
    assert_table_is(page, states[30])
    # A link back to the match.
    assert page.get_attribute("#back-to-match", "href") == f"/matches/{match_id}/"


def test_findings_are_marked_and_n_p_jump_between_them(new_page: Any, player: Any) -> None:
    page = new_page()
    match_id = upload(page, player)
    findings = [f for f in analyze(loads(RECORD)) if f.ply is not None]
    open_replay(page, match_id)
    badges = page.locator(".move.has-finding")
    assert badges.count() == len({f.ply for f in findings})
    first = findings[0]
    label = f"{first.severity}: {first.kind} {first.points}" if first.severity else f"{first.kind} {first.points}"
    assert page.inner_text(f".move[data-ply='{first.ply}'] .finding-badge") == label
    page.keyboard.press("n")
    assert shown_ply(page) == first.ply
    assert first.message in page.inner_text("#finding-panel")
    page.keyboard.press("n")
    assert shown_ply(page) == findings[1].ply
    page.keyboard.press("p")
    assert shown_ply(page) == first.ply


def test_b_m_i_jump_to_the_next_finding_at_least_that_grave_and_shifted_back(new_page: Any, player: Any) -> None:
    page = new_page()
    match_id = upload(page, player)
    findings = [f for f in analyze(loads(RECORD)) if f.ply is not None]
    graded = {f.severity for f in findings if f.severity}
    assert len(graded) >= 2, f"the record should have findings of two severities at least: {graded}"
    for key, least in (("b", "blunder"), ("m", "mistake"), ("i", "inaccuracy")):
        plies = sorted({f.ply for f in findings if f.severity in SEVERITIES[SEVERITIES.index(least):]})
        open_replay(page, match_id)
        for ply in plies[:3]:
            page.keyboard.press(key)
            assert shown_ply(page) == ply, (key, plies)
        if len(plies) >= 2:
            page.keyboard.press(key.upper())
            assert shown_ply(page) == plies[min(len(plies), 3) - 2], (key.upper(), plies)
        if not plies:
            page.keyboard.press(key)
            assert shown_ply(page) == 0  # nothing that grave: the replay stays where it is


def test_the_match_page_leads_with_each_hands_key_moments_linked_to_the_replay(new_page: Any, player: Any) -> None:
    page = new_page()
    match_id = upload(page, player)
    findings = analyze(loads(RECORD))
    page.goto(f"/matches/{match_id}/")
    key = page.locator("#findings-hand-1 .key-moments > li")
    heaviest = sorted(findings, key=lambda f: -(f.points or 0))[:3]
    assert key.count() == 3
    assert sorted(int(li.inner_text().split(" points")[0].split()[-1]) for li in key.all()) == sorted(
        f.points or 0 for f in heaviest
    )
    # The rest are folded by kind, each group closed until opened.
    groups = page.locator("#findings-hand-1 details.finding-group")
    assert sum(len(g.locator("li.finding").all()) for g in groups.all()) == len(findings) - 3
    assert all(g.get_attribute("open") is None for g in groups.all())
    link = key.first.locator("a.ply-link")
    ply = int(link.inner_text().split()[-1])
    link.click()
    page.wait_for_selector("#replay[data-ready=true]")
    assert shown_ply(page) == ply
    # Narrowed to mistakes and worse: only those are listed.
    page.goto(f"/matches/{match_id}/?severity=mistake")
    shown = page.locator("#findings-hand-1 li.finding")
    assert shown.count() == sum(1 for f in findings if f.severity in ("mistake", "blunder")) > 0


@needs_try
def test_a_findings_better_play_is_stepped_through_beside_what_was_played(new_page: Any, player: Any) -> None:
    page = new_page()
    match_id = upload(page, player)
    record = loads(RECORD)
    finding = next(f for f in analyze(record) if f.kind == "missed-canasta" and f.witness)
    open_replay(page, match_id)
    while shown_ply(page) != finding.ply:
        page.keyboard.press("n")
    page.click("#finding-panel .show-witness")
    box = page.locator("#witness-area")
    box.locator(".witness-step").wait_for()
    steps = len(finding.witness)
    assert f"step {steps} of {steps}" in box.locator(".witness-step").inner_text()
    after = replay_witness(record, finding).to_json()
    witness_hand = box.locator(f".witness-table .seat[data-seat='{finding.seat}'] .pc[data-card]")
    assert [c.get_attribute("data-card") for c in witness_hand.all()] == after["hands"][str(finding.seat)]
    melds = box.locator(".witness-table .meld")
    assert melds.count() == len(after["melds"])
    # Step back to where the witness starts: the table at the turn's draw step.
    for _ in range(steps):
        box.locator("[data-step='-1']").click()
    assert "step 0 of" in box.locator(".witness-step").inner_text()
    start = timeline(record, 0)[witness_start(record, finding) - 1]
    start_hand = box.locator(f".witness-table .seat[data-seat='{finding.seat}'] .pc[data-card]")
    assert [c.get_attribute("data-card") for c in start_hand.all()] == start["hands"][str(finding.seat)]
    played = record.hands[0].actions[witness_start(record, finding) - 1]
    assert played in box.locator(".played-actions").inner_text()
    assert page.errors == []


@needs_try
def test_trying_another_play_shows_the_engines_answer_and_its_error(new_page: Any, player: Any) -> None:
    page = new_page()
    match_id = upload(page, player)
    states = timeline(loads(RECORD), 0)
    open_replay(page, match_id, query="?ply=0")
    seat = states[0]["turn"]
    page.click("#try-panel summary")
    page.fill("#try-actions", f"p{seat} draw\np{seat} draw")
    page.click("#try-form button[type=submit]")
    page.locator("#try-results .try-result").nth(1).wait_for()
    first, second = page.locator("#try-results .try-result").all()
    assert "played" in first.inner_text()
    hand = first.locator(f".seat[data-seat='{seat}'] .pc[data-card]")
    assert hand.count() == len(states[0]["hands"][str(seat)]) + 1
    assert "already drawn" in second.inner_text()
    assert "try-error" in (second.get_attribute("class") or "")
    assert shown_ply(page) == 0, "trying stores nothing and leaves the record where it was"
    page.fill("#try-actions", f"p{seat} meld 2x 3x")
    page.click("#try-form button[type=submit]")
    page.locator("#try-results .try-error").wait_for()
    assert page.locator("#try-results .try-error").inner_text().strip()


def test_a_long_hand_is_stepped_end_to_end_with_one_timeline_request(new_page: Any, player: Any) -> None:
    page = new_page()
    match_id = upload(page, player)
    states = timeline(loads(RECORD), 0)
    assert len(states) > 150
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    open_replay(page, match_id)
    for ply in range(1, len(states)):
        page.keyboard.press("ArrowRight")
        if ply % 50 == 0:
            assert shown_ply(page) == ply
            assert_table_is(page, states[ply])
    assert shown_ply(page) == len(states) - 1
    assert_table_is(page, states[-1])
    page.keyboard.press("Space")  # plays from the start again
    page.wait_for_function("Number(document.getElementById('replay').dataset.ply) >= 2")
    page.keyboard.press("Space")
    timelines = [url for url in requests if "/timeline/" in url]
    api = [url for url in requests if "/api/" in url]
    assert len(timelines) == 1, timelines
    assert len(api) == 2, api  # the timeline and the findings, once each
    assert page.errors == []


@pytest.mark.django_db(transaction=True, reset_sequences=True)  # match 1 on every run: the same pictures
def test_screenshots_of_the_replay(new_page: Any, player: Any) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page = new_page(1280, 900)
    match_id = upload(page, player)
    findings = [f for f in analyze(loads(RECORD)) if f.kind == "missed-canasta"]
    ply = findings[0].ply
    open_replay(page, match_id, query=f"?ply={ply}")
    page.screenshot(path=str(SCREENSHOTS / "replay-desktop.png"), full_page=True)
    page.keyboard.press("f")
    page.screenshot(path=str(SCREENSHOTS / "replay-desktop-seat.png"), full_page=True)
    page.keyboard.press("f")  # p2's view
    page.keyboard.press("f")  # every hand again
    if try_endpoint_exists():
        page.click("#finding-panel .show-witness")
        page.locator("#witness-area .witness-step").wait_for()
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(SCREENSHOTS / "replay-desktop-better-play.png"), full_page=True)
    phone = new_page(390, 844)
    phone.context.add_cookies(page.context.cookies())
    open_replay(phone, match_id, query=f"?ply={ply}")
    phone.screenshot(path=str(SCREENSHOTS / "replay-phone.png"), full_page=True)
    phone.keyboard.press("f")
    phone.screenshot(path=str(SCREENSHOTS / "replay-phone-seat.png"), full_page=True)
    for name in ("replay-desktop", "replay-desktop-seat", "replay-phone", "replay-phone-seat"):
        assert (SCREENSHOTS / f"{name}.png").stat().st_size > 10_000
    # At 390 px the page does not scroll sideways and a card stays readable.
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    width = phone.evaluate("document.querySelector('#table .pc[data-card]').getBoundingClientRect().width")
    assert width >= 28


def test_the_replay_page_is_read_as_the_match_is(new_page: Any, player: Any) -> None:
    page = new_page()
    match_id = upload(page, player)
    assert page.goto(f"/matches/{match_id}/hands/2/replay/").status == 404  # the record has one hand
    open_replay(page, match_id, query="?ply=9999&view=2")
    assert shown_ply(page) == len(timeline(loads(RECORD), 0)) - 1, "a ply past the end shows the last one"
    assert page.get_attribute("#replay", "data-view") == "2"
    stranger = new_page()
    assert stranger.goto(f"/matches/{match_id}/hands/1/replay/").status == 404
    Match.objects.filter(pk=match_id).update(share_token="browser-share-token")
    open_replay(stranger, match_id, query="?share=browser-share-token&ply=3")
    assert shown_ply(stranger) == 3
    assert "share=browser-share-token" in stranger.url
    assert stranger.get_attribute("#back-to-match", "href") == f"/matches/{match_id}/?share=browser-share-token"


def test_an_illegal_hand_is_replayed_to_its_first_illegal_action(new_page: Any, player: Any) -> None:
    record = play_match("cerrado", players=2, hands=1, seed=5)
    states = timeline(record, 0)
    ply, action = next((p, a) for p, a in enumerate(record.hands[0].actions, start=1) if a.split()[1] == "discard")
    seat = action.split()[0]
    held = states[ply - 1]["hands"][seat[1:]]
    card = next(c for c in ("JK", "2c", "2d", "Ah", "Ks", "7h") if c not in held)
    text = dumps(record).replace(f'"{action}"', f'"{seat} discard {card}"', 1)  # the first discard of the record
    error = verify(loads(text)).error
    assert error is not None and error.ply == ply
    page = new_page()
    match_id = upload(page, player, text, verified="invalid")
    open_replay(page, match_id, query="?ply=999")
    assert shown_ply(page) == ply - 1, "the last table is the one before the illegal action"
    assert_table_is(page, states[ply - 1])
    assert error.message in page.inner_text("#load-error")
    assert f"{seat} discard {card}" in page.inner_text(".illegal-move")
