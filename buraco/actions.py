"""Actions as written in a record: ``p<seat> <verb> [arguments]``.

Parsing is separate from judging: text that is not an action is a notation
error (the record is unreadable); an action that breaks a rule is judged later
by the state machine.

>>> action = parse_action("p2 add m1 JK=4h 5h")
>>> action.seat, action.verb, action.meld, [str(t) for t in action.tokens]
(2, 'add', 1, ['JK=4h', '5h'])
"""

from __future__ import annotations

from typing import Final, NamedTuple

from .cards import CARD_BY_TEXT, CARD_TEXT, Card
from .melds import END_HIGH, END_LOW, NO_PLACE, CardToken

DRAW: Final = "draw"
TAKE: Final = "take"
MELD: Final = "meld"
ADD: Final = "add"
DEAD: Final = "dead"
DISCARD: Final = "discard"
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
    seat: int
    verb: str
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
