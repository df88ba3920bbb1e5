"""The going-out search's bounds leave no better exit behind: on self-play tables, the
search with its bounds finds an exit as good as the search with none (every table walked,
bar those seen already), and leaving tables on the cheap bounds before their key is made
visits the same tables as asking every bound after it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from buraco.actions import TAKE, Action, take_action
from buraco.analysis import exits, turns
from buraco.analysis.exits import best_exit, dead_cards_of, may_go_out
from buraco.analysis.search import Budget, Exit, SearchContext, SearchCut, Start, Walk, card_may_be_held
from buraco.analysis.turns import played_turns
from buraco.cards import RANK_OF, SUIT_OF
from buraco.melds import IS_WILD_KIND
from buraco.rules import VARIANTS
from buraco.selfplay import play_match

from ..helpers import build, play
from .builders import play_steps

EXHAUSTIVE_SECONDS = 2.0  # an unbounded search past this much CPU is skipped, not judged


@pytest.mark.interpreted  # replaces part of the going-out search: the compiled searches would not see it
@pytest.mark.parametrize("variant_id,seed", [("brasil", 1), ("brasil", 2), ("brasil", 5), ("brasil", 7), ("cerrado", 3), ("abierto-sucio", 4)])
def test_the_bounds_never_leave_a_better_exit(variant_id: str, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    bounded = [best_exit(Start.after(table), SearchContext(table.variant)) for table in play_steps(variant_id, seed)]
    monkeypatch.setattr(exits._ExitSearch, "quickly_beaten", lambda self, kept, known=None: False)
    monkeypatch.setattr(exits._ExitSearch, "split_beaten", lambda self, kept: False)
    monkeypatch.setattr(exits._ExitSearch, "wild_starved", lambda self, kept, plays: False)
    compared = 0
    for table, found in zip(play_steps(variant_id, seed), bounded):
        try:
            every = best_exit(Start.after(table), SearchContext(table.variant, Budget.seconds(EXHAUSTIVE_SECONDS)))
        except SearchCut:
            continue
        compared += 1
        assert (None if every is None else every.margin) == (None if found is None else found.margin)
    assert compared
    assert any(found is not None for found in bounded)


@pytest.mark.interpreted  # replaces part of the going-out search: the compiled searches would not see it
def test_leaving_tables_before_their_key_visits_the_same_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cheap bounds asked after the key (as good_enough asks them) leave the same
    tables and find the same lines: a table left is left again whenever it comes back."""
    monkeypatch.setattr(exits, "HUNGRY_AFTER", 1 << 30)
    tables = play_steps("brasil", 2) + play_steps("brasil", 5)
    contexts = [SearchContext(table.variant) for table in tables]
    early = [best_exit(Start.after(table), context) for table, context in zip(tables, contexts)]
    original_quick = exits._ExitSearch.quickly_beaten

    def after_the_key(self: exits._ExitSearch, kept: int, known: tuple[int, int] | None = None) -> bool:
        # The order before: the key made and recorded first, then the cheap bounds asked
        # (a table they do not leave is recorded again by visit, as it was).
        key = self.key(kept)
        if key not in self.walk.seen:
            self.walk.seen.add(key)
            if original_quick(self, kept, known):
                return True
            self.walk.seen.discard(key)
            return False
        return False

    # The look-ahead past cards only a wild can place asks the cheap bounds of tables it
    # does not visit: with them recording keys it would mark those tables seen. It is
    # another matter (tested below), left out of both runs here.
    monkeypatch.setattr(exits._ExitSearch, "quickly_beaten", after_the_key)
    late_contexts = [SearchContext(table.variant) for table in tables]
    late = [best_exit(Start.after(table), context) for table, context in zip(tables, late_contexts)]
    assert [None if e is None else [a.text for a in e.actions] for e in early] == [
        None if e is None else [a.text for a in e.actions] for e in late
    ]
    assert [c.nodes for c in contexts] == [c.nodes for c in late_contexts]


