"""The ``tripeaks`` command: solve deals, measure rules, let bots play.

tripeaks solve [FILE] [rule flags] [budget flags]
    Deals one a line (card codes separated by spaces, in the engine's deal order:
    tableau positions, the waste card unless --free-start, then the stock from the
    top) from FILE or standard input; one JSON object a line out. The best score is
    exact when ``best_score_exact``; when the search cannot finish within the budget (six
    peaks), it is the best line found, and ``best_score_bound`` says how much better any
    line could be.
tripeaks stats --deals N --seed S [--difficulty] [rule flags] [budget flags]
    The share of winnable deals among deals S, S+1, ... with its 95% (Wilson)
    interval, the mean best score and the solving time per deal; with --difficulty, each
    deal's difficulty too (app.engine.difficulty: --playouts games by the hint, of
    --samples samples a decision): the deals in each tier and the mean share won.
tripeaks bot --games N --strategy random,greedy,pimc,hint [rule flags]
    N games played in process by bots that see only the player's view, side by side on
    the same deals (app.engine.bots): games won with the 95% interval, the time a
    decision takes, and the hints' calibration table.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TextIO

from app.engine import (
    GameState,
    Layout,
    Rules,
    Scoring,
    TriPeaksError,
    get_layout,
    new_game,
    numbered_deal,
    parse_deal,
)
from app.engine.bots import (
    STRATEGIES,
    GameRecord,
    HintSettings,
    percentile,
    play_game,
    report,
    summarise,
)
from app.engine.calibration import wilson
from app.engine.difficulty import Difficulty, DifficultySettings, Tier, difficulty
from app.engine.solver import SearchBudget, solve_best, solve_clear

Strategy = Callable[[dict[str, Any], int], str]


# ---------------------------------------------------------------------------------------
# Flags


def _add_rule_flags(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("rules")
    g.add_argument("--layout", default="tripeaks", help="tripeaks, six_peaks or golf")
    wrap = g.add_mutually_exclusive_group()
    wrap.add_argument("--wrap", dest="wrap", action="store_true", default=None)
    wrap.add_argument("--no-wrap", dest="wrap", action="store_false")
    g.add_argument("--king-stops", action="store_true", default=None)
    g.add_argument("--open-peaks", action="store_true", default=None)
    g.add_argument("--free-start", action="store_true", default=None)
    g.add_argument("--jokers", type=int, default=None)
    g.add_argument("--redeals", type=int, default=None)
    g.add_argument("--scoring", choices=[s.value for s in Scoring], default=None)
    g.add_argument("--draw-penalty", type=int, default=None)
    g.add_argument("--deal-cost", type=int, default=None)


def _add_budget_flags(parser: argparse.ArgumentParser, nodes: int, seconds: float) -> None:
    g = parser.add_argument_group("budget (per deal and question; out of budget: unknown)")
    g.add_argument("--max-nodes", type=int, default=nodes, help=f"default {nodes}")
    g.add_argument("--time-limit", type=float, default=seconds, help=f"seconds, default {seconds}")


def _rules(args: argparse.Namespace) -> tuple[Rules, Layout]:
    options = {
        name: getattr(args, name)
        for name in (
            "wrap",
            "king_stops",
            "open_peaks",
            "free_start",
            "jokers",
            "redeals",
            "scoring",
            "draw_penalty",
            "deal_cost",
        )
        if getattr(args, name) is not None
    }
    layout = get_layout(args.layout)
    if options.get("king_stops") and "wrap" not in options:
        options["wrap"] = False
    return Rules.for_layout(layout, **options), layout


def _budget(args: argparse.Namespace) -> SearchBudget:
    return SearchBudget(
        max_nodes=args.max_nodes if args.max_nodes > 0 else None,
        seconds=args.time_limit if args.time_limit > 0 else None,
    )


# ---------------------------------------------------------------------------------------
# solve


def _solve_one(
    state: GameState, budget: SearchBudget, clear: bool, best: bool
) -> dict[str, object]:
    began = time.perf_counter()
    out: dict[str, object] = {}
    if clear:
        c = solve_clear(state, budget)
        out["winnable"] = c.winnable
        out["win_line"] = list(c.line) if c.winnable else None
        out["clear_seconds"] = round(c.seconds, 6)
    if best:
        b = solve_best(state, budget, anytime=True)
        out["scoring"] = state.rules.scoring.value
        out["best_score"] = b.score
        out["best_score_bound"] = b.bound
        out["best_score_exact"] = b.exact
        out["best_line"] = list(b.line) if b.score is not None else None
        out["best_seconds"] = round(b.seconds, 6)
    out["seconds"] = round(time.perf_counter() - began, 6)
    return out


def _cmd_solve(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    rules, layout = _rules(args)
    budget = _budget(args)
    clear = args.question in ("clear", "both")
    best = args.question in ("best", "both")
    errors = 0

    def lines() -> Iterable[str]:
        if args.file in (None, "-"):
            yield from stdin
        else:
            with open(args.file, encoding="utf-8") as f:  # noqa: PTH123 - plain text in
                yield from f

    for number, text in enumerate(lines(), start=1):
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        record: dict[str, object] = {"line": number}
        try:
            deal = parse_deal(text, layout.decks, rules.jokers)
            record.update(_solve_one(new_game(deal, rules, layout), budget, clear, best))
        except TriPeaksError as e:
            errors += 1
            record["error"] = str(e)
        stdout.write(json.dumps(record) + "\n")
        stdout.flush()
    return 1 if errors else 0


# ---------------------------------------------------------------------------------------
# stats


def _cmd_stats(args: argparse.Namespace, stdout: TextIO) -> int:
    rules, layout = _rules(args)
    budget = _budget(args)
    winnable = unknown = 0
    best_scores: list[int] = []
    best_unknown = 0
    clear_times: list[float] = []
    best_times: list[float] = []
    for i in range(args.deals):
        state = new_game(numbered_deal(args.seed + i, layout.decks, rules.jokers), rules, layout)
        c = solve_clear(state, budget)
        clear_times.append(c.seconds)
        if c.winnable is None:
            unknown += 1
        elif c.winnable:
            winnable += 1
        if args.best:
            b = solve_best(state, budget)
            best_times.append(b.seconds)
            if b.score is None:
                best_unknown += 1
            else:
                best_scores.append(b.score)
    known = args.deals - unknown
    low, high = wilson(winnable, known)
    report: dict[str, object] = {
        "rules": rules.to_dict(),
        "deals": args.deals,
        "first_deal": args.seed,
        "winnable": winnable,
        "unknown": unknown,
        "winnable_share": round(winnable / known, 4) if known else None,
        "winnable_ci95": [round(low, 4), round(high, 4)],
        "clear_seconds_p50": round(percentile(clear_times, 0.5), 6),
        "clear_seconds_p99": round(percentile(clear_times, 0.99), 6),
    }
    if args.difficulty:
        report["difficulty"] = _difficulties(args, rules, layout)
    if args.best:
        report["mean_best_score"] = round(statistics.fmean(best_scores), 3) if best_scores else None
        report["best_unknown"] = best_unknown
        report["best_seconds_p50"] = round(percentile(best_times, 0.5), 6)
        report["best_seconds_p99"] = round(percentile(best_times, 0.99), 6)
    if args.json:
        stdout.write(json.dumps(report) + "\n")
    else:
        share = report["winnable_share"]
        stdout.write(
            f"deals {args.deals} (from {args.seed}): winnable {winnable}/{known}"
            f" = {share} (95% CI {low:.4f}-{high:.4f}), unknown {unknown}\n"
            f"clear: p50 {report['clear_seconds_p50']} s, p99 {report['clear_seconds_p99']} s\n"
        )
        if args.best:
            stdout.write(
                f"best score ({rules.scoring.value}): mean {report['mean_best_score']}"
                f" (unknown {best_unknown}); p50 {report['best_seconds_p50']} s,"
                f" p99 {report['best_seconds_p99']} s\n"
            )
        if args.difficulty:
            d: Any = report["difficulty"]
            tiers = ", ".join(f"{t} {d['tiers'][t]}" for t in d["tiers"])
            stdout.write(
                f"difficulty ({d['playouts']} games by the hint a deal, {d['samples']} samples"
                f" a decision): mean share won {d['mean_share']}; {tiers};"
                f" p50 {d['seconds_p50']} s a deal\n"
            )
    return 0


def _difficulties(args: argparse.Namespace, rules: Rules, layout: Layout) -> dict[str, Any]:
    """Each deal's difficulty (``app.engine.difficulty``), summed up."""
    settings = DifficultySettings(playouts=args.playouts, samples=args.samples)
    found: list[Difficulty] = []
    times: list[float] = []
    for i in range(args.deals):
        began = time.perf_counter()
        deal = numbered_deal(args.seed + i, layout.decks, rules.jokers)
        rated = difficulty(deal, rules, layout, settings)
        assert rated is not None  # no time budget
        times.append(time.perf_counter() - began)
        found.append(rated)
    return {
        "playouts": settings.playouts,
        "samples": settings.samples,
        "mean_share": round(statistics.fmean(d.share for d in found), 4),
        "tiers": {t.value: sum(1 for d in found if d.tier is t) for t in Tier},
        "deals": [{"deal": args.seed + i, **d.to_dict()} for i, d in enumerate(found)],
        "seconds_p50": round(percentile(times, 0.5), 6),
    }


