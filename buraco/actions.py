"""Actions as written in a record: ``p<seat> <verb> [arguments]``.

Parsing is separate from judging: text that is not an action is a notation
error (the record is unreadable); an action that breaks a rule is judged later
by the state machine.

>>> action = parse_action("p2 add m1 JK=4h 5h")
>>> action.seat, action.verb, action.meld, [str(t) for t in action.tokens]
(2, 'add', 1, ['JK=4h', '5h'])
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Final, NamedTuple

from .cards import CARD_BY_TEXT, CARD_TEXT, Card
from .melds import END_HIGH, END_LOW, NO_PLACE, CardToken


class Verb(StrEnum):
    """An action's verb, as a record writes it (a ``str``: ``Verb.DRAW == "draw"``)."""

    DRAW = "draw"
    TAKE = "take"
    MELD = "meld"
    ADD = "add"
    DEAD = "dead"
    DISCARD = "discard"


# The verbs as plain strings, equal to Verb's members: an action carries these, and the
# state machine compares them on every action, which CPython does fastest for exact strs
# (with the members the verify benchmark lost about 4%).
DRAW: Final[str] = Verb.DRAW.value
TAKE: Final[str] = Verb.TAKE.value
MELD: Final[str] = Verb.MELD.value
ADD: Final[str] = Verb.ADD.value
DEAD: Final[str] = Verb.DEAD.value
DISCARD: Final[str] = Verb.DISCARD.value
VERBS: Final = (DRAW, TAKE, MELD, ADD, DEAD, DISCARD)
# A seat, meld number or take count of more digits names nothing a record can hold; it is
# read as this bound, never converted (int() refuses more than 4,300 digits).
MAX_DIGITS: Final = 18
TOO_MANY: Final = 10**MAX_DIGITS