@pytest.mark.parametrize("variant_id", ["abierto", "brasil"])
def test_two_cards_the_counts_leave_no_play_end_the_search_before_its_walk(variant_id: str) -> None:
    """Where the hand's counts alone leave two cards no play, best_exit answers None before
    it makes the start's walk, with those cards kept for the shallower takes; the same
    cards as the search's own test finds; and the search, walked anyway, finds no exit."""
    told = 0
    for seed in range(4):
        for table in play_steps(variant_id, seed):
            start = Start.after(table)
            context = SearchContext(table.variant)
            dead, count, _ = exits._dead_by_counts(start, context)
            if count < 2 or not may_go_out(start, context):
                continue  # fewer than two, or best_exit ends before (a dead pile to take, no canasta)
            told += 1
            assert best_exit(start, context) is None
            assert "_walk" not in start.__dict__  # no walk was made
            assert dead_cards_of(start) == dead
            walk = Walk.at(start, context)
            assert exits._ExitSearch(walk, False).two_dead_cards() == dead
            search = exits._ExitSearch(walk.fork(), False)
            search.run()
            assert search.best is None and not search.offers
    assert told > 0


@pytest.mark.parametrize("variant_id", ["abierto", "burraco-106", "brasil", "cerrado-sucio"])
def test_two_cards_no_play_holds_leave_no_way_out(variant_id: str) -> None:
    """Where the quick test finds two cards that no meld or lay-off can hold, the search
    it spares finds no exit either, nor does the reference search (tests/engine/analysis/
    reference.py), which knows nothing of the test; and the test does not stop every hand."""
    from . import reference

    told = untold = 0
    for seed in range(4):
        for table in play_steps(variant_id, seed):
            start = Start.after(table)
            context = SearchContext(table.variant)
            if not exits._ExitSearch(Walk.at(start, context), False).two_dead_cards():
                untold += 1
                continue
            told += 1
            walk = Walk.at(start, context).fork()
            search = exits._ExitSearch(walk, False)
            search.run()
            assert search.best is None and not search.offers
            try:
                assert reference.best_exit(table) is None
            except reference.SearchLimit:
                pass
    assert told and untold


def test_two_cards_no_play_holds_at_a_deep_take_leave_no_way_out_at_a_shallower_one() -> None:
    """Where best_exit finds no exit from a take of the pile because two cards of the hand
    have no play (``dead_cards_of``), every shallower take of that turn whose hand still
    holds two of them has no exit either: its search, run whole without the dead-card
    test, finds none. And the case is met, or the going-out judge would spare nothing."""
    spared = 0
    for seed in (5, 6):
        record = play_match("brasil", players=2, hands=1, seed=seed)
        for turn in played_turns(record, 0).turns:
            pile = turn.before_draw.discard_pile
            context = SearchContext(turn.before_draw.variant)
            dead: tuple[int, ...] = ()
            for depth in range(len(pile), 0, -1):
                start = Start.taking(turn.before_draw, take_action(turn.seat, depth))
                if dead and exits.holds_dead_cards(start, dead):
                    spared += 1
                    walk = Walk.at(start, SearchContext(start.base.variant)).fork()
                    search = exits._ExitSearch(walk, False)
                    search.run()
                    assert search.best is None and not search.offers, (seed, turn.draw_ply, depth)
                    continue
                if best_exit(start, context) is None:
                    dead = dead_cards_of(start) or dead
    assert spared