# ---------------------------------------------------------------------------------------
# bot


def _cmd_bot(args: argparse.Namespace, stdout: TextIO) -> int:
    rules, layout = _rules(args)
    names = [n for n in args.strategy.split(",") if n]
    unknown = [n for n in names if n not in STRATEGIES]
    if unknown:
        raise TriPeaksError(f"unknown strategies {unknown}; known: {', '.join(STRATEGIES)}")
    settings = HintSettings(
        args.hint_samples, args.hint_seconds if args.hint_seconds > 0 else None, args.hint_nodes
    )
    records: dict[str, list[GameRecord]] = {}
    seconds: dict[str, float] = {}
    for name in names:
        strategy = STRATEGIES[name](rules, layout, settings)
        began = time.perf_counter()
        records[name] = [
            play_game(strategy, rules, layout, deal)
            for deal in range(args.seed, args.seed + args.games)
        ]
        seconds[name] = time.perf_counter() - began
    summaries = [summarise(n, records[n]) for n in names]
    if args.json:
        out = {
            "games": args.games,
            "first_deal": args.seed,
            "strategies": [
                {**s.to_dict(), "seconds": round(seconds[s.name], 3)} for s in summaries
            ],
        }
        stdout.write(json.dumps(out) + "\n")
    else:
        stdout.write(
            f"deals {args.seed}-{args.seed + args.games - 1}, {rules.layout}"
            f" {'with' if rules.wrap else 'without'} wrap\n{report(summaries, records)}\n"
        )
    return 0


