"""Self-play: simple, legal, sensible bots that write complete BRN matches.

The bots meld what they can, lay off onto their side's melds, take the pile
when its top card fits, pick up dead piles, build canastas and go out. Every
move goes through the engine's ``can_*`` checks, so what they write verifies.
They are deterministic for a given seed, and can plant scoring mistakes in the
claimed results, or one blunder in the play (skipping a canasta they could complete,
or skipping going out), for tests, demos and benchmarks.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from .actions import (
    TAKE,
    Action,
    add_action,
    dead_action,
    discard_action,
    draw_action,
    meld_action,
    take_action,
)
from .cards import CARD_KINDS, CARDS, RANK_OF, SUIT_OF, Card, card_of, deck_counts
from .melds import IS_WILD_KIND, CardToken, Shape, canasta_bonus, layout_tokens, meld_layouts, resolve_add
from .moves import plays_using
from .notation import HandRecord, Record, Result
from .rules import Variant, find_variant
from .scoring import score_hand
from .state import DEAD_DIRECT_STEP, DEAD_INDIRECT_STEP, DRAW_STEP, OUT, PLAY_STEP, HandState, TableMeld

MAX_ACTIONS = 3000  # a safety net: real hands end far sooner

SKIP_CANASTA = "skip-canasta"  # a blunder: not completing (or bettering) a canasta the bot's plays would make
SKIP_GOING_OUT = "skip-going-out"  # a blunder: keeping cards when the bot's turn would go out
BLUNDERS = (SKIP_CANASTA, SKIP_GOING_OUT)


def new_deck(variant: Variant) -> list[Card]:
    counts = deck_counts(variant.jokers)
    return [CARDS[c] for c in range(CARD_KINDS) for _ in range(counts[c])]


def deal_cards(variant: Variant, players: int, rng: random.Random) -> tuple[
    list[list[Card]], list[list[Card]], Card | None, list[Card]
]:
    deck = new_deck(variant)
    rng.shuffle(deck)
    size = variant.hand_size
    dealt = [deck[i * size:(i + 1) * size] for i in range(players)]
    position = players * size
    dead = []
    for _ in range(variant.dead_piles):
        dead.append(deck[position:position + variant.dead_pile_size])
        position += variant.dead_pile_size
    discard = None
    if variant.first_discard:
        discard = deck[position]
        position += 1
    return dealt, dead, discard, deck[position:]


class Bot:
    """One seat's player. Stateless between turns: it reads the table."""

    def __init__(self, state: HandState, seat: int, rng: random.Random, refrain: str | None = None) -> None:
        self.state = state
        self.seat = seat
        self.rng = rng
        # A blunder for this turn (one of BLUNDERS): the bot then keeps two cards or more
        # before its discard, and with SKIP_CANASTA makes no play raising its side's canasta bonus.
        self.refrain = refrain

    # --- the draw step -----------------------------------------------------------

    def draw_step(self, may_take: bool = True) -> Action | None:
        state, seat = self.state, self.seat
        if state.stock_count == 0:
            return None  # faced with an empty stock the bots let the hand end
        pile = state.discard_pile
        if pile and may_take:
            choice = self._pile_choice()
            if choice is not None:
                return choice
        return draw_action(seat)

    def _pile_choice(self) -> Action | None:
        choice = self._pile_wish()
        if choice is None or self._turn_can_end_after(choice):
            return choice
        return None

    def _turn_can_end_after(self, take: Action) -> bool:
        """Play the turn on a copy of the table: does it end with a legal discard?"""
        trial = self.state.copy()
        trial.apply(take)
        bot = Bot(trial, self.seat, random.Random(0))
        for action in bot.plays():
            trial.apply(action)
            if trial.step in (DEAD_DIRECT_STEP, DEAD_INDIRECT_STEP):
                trial.apply(dead_action(self.seat))
        if trial.is_over or trial.turn != self.seat:
            return True
        return trial.obligation is None and bot.discard() is not None

    def _pile_wish(self) -> Action | None:
        state, seat = self.state, self.seat
        pile = state.discard_pile
        pickup = state.variant.pickup
        size = state.hand_sizes[seat]
        if pickup == "open":
            useful = self._fits(pile[-1]) or len(pile) >= 4
            return take_action(seat) if useful and state.can_take(seat) else None
        if pickup == "use-top":
            # Keep two cards after the top card's meld, so the turn can end by a discard.
            if size + len(pile) - 3 >= 2 and state.can_take(seat):
                return take_action(seat)
            return None
        if len(pile) >= 3 and size + len(pile) - 3 >= 2 and state.can_take(seat, len(pile)):
            return take_action(seat, len(pile))
        take_top = take_action(seat, 1)
        if state.can_take(seat, 1):
            trial = state.copy()
            trial.apply(take_top)
            if any(True for _ in plays_using(trial, pile[-1])):
                return take_top
        return None

    def _fits(self, card: Card) -> bool:
        """Does ``card`` extend one of our melds or pair with our hand?"""
        state, seat = self.state, self.seat
        hand = state.hands[seat]
        for meld in state.melds:
            if meld.side == state.side_of[seat] or state.variant.lay_off_anyone:
                if state.can_add(seat, meld.number, (CardToken(card),)) if hand[card] else _would_fit(state, meld, card):
                    return True
        if IS_WILD_KIND[card]:
            return False
        rank, suit = RANK_OF[card], SUIT_OF[card]
        same_rank = sum(hand[(rank - 1) * 4 + s] for s in range(4))
        neighbours = sum(1 for r in (rank - 1, rank + 1) if 1 <= r <= 13 and hand[card_of(r, suit)])
        return (state.variant.sets and same_rank >= 2) or neighbours >= 1 and same_rank == 0

    # --- the play ------------------------------------------------------------------

    def plays(self) -> Iterator[Action]:
        """Melds and lay-offs, one at a time, re-reading the table after each."""
        for _ in range(60):
            action = self._next_play()
            if action is None:
                return
            yield action
            if self.state.is_over or self.state.step != "play":
                return

    def _next_play(self) -> Action | None:
        state = self.state
        obligation = state.obligation
        if obligation is not None:
            return self._play_using(obligation.card)
        for tokens in self._meld_candidates():
            if state.can_meld(self.seat, tokens):
                shape = state.verify_meld(self.seat, tokens)
                action = meld_action(self.seat, tokens)
                if self._size_ok(len(tokens), shape, None) and self._allowed(action, len(tokens), shape):
                    return action
        for number, tokens in self._lay_off_candidates():
            if state.can_add(self.seat, number, tokens):
                target = state.melds[number - 1]
                shape = state.verify_add(self.seat, number, tokens).shape
                action = add_action(self.seat, number, tokens)
                if self._size_ok(len(tokens), shape, target) and self._allowed(action, len(tokens), shape):
                    return action
        return None

    def _allowed(self, action: Action, playing: int, shape: Shape) -> bool:
        """May the play be made, with the blunder the bot was told to make this turn?"""
        if self.refrain is None:
            return True
        state, seat = self.state, self.seat
        if state.hand_sizes[seat] - playing < 2:
            return False  # the turn must end by a discard that keeps a card: no going out
        if self.refrain == SKIP_CANASTA and len(shape.cards) >= 7:
            side = state.side_of[seat]
            trial = state.copy()
            trial.apply(action)
            return _side_bonus(trial, side) <= _side_bonus(state, side)
        return True

    def _size_ok(self, playing: int, shape: Shape, target: TableMeld | None) -> bool:
        """Never play down to one card that could not then be discarded."""
        state, seat = self.state, self.seat
        left = state.hand_sizes[seat] - playing
        if left >= 2 or left == 0:
            return True
        side = state.side_of[seat]
        return state.may_go_out(seat, shape, target) or state.may_pick_dead(side, direct=False)

    def _play_using(self, card: Card) -> Action | None:
        """The smallest meld holding the card taken from the pile, else the smallest lay-off."""
        plays = sorted(plays_using(self.state, card), key=lambda play: (play.meld != 0, len(play.cards), play.action.text))
        allowed = [play for play in plays if self._allowed(play.action, len(play.cards), play.shape)]
        return allowed[0].action if allowed else None

    def _meld_candidates(self) -> Iterator[tuple[CardToken, ...]]:
        state, seat = self.state, self.seat
        variant = state.variant
        hand = state.hands[seat]
        wilds = [c for c in range(CARD_KINDS) if IS_WILD_KIND[c] and hand[c]]
        for suit in range(4):
            present = [p for p in range(1, 15) if hand[card_of(p, suit)]]
            for run in _runs(present):
                if len(run) >= 3:
                    if not variant.ace_to_ace and run[0] == 1 and run[-1] == 14:
                        run = run[:-1]
                    yield tuple(CardToken(card_of(p, suit)) for p in run)
            if wilds:
                for low in range(1, 13):
                    positions = [p for p in range(low, low + 3) if p <= 14]
                    have = [p for p in positions if hand[card_of(p, suit)]]
                    if len(positions) == 3 and len(have) == 2 and all(RANK_OF[card_of(p, suit)] != 2 for p in have):
                        missing = next(p for p in positions if p not in have)
                        wild = wilds[0]
                        natural_cards = [card_of(p, suit) for p in have]
                        if wild == card_of(missing, suit) or hand[wild] <= natural_cards.count(CARDS[wild]):
                            continue
                        run_tokens = [CardToken(c) for c in natural_cards]
                        run_tokens.insert(positions.index(missing), CardToken(CARDS[wild], card_of(missing, suit)))
                        yield tuple(run_tokens)
        if variant.sets:
            for rank in range(1, 14):
                if rank == 2:
                    continue
                same = [CARDS[(rank - 1) * 4 + s] for s in range(4) for _ in range(hand[(rank - 1) * 4 + s])]
                if variant.set_suits_distinct:
                    same = list(dict.fromkeys(same))
                if variant.set_max is not None:
                    same = same[: variant.set_max]
                if len(same) >= 3:
                    yield tuple(CardToken(c) for c in same)
                elif len(same) == 2 and wilds:
                    yield (CardToken(same[0]), CardToken(same[1]), CardToken(CARDS[wilds[0]]))

    def _lay_off_candidates(self) -> Iterator[tuple[int, tuple[CardToken, ...]]]:
        state, seat = self.state, self.seat
        hand = state.hands[seat]
        side = state.side_of[seat]
        for meld in state.melds:
            if meld.side != side and not (state.variant.lay_off_anyone and meld.owner == seat):
                continue
            for card in range(CARD_KINDS):
                if hand[card] and (not IS_WILD_KIND[card] or meld.shape.wild_index < 0):
                    yield meld.number, (CardToken(CARDS[card]),)

    # --- the discard ---------------------------------------------------------------

    def discard(self) -> Action | None:
        state, seat = self.state, self.seat
        hand = state.hands[seat]
        scored = sorted(
            (self._keep_value(c), self.rng.random(), c) for c in range(CARD_KINDS) if hand[c]
        )
        for _, _, card in scored:
            if state.can_discard(seat, CARDS[card]):
                return discard_action(seat, CARDS[card])
        return None

    def _keep_value(self, card: int) -> int:
        """Higher is worth keeping: wilds, cards near others of their suit or rank."""
        if IS_WILD_KIND[card]:
            return 100
        hand = self.state.hands[self.seat]
        rank, suit = RANK_OF[card], SUIT_OF[card]
        score = 0
        for r in (rank - 2, rank - 1, rank + 1, rank + 2):
            if 1 <= r <= 14 and hand[card_of(r if r != 14 else 1, suit)]:
                score += 3 if abs(r - rank) == 1 else 1
        score += 2 * (sum(hand[(rank - 1) * 4 + s] for s in range(4)) - 1)
        return score - self.state.variant.card_values[card] // 10