@pytest.mark.interpreted  # replaces part of the going-out search: the compiled searches would not see it
def test_the_going_out_judge_finds_the_same_with_and_without_sparing_shallower_takes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The missed going out of every turn of two brasil hands is the same, line and margin,
    whether or not the judge spares the shallower takes that hold two cards no play held
    at a deeper one."""

    def chances() -> list[tuple[object, ...] | None]:
        found: list[tuple[object, ...] | None] = []
        for seed in (5, 7):
            record = play_match("brasil", players=2, hands=1, seed=seed)
            judge = turns._HandJudge(record, 0, played_turns(record, 0), SearchContext(record.rules))
            for position in range(len(judge.played.turns)):
                chance = judge.going_out_chance(position)
                found.append(None if chance is None else (chance.ply, chance.points, [a.text for a in chance.witness]))
        return found

    spared = chances()
    monkeypatch.setattr(turns, "dead_cards_of", lambda start: ())
    assert spared == chances()
    assert any(chance is not None for chance in spared)


@pytest.mark.parametrize("variant_id", list(VARIANTS))
def test_the_count_test_never_calls_a_card_some_play_holds_dead(variant_id: str) -> None:
    """``card_may_be_held`` (by counts, before any proposal is fetched, as the exit search's
    dead-card test and the obligation tests ask it) says False only
    of a card no new meld and no lay-off from the table holds, on every table after a draw
    step of self-play hands, and with the whole pile added to the hand (large hands, where
    sets fill up and runs hold most of their suit); and it does say False of some cards,
    or it would spare nothing."""
    said_dead = 0
    for seed in range(3):
        for table in play_steps(variant_id, seed):
            context = SearchContext(table.variant)
            hand = list(table.hands[table.turn])
            for card in table.discard_pile:
                hand[card] += 1
            for start in (Start.after(table), Start.holding(table, tuple(hand))):
                said_dead += _said_dead_checked(start, context, (variant_id, seed))
    assert said_dead


def _said_dead_checked(start: Start, context: SearchContext, where: object) -> int:
    """How many of the hand's cards the counts say no play holds; each one checked against
    the plays themselves."""
    walk = Walk.at(start, context)
    plays = exits._TablePlays(walk)
    runs, sets = context.extendable(context.melds_of(start.base), walk.side)
    said_dead = 0
    for card in range(len(walk.hand)):
        if not walk.hand[card] or IS_WILD_KIND[card]:
            continue
        if not card_may_be_held(card, walk.hand, walk._wilds > 0, runs[SUIT_OF[card]], sets.get(RANK_OF[card], ()), walk.variant):
            said_dead += 1
            assert not plays.holds(card), (where, card)
    return said_dead


@pytest.mark.interpreted  # replaces part of the going-out search: the compiled searches would not see it
def test_looking_ahead_past_cards_only_a_wild_can_place_leaves_no_better_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The look-ahead (``_ExitSearch.hungry_beaten``), asked at every table of every search
    rather than only in long ones, finds the same exit as the search without it, from
    every take of a whole pile of 8 cards or more in four brasil hands (where a set cannot
    be a canasta, so a wild spent on one is lost to the bonus); and it does leave tables.
    The bound from the wilds cards ask for (``wild_starved``, asked before it) is not asked
    here: in these hands it leaves every table the look-ahead would."""
    monkeypatch.setattr(exits, "WILD_AFTER", 1 << 30)
    monkeypatch.setattr(exits, "HUNGRY_AFTER", 0)
    monkeypatch.setattr(exits, "HUNGRY_TRIAL", 1 << 30)
    starts = []
    for seed in range(4):
        record = play_match("brasil", players=2, hands=1, seed=seed)
        for turn in played_turns(record, 0).turns:
            if len(turn.before_draw.discard_pile) >= 8:
                take = Action(turn.seat, TAKE, (), (), 0, 0, f"p{turn.seat} take")
                starts.append(Start.taking(turn.before_draw, take))
    left = 0
    original = exits._ExitSearch.hungry_beaten

    def counted(self: exits._ExitSearch, kept: int, pivot: int, plays: exits._TablePlays) -> bool:
        nonlocal left
        beaten = original(self, kept, pivot, plays)
        left += beaten
        return beaten

    monkeypatch.setattr(exits._ExitSearch, "hungry_beaten", counted)
    ahead = [best_exit(start, SearchContext(start.base.variant)) for start in starts]
    monkeypatch.setattr(exits._ExitSearch, "hungry_beaten", lambda self, kept, pivot, plays: False)
    plain = [best_exit(start, SearchContext(start.base.variant)) for start in starts]
    assert [None if e is None else ([a.text for a in e.actions], e.margin) for e in ahead] == [
        None if e is None else ([a.text for a in e.actions], e.margin) for e in plain
    ]
    assert any(e is not None for e in plain)
    assert left > 0


