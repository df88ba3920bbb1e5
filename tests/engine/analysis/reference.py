"""A reference for the analysis' searches: the search buraco.analysis.search replaced
(issue 13), kept to check the new one against. It plays every candidate on a copy of the
HandState (the state machine judges every step), bounds nothing but the canasta bonus,
and gives up past NODE_LIMIT tables (SearchLimit), so only the positions it settles are
compared.

Both walk plays from :mod:`buraco.moves` and apply them to copies of the table, so
every line they return is legal by the engine's own judgement. They use only what
the player holds and what is on the table: the stock and the dead piles never enter.

Why the canasta search may look only at plays that raise the side's canasta bonus
(and at plays that use a card taken from the pile): a meld changes only by plays
onto it, and a meld's canasta kind depends only on its final cards, so any line that
ends with more bonus holds, meld by meld, one play making each canasta better; the
other plays of the line only spend cards.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from weakref import WeakKeyDictionary

from buraco.actions import Action
from buraco.cards import CARD_KINDS, CARDS
from buraco.melds import canasta_bonus, canasta_kind
from buraco.moves import (
    Play,
    candidate_lay_offs,
    candidate_melds,
    discard_actions,
    lay_off_plays,
    may_extend,
    meld_plays,
    plays_using,
)
from buraco.scoring import score_hand
from buraco.state import DEAD_DIRECT_STEP, OUT, HandState

NODE_LIMIT = 3000  # tables one search may visit; past it the reference gives up


class SearchLimit(Exception):
    """A search visited NODE_LIMIT tables without settling: the caller says so, never silently."""


@dataclass(frozen=True)
class Line:
    """A legal way to play out the rest of a turn, and what it leaves."""

    actions: tuple[Action, ...]
    bonus: int  # the side's canasta bonus once the line is played
    state: HandState


def side_bonus(state: HandState, side: int) -> int:
    """The canasta bonus the side's melds hold now (0-based side)."""
    variant = state.variant
    return sum(canasta_bonus(m.kind(variant), variant) for m in state.melds if m.side == side)


def _key(state: HandState) -> tuple[object, ...]:
    seat = state.turn
    obligation = state.obligation.card if state.obligation is not None else -1
    return (tuple(state.hands[seat]), tuple(m.shape for m in state.melds), obligation, state.step)


def _after(state: HandState, action: Action) -> HandState:
    trial = state.copy()
    trial.apply(action)
    return trial


def _ending(state: HandState, prefer: int | None) -> Action | None:
    """The discard that ends the turn: the one the player really made when it is still
    legal, else the cheapest card that leaves a card in hand, else any legal one."""
    if state.is_over:
        return None
    options = list(discard_actions(state))
    if not options:
        return None
    for action in options:
        if action.cards[0] == prefer:
            return action
    values = state.variant.card_values
    keeping = state.hand_sizes[state.turn] > 1
    return min(options, key=lambda a: (not keeping, values[a.cards[0]], a.cards[0]))


def best_canasta_line(state: HandState, prefer_discard: int | None = None, to_beat: int = -1) -> Line | None:
    """From the play step, the line ending the turn with the most canasta bonus for the
    player's side (a legal discard, or going out by melding the last card).

    None when no line ends the turn without cards the player could not know (a dead
    pile), or when no line could end with more than ``to_beat``: the search starts only
    if a bound on the bonus (every meld made its best canasta, as many new canastas as
    the hand has cards for) beats it, and stops once a line reaches that bound.
    """
    seat = state.turn
    side = state.side_of[seat]
    bound = _bonus_bound(state, side)
    if bound <= to_beat:
        return None
    best: list[Line | None] = [None]
    seen: set[tuple[object, ...]] = set()

    def visit(node: HandState, line: tuple[Action, ...]) -> None:
        current = best[0]
        if current is not None and current.bonus >= bound:
            return
        key = _key(node)
        if key in seen:
            return
        seen.add(key)
        if len(seen) > NODE_LIMIT:
            raise SearchLimit("canasta")
        if node.is_over:
            if node.ended_by == OUT:
                _offer(best, Line(line, side_bonus(node, side), node))
            return
        if node.step == DEAD_DIRECT_STEP:
            return  # the line would go on with the dead pile's unknown cards
        if node.obligation is None:
            ending = _ending(node, prefer_discard)
            if ending is not None:
                final = _after(node, ending)
                _offer(best, Line((*line, ending), side_bonus(final, side), final))
        for play in _canasta_plays(node, side):
            visit(_after(node, play.action), (*line, play.action))

    visit(state, ())
    return best[0]


