"""A small scorer written apart from the engine's, from the tables of rules.md section 3
and the fine points of section 4, to check the scores self-play claims.

It imports nothing of buraco's scoring (no ``buraco.scoring``, no ``canasta_kind`` nor
``canasta_bonus``, no ``Variant.card_values`` nor bonus fields): it reads the record's
action texts and, for the table at the end of the hand, only what the engine's replay
lays out (each meld's cards low to high, run or set, its first position, and the cards
left in each hand, one entry per card held, duplicates included). Whether a meld holds
a wild, which canasta it is, who laid which card, who went out and which penalties are
due is judged here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from buraco.cards import JOKER_CODE, Card
from buraco.notation import Record
from buraco.replay import replay_hand

SETS_000 = ("abierto", "abierto-sucio", "cerrado", "cerrado-stcl", "cerrado-sucio")

# rules.md 3, card values: 3-7, 8-K, A, 2, joker (brasil: 3..10 at face value)
VALUES = {
    "abierto": (5, 10, 15, 10, 20),
    "abierto-sucio": (5, 10, 15, 20, 30),
    "cerrado": (5, 10, 15, 10, 20),
    "cerrado-stcl": (5, 10, 15, 10, 20),
    "cerrado-sucio": (5, 10, 15, 10, 20),
    "burraco": (5, 10, 15, 20, 30),
    "fechado-stbl": (5, 10, 15, 10, 50),
    "brasil": (None, 10, 15, 2, 20),
    "burraco-106": (5, 10, 15, 20, 30),
}
# rules.md 3, bonuses: dirty, clean, A..K clean, A..A clean (None: no such bonus, the plain clean one)
BONUSES = {
    "abierto": (100, 200, 500, 1000),
    "cerrado": (100, 200, 500, 1000),
    "cerrado-stcl": (100, 200, 500, 1000),
    "cerrado-sucio": (100, 200, 500, 1000),
    "abierto-sucio": (100, 200, 500, None),
    "burraco": (100, 200, None, None),
    "fechado-stbl": (100, 200, 500, 1000),  # only when laid in one meld action
    "brasil": (100, 200, None, None),
    "burraco-106": (100, 200, None, None),
}
GOING_OUT = 100
WITH_DEAD_PILES = ("abierto", "abierto-sucio", "cerrado", "cerrado-stcl", "cerrado-sucio", "burraco",
                   "fechado-stbl", "burraco-106")
DEAD_NOT_TAKEN = 100  # every set with dead piles
DEAD_UNPLAYED = {"abierto": 100, "cerrado": 100, "cerrado-stcl": 100, "cerrado-sucio": 100}


def rank_suit(card: int) -> tuple[int, int]:
    """(rank 1..13, suit 0..3), (0, -1) for the joker; cards are (rank - 1) * 4 + suit."""
    if card == JOKER_CODE:
        return 0, -1
    return card // 4 + 1, card % 4


def value(variant: str, card: int) -> int:
    low, high, ace, two, joker = VALUES[variant]
    rank, _ = rank_suit(card)
    if rank == 0:
        return joker
    if rank == 1:
        return ace
    if rank == 2:
        return two
    if low is None:  # brasil's face values
        return rank if rank <= 10 else high
    return low if rank <= 7 else high


def wilds_in(cards: Sequence[int], is_run: bool, low: int) -> int:
    """Cards not standing in their own place: jokers, and 2s other than a run's natural 2."""
    if not is_run:
        return sum(1 for c in cards if rank_suit(c)[0] in (0, 2))
    suit = Counter(rank_suit(c)[1] for c in cards if c != JOKER_CODE).most_common(1)[0][0]
    wild = 0
    for offset, card in enumerate(cards):
        position = low + offset
        rank, card_suit = rank_suit(card)
        natural = card_suit == suit and (rank == position or (position == 14 and rank == 1))
        wild += not natural
    return wild


def one_action_run(meld_text: Sequence[str]) -> int:
    """13 for a meld action laying A..K of one suit, 14 for A..A, else 0."""
    laid = [Card.parse(word.split("=")[0]) for word in meld_text]
    if len(laid) not in (13, 14) or JOKER_CODE in laid:
        return 0
    suits = {rank_suit(c)[1] for c in laid}
    ranks = sorted(rank_suit(c)[0] for c in laid)
    if len(suits) != 1:
        return 0
    if len(laid) == 13 and ranks == list(range(1, 14)):
        return 13
    if len(laid) == 14 and ranks == [1, 1, *range(2, 14)]:
        return 14
    return 0


def canasta(variant: str, cards: Sequence[int], is_run: bool, low: int, laid_in_one: int) -> int:
    if len(cards) < 7:
        return 0
    dirty, clean, ace_king, ace_ace = BONUSES[variant]
    if wilds_in(cards, is_run, low):
        return dirty
    if not is_run or low != 1:
        return clean
    high = low + len(cards) - 1
    if variant == "fechado-stbl":  # rules.md 4: every card of the A..K (or A..A) from one meld action
        if high == 14 and laid_in_one == 14:
            return ace_ace  # type: ignore[return-value]
        if high in (13, 14) and laid_in_one in (13, 14):
            return ace_king  # type: ignore[return-value]
        return clean
    if high == 14 and ace_ace is not None:
        return ace_ace
    if high == 13 and ace_king is not None:
        return ace_king
    return clean


def hand_scores(record: Record, index: int) -> list[int]:
    """Each side's score of a finished hand, worked out from the rules' tables."""
    variant = record.variant
    sides = record.sides
    side_of = {seat: number for number, seats in enumerate(sides) for seat in seats}
    state = replay_hand(record, index)
    assert state.is_over
    actions = [text.split() for text in record.hands[index].actions]
    seats = [int(words[0][1:]) for words in actions]
    totals = [0] * len(sides)
    meld_actions = [(seat, words) for seat, words in zip(seats, actions) if words[1] == "meld"]
    assert len(meld_actions) == len(state.melds)
    for (owner, words), meld in zip(meld_actions, state.melds):
        shape = meld.shape
        totals[side_of[owner]] += canasta(variant, shape.cards, shape.is_run, shape.low, one_action_run(words[2:]))
        if variant != "brasil":  # a side lays off on its own melds only: all their cards are its own
            totals[side_of[owner]] += sum(value(variant, c) for c in shape.cards)
    if variant == "brasil":  # each card scores for the player who laid it (a fixed wild never moves)
        for seat, words in zip(seats, actions):
            laid = words[2:] if words[1] == "meld" else words[3:] if words[1] == "add" else []
            totals[side_of[seat]] += sum(value(variant, Card.parse(w.split("=")[0].split(">")[0])) for w in laid)
    for seat in range(1, len(record.players) + 1):
        held = state.hand_of(seat)  # one entry per card: a card held twice is there twice
        totals[side_of[seat]] -= sum(value(variant, c) for c in held)
        if not held:  # the only way to an empty hand at the end is going out (rules.md 1)
            totals[side_of[seat]] += GOING_OUT
    if variant in WITH_DEAD_PILES:
        for number, side_seats in enumerate(sides):
            if not any(s in side_seats and words[1] == "dead" for s, words in zip(seats, actions)):
                totals[number] -= DEAD_NOT_TAKEN
        for position, (seat, words) in enumerate(zip(seats, actions)):
            indirect = words[1] == "dead" and position > 0 and actions[position - 1][1] == "discard"
            if indirect and seat not in seats[position + 1:]:  # the taker had no turn after it
                totals[side_of[seat]] -= DEAD_UNPLAYED.get(variant, 0)
    return totals