def _exits_asked(variant_id: str, seeds: range, players: int) -> list[tuple[Start, dict[str, object]]]:
    """Every exit search the analysis of self-play hands asks for (one hand a match), with
    what it asks (a margin to beat, find open, the most bonus)."""
    asked: list[tuple[Start, dict[str, object]]] = []
    original = turns.best_exit

    def recorded(start: Start, context: SearchContext | None = None, **question: object) -> object:
        asked.append((start, question))
        return original(start, context, **question)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(turns, "best_exit", recorded)
        for seed in seeds:
            record = play_match(variant_id, players=players, hands=1, seed=seed)
            turns.turn_findings(record, 0, [], SearchContext(record.rules))
    return asked


def _verdict(found: Exit | None, question: dict[str, object]) -> object:
    """What an exit search's answer tells its caller: the way out, line and margin, where
    it beats the margin asked to beat; else only whether going out is open (find open),
    or nothing. (A way out found on the way that beats nothing asked for is any of them.)"""
    beat = question.get("margin_to_beat")
    if found is None:
        return None
    if beat is not None and found.margin <= beat:  # type: ignore[operator]
        return "open" if question.get("find_open") else None
    return (found.margin, found.bonus, [a.text for a in found.actions])


def _exit_as_found(found: Exit | None, question: dict[str, object]) -> object:
    """The way out itself, line for line, whatever was asked."""
    return None if found is None else (found.margin, found.bonus, [a.text for a in found.actions])


def _answers(
    asked: list[tuple[Start, dict[str, object]]], verdict: Callable[[Exit | None, dict[str, object]], object] = _verdict,
) -> tuple[list[object], int]:
    """What each exit search asked tells (``verdict``), each from a new context, and the
    tables they walked in all."""
    found: list[object] = []
    tables = 0
    for start, question in asked:
        context = SearchContext(start.base.variant)
        found.append(verdict(best_exit(start, context, **question), question))  # type: ignore[arg-type]
        tables += context.nodes
    return found, tables


def _starved_answers(asked: list[tuple[Start, dict[str, object]]]) -> tuple[list[object], int]:
    """:func:`_answers` with ``wild_starved`` counted: the verdicts, and the tables it left."""
    original = exits._ExitSearch.wild_starved
    left = 0

    def counted(self: exits._ExitSearch, kept: int, plays: exits._TablePlays) -> bool:
        nonlocal left
        starved = original(self, kept, plays)
        left += starved
        return starved

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(exits._ExitSearch, "wild_starved", counted)
        found, _ = _answers(asked)
    return found, left


