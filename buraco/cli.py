"""The command line: ``python -m buraco verify | analyze | meld | show | selfplay``.

Its options, exit codes and JSON keys are a contract for scripts: add keys,
never rename them.

verify exits 0 when every hand is legal and every claimed score matches, 1 when
a hand is illegal or a claimed score differs, 2 when a file is not readable BRN.
analyze exits 0 when every file was analysed, whatever was found, 1 when a hand
is illegal (the findings before it are still printed), 2 when a file is not
readable BRN.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from . import __version__
from .actions import ActionSyntaxError, parse_token
from .analysis import analyze_record
from .cards import CARD_TEXT
from .errors import BuracoError, NotationError
from .melds import canasta_kind, resolve_meld
from .notation import dumps, loads
from .replay import entry_text, iter_timeline, state_at, verify
from .rules import VARIANTS, find_variant
from .selfplay import play_match
from .state import HandState

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_UNREADABLE = 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except BrokenPipeError:
        return EXIT_OK


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m buraco", description="Buraco rules engine and BRN records.")
    parser.add_argument("--version", action="version", version=f"buraco {__version__}")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    verify_parser = commands.add_parser("verify", help="replay records and check every action and claimed score")
    verify_parser.add_argument("files", nargs="+", metavar="FILE", help="BRN files (TOML or JSON); - reads stdin")
    verify_parser.add_argument("--json", action="store_true", help="one JSON object per file per line")
    verify_parser.set_defaults(run=_verify)

    meld_parser = commands.add_parser("meld", help="is this a legal new meld? its kind and layout as JSON")
    meld_parser.add_argument("--variant", required=True, help=f"rule set: {', '.join(VARIANTS)}")
    meld_parser.add_argument("cards", nargs="+", metavar="CARD")
    meld_parser.set_defaults(run=_meld)

    show_parser = commands.add_parser("show", help="the table at one point of a hand, as text")
    show_parser.add_argument("file", metavar="FILE")
    show_parser.add_argument("--hand", type=int, default=1, help="hand number, from 1")
    show_parser.add_argument("--ply", type=int, default=None, help="actions played (default: all)")
    show_parser.add_argument("--json", action="store_true", help="the state as JSON instead of text")
    show_parser.set_defaults(run=_show)

    analyze_parser = commands.add_parser("analyze", help="where the points went: scoring mistakes, missed canastas, ...")
    analyze_parser.add_argument("files", nargs="+", metavar="FILE", help="BRN files (TOML or JSON); - reads stdin")
    analyze_parser.add_argument("--json", action="store_true", help="one JSON object per finding per line")
    analyze_parser.add_argument("--min-points", type=int, default=0, metavar="N", help="only findings worth N points or more")
    analyze_parser.add_argument("--hand-budget", type=float, default=None, metavar="S",
                                help="seconds of CPU for one hand's searches (default: no limit)")
    analyze_parser.add_argument("--match-budget", type=float, default=None, metavar="S",
                                help="seconds of CPU for a file's searches (default: no limit)")
    analyze_parser.set_defaults(run=_analyze)

    play_parser = commands.add_parser("selfplay", help="bots play a match and write it as BRN")
    play_parser.add_argument("--variant", required=True)
    play_parser.add_argument("--players", type=int, default=2)
    play_parser.add_argument("--hands", type=int, default=1, help="hands to play (0: until a side wins)")
    play_parser.add_argument("--seed", type=int, default=0)
    play_parser.add_argument("--mistakes", type=float, default=0.0, help="share of hands claiming a wrong score")
    play_parser.add_argument("--format", choices=("toml", "json"), default="toml")
    play_parser.add_argument("-o", "--output", default="-", help="file to write (default: stdout)")
    play_parser.set_defaults(run=_selfplay)
    return parser


def _read(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as handle:
        return handle.read()


def verify_file(path: str) -> tuple[int, dict[str, Any]]:
    """Exit code and the JSON object for one file."""
    try:
        record = loads(_read(path))
    except OSError as error:
        return EXIT_UNREADABLE, _unreadable(path, NotationError(f"cannot read the file: {error.strerror}"))
    except NotationError as error:
        return EXIT_UNREADABLE, _unreadable(path, error)
    report = verify(record)
    data = {"file": path, **report.as_dict(), "totals_through_hand": report.totals_through}
    return (EXIT_OK if report.ok else EXIT_INVALID), data


def _unreadable(path: str, error: BuracoError) -> dict[str, Any]:
    return {
        "file": path,
        "variant": None,
        "valid": False,
        "scores_match": False,
        "error": error.as_dict(),
        "hands": [],
        "totals": [],
        "winner": None,
    }


def _verify(args: argparse.Namespace) -> int:
    worst = EXIT_OK
    for path in args.files:
        code, data = verify_file(path)
        worst = max(worst, code)
        if args.json:
            print(json.dumps(data, ensure_ascii=False))
        else:
            _print_report(path, code, data, sys.stdout)
    return worst


def _print_report(path: str, code: int, data: dict[str, Any], out: TextIO) -> None:
    error = data["error"]
    if code == EXIT_UNREADABLE:
        where = f"line {error['line']}, column {error['column']}: " if error.get("line") else ""
        out.write(f"{path}: not readable BRN: {where}{error['message']}\n")
        return
    verdict = "ok" if code == EXIT_OK else ("illegal" if not data["valid"] else "scores differ")
    count = len(data["hands"])
    out.write(f"{path}: {data['variant']}, {count} hand{'' if count == 1 else 's'}: {verdict}\n")
    for hand in data["hands"]:
        if hand["error"]:
            e = hand["error"]
            out.write(
                f"  hand {hand['hand']}, ply {e['ply']} (line {e['line']}, column {e['column']}): "
                f"{e['action'] or ''}\n    {e['message']}\n"
            )
            continue
        status = f"ended by {hand['ended_by']}" if hand["finished"] else "unfinished"
        out.write(f"  hand {hand['hand']}: {status}; scores {hand['scores']}\n")
        for mismatch in hand["mismatches"]:
            out.write(f"    mismatch: {mismatch['message']}\n")
    winner = data["winner"]
    through = data.get("totals_through_hand", count)
    totals = "totals" if through == count else f"totals through hand {through}"
    out.write(f"  {totals} {data['totals']}; winner: {' + '.join(winner['players']) if winner else 'none yet'}\n")


def analyze_file(
    path: str, min_points: int = 0, hand_budget: float | None = None, match_budget: float | None = None
) -> tuple[int, list[dict[str, Any]], BuracoError | None]:
    """Exit code, the findings as JSON objects, and the error that stopped a hand or the reading.
    Decisions a CPU budget cut are written to standard error."""
    try:
        record = loads(_read(path))
    except OSError as error:
        return EXIT_UNREADABLE, [], NotationError(f"cannot read the file: {error.strerror}")
    except NotationError as error:
        return EXIT_UNREADABLE, [], error
    analysis = analyze_record(record, min_points=min_points, hand_budget=hand_budget, match_budget=match_budget)
    for gap in analysis.unsearched:
        print(f"{path}: {gap}", file=sys.stderr)
    findings = [{"file": path, **finding.as_dict()} for finding in analysis.findings]
    report = verify(record)
    return (EXIT_OK if report.valid else EXIT_INVALID), findings, report.error


def _analyze(args: argparse.Namespace) -> int:
    worst = EXIT_OK
    for path in args.files:
        code, findings, error = analyze_file(path, args.min_points, args.hand_budget, args.match_budget)
        worst = max(worst, code)
        if code == EXIT_UNREADABLE:
            assert error is not None
            print(f"{path}: not readable BRN: {error}", file=sys.stderr)
            continue
        if args.json:
            for finding in findings:
                print(json.dumps(finding, ensure_ascii=False))
        else:
            _print_findings(path, findings, error, sys.stdout)
    return worst


def _print_findings(path: str, findings: list[dict[str, Any]], error: BuracoError | None, out: TextIO) -> None:
    count = len(findings)
    out.write(f"{path}: {count} finding{'' if count == 1 else 's'}\n")
    hand = None
    for finding in findings:
        if finding["hand"] != hand:
            hand = finding["hand"]
            out.write(f"  hand {hand}\n")
        where = f"ply {finding['ply']}" if finding["ply"] is not None else "result"
        points = f"{finding['points']} points" if finding["points"] is not None else "points unknown"
        span = f", {finding['turns']} turns from ply {finding['first_ply']}" if finding["turns"] > 1 else ""
        graded = f"{finding['severity']}, " if finding["severity"] else ""
        out.write(f"    {where}: {finding['kind']} ({graded}{points}{span}): {finding['message']}\n")
        if finding["cause"]:
            out.write(f"      cause: {finding['cause']}\n")
        if finding["witness"]:
            out.write(f"      better: {'; '.join(finding['witness'])}\n")
    if error is not None:
        out.write(f"  analysed up to the illegal action: {error}\n")


def _meld(args: argparse.Namespace) -> int:
    try:
        variant = find_variant(args.variant)
    except KeyError as error:
        print(json.dumps({"legal": False, "error": str(error.args[0])}))
        return EXIT_UNREADABLE
    try:
        tokens = [parse_token(word) for word in args.cards]
    except ActionSyntaxError as error:
        print(json.dumps({"legal": False, "error": error.message}))
        return EXIT_UNREADABLE
    try:
        shape = resolve_meld(tokens, variant)
    except BuracoError as error:
        print(json.dumps({"variant": variant.id, "legal": False, "kind": error.kind, "error": error.message}))
        return EXIT_INVALID
    wild = shape.wild
    print(
        json.dumps(
            {
                "variant": variant.id,
                "legal": True,
                "type": "run" if shape.is_run else "set",
                "clean": wild is None,
                "dirty": wild is not None,
                "cards": [CARD_TEXT[c] for c in shape.cards],
                "layout": [
                    {"card": CARD_TEXT[c], **({"as": shape.stand_in()} if i == shape.wild_index else {})}
                    for i, c in enumerate(shape.cards)
                ],
                "wild": None if wild is None else {"card": CARD_TEXT[wild], "as": shape.stand_in()},
                "canasta": canasta_kind(shape, variant, -1),
                "canonical": shape.text(),
            }
        )
    )
    return EXIT_OK


def _show(args: argparse.Namespace) -> int:
    try:
        record = loads(_read(args.file))
    except (OSError, NotationError) as error:
        print(f"{args.file}: not readable BRN: {error}", file=sys.stderr)
        return EXIT_UNREADABLE
    if not 1 <= args.hand <= len(record.hands):
        print(f"{args.file} has hands 1 to {len(record.hands)}", file=sys.stderr)
        return EXIT_UNREADABLE
    index = args.hand - 1
    ply = len(record.hands[index].parsed) if args.ply is None else args.ply
    try:
        state = state_at(record, index, ply)
    except BuracoError as error:
        print(f"cannot reach ply {ply}: {error}", file=sys.stderr)
        return EXIT_INVALID
    except ValueError as error:
        print(str(error), file=sys.stderr)
        return EXIT_UNREADABLE
    entry = next(e for e in iter_timeline(record, index) if e["ply"] == ply)  # reached above: no error
    if args.json:
        print(json.dumps(entry, ensure_ascii=False))
    else:
        sys.stdout.write(render_table(state, record.players, entry))
    return EXIT_OK


def render_table(state: HandState, players: Sequence[str], entry: dict[str, Any] | None = None) -> str:
    """The table as a few lines of text; with its timeline ``entry``, the action just played first."""
    data = state.to_json()
    lines = [f"{state.variant.id}, ply {state.ply}: " + (
        f"over ({data['ended_by']}{', p' + str(data['out_by']) + ' went out' if data['out_by'] else ''})"
        if state.is_over else f"p{state.turn} to {'draw' if state.step == 'draw' else 'play'}"
    )]
    if entry is not None:
        lines.append(f"just played: {entry_text(entry)}")
    lines.append(f"stock {data['stock']}, dead piles {data['dead'] or 'none'}, discard pile "
                 f"({len(data['discard'])}): {' '.join(data['discard']) or '-'}")
    for seat in range(1, state.players + 1):
        lines.append(f"p{seat} {players[seat - 1]} ({state.hand_sizes[seat]}): {' '.join(data['hands'][str(seat)])}")
    for side, seats in enumerate(state.sides):
        melds = [m for m in data["melds"] if m["side"] == side + 1]
        who = "+".join(f"p{s}" for s in seats)
        lines.append(f"side {side + 1} ({who}), melded {data['running'][side]['melded']}:")
        for meld in melds:
            cards = " ".join(e["card"] + (f"={e['as']}" if "as" in e else "") for e in meld["layout"])
            canasta = f"  [{meld['canasta']} canasta]" if meld["canasta"] else ""
            lines.append(f"  {meld['id']}: {cards}{canasta}")
    if data["must_meld"]:
        lines.append(f"must meld {data['must_meld']} this turn")
    return "\n".join(lines) + "\n"


def _selfplay(args: argparse.Namespace) -> int:
    try:
        record = play_match(
            args.variant, players=args.players, hands=args.hands or None, seed=args.seed, mistakes=args.mistakes
        )
    except (KeyError, ValueError) as error:
        print(f"selfplay: {error.args[0] if error.args else error}", file=sys.stderr)
        return EXIT_UNREADABLE
    text = dumps(record, args.format)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    return EXIT_OK