def _side_bonus(state: HandState, side: int) -> int:
    """The canasta bonus the side's melds hold now (0-based side), as the analysis counts it."""
    variant = state.variant
    return sum(canasta_bonus(m.kind(variant), variant) for m in state.melds if m.side == side)


def _copy_rng(rng: random.Random) -> random.Random:
    twin = random.Random()
    twin.setstate(rng.getstate())
    return twin


def _trial_turn(state: HandState, seat: int, rng: random.Random, refrain: str | None) -> HandState | None:
    """The rest of the turn, from the play step, played on a copy of the table by a bot
    with a copy of ``rng`` (told ``refrain``, or not): the table it ends with, or None
    when the turn would not end legally or would pick up a dead pile (unknown cards)."""
    trial = state.copy()
    bot = Bot(trial, seat, _copy_rng(rng), refrain)
    for action in bot.plays():
        trial.apply(action)
        if trial.step in (DEAD_DIRECT_STEP, DEAD_INDIRECT_STEP):
            return None
    if trial.is_over or trial.turn != seat:
        return trial
    if trial.step != PLAY_STEP:
        return None
    choice = bot.discard()
    if choice is None:
        return None
    trial.apply(choice)
    return None if trial.step == DEAD_INDIRECT_STEP else trial


def _blunder_fits(state: HandState, seat: int, rng: random.Random, blunder: str) -> bool:
    """Is this turn (at its play step) one where the bot would make what ``blunder``
    skips, and can it skip it and still end the turn by a discard, the hand going on?"""
    played = _trial_turn(state, seat, rng, None)
    if played is None:
        return False
    if blunder == SKIP_GOING_OUT:
        if not (played.is_over and played.ended_by == OUT and played.out_by == seat):
            return False
    else:
        side = state.side_of[seat]
        if _side_bonus(played, side) <= _side_bonus(state, side):
            return False
    skipped = _trial_turn(state, seat, rng, blunder)
    if skipped is None or skipped.is_over or skipped.turn == seat:
        return False
    if blunder == SKIP_CANASTA:
        side = state.side_of[seat]
        return _side_bonus(skipped, side) < _side_bonus(played, side)
    return True