@pytest.mark.interpreted  # replaces part of the going-out search: the compiled searches would not see it
@pytest.mark.parametrize("variant_id,seeds,players", [("brasil", range(4), 2), ("cerrado-sucio", range(6), 2), ("fechado-stbl", range(6), 2)])
def test_the_wilds_that_cards_ask_for_leave_no_better_exit(
    variant_id: str, seeds: range, players: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bound after spending the wilds the hand must spend (``_ExitSearch.wild_starved``),
    asked at every table of every search, tells the same (:func:`_verdict`: the way out,
    line and margin) as the search without it, to every exit search the analysis of
    self-play hands asks (whole, to beat a margin, to find open: where only whether some
    exit exists is bounded). And it does leave tables."""
    monkeypatch.setattr(exits, "WILD_AFTER", 0)
    asked = _exits_asked(variant_id, seeds, players)
    starved, left = _starved_answers(asked)
    monkeypatch.setattr(exits._ExitSearch, "wild_starved", lambda self, kept, plays: False)
    plain, _ = _answers(asked)
    assert starved == plain
    assert any(answer is not None for answer in plain)
    assert left > 0


@pytest.mark.interpreted  # replaces part of the going-out search: the compiled searches would not see it
def test_a_card_asking_a_wild_of_its_runs_or_of_its_sets_leaves_no_better_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A natural card whose every play holds a wild from the hand, some on runs of its suit
    and some on sets of its rank, asks one of the two for a wild (``_asked_units``). Asked
    at every table of every exit search the analysis of brasil self-play hands asks, the
    bound tells the same (:func:`_verdict`) as the search without it, and such cards leave
    tables the bound without them does not."""
    monkeypatch.setattr(exits, "WILD_AFTER", 0)
    asked = _exits_asked("brasil", range(6), 2)
    with_either, left_with_either = _starved_answers(asked)
    monkeypatch.setattr(exits, "EITHER_MAX", 0)
    without_either, left_without = _starved_answers(asked)
    monkeypatch.setattr(exits._ExitSearch, "wild_starved", lambda self, kept, plays: False)
    plain, _ = _answers(asked)
    assert with_either == without_either == plain
    assert any(answer is not None for answer in plain)
    assert left_with_either > left_without


@pytest.mark.interpreted  # replaces part of the going-out search: the compiled searches would not see it
@pytest.mark.parametrize("variant_id,seeds", [("brasil", range(6)), ("cerrado-sucio", range(40, 52)), ("burraco", range(40, 52))])
def test_tables_told_apart_only_by_which_wild_a_meld_holds_are_walked_once(
    variant_id: str, seeds: range, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The going-out search's key writes a meld's wild as a joker where which wild it is
    changes nothing (``wild_blind``: any wild of a set, and in a run any but the run's own
    2): every exit search the analysis of self-play hands asks finds the same way out, line
    for line, as with each meld keyed as it stands, and walks fewer tables."""
    asked = _exits_asked(variant_id, seeds, 2)
    blind, blind_tables = _answers(asked, _exit_as_found)
    monkeypatch.setattr(exits, "wild_blind", lambda meld: meld)
    plain, plain_tables = _answers(asked, _exit_as_found)
    assert blind == plain
    assert any(answer is not None for answer in plain)
    assert blind_tables < plain_tables


@pytest.mark.interpreted  # replaces part of the going-out search: the compiled searches would not see it
def test_a_play_laying_a_2_for_a_wild_is_left_where_the_same_with_a_joker_is_walked(monkeypatch: pytest.MonkeyPatch) -> None:
    """In brasil (wilds never move) the going-out search leaves a play laying a 2 as a wild
    where the same play with a joker is walked too (``laid_for_a_joker``: keeping the 2
    loses no way out). Over every exit search the analysis of brasil self-play hands asks,
    it tells the same (:func:`_verdict` without the line: an exit as good may be found
    through the joker instead) as the search walking both, and walks fewer tables (seed 71:
    of brasil's first 150 self-play hands, one of the two where this leaves a table)."""
    asked = _exits_asked("brasil", range(71, 72), 2)

    def margin_and_bonus(found: Exit | None, question: dict[str, object]) -> object:
        verdict = _verdict(found, question)
        return verdict[:2] if isinstance(verdict, tuple) else verdict

    joker_first, joker_first_tables = _answers(asked, margin_and_bonus)
    monkeypatch.setattr(exits._ExitSearch, "laid_for_a_joker", lambda self, plays, kept, left: None)
    both, both_tables = _answers(asked, margin_and_bonus)
    assert joker_first == both
    assert any(answer is not None for answer in both)
    assert joker_first_tables < both_tables


@pytest.mark.interpreted  # replaces part of the going-out search: the compiled searches would not see it
def test_a_2_is_laid_for_a_wild_where_the_joker_alone_spoils_a_clean_run_at_its_place_2(monkeypatch: pytest.MonkeyPatch) -> None:
    """p2's clubs run 3c..Ac is a clean canasta whose one free place is 2. p1 goes out with
    5h 6h, the 2c, a joker and 5s: the joker at place 2 of the clubs run spoils it (200 to
    100) where the 2c would lie there as a natural and leave it clean; so the 2c goes to
    the hearts run, 100 points better than the other way round. The search must not leave
    the play laying the 2c for the one laying the joker there (``_may_take_natural_two``)."""
    table = build("brasil", ["8d 9d Td Jd Qd Kd Ad 5h 6h 2c JK", "3c 4c 5c 6c 7c 8c 9c Tc Jc Qc 4h"], stock="Kc Qs Ac Jh Th 5s").state()
    play(
        table, "p1 draw", "p1 meld 8d 9d Td Jd Qd Kd Ad", "p1 discard Kc", "p2 draw", "p2 discard Qs", "p1 draw", "p1 discard Ac",
        "p2 draw", "p2 discard Jh", "p1 draw", "p1 discard Th", "p2 take 5", "p2 meld 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac",
        "p2 discard 4h", "p1 draw",
    )
    found = best_exit(Start.after(table), SearchContext(table.variant))
    assert found is not None
    assert [a.text for a in found.actions] == ["p1 meld 2c=4h 5h 6h", "p1 add m2 JK=2c", "p1 discard 5s"]
    monkeypatch.setattr(exits, "_may_take_natural_two", lambda shape, suit, hand: False)
    joker_only = best_exit(Start.after(table), SearchContext(table.variant))
    assert joker_only is not None and joker_only.margin == found.margin - 100


@pytest.mark.interpreted  # replaces part of the going-out search: the compiled searches would not see it
@pytest.mark.parametrize("seeds,players", [(range(4), 2), (range(4), 4)])
def test_the_bonus_given_to_other_players_leaves_no_better_exit(seeds: range, players: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The margin bound that counts the canasta bonus a line's lay-offs gave other
    players' melds (brasil) tells the same (:func:`_verdict`) as the bound from the scores
    the turn started at, to every exit search the analysis of brasil self-play hands asks;
    and it does lower the bound somewhere."""
    asked = _exits_asked("brasil", seeds, players)
    lowered = 0
    original = exits._ExitSearch.margin_constant

    def counted(self: exits._ExitSearch) -> int:
        nonlocal lowered
        constant = original(self)
        lowered += constant < self.constant
        return constant

    def answers() -> list[object]:
        return [_verdict(best_exit(start, SearchContext(start.base.variant), **question), question) for start, question in asked]  # type: ignore[arg-type]

    monkeypatch.setattr(exits._ExitSearch, "margin_constant", counted)
    given = answers()
    monkeypatch.setattr(exits._ExitSearch, "margin_constant", lambda self: self.constant)
    plain = answers()
    assert given == plain
    assert any(answer is not None for answer in plain)
    assert lowered > 0


@pytest.mark.interpreted  # replaces part of the going-out search: the compiled searches would not see it
def test_a_wild_thrown_spares_no_wild_where_every_natural_is_of_one_suit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the natural cards held are all of one suit, that suit's part of the bound is
    worked out keeping one of its own cards for the discard; a way out throwing a wild
    lays them all. p1 holds 2c 6h 7c 8c: 6h on the hearts run and 7c 8c on the clubs run
    (a clean canasta) go out throwing the 2c, 4 points better than laying the 2c for the
    6h and throwing the 6h. The bound must not take the wild thrown for one fewer to lay
    (it once did, and found only the second way)."""
    table = build("brasil", ["9c Tc Jc Qc Kc 3h 4h 5h 2c 7c 8c", "Ad As Ah"], stock="Kd 9s 6h").state()
    play(table, "p1 draw", "p1 meld 9c Tc Jc Qc Kc", "p1 meld 3h 4h 5h", "p1 discard Kd", "p2 draw", "p2 discard 9s", "p1 draw")
    monkeypatch.setattr(exits, "WILD_AFTER", 0)
    found = best_exit(Start.after(table), SearchContext(table.variant))
    assert found is not None and found.bonus == 200
    assert [a.text for a in found.actions] == ["p1 add m2 6h", "p1 add m1 8c 7c", "p1 discard 2c"]
    monkeypatch.setattr(exits._ExitSearch, "wild_starved", lambda self, kept, plays: False)
    plain = best_exit(Start.after(table), SearchContext(table.variant))
    assert plain is not None and (plain.margin, plain.actions) == (found.margin, found.actions)


@pytest.mark.parametrize("variant_id,seed", [("abierto-sucio", 4), ("burraco-106", 2), ("cerrado", 3), ("brasil", 1)])
def test_an_exit_for_more_canasta_bonus_is_sought_only_where_the_bound_allows_it(variant_id: str, seed: int) -> None:
    """best_exit with ``most_bonus`` gives up at once where the bound from card counts on
    any line's canasta bonus is no more than the bonus to beat: no exit of any table
    holds more bonus than that bound, and where the bound allows it the exit is found."""
    searched = 0
    for table in play_steps(variant_id, seed):
        context = SearchContext(table.variant)
        start = Start.after(table)
        most = best_exit(start, context, most_bonus=True)
        bound = start.bonus_bound(context)
        if most is None:
            continue
        searched += 1
        assert most.bonus <= bound
        assert best_exit(Start.after(table), SearchContext(table.variant), most_bonus=True, bonus_to_beat=bound) is None
        if most.bonus > 0:
            again = best_exit(Start.after(table), SearchContext(table.variant), most_bonus=True, bonus_to_beat=most.bonus - 1)
            assert again is not None and again.bonus == most.bonus
    assert searched


@pytest.mark.parametrize("variant_id,seeds,orders", [
    ("brasil", 2, ("pivot kept last", "only cards kept")), ("abierto-sucio", 8, ("only cards kept",)),
])
@pytest.mark.interpreted  # replaces part of the going-out search: the compiled searches would not see it
def test_the_discard_chosen_first_leaves_no_better_exit(
    variant_id: str, seeds: int, orders: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where a search raises a best margin, a pivot dearer than a card held is kept back
    for the discard only after every play placing it, and where only one kind held could
    be the discard of a better way out, that card is kept back and no other
    (``_ExitSearch.discard_order``). From every draw choice of the turns of self-play
    hands that holds at most 12 cards and passes going out's quick tests, asked whole,
    asked to beat a margin just under the best, and asked to find open over a margin just
    above it, the search finds ways out of the very margins it finds keeping every pivot
    back first and keeping any card; and the orders ``orders`` apply."""
    starts = []
    for seed in range(seeds):
        record = play_match(variant_id, players=2, hands=1, seed=seed)
        context = SearchContext(record.rules)
        judge = turns._HandJudge(record, 0, played_turns(record, 0), context)
        for turn in judge.played.turns:
            for start in (turn.start(), *(start for start, _ in judge.takes(turn))):
                if sum(start.hand) <= 12 and may_go_out(start, context):
                    starts.append(start)
    applied = {"pivot kept last": 0, "only cards kept": 0}
    discard_order = exits._ExitSearch.discard_order

    def counted(self: exits._ExitSearch, pivot: int, bounds: tuple[int, int] | None) -> tuple[list[int] | None, bool]:
        only, last = discard_order(self, pivot, bounds)
        applied["pivot kept last"] += last
        applied["only cards kept"] += only is not None
        return only, last

    def answers() -> list[tuple[int | None, ...]]:
        found: list[tuple[int | None, ...]] = []
        for start in starts:
            whole = best_exit(start, SearchContext(start.base.variant))
            if whole is None:
                found.append((None,))
                continue
            under = best_exit(start, SearchContext(start.base.variant), margin_to_beat=whole.margin - 1)
            over = best_exit(start, SearchContext(start.base.variant), margin_to_beat=whole.margin + 1, find_open=True)
            found.append((whole.margin, None if under is None else under.margin, None if over is None else over.margin))
        return found

    monkeypatch.setattr(exits._ExitSearch, "discard_order", counted)
    ordered = answers()
    monkeypatch.setattr(exits._ExitSearch, "discard_order", lambda self, pivot, bounds: (None, False))
    plain = answers()
    assert ordered == plain
    assert sum(answer[0] is not None for answer in plain) >= 5
    assert all(applied[order] for order in orders), applied
