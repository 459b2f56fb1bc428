"""The hint against the other bots, side by side on the same deals.

``python -m bench hints`` plays numbered deals with each strategy of
``app.engine.bots.STRATEGIES`` or ``bench.hint_attempts.ATTEMPTS`` named in
``--strategies`` (default: random, greedy, pimc, hint) under one rule set, as the server
plays its hints (64 samples at most, within 250 ms), and prints: games won with the 95%
interval, the time a decision takes (p50, p99), which deals one won and the other lost,
and for the hints the calibration table (deciles of the chance said against the games
then won) and the Brier score.

Options: ``--deals N`` (default 100; ``--quick``: 20) from ``--first K`` (default 0);
``--rules wrap|nowrap|golf|six_peaks`` (classic TriPeaks with wrap, without, golf, or six
peaks with wrap);
``--workers W`` processes (default 1: a time-budgeted hint measured while another hint
runs on the same core gets fewer samples); ``--out DIR`` keeps every game as a JSON line
in ``DIR/<rules>-<strategy>.jsonl`` and a later run with the same DIR plays only the
deals not yet there, so a long comparison can be run in pieces and reported at once;
``--samples``, ``--seconds`` (0: no time budget, repeatable), ``--nodes`` for the hints.

``--fit`` also fits the calibration curve of each hint (``app.engine.calibration``) on
the sample shares of these games, and shows it honestly: fitted on the odd deals and
judged on the even ones, and the other way round (the reliability table and Brier score
of the chance the curve gives, on games it was not fitted on), then fitted on them all,
as ``KNOTS`` takes it.
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from app.engine import Rules, get_layout
from app.engine.bots import (
    STRATEGIES,
    GameRecord,
    HintSettings,
    play_game,
    report,
    summarise,
)
from app.engine.calibration import calibrated, fit
from bench.hint_attempts import ATTEMPTS

# The bots, and the hints tried and not taken (``bench.hint_attempts``)
KNOWN = {**STRATEGIES, **ATTEMPTS}

RULE_SETS = {
    "wrap": ("tripeaks", {"wrap": True}),
    "nowrap": ("tripeaks", {"wrap": False}),
    "golf": ("golf", {}),
    "six_peaks": ("six_peaks", {}),
}


def _play(job: tuple[str, str, HintSettings, int]) -> dict[str, object]:
    name, rule_set, settings, deal = job
    layout_name, options = RULE_SETS[rule_set]
    layout = get_layout(layout_name)
    rules = Rules.for_layout(layout, **options)
    strategy = KNOWN[name](rules, layout, settings)
    return play_game(strategy, rules, layout, deal).to_dict()


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench hints")
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--rules", choices=tuple(RULE_SETS), default="wrap")
    p.add_argument("--strategies", default="random,greedy,pimc,hint")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--samples", type=int, default=64)
    p.add_argument("--seconds", type=float, default=0.25)
    p.add_argument("--nodes", type=int, default=20_000)
    p.add_argument("--fit", action="store_true")
    return p


def cross_fitted(records: list[GameRecord]) -> list[GameRecord]:
    """The games with each chance replaced by the curve fitted on the other half of the
    deals (odd and even deal numbers) at its sample share."""
    halves = {
        parity: fit([(s, r.won) for r in records if r.deal % 2 == parity for s in r.shares])
        for parity in (0, 1)
    }
    return [
        GameRecord(
            r.deal,
            r.won,
            r.score,
            r.seconds,
            [calibrated(s, halves[1 - r.deal % 2]) for s in r.shares],
            r.shares,
        )
        for r in records
    ]


def run(argv: list[str]) -> None:
    args, _ = _parser().parse_known_args([a for a in argv if a != "hints"])
    deals = 20 if args.quick else args.deals
    wanted = range(args.first, args.first + deals)
    settings = HintSettings(args.samples, args.seconds or None, args.nodes)
    names = [n for n in args.strategies.split(",") if n]
    unknown = [n for n in names if n not in KNOWN]
    if unknown:
        raise SystemExit(f"unknown strategies {unknown}; known: {sorted(KNOWN)}")
    print(
        f"rules {args.rules}, deals {wanted.start}-{wanted.stop - 1}, hints: at most"
        f" {settings.samples} samples, {settings.seconds or 'no'} s, {settings.nodes} nodes"
        f" a search; {args.workers} worker(s)"
    )
    records: dict[str, list[GameRecord]] = {}
    for name in names:
        done: dict[int, GameRecord] = {}
        log = args.out / f"{args.rules}-{name}.jsonl" if args.out else None
        if log is not None and log.exists():
            for line in log.read_text().splitlines():
                if line.strip():
                    r = GameRecord.from_dict(json.loads(line))
                    done[r.deal] = r
        todo = [d for d in wanted if d not in done]
        jobs = [(name, args.rules, settings, d) for d in todo]
        if log is not None:
            log.parent.mkdir(parents=True, exist_ok=True)
        with ProcessPoolExecutor(max_workers=max(1, args.workers)) as pool:
            for d in pool.map(_play, jobs, chunksize=1):
                r = GameRecord.from_dict(d)
                done[r.deal] = r
                if log is not None:
                    with log.open("a") as f:
                        f.write(json.dumps(d) + "\n")
        records[name] = [done[d] for d in wanted]
    summaries = [summarise(n, records[n]) for n in names]
    print(report(summaries, records))
    if args.fit:
        for name in names:
            games = records[name]
            if not any(r.shares for r in games):
                continue
            raw = [GameRecord(r.deal, r.won, r.score, r.seconds, r.shares, r.shares) for r in games]
            judged = {f"{name}/share": raw, f"{name}/fitted": cross_fitted(games)}
            print(f"calibration of {name}: the sample share, and the curve fitted on the other")
            print("half of the deals (odd/even)")
            print(report([summarise(k, v) for k, v in judged.items()], judged))
            knots = fit([(s, r.won) for r in games for s in r.shares])
            print(f"  KNOTS[{args.rules!r}] = {knots!r}")