# ---------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tripeaks", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    solve = sub.add_parser("solve", help="solve deals read one a line")
    solve.add_argument("file", nargs="?", help="a file of deals; '-' or none: standard input")
    solve.add_argument("--question", choices=("clear", "best", "both"), default="both")
    _add_rule_flags(solve)
    _add_budget_flags(solve, nodes=5_000_000, seconds=0)

    stats = sub.add_parser("stats", help="share of winnable deals, best scores, times")
    stats.add_argument("--deals", type=int, default=100)
    stats.add_argument("--seed", type=int, default=0, help="the first deal number")
    stats.add_argument("--no-best", dest="best", action="store_false", help="clear only")
    stats.add_argument("--json", action="store_true")
    stats.add_argument(
        "--difficulty", action="store_true", help="each deal's difficulty (the hint's games)"
    )
    stats.add_argument("--playouts", type=int, default=DifficultySettings().playouts)
    stats.add_argument("--samples", type=int, default=DifficultySettings().samples)
    _add_rule_flags(stats)
    _add_budget_flags(stats, nodes=5_000_000, seconds=0)

    bot = sub.add_parser("bot", help="let a bot play games that it cannot peek into")
    bot.add_argument("--games", type=int, default=100)
    bot.add_argument("--seed", type=int, default=0, help="the first deal number")
    bot.add_argument(
        "--strategy",
        default="greedy",
        help=f"one or more of {', '.join(STRATEGIES)}, comma-separated: side by side",
    )
    bot.add_argument("--hint-samples", type=int, default=64, help="samples a hint at most")
    bot.add_argument("--hint-nodes", type=int, default=20_000, help="node budget a search")
    bot.add_argument(
        "--hint-seconds",
        type=float,
        default=0.25,
        help="time budget a hint, as the server has (0: none, repeatable)",
    )
    bot.add_argument("--json", action="store_true")
    _add_rule_flags(bot)
    return parser


def main(
    argv: Sequence[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None
) -> int:
    args = build_parser().parse_args(argv)
    stdin = stdin if stdin is not None else sys.stdin
    stdout = stdout if stdout is not None else sys.stdout
    try:
        if args.command == "solve":
            return _cmd_solve(args, stdin, stdout)
        if args.command == "stats":
            return _cmd_stats(args, stdout)
        return _cmd_bot(args, stdout)
    except TriPeaksError as e:
        print(f"tripeaks: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
