"""One fuzz target per parser and judge: never a crash, always a clear error."""

from __future__ import annotations

import random

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from buraco.actions import ActionSyntaxError, parse_action
from buraco.cards import CARD_TEXT, CARDS, JOKER, card_of
from buraco.errors import IllegalActionError, NotationError
from buraco.melds import CardToken, resolve_add, resolve_meld
from buraco.notation import loads
from buraco.rules import VARIANTS
from buraco.selfplay import deal_cards
from buraco.state import HandState

CARD_WORDS = st.sampled_from([*CARD_TEXT, "10h", "jk", "1h", "2x", "", "JK=4h", "2c>low", "Ah>high", "7h=8h"])
TOKENS = st.builds(
    CardToken,
    st.sampled_from(CARDS),
    st.one_of(st.just(-1), st.sampled_from(CARDS)),
    st.sampled_from((0, 1, 2)),
)
RULES = st.sampled_from(list(VARIANTS.values()))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_it_reads_any_text_or_says_where_it_is_wrong(text: str) -> None:
    try:
        loads(text)
    except NotationError as error:
        assert error.message


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(CARD_WORDS, st.sampled_from(["p1", "p2", "p9", "draw", "take", "meld", "add", "m1", "dead",
                                                        "discard", "3", "0"])), max_size=6))
def test_it_parses_any_action_text_or_points_into_it(words: list[str]) -> None:
    text = " ".join(words)
    try:
        action = parse_action(text, 4)
    except ActionSyntaxError as error:
        assert 0 <= error.offset <= len(text)
        return
    assert parse_action(action.canonical(), 4).canonical() == action.canonical()


@settings(max_examples=500, deadline=None)
@given(RULES, st.lists(TOKENS, max_size=8))
def test_it_judges_any_meld(variant: object, tokens: list[CardToken]) -> None:
    try:
        shape = resolve_meld(tokens, variant)  # type: ignore[arg-type]
    except IllegalActionError as error:
        assert error.message
        return
    assert sorted(shape.cards) == sorted(t.card for t in tokens)
    assert shape.wild_index < len(shape.cards)


@st.composite
def meld_like(draw: st.DrawFn) -> list[CardToken]:
    """Mostly legal melds to lay off on: a run or a set of naturals, one card maybe
    replaced by a wild naming its place. Random tokens made a legal meld one time in a
    hundred, so the lay-off property judged about five lay-offs in 500 examples."""
    if draw(st.booleans()):  # a run
        suit = draw(st.integers(0, 3))
        low = draw(st.integers(1, 12))
        length = draw(st.integers(3, min(7, 15 - low)))
        cards = [card_of(p, suit) for p in range(low, low + length)]
    else:
        rank = draw(st.sampled_from([1, *range(3, 14)]))
        suits = draw(st.lists(st.integers(0, 3), min_size=3, max_size=5))
        cards = [CARDS[(rank - 1) * 4 + s] for s in suits]
    tokens = [CardToken(c) for c in cards]
    if draw(st.booleans()):
        at = draw(st.integers(0, len(tokens) - 1))
        wild = draw(st.sampled_from([JOKER, *(CARDS[4 + s] for s in range(4))]))
        tokens[at] = CardToken(wild, cards[at])
    return tokens


BASES = st.one_of(meld_like(), st.lists(TOKENS, min_size=3, max_size=6))


@settings(max_examples=500, deadline=None)
@given(RULES, BASES, st.lists(TOKENS, min_size=1, max_size=4))
def test_it_judges_any_lay_off(variant: object, base: list[CardToken], added: list[CardToken]) -> None:
    try:
        shape = resolve_meld(base, variant)  # type: ignore[arg-type]
    except IllegalActionError:
        assume(False)  # no meld to lay off on: counted by hypothesis, not passed
        raise
    try:
        result = resolve_add(shape, added, variant)  # type: ignore[arg-type]
    except IllegalActionError as error:
        assert error.message
        return
    laid = [t.card for i, t in enumerate(added) if i != result.directive]
    assert sorted(result.shape.cards) == sorted([*shape.cards, *laid])
    if result.shape.is_run:
        assert 1 <= result.shape.low and result.shape.high <= 14


@settings(max_examples=200, deadline=None)
@given(RULES, st.integers(0, 2**32 - 1), st.lists(st.integers(0, 10**6), min_size=1, max_size=60))
def test_it_refuses_random_actions_with_a_sentence(variant: object, seed: int, picks: list[int]) -> None:
    rules = variant
    players = min(rules.player_counts)  # type: ignore[attr-defined]
    dealt, dead, discard, stock = deal_cards(rules, players, random.Random(seed))  # type: ignore[arg-type]
    state = HandState.deal(rules, players, players, dealt, dead, discard, stock)  # type: ignore[arg-type]
    verbs = ["draw", "take", "take 2", "dead", "discard {a}", "meld {a} {b} {c}", "add m1 {a}", "add m2 {a} {b}"]
    rng = random.Random(seed)
    for pick in picks:
        seat = state.turn if pick % 7 else 1 + pick % players  # mostly the player to act
        hand = state.hand_of(seat) or [CARDS[0]]
        a, b, c = (CARD_TEXT[rng.choice(hand)] for _ in range(3))
        text = f"p{seat} " + verbs[pick % len(verbs)].format(a=a, b=b, c=c)
        try:
            state.apply(parse_action(text, players))
        except IllegalActionError as error:
            assert error.message
        held = sum(state.hand_sizes[1:])
        on_table = sum(len(m.shape.cards) for m in state.melds)
        dead_cards = sum(len(p) for p in state.dead)
        assert held + on_table + dead_cards + len(state.discard_pile) + state.stock_count == rules.deck_size  # type: ignore[attr-defined]