def _bonus_bound(state: HandState, side: int) -> int:
    """At least the most canasta bonus the side could hold at the end of this turn."""
    variant = state.variant
    best_new = 0
    gains: dict[int, int] = {}
    for play in _raising_plays(state, side):
        if play.meld == 0:
            best_new = max(best_new, canasta_bonus(canasta_kind(play.shape, variant, _ALL_POSITIONS), variant))
            continue
        meld = state.melds[play.meld - 1]
        gain = canasta_bonus(canasta_kind(play.shape, variant, meld.founding), variant) - canasta_bonus(
            meld.kind(variant), variant
        )
        gains[play.meld] = max(gains.get(play.meld, 0), gain)
    return side_bonus(state, side) + sum(gains.values()) + best_new * (state.hand_sizes[state.turn] // 7)


def _offer(best: list[Line | None], line: Line) -> None:
    current = best[0]
    if current is None or line.bonus > current.bonus or (line.bonus == current.bonus and len(line.actions) < len(current.actions)):
        best[0] = line


_RAISING: WeakKeyDictionary[HandState, list[Play]] = WeakKeyDictionary()


def _raising_plays(state: HandState, side: int) -> list[Play]:
    """The plays raising the side's canasta bonus, once per table (the bound, the canasta
    search and the going-out check all ask for them)."""
    plays = _RAISING.get(state)
    if plays is None:
        plays = _RAISING[state] = list(_canasta_plays(state, side, with_obligation=False))
    return plays


def _canasta_plays(state: HandState, side: int, with_obligation: bool = True) -> Iterator[Play]:
    """Plays that raise the side's canasta bonus, and while a card taken from the pile
    waits to be melded, every play that melds it."""
    variant = state.variant
    seen: set[str] = set()
    obligation = state.obligation
    if obligation is not None and with_obligation:
        for play in _least_obligation_plays(state, obligation.card):
            seen.add(play.action.text)
            yield play
    for play in meld_plays(state, min_length=7):
        if play.action.text not in seen and canasta_kind(play.shape, variant, _ALL_POSITIONS) is not None:
            seen.add(play.action.text)
            yield play
    own = [m.number for m in state.melds if m.side == side]  # another side's canasta is not ours
    for play in lay_off_plays(state, min_length=7, melds=own, held_gaps=True):
        meld = state.melds[play.meld - 1]
        was = canasta_bonus(meld.kind(variant), variant)
        if play.action.text not in seen and canasta_bonus(canasta_kind(play.shape, variant, meld.founding), variant) > was:
            seen.add(play.action.text)
            yield play


def _least_obligation_plays(state: HandState, card: int) -> list[Play]:
    """The plays meeting the pile's obligation, one per meld and cards spent.

    (Once only those spending no card beyond another's: unsound, as a play spending fewer
    cards may go onto a meld a later raise needs untouched: brasil 3p seed 57, where
    4s JK=5s on 6s..9s kept 6s..Qs from being clean, and JK=2s 3s 4s did not.)"""
    by_cards: dict[tuple[int, tuple[int, ...]], Play] = {}
    for play in plays_using(state, card, held_gaps=True):
        by_cards.setdefault((play.meld, tuple(sorted(play.cards))), play)
    return list(by_cards.values())


_ALL_POSITIONS = (1 << 15) - 1  # a new meld's cards all come from its own meld action


@dataclass(frozen=True)
class Exit:
    """A legal way to go out this turn, and the hand's score then."""

    actions: tuple[Action, ...]
    margin: int  # the side's score minus the best other side's
    scores: tuple[int, ...]
    state: HandState


def margin_of(scores: tuple[int, ...] | list[int], side: int) -> int:
    """The side's score minus the best other side's."""
    others = [s for i, s in enumerate(scores) if i != side]
    return scores[side] - max(others) if others else scores[side]


def best_exit(state: HandState) -> Exit | None:
    """From the play step, the way of going out this turn with the best margin for the
    player's side, or None when no legal line empties the hand by going out.

    Exact cover of the hand by melds and lay-offs: each step places the card with the
    fewest ways to be placed (one card may be kept back for the going-out discard), so
    every partition is tried once and dead ends show early.
    """
    seat = state.turn
    side = state.side_of[seat]
    variant = state.variant
    if variant.out_needs_dead and state.dead and not state.dead_taken[side]:
        return None  # emptying the hand would pick up a dead pile, whose cards are unknown
    if not _may_hold_going_out_canasta(state):
        return None
    # Exits differ in score only by the side's canasta bonus and the card thrown last (not
    # melded): one with the bonus bound that throws the cheapest card (or none) is best.
    values = variant.card_values
    bound = _bonus_bound(state, side)
    cheapest = 0 if variant.out_by_meld else min(values[c] for c in range(CARD_KINDS) if state.hands[seat][c])

    others = _others_bonus(state, side)

    def ideal(exit_: Exit) -> bool:
        last = exit_.actions[-1] if exit_.actions else None
        thrown = values[last.cards[0]] if last is not None and last.verb == "discard" else 0
        # In brasil a lay-off on another side's meld gives that side its cards' points (and
        # may complete its canasta), which lowers the margin: such an exit is never ideal.
        onto_others = any(a.verb == "add" and exit_.state.melds[a.meld - 1].side != side for a in exit_.actions)
        return (
            not onto_others and side_bonus(exit_.state, side) >= bound and thrown <= cheapest
            and _others_bonus(exit_.state, side) <= others
        )

    best: list[Exit | None] = [None]
    seen: set[tuple[object, ...]] = set()

    def finish(node: HandState, line: tuple[Action, ...]) -> None:
        if node.is_over and node.ended_by == OUT and node.out_by == seat:
            scores = tuple(p.total for p in score_hand(node))
            exit_ = Exit(line, margin_of(scores, side), scores, node)
            current = best[0]
            if current is None or exit_.margin > current.margin:
                best[0] = exit_

    def visit(node: HandState, line: tuple[Action, ...], kept: int) -> None:
        current = best[0]
        if current is not None and ideal(current):
            return
        key = (*_key(node), kept)
        if key in seen:
            return
        seen.add(key)
        if len(seen) > NODE_LIMIT:
            raise SearchLimit("going out")
        hand = node.hands[seat]
        if node.is_over or node.step != "play":
            finish(node, line)
            return
        if node.hand_sizes[seat] == 1 and kept >= 0 and hand[kept]:
            discard = Action(seat, "discard", (CARDS[kept],), (), 0, 0, f"p{seat} discard {CARDS[kept]}")
            if node.can_discard(seat, CARDS[kept]):
                finish(_after(node, discard), (*line, discard))
            return
        pivot, ways = _most_constrained(node, seat, kept)
        if pivot < 0:
            return
        if ways == 0:
            if kept < 0:
                visit(node, line, pivot)  # the one card that fits nowhere must be the last discard
            return
        if kept < 0:
            visit(node, line, pivot)  # keep the pivot back for the going-out discard
        for play in (*meld_plays(node, containing=pivot), *lay_off_plays(node, containing=pivot, held_gaps=True)):
            if kept >= 0 and _spends_kept(play, hand, kept):
                continue
            visit(_after(node, play.action), (*line, play.action), kept)

    visit(state, (), -1)
    return best[0]


def _others_bonus(state: HandState, side: int) -> int:
    return sum(side_bonus(state, other) for other in range(len(state.sides)) if other != side)


def _may_hold_going_out_canasta(state: HandState) -> bool:
    """Going out needs a canasta (clean in some sets; in ``brasil`` one's own): is one on
    the table, or can a play this turn make one?"""
    seat = state.turn
    side = state.side_of[seat]
    variant = state.variant

    def qualifies(node: HandState) -> bool:
        for meld in node.melds:
            if meld.side != side or (variant.lay_off_anyone and meld.owner != seat):
                continue
            kind = meld.kind(variant)
            if kind is not None and (kind != "dirty" or not variant.out_needs_clean):
                return True
        return False

    if qualifies(state):
        return True
    return any(qualifies(_after(state, play.action)) for play in _raising_plays(state, side))


def _most_constrained(state: HandState, seat: int, kept: int) -> tuple[int, int]:
    """The card still to place with the fewest candidate melds and lay-offs, and how
    many it has (0: no meld or lay-off could ever hold it, now or later in the turn: a
    card that fits only a meld laid this turn fits that meld's cards from the hand now)."""
    hand = state.hands[seat]
    variant = state.variant
    melds = [m.shape for m in state.melds if may_extend(state, seat, m.number)]
    best, fewest = -1, 1 << 30
    for card in range(CARD_KINDS):
        if hand[card] - (1 if card == kept else 0) <= 0:
            continue
        ways = 0
        for _ in candidate_melds(variant, hand, containing=card):
            ways += 1
            if ways >= fewest:
                break
        for shape in melds:
            if ways >= fewest:
                break
            for _ in candidate_lay_offs(variant, shape, hand, containing=card, held_gaps=True):
                ways += 1
                if ways >= fewest:
                    break
        if ways < fewest:
            best, fewest = card, ways
            if ways == 0:
                break
    return best, fewest


def _spends_kept(play: Play, hand: list[int], kept: int) -> bool:
    return sum(1 for c in play.cards if c == kept) > hand[kept] - 1
