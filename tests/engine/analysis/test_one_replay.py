"""``analyze_record`` replays each hand once: the verdict and the turn searches share the
replay (``verify(record, replay=...)``), and find what a replay of their own finds, on
legal hands and on a hand an illegal action stops."""

from __future__ import annotations

import pytest

from buraco.analysis import analyze_record, sort_key
from buraco.analysis.slips import scoring_findings
from buraco.analysis.turns import turn_findings
from buraco.notation import Record, dumps, loads
from buraco.replay import verify
from buraco.selfplay import play_match


def _findings_replayed_apart(record: Record) -> list[dict[str, object]]:
    """The findings as analyze_record found them before it shared its replay: verify,
    then every hand's turn searches replaying the hand again."""
    report = verify(record)
    findings = list(scoring_findings(record, report))
    for index, hand in enumerate(report.hands):
        if hand.error is None or hand.error.ply is not None:
            findings.extend(turn_findings(record, index))
    return [f.as_dict() for f in sorted(findings, key=sort_key)]


def _with_action(record: Record, ply: int, action: str) -> Record:
    """The record with the first hand's action ``ply`` (from 1) written as ``action``."""
    lines = dumps(record).splitlines()
    first = lines.index("actions = [") + ply
    lines[first] = f'  "{action}",'
    return loads("\n".join(lines) + "\n")


@pytest.mark.parametrize(("variant", "seed"), [("cerrado", 1), ("brasil", 2), ("burraco", 3), ("abierto-sucio", 4)])
def test_one_replay_finds_what_separate_replays_find(variant: str, seed: int) -> None:
    record = play_match(variant, players=2, hands=2, seed=seed, mistakes=0.5)
    assert [f.as_dict() for f in analyze_record(record).findings] == _findings_replayed_apart(record)


def test_a_hand_stopped_by_an_illegal_action_keeps_its_verdict_and_its_turns_before_it() -> None:
    record = _with_action(play_match("cerrado", players=2, hands=2, seed=1), 123, "p2 discard 2c")
    report = verify(record)
    assert report.hands[0].error is not None and report.hands[0].error.ply == 123
    assert report.hands[0].error.line is not None  # placed in the record, as verify places it
    findings = [f.as_dict() for f in analyze_record(record).findings]
    assert findings == _findings_replayed_apart(record)
    assert any(f["hand"] == 1 and f["kind"] != "scoring-mistake" for f in findings)  # the turns before it judged


@pytest.mark.interpreted  # replaces a search's method: the compiled searches would not see it
def test_an_engine_error_inside_the_searches_is_not_taken_for_a_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    # Only the replay's refusal is a verdict: a search that breaks must fail the analysis
    # (its job is then marked failed), not mark the hand illegal in the analysis's report.
    from buraco.analysis import turns
    from buraco.errors import IllegalActionError

    def broken(self: object) -> list[object]:
        raise IllegalActionError("a search broke")

    monkeypatch.setattr(turns._HandJudge, "findings", broken)
    with pytest.raises(RuntimeError, match="the analysis of hand 1 failed: a search broke"):
        analyze_record(play_match("cerrado", players=2, hands=1, seed=1))