def _would_fit(state: HandState, meld: TableMeld, card: Card) -> bool:
    """Could ``card`` be laid off on ``meld`` (whoever holds it)?"""
    try:
        resolve_add(meld.shape, (CardToken(card),), state.variant)
    except ValueError:
        return False
    return True


def _with_places(tokens: Sequence[CardToken], variant: Variant) -> Iterator[tuple[CardToken, ...]]:
    """The meld in each of its legal layouts, wild places named, for melds that read two ways."""
    for shape in meld_layouts(tokens, variant):
        yield layout_tokens(shape)


def _runs(positions: list[int]) -> list[list[int]]:
    runs: list[list[int]] = []
    for p in positions:
        if runs and runs[-1][-1] == p - 1:
            runs[-1].append(p)
        else:
            runs.append([p])
    return runs


def play_hand(
    variant: Variant, players: int, dealer: int, rng: random.Random
) -> tuple[HandRecord, HandState]:
    """Deal and play one hand to its end; return its record and final table."""
    record, state, _ = _play_hand(variant, players, dealer, rng, None)
    return record, state


def _play_hand(
    variant: Variant, players: int, dealer: int, rng: random.Random, blunder: str | None
) -> tuple[HandRecord, HandState, str | None]:
    """:func:`play_hand`, with the first chance at ``blunder`` taken (see :func:`play_match`):
    also returns what was skipped, as ``x-blunder`` writes it, or None."""
    dealt, dead, discard, stock = deal_cards(variant, players, rng)
    state = HandState.deal(variant, players, dealer, dealt, dead, discard, stock)
    actions: list[Action] = []
    takes_in_a_row = 0  # bots passing the pile around forever would never end the hand
    planted: str | None = None

    def play(action: Action) -> None:
        state.apply(action)
        actions.append(action)

    while not state.is_over and len(actions) < MAX_ACTIONS:
        seat = state.turn
        bot = Bot(state, seat, rng)
        if state.step == DRAW_STEP:
            choice = bot.draw_step(may_take=takes_in_a_row < 2 * players)
            if choice is None:
                state.finish_by_stock()
                break
            takes_in_a_row = takes_in_a_row + 1 if choice.verb == TAKE else 0
            play(choice)
            # The blunder comes after the bot's own draw step, on the trials' copies of rng:
            # until it is made, the hand is the one played without it.
            if blunder is not None and planted is None and state.step == PLAY_STEP:
                if _blunder_fits(state, seat, rng, blunder):
                    bot.refrain = blunder
        for action in bot.plays():
            play(action)
            if state.step in (DEAD_DIRECT_STEP, DEAD_INDIRECT_STEP):
                play(dead_action(seat))
        if state.is_over or state.turn != seat:
            continue
        if state.step in (DEAD_DIRECT_STEP, DEAD_INDIRECT_STEP):
            play(dead_action(seat))
            continue
        choice = bot.discard()
        if choice is None:
            raise RuntimeError(f"bot p{seat} found no legal discard in {variant.id}")
        play(choice)
        if bot.refrain is not None:
            planted = f"{bot.refrain} p{seat} ply {len(actions)}"  # the discard that ended the turn
        if state.step == DEAD_INDIRECT_STEP:
            play(dead_action(seat))
    record = HandRecord(
        dealer=dealer,
        dealt=tuple(tuple(h) for h in dealt),
        dead=tuple(tuple(p) for p in dead),
        discard=discard,
        stock=tuple(stock),
        actions=tuple(a.canonical() for a in actions),
        parsed=tuple(actions),
        written=tuple(a.canonical() for a in actions),
    )
    return record, state, planted


