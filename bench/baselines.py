"""Replay-throughput baselines from two mature game libraries.

These numbers are reference points for our own card-game engine: they
say roughly how fast a well-regarded pure-Python rules engine can
re-validate a recorded game from its standard text notation (PGN for
chess, PHH for poker).  Both benchmarks time *parse + replay* together,
because that is what replaying a stored log costs in practice.

Run: ``python bench/baselines.py``
"""

from __future__ import annotations

import io
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import chess
import chess.pgn
from pokerkit import Automation, Mode, NoLimitTexasHoldem, State
from pokerkit.notation import HandHistory

# Long random chess games are mostly aimless shuffling; a cap keeps the
# per-game cost comparable to a real game and bounds generation time.
MAX_PLIES = 120

# Everything except the betting decisions is automated, so that the only
# choices left to us (and to the seeded RNG) are fold / check-call /
# bet-raise.  Dealing is automated too, hence the deck must be seeded
# separately (see _seeded_global_random).  Showdown is automated, which
# makes the recorded PHH contain explicit "sm" (show/muck) actions.
POKER_AUTOMATIONS: tuple[Automation, ...] = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.HOLE_DEALING,
    Automation.BOARD_DEALING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)
SMALL_BLIND, BIG_BLIND = 1, 2


def make_chess_pgns(games: int, seed: int) -> list[str]:
    """Return ``games`` random legal chess games as PGN strings."""
    rng = random.Random(seed)
    pgns: list[str] = []
    for _ in range(games):
        board = chess.Board()
        while not board.is_game_over() and board.ply() < MAX_PLIES:
            # legal_moves is a lazy generator; its order is deterministic
            # for a given position, so materialising it keeps the seed
            # meaningful.
            board.push(rng.choice(list(board.legal_moves)))
        pgns.append(str(chess.pgn.Game.from_board(board)))
    return pgns


def replay_chess(pgns: list[str]) -> int:
    """Parse and replay every PGN; return the number of moves replayed."""
    total = 0
    for text in pgns:
        game = chess.pgn.read_game(io.StringIO(text))
        # read_game returns None only at end of input, which would mean
        # our own generator produced an empty string: a bug, not data.
        assert game is not None
        board = game.board()
        # Note that read_game already resolved SAN against a board while
        # parsing, so this is the replay a consumer of the log would do
        # on top of parsing, not the only legality check performed.
        for move in game.mainline_moves():
            board.push(move)
            total += 1
    return total


@contextmanager
def _seeded_global_random(seed: int) -> Iterator[None]:
    """Temporarily seed the module-level ``random`` generator.

    pokerkit shuffles its deck with ``random.shuffle`` on the global
    generator and offers no hook for an RNG instance, so this is the only
    way to make automated dealing reproducible.  The previous state is
    restored so callers' own use of ``random`` is not disturbed.
    """
    saved = random.getstate()
    random.seed(seed)
    try:
        yield
    finally:
        random.setstate(saved)


def make_poker_phhs(hands: int, seed: int) -> list[str]:
    """Return ``hands`` random legal NLHE hands (2-6 players) as PHH text."""
    rng = random.Random(seed)
    # Cash-game mode because HandHistory.create_game() replays in that
    # mode; generating in the same mode guarantees identical rules.
    game = NoLimitTexasHoldem(
        POKER_AUTOMATIONS,
        # from_game_state() does not record ante trimming for 'NT', so
        # replay uses HandHistory's default (False); match it here.
        False,
        0,
        (SMALL_BLIND, BIG_BLIND),
        BIG_BLIND,
        mode=Mode.CASH_GAME,
    )
    phhs: list[str] = []
    with _seeded_global_random(rng.getrandbits(64)):
        for _ in range(hands):
            players = rng.randint(2, 6)
            # Unequal stacks exercise side pots during the replay.
            stacks = [rng.randint(20, 200) * BIG_BLIND for _ in range(players)]
            state = game(stacks, players)
            while state.status:
                # With everything else automated, an unfinished hand is
                # always waiting on a player's betting decision.
                assert state.actor_index is not None
                _random_betting_action(state, rng)
            hh = HandHistory.from_game_state(game, state)
            phhs.append(hh.dumps())
    return phhs


def _random_betting_action(state: State, rng: random.Random) -> None:
    """Apply one random legal betting action to ``state``."""
    roll = rng.random()
    lo = state.min_completion_betting_or_raising_to_amount
    hi = state.max_completion_betting_or_raising_to_amount
    # Fold only when facing a bet.  In cash-game mode pokerkit merely
    # *warns* about a needless fold (so can_fold()'s answer depends on
    # the warnings filter), and such folds can later trip an assertion
    # in its chip pushing; they are never sensible play anyway.
    if roll < 0.15 and state.checking_or_calling_amount:
        state.fold()
    elif roll < 0.35 and lo is not None and hi is not None:
        # Cubing the fraction skews sizes towards the minimum raise;
        # uniform sizing would shove all-in on most raises and end
        # hands unrealistically early.
        amount = lo + int((hi - lo) * rng.random() ** 3)
        state.complete_bet_or_raise_to(amount)
    else:
        state.check_or_call()


def replay_poker(phhs: list[str]) -> int:
    """Parse and fully replay every PHH; return the number of actions."""
    total = 0
    for text in phhs:
        hh = HandHistory.loads(text)
        # Iterating a HandHistory applies every recorded action to a
        # fresh State (raising on an illegal one) and yields the states.
        for _state in hh:
            pass
        # Counts PHH entries, i.e. dealing ("d dh"/"d db") and showdown
        # ("sm") entries as well as betting actions.
        total += len(hh.actions)
    return total


def measure(fn: Callable[[], int], repeat: int = 3) -> tuple[int, float]:
    """Run ``fn`` ``repeat`` times; return (its result, best seconds).

    Best-of-N rather than mean because noise (GC, scheduling) only ever
    adds time, so the minimum is the least-biased estimate.
    """
    best = float("inf")
    count = 0
    for _ in range(repeat):
        start = time.perf_counter()
        count = fn()
        best = min(best, time.perf_counter() - start)
    return count, best


def _report(label: str, unit: str, count: int, seconds: float) -> None:
    rate = count / seconds
    print(f"{label:<13} {rate:>8.0f} {unit}/s ({count} {unit}, {seconds:.3f} s)")


if __name__ == "__main__":
    pgns = make_chess_pgns(200, seed=1)
    phhs = make_poker_phhs(1000, seed=1)
    _report("python-chess", "moves", *measure(lambda: replay_chess(pgns)))
    _report("pokerkit", "actions", *measure(lambda: replay_poker(phhs)))
