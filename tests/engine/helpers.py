"""Builders for the rules tests: small, targeted deals and scripted turns.

``deal("cerrado", ["3c 4c 5c", "9h"], stock="Kd 7s")`` gives a legal two-player
HandState: each hand is the named cards padded with harmless filler up to the
rule set's hand size, the dead piles are filled up, and every remaining card of
the deck goes into the stock below the named top cards. Filler cards never sit
within two places of a same-suit card of the hand (or of the first discard) and,
where the hand size allows (not burraco's 13 cards), never share a rank with one:
they make no meld with each other or with the named cards. Tests whose point
depends on every card of a hand name every card. ``act``/``play`` apply action
strings and log them, so a played hand can be written back as a BRN record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from weakref import WeakKeyDictionary

from buraco.actions import parse_action, parse_token
from buraco.cards import CARD_KINDS, CARD_TEXT, CARDS, JOKER_CODE, RANK_OF, SUIT_OF, Card, deck_counts, parse_cards
from buraco.melds import CardToken, Shape, resolve_add, resolve_meld
from buraco.notation import loads
from buraco.rules import VARIANTS, Variant
from buraco.scoring import SideScore, score_hand
from buraco.state import HandState

ALL_IDS = tuple(VARIANTS)
SETS_000 = ("abierto", "abierto-sucio", "cerrado", "cerrado-stcl", "cerrado-sucio")
WITH_DEAD = tuple(v.id for v in VARIANTS.values() if v.dead_piles)


def V(variant_id: str) -> Variant:
    return VARIANTS[variant_id]


def cards(text: str) -> list[Card]:
    return parse_cards(text)


def _cards(value: str | Sequence[Card] | None) -> list[Card]:
    if value is None:
        return []
    if isinstance(value, str):
        return parse_cards(value)
    return list(value)


def _distance(a: int, b: int) -> int:
    """Places between two ranks in a run, an ace counting low or high."""
    options = [abs(a - b)]
    if a == 1:
        options.append(abs(14 - b))
    if b == 1:
        options.append(abs(a - 14))
    return min(options)


def _clashes(candidate: Card, held: Sequence[Card], pairs: bool = False) -> bool:
    same_rank = 0
    for card in held:
        if card == JOKER_CODE or RANK_OF[card] == 2:
            continue
        if RANK_OF[card] == RANK_OF[candidate]:
            same_rank += 1
            if not pairs or SUIT_OF[card] == SUIT_OF[candidate] or same_rank > 1:
                return True
            continue
        if SUIT_OF[card] == SUIT_OF[candidate] and _distance(RANK_OF[card], RANK_OF[candidate]) <= 2:
            return True
    return False


# Filler candidates: aces and 3..K, the suit turning with the rank.
_FILLER_ORDER: tuple[Card, ...] = tuple(
    CARDS[(rank - 1) * 4 + (j + shift) % 4]
    for shift in range(4)
    for j, rank in enumerate((13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 1))
)


def _search(
    hand_size: int, context: list[Card], chosen: list[Card], used: list[int], start: int, pairs: bool, budget: list[int]
) -> bool:
    """Depth-first choice of filler cards; ``chosen`` holds the answer on success."""
    if hand_size == len(chosen):
        return True
    budget[0] -= 1
    if budget[0] < 0:
        return False
    if not pairs:
        free_ranks = {1, *range(3, 14)} - {RANK_OF[c] for c in context + chosen if c != JOKER_CODE}
        if len(free_ranks) < hand_size - len(chosen):
            return False
    for index in range(start, len(_FILLER_ORDER)):
        candidate = _FILLER_ORDER[index]
        if used[candidate] and not _clashes(candidate, context + chosen, pairs):
            chosen.append(candidate)
            used[candidate] -= 1
            if _search(hand_size, context, chosen, used, index + 1, pairs, budget):
                return True
            used[candidate] += 1
            chosen.pop()
    return False


def _pad(hand: list[Card], context: list[Card], size: int, left: list[int]) -> list[Card] | None:
    """Filler cards bringing ``hand`` to ``size``: none clashing with ``context``."""
    need = size - len(hand)
    for pairs in (False, True):
        chosen: list[Card] = []
        if _search(need, context, chosen, list(left), 0, pairs, [5000]):
            return chosen
    # Last resort (four 13-card hands): any non-wild cards still in the deck.
    spare = [c for c in _FILLER_ORDER for _ in range(left[c])]
    return spare[:need] if len(spare) >= need else None


@dataclass
class Deal:
    variant: Variant
    players: int
    dealer: int
    dealt: list[list[Card]]
    dead: list[list[Card]]
    discard: Card | None
    stock: list[Card] | None = field(default=None)

    def state(self) -> HandState:
        return HandState.deal(self.variant, self.players, self.dealer, self.dealt, self.dead, self.discard, self.stock)

    def hand_table(self, actions: Sequence[str] = (), result: str | None = None, dealer: int | None = None) -> str:
        lines = ["[[hands]]", f"dealer = {dealer or self.dealer}"]
        lines.append("dealt = [" + ", ".join(f'"{_text(h)}"' for h in self.dealt) + "]")
        if self.dead:
            lines.append("dead = [" + ", ".join(f'"{_text(p)}"' for p in self.dead) + "]")
        if self.discard is not None:
            lines.append(f'discard = "{CARD_TEXT[self.discard]}"')
        if self.stock is not None:
            lines.append(f'stock = "{_text(self.stock)}"')
        lines.append("actions = [" + ", ".join(f'"{a}"' for a in actions) + "]")
        if result is not None:
            lines.append(f"result = {result}")
        return "\n".join(lines) + "\n"


def _text(cards: Sequence[Card]) -> str:
    return " ".join(CARD_TEXT[c] for c in cards)


def build(
    variant_id: str,
    hands: Sequence[str | Sequence[Card]],
    *,
    dead: Sequence[str | Sequence[Card]] | None = None,
    discard: str | None = None,
    stock: str = "",
    dealer: int | None = None,
    players: int | None = None,
) -> Deal:
    """A complete, legal deal: named cards where given, the rest filled in.

    ``stock`` names the top cards of the stock, top first; ``dealer`` defaults to
    the last seat, so that p1 plays first. ``discard`` defaults to a harmless card
    where the rule set turns one up.
    """
    variant = VARIANTS[variant_id]
    players = players or len(hands)
    dealer = dealer or players
    left = deck_counts(variant.jokers)

    def take(card: Card) -> None:
        if left[card] <= 0:
            raise ValueError(f"builder: no {CARD_TEXT[card]} left in the {variant.deck_size}-card deck")
        left[card] -= 1

    named_hands = [_cards(h) for h in hands] + [[] for _ in range(players - len(hands))]
    named_dead = [_cards(p) for p in (dead or [])]
    named_dead += [[] for _ in range(variant.dead_piles - len(named_dead))]
    top = _cards(stock)
    first = Card.parse(discard) if discard else None
    for group in (*named_hands, *named_dead, top, [first] if first is not None else []):
        for card in group:
            take(card)
    if variant.first_discard and first is None:
        first = next(c for c in (Card.parse(t) for t in ("Ks", "Kh", "Qs")) if left[c] > 0)
        take(first)
    for seat, hand in enumerate(named_hands, start=1):
        if len(hand) > variant.hand_size:
            raise ValueError(f"builder: p{seat} named {len(hand)} cards; {variant.id} deals {variant.hand_size}")
        context = list(hand) + ([first] if first is not None else [])
        filler = _pad(hand, context, variant.hand_size, left)
        if filler is None:
            raise ValueError(f"builder: cannot pad p{seat}'s hand harmlessly; name more cards")
        for card in filler:
            take(card)
        hand.extend(filler)
    rest = [CARDS[c] for c in range(CARD_KINDS - 1, -1, -1) for _ in range(left[c])]
    for pile in named_dead:
        while len(pile) < variant.dead_pile_size:
            pile.append(rest.pop())
    return Deal(variant, players, dealer, named_hands, named_dead, first, top + rest)


def deal(variant_id: str, hands: Sequence[str | Sequence[Card]], **options: object) -> HandState:
    return build(variant_id, hands, **options).state()  # type: ignore[arg-type]


# Every action applied through these helpers, per table: records are built from it.
LOGS: WeakKeyDictionary[HandState, list[str]] = WeakKeyDictionary()


def play(state: HandState, *actions: str) -> HandState:
    """Apply each action string in turn."""
    for text in actions:
        act(state, text)
    return state


def act(state: HandState, text: str):  # noqa: ANN201
    operation = state.apply(parse_action(text, state.players))
    LOGS.setdefault(state, []).append(text)
    return operation


def actions_of(state: HandState) -> list[str]:
    return list(LOGS.get(state, []))


def hand(state: HandState, seat: int) -> list[str]:
    return sorted(CARD_TEXT[c] for c in state.hand_of(seat))


def empty_by_discard(state: HandState, seat: int, melds: Sequence[str]) -> None:
    """Draw, meld everything held, discard the card drawn."""
    drawn = state.stock[-1]
    act(state, f"p{seat} draw")
    for meld in melds:
        act(state, f"p{seat} meld {meld}")
    act(state, f"p{seat} discard {CARD_TEXT[drawn]}")


def pass_turn(state: HandState) -> None:
    """The player to move draws and discards the card drawn."""
    seat = state.turn
    drawn = state.stock[-1]
    act(state, f"p{seat} draw")
    act(state, f"p{seat} discard {CARD_TEXT[drawn]}")


def burn_stock(state: HandState, *, through_dead: bool = False) -> None:
    """Each player in turn draws and discards the card drawn, until the stock is
    empty. Dead piles that then move into the stock are burnt too only with
    ``through_dead``; otherwise burning stops as soon as they have moved in."""
    while not state.is_over and state.stock_count > 0:
        seat = state.turn
        card = CARD_TEXT[state.stock[-1]]
        piles = len(state.dead)
        act(state, f"p{seat} draw")
        act(state, f"p{seat} discard {card}")
        if len(state.dead) < piles and not through_dead:
            return


def end_by_stock(state: HandState) -> None:
    """Burn the stock (and the dead piles that move into it); the hand ends."""
    burn_stock(state, through_dead=True)
    state.finish_by_stock()
    assert state.is_over


def tokens(text: str) -> list[CardToken]:
    return [parse_token(word) for word in text.split()]


def meld_shape(variant_id: str, text: str) -> Shape:
    return resolve_meld(tokens(text), VARIANTS[variant_id])


def add_shape(variant_id: str, meld: str, added: str) -> Shape:
    variant = VARIANTS[variant_id]
    return resolve_add(resolve_meld(tokens(meld), variant), tokens(added), variant).shape


def layout(shape: Shape) -> str:
    """The meld low to high, the wild written with its stand-in: ``5h 2c=6h 7h``."""
    words = []
    for index, card in enumerate(shape.cards):
        word = CARD_TEXT[card]
        if index == shape.wild_index:
            word += "=" + (shape.stand_in() or "?")
        words.append(word)
    return " ".join(words)


def scores(state: HandState) -> list[SideScore]:
    return score_hand(state)


# A hand table that reads (a record holds at least one hand) but is never replayed:
# for tests about the match's own keys.
ANY_HAND = "[[hands]]\ndealer = 1\ndealt = []\nactions = []\n"


def record(variant_id: str, players: int, hand_tables: Sequence[str], extra: str = "") -> str:
    names = ", ".join(f'"P{i}"' for i in range(1, players + 1))
    head = f'brn = 1\nvariant = "{variant_id}"\nplayers = [{names}]\n{extra}\n'
    return head + "\n".join(hand_tables)


def load_record(variant_id: str, players: int, hand_tables: Sequence[str], extra: str = ""):  # noqa: ANN201
    return loads(record(variant_id, players, hand_tables, extra))