def play_match(
    variant: str | Variant,
    players: int = 2,
    hands: int | None = 1,
    seed: int = 0,
    mistakes: float = 0.0,
    names: Sequence[str] | None = None,
    blunder: str | None = None,
) -> Record:
    """A complete match record: ``hands`` hands, or until a side wins if None.

    With ``mistakes`` > 0, that share of hands claims a wrong score for one
    side: a real slip of that hand (buraco.analysis.slips), such as a dirty
    canasta counted as clean, chosen among the slips the hand allows (none
    where it allows none). Such hands carry ``x-planted = "side <n> <slip-id>"``,
    and the claimed totals are the sums of the claimed scores, as players who
    add up their own wrong scores write them.

    >>> from buraco.replay import verify
    >>> record = play_match("cerrado", hands=2, seed=4, mistakes=1.0)
    >>> all(dict(hand.extra)["x-planted"].startswith("side ") for hand in record.hands)
    True
    >>> verify(record).scores_match
    False

    With ``blunder`` (one of BLUNDERS), one bot blunders once, at the first turn of
    the match (of any seat) where it can: with ``"skip-canasta"`` at a turn whose plays
    would raise its side's canasta bonus, it makes none of the plays raising it; with
    ``"skip-going-out"`` at a turn that would go out, it keeps two cards or more before
    its discard. Either way the turn ends by a discard and the hand goes on; a turn
    where that is not legal (or where the plays would pick up a dead pile) is passed
    over. That hand carries ``x-blunder = "<blunder> p<seat> ply <n>"``, n being the
    discard that ended the turn; where no turn allowed it, no hand does. Until the
    blunder the match is the one played without it.

    >>> record = play_match("cerrado", seed=2, blunder="skip-going-out")
    >>> dict(record.hands[0].extra)["x-blunder"]
    'skip-going-out p2 ply 136'
    """
    rules = find_variant(variant) if isinstance(variant, str) else variant
    if players not in rules.player_counts:
        raise ValueError(f"{rules.id} is played by {sorted(rules.player_counts)} players, not {players}")
    if blunder is not None and blunder not in BLUNDERS:
        raise ValueError(f"unknown blunder {blunder!r}: one of {', '.join(BLUNDERS)}")
    pending = blunder
    rng = random.Random(f"{rules.id}/{players}/{seed}")
    names = list(names) if names else [f"Bot {i}" for i in range(1, players + 1)]
    sides = len(rules.sides_for(players))
    totals = [0] * sides
    claimed_totals = [0] * sides  # the players' running totals: sums of the scores they claimed
    records = []
    dealer = players
    limit = hands if hands is not None else 50
    for _ in range(limit):
        hand, state, blundered = _play_hand(rules, players, dealer, rng, pending)
        if not state.is_over:
            raise RuntimeError(f"self-play hand did not finish in {rules.id}")
        scores = [p.total for p in score_hand(state)]
        totals = [t + s for t, s in zip(totals, scores)]
        claimed_scores = list(scores)
        extra: tuple[tuple[str, object], ...] = ()
        if blundered is not None:
            extra = (("x-blunder", blundered),)
            pending = None
        if mistakes and rng.random() < mistakes:
            planted = _plant_slip(state, rng)
            if planted is not None:
                side, slip, effect = planted
                claimed_scores[side] += effect
                extra = (*extra, ("x-planted", f"side {side + 1} {slip}"))
        claimed_totals = [t + s for t, s in zip(claimed_totals, claimed_scores)]
        hand = HandRecord(
            dealer=hand.dealer, dealt=hand.dealt, dead=hand.dead, discard=hand.discard, stock=hand.stock,
            actions=hand.actions, result=Result(tuple(claimed_scores), tuple(claimed_totals)), extra=extra,
            parsed=hand.parsed, written=hand.written,
        )
        records.append(hand)
        dealer = dealer % players + 1
        if hands is None and max(totals) >= rules.target:
            break
    return Record(
        variant=rules.id,
        players=tuple(names),
        hands=tuple(records),
        metadata=(("event", "self-play"), ("source", f"buraco selfplay seed {seed}")),
    )


def _plant_slip(state: HandState, rng: random.Random) -> tuple[int, str, int] | None:
    """One slip a side could really have made in this finished hand, chosen by ``rng``:
    ``(side, slip id, effect on its claimed score)``, or None where the hand allows none."""
    # Imported here: the analysis sits above self-play (its turn findings may use the bots).
    from .analysis.slips import plantable_slips

    slips = plantable_slips(state)
    return rng.choice(slips) if slips else None
