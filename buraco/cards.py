"""Cards as small integers, so that hands, melds and comparisons stay cheap.

A card is an ``int`` subclass: ``(rank - 1) * 4 + suit`` for the 52 ranked cards
(ace is rank 1, king 13; suits ``c d h s`` are 0..3) and 52 for the joker. Every
card is interned, so ``Card.parse`` never allocates and identity equals equality.

>>> Card.parse("Th")
Card.parse('Th')
>>> Card.parse("10h") is Card.parse("th")
True
>>> Card.parse("JK").is_joker
True
"""

from __future__ import annotations

from typing import Final

RANK_LETTERS: Final = "A23456789TJQK"
SUIT_LETTERS: Final = "cdhs"
JOKER_CODE: Final = 52
CARD_KINDS: Final = 53

ACE: Final = 1
TWO: Final = 2
KING: Final = 13
HIGH_ACE: Final = 14  # position of an ace above the king in a run


class Card(int):
    """One card; compare, hash and index by its code."""

    __slots__ = ()

    @property
    def rank(self) -> int:
        """1 (ace) to 13 (king); 0 for the joker."""
        return _RANK_OF[self]

    @property
    def suit(self) -> int:
        """0..3 for c, d, h, s; -1 for the joker."""
        return _SUIT_OF[self]

    @property
    def is_joker(self) -> bool:
        return self == JOKER_CODE

    @property
    def is_two(self) -> bool:
        return _RANK_OF[self] == TWO

    @property
    def is_wild_kind(self) -> bool:
        """A joker or a 2: a card that may stand in for another."""
        return self == JOKER_CODE or _RANK_OF[self] == TWO

    @staticmethod
    def parse(text: str) -> Card:
        """Read ``Th``, ``10h``, ``th``, ``JK``; raise ValueError otherwise."""
        card = CARD_BY_TEXT.get(text)
        if card is None:
            card = CARD_BY_TEXT.get(text.lower())
        if card is None:
            raise ValueError(f"{text!r} is not a card (rank A 2-9 T J Q K then suit c d h s, or JK)")
        return card

    @staticmethod
    def of(rank: int, suit: int) -> Card:
        return CARDS[(rank - 1) * 4 + suit]

    def __str__(self) -> str:
        return CARD_TEXT[self]

    def __repr__(self) -> str:
        return f"Card.parse({CARD_TEXT[self]!r})"


def _text(code: int) -> str:
    if code == JOKER_CODE:
        return "JK"
    return RANK_LETTERS[code // 4] + SUIT_LETTERS[code % 4]


CARDS: Final[tuple[Card, ...]] = tuple(int.__new__(Card, code) for code in range(CARD_KINDS))
JOKER: Final = CARDS[JOKER_CODE]
CARD_TEXT: Final[tuple[str, ...]] = tuple(_text(code) for code in range(CARD_KINDS))
_RANK_OF: Final[tuple[int, ...]] = tuple(0 if c == JOKER_CODE else c // 4 + 1 for c in range(CARD_KINDS))
_SUIT_OF: Final[tuple[int, ...]] = tuple(-1 if c == JOKER_CODE else c % 4 for c in range(CARD_KINDS))
RANK_OF: Final = _RANK_OF
SUIT_OF: Final = _SUIT_OF


def _build_lookup() -> dict[str, Card]:
    lookup: dict[str, Card] = {"jk": JOKER}
    for card in CARDS[:JOKER_CODE]:
        rank_letter = RANK_LETTERS[card.rank - 1].lower()
        suit_letter = SUIT_LETTERS[card.suit]
        lookup[rank_letter + suit_letter] = card
        if rank_letter == "t":
            lookup["10" + suit_letter] = card
    # Canonical spellings are the commonest input: find them without lower().
    for card in CARDS:
        lookup[CARD_TEXT[card]] = card
    return lookup


CARD_BY_TEXT: Final[dict[str, Card]] = _build_lookup()


def card_of(rank: int, suit: int) -> Card:
    """The card at run position ``rank`` (14 is the high ace) of ``suit``."""
    return CARDS[((rank - 1) % 13) * 4 + suit]


def parse_cards(text: str) -> list[Card]:
    """Read a space-separated card list such as ``"7h 8h JK"``."""
    return [Card.parse(token) for token in text.split()]


def format_cards(cards: list[Card] | tuple[Card, ...]) -> str:
    return " ".join(CARD_TEXT[c] for c in cards)


def deck_counts(jokers: int) -> list[int]:
    """How many copies of each card kind two 52-card decks plus ``jokers`` hold."""
    counts = [2] * CARD_KINDS
    counts[JOKER_CODE] = jokers
    return counts


def sort_key(card: int) -> tuple[int, int]:
    """Suit then rank, jokers last: how hands are shown."""
    if card == JOKER_CODE:
        return (4, 0)
    return (card % 4, card // 4)