class ActionSyntaxError(ValueError):
    """Text that is not an action; ``offset`` is where in the text (0-based)."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


class Action(NamedTuple):
    """One parsed action; build one with :func:`draw_action`, :func:`take_action`,
    :func:`meld_action`, :func:`add_action`, :func:`dead_action` or :func:`discard_action`
    (they write its canonical text), or read one with :func:`parse_action`."""

    seat: int
    verb: str  # one of VERBS (a Verb's value)
    cards: tuple[Card, ...]  # draw (0 or 1 card) and discard (1 card)
    tokens: tuple[CardToken, ...]  # meld and add
    meld: int  # add: the meld number K of mK
    depth: int  # take N; 0 for the whole pile
    text: str

    def canonical(self) -> str:
        parts = [f"p{self.seat}", self.verb]
        if self.verb == ADD:
            parts.append(f"m{self.meld}")
        if self.verb == TAKE and self.depth:
            parts.append(str(self.depth))
        parts.extend(CARD_TEXT[c] for c in self.cards)
        parts.extend(str(t) for t in self.tokens)
        return " ".join(parts)


def draw_action(seat: int, card: Card | None = None) -> Action:
    """Draw from the stock, naming the card drawn or not.

    >>> draw_action(1).text, draw_action(2, Card.parse("9h")).text
    ('p1 draw', 'p2 draw 9h')
    """
    if card is None:
        return Action(seat, DRAW, (), (), 0, 0, f"p{seat} draw")
    return Action(seat, DRAW, (card,), (), 0, 0, f"p{seat} draw {CARD_TEXT[card]}")


def take_action(seat: int, depth: int = 0) -> Action:
    """Take the discard pile: ``depth`` cards from its top (dig), 0 for the whole pile.

    >>> take_action(1).text, take_action(2, 3).text
    ('p1 take', 'p2 take 3')
    """
    return Action(seat, TAKE, (), (), 0, depth, f"p{seat} take {depth}" if depth else f"p{seat} take")


def meld_action(seat: int, tokens: Sequence[CardToken]) -> Action:
    """The ``meld`` action laying ``tokens``, with its canonical text.

    >>> meld_action(1, [CardToken(Card.parse(c)) for c in ("7h", "8h", "9h")]).text
    'p1 meld 7h 8h 9h'
    """
    return Action(seat, MELD, (), tuple(tokens), 0, 0, f"p{seat} meld {_tokens_text(tokens)}")


def add_action(seat: int, number: int, tokens: Sequence[CardToken]) -> Action:
    """The ``add`` action laying ``tokens`` off on meld ``number``, with its canonical text.

    >>> add_action(2, 1, [parse_token("JK=4h")]).text
    'p2 add m1 JK=4h'
    """
    return Action(seat, ADD, (), tuple(tokens), number, 0, f"p{seat} add m{number} {_tokens_text(tokens)}")


def dead_action(seat: int) -> Action:
    """Pick up a dead pile.

    >>> dead_action(3).text
    'p3 dead'
    """
    return Action(seat, DEAD, (), (), 0, 0, f"p{seat} dead")


def discard_action(seat: int, card: Card) -> Action:
    """Discard ``card``.

    >>> discard_action(1, Card.parse("Kc")).text
    'p1 discard Kc'
    """
    return Action(seat, DISCARD, (card,), (), 0, 0, f"p{seat} discard {CARD_TEXT[card]}")


def _tokens_text(tokens: Sequence[CardToken]) -> str:
    return " ".join(str(t) for t in tokens)


def _is_number(word: str) -> bool:
    """ASCII digits only: ``str.isdigit`` also takes ``²`` (which ``int`` refuses) and ``٣``."""
    return word.isascii() and word.isdigit()


def _number(digits: str) -> int:
    """The value of ASCII ``digits``; TOO_MANY when they have more than MAX_DIGITS significant digits."""
    significant = digits.lstrip("0")
    return int(significant or "0") if len(significant) <= MAX_DIGITS else TOO_MANY


def _shown(digits: str) -> str:
    """Digits as an error message quotes them: a long run cut short."""
    return digits if len(digits) <= 24 else f"{digits[:12]}...({len(digits)} digits)"


def _card(word: str, offset: int) -> Card:
    card = CARD_BY_TEXT.get(word) or CARD_BY_TEXT.get(word.lower())
    if card is None:
        raise ActionSyntaxError(f"{word!r} is not a card (rank A 2-9 T J Q K, suit c d h s, or JK)", offset)
    return card


def parse_token(word: str, offset: int = 0) -> CardToken:
    """``7h``, ``JK=4h``, ``2c>low``, ``Ah>high``."""
    card = CARD_BY_TEXT.get(word)
    if card is not None:
        return CardToken(card)
    if ">" in word:
        head, _, end_word = word.partition(">")
        end = {"low": END_LOW, "high": END_HIGH}.get(end_word.lower())
        if end is None:
            raise ActionSyntaxError(f"{word!r}: after '>' write low or high", offset + len(head) + 1)
        return CardToken(_card(head, offset), NO_PLACE, end)
    if "=" in word:
        head, _, place = word.partition("=")
        return CardToken(_card(head, offset), _card(place, offset + len(head) + 1))
    return CardToken(_card(word, offset))


def parse_action(text: str, players: int = 4) -> Action:
    """Read one action string; raise ActionSyntaxError if it is not one."""
    words = text.split()
    if len(words) < 2:
        raise ActionSyntaxError(f"{text!r} is not an action: write 'p<seat> <verb> ...'", 0)
    offsets = _offsets(text, words)
    who, verb = words[0], words[1].lower()
    if len(who) < 2 or who[0] not in "pP" or not _is_number(who[1:]):
        raise ActionSyntaxError(f"{who!r} is not a seat: write p1, p2, ...", offsets[0])
    seat = _number(who[1:])
    if not 1 <= seat <= players:
        raise ActionSyntaxError(f"there is no seat {_shown(who[1:])}: this match has {players} players", offsets[0])
    args = words[2:]
    if verb == DRAW:
        if len(args) > 1:
            raise ActionSyntaxError("draw takes at most one card", offsets[3])
        cards = (_card(args[0], offsets[2]),) if args else ()
        return Action(seat, DRAW, cards, (), 0, 0, text)
    if verb == TAKE:
        if len(args) > 1 or (args and not _is_number(args[0])) or (args and _number(args[0]) < 1):
            raise ActionSyntaxError("take is written 'take' or 'take N' with N at least 1", offsets[2])
        depth = _number(args[0]) if args else 0
        if depth == TOO_MANY:
            raise ActionSyntaxError(f"take {_shown(args[0])}: no pile holds that many cards", offsets[2])
        return Action(seat, TAKE, (), (), 0, depth, text)
    if verb == DISCARD:
        if len(args) != 1:
            raise ActionSyntaxError("discard takes exactly one card", offsets[min(len(words) - 1, 3)])
        return Action(seat, DISCARD, (_card(args[0], offsets[2]),), (), 0, 0, text)
    if verb == DEAD:
        if args:
            raise ActionSyntaxError("dead takes no arguments", offsets[2])
        return Action(seat, DEAD, (), (), 0, 0, text)
    if verb == MELD:
        if not args:
            raise ActionSyntaxError("meld needs its cards", len(text))
        tokens = tuple(parse_token(word, offsets[i + 2]) for i, word in enumerate(args))
        return Action(seat, MELD, (), tokens, 0, 0, text)
    if verb == ADD:
        if not args or len(args[0]) < 2 or args[0][0] not in "mM" or not _is_number(args[0][1:]) or _number(args[0][1:]) < 1:
            raise ActionSyntaxError("add is written 'add mK CARD ...' with K the meld's number", offsets[2] if args else len(text))
        meld = _number(args[0][1:])
        if meld == TOO_MANY:
            raise ActionSyntaxError(f"there is no meld m{_shown(args[0][1:])}: no hand holds that many melds", offsets[2])
        if len(args) < 2:
            raise ActionSyntaxError("add needs at least one card", len(text))
        tokens = tuple(parse_token(word, offsets[i + 3]) for i, word in enumerate(args[1:]))
        return Action(seat, ADD, (), tokens, meld, 0, text)
    raise ActionSyntaxError(f"{words[1]!r} is not a verb: use {', '.join(VERBS)}", offsets[1])


def _offsets(text: str, words: list[str]) -> list[int]:
    offsets = []
    position = 0
    for word in words:
        position = text.index(word, position)
        offsets.append(position)
        position += len(word)
    return offsets
