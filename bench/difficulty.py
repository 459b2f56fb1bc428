"""A deal's difficulty (``app.engine.difficulty``): its distribution, and what it predicts.

    python -m bench difficulty [--layout tripeaks|six_peaks|golf] [--rules wrap|nowrap]
                               [--deals N] [--first F] [--heldout H] [--heldout-first G]
                               [--playouts P] [--samples K] [--workers W] [--out FILE]

1. The distribution, on numbered deals F..F+N-1 (default 0..999, the deals the tiers'
   thresholds were chosen on): the share of deals in each tenth of the difficulty (the
   share of the hint's playouts won), in each tier, the terciles, the deals the solver
   proves winnable (200,000 nodes, as the daily), and the time a deal's measure takes.
2. What it predicts, on H held-out deals from G (default 300 from 100000: deals the
   thresholds never saw): each is measured, then played once by the greedy bot and once by
   the hint bot (64 samples a decision, by nodes), and the table gives, per tier, the share
   of each bot's games won with its 95% interval; then, for each bot, how well the
   difficulty ranks its wins and losses (AUC: the chance that a deal it won was measured
   easier than a deal it lost; 0.5 is no better than chance) and the Brier score of the
   difficulty taken as the chance of a win, beside that of the bot's overall win rate.

3. Drawing a deal of each tier as the server does for create_challenge (``--draws D``,
   default 10 a tier; 0: none): random numbered deals (from a seeded generator here) until
   one is proved winnable and of the tier (``app.challenges.deals.first_of_tier``), on one
   core: the time a draw takes (mean, p50, max) and the candidates it tried.

The layout's default rules (``--rules nowrap`` turns wrap off). ``--out FILE`` keeps each
deal's figures as a JSON line, and a later run with the same FILE measures only the deals
not yet there (a full run on golf is most of an hour on two cores). ``--quick``: 6 deals
and 4 held out, 6 playouts.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from app.challenges.deals import first_of_tier
from app.engine import MAX_DEAL_NUMBER, Rules, get_layout, new_game, numbered_deal
from app.engine.bots import STRATEGIES, HintSettings, percentile, play_game
from app.engine.calibration import wilson
from app.engine.difficulty import (
    EASY_FROM,
    HARD_BELOW,
    DifficultySettings,
    Tier,
    difficulty,
    tier_of,
)
from app.engine.solver import SearchBudget, solve_clear

WINNABLE_NODES = 200_000  # as the daily's proof (app.challenges.deals.NODES_PER_DEAL)


def _rules(args: argparse.Namespace) -> Rules:
    if args.rules == "nowrap":
        return Rules.for_layout(args.layout, wrap=False)
    return Rules.for_layout(args.layout)


def measure_deal(
    number: int, rules: Rules, settings: DifficultySettings, heldout: bool
) -> dict[str, Any]:
    """One deal's figures: its difficulty and, held out, a greedy and a hint game."""
    layout = get_layout(rules.layout)
    deal = numbered_deal(number, layout.decks, rules.jokers)
    began = time.process_time()
    found = difficulty(deal, rules, layout, settings)
    seconds = time.process_time() - began
    assert found is not None  # no time budget
    winnable = solve_clear(
        new_game(deal, rules, layout), SearchBudget(max_nodes=WINNABLE_NODES)
    ).winnable
    out: dict[str, Any] = {
        "deal": number,
        "heldout": heldout,
        "wins": found.wins,
        "playouts": found.playouts,
        "seconds": round(seconds, 4),
        "winnable": winnable,
    }
    if heldout:
        for name, hint_settings in (
            ("greedy", HintSettings()),
            ("hint", HintSettings(samples=64, seconds=None)),
        ):
            strategy = STRATEGIES[name](rules, layout, hint_settings)
            out[name] = play_game(strategy, rules, layout, number).won
    return out


def _auc(scores: list[float], won: list[bool]) -> float | None:
    """The chance that a won deal scored higher than a lost one (ties count half)."""
    wins = [s for s, w in zip(scores, won, strict=True) if w]
    losses = [s for s, w in zip(scores, won, strict=True) if not w]
    if not wins or not losses:
        return None
    better = sum((a > b) + 0.5 * (a == b) for a in wins for b in losses)
    return better / (len(wins) * len(losses))


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _distribution(rows: list[dict[str, Any]]) -> None:
    shares = [r["wins"] / r["playouts"] for r in rows]
    n = len(rows)
    print(f"{n} deals, {rows[0]['playouts']} playouts each")
    for tenth in range(10):
        low, high = tenth / 10, (tenth + 1) / 10
        count = sum(low <= s < high or (tenth == 9 and s == 1.0) for s in shares)
        print(f"  difficulty {low:.1f}-{high:.1f}: {count:4d} deals ({_pct(count / n)})")
    tiers = {t: sum(1 for s in shares if tier_of(s) is t) for t in Tier}
    print(
        "  tiers (easy >= "
        f"{EASY_FROM:g}, hard < {HARD_BELOW:g}): "
        + ", ".join(f"{t.value} {c} ({_pct(c / n)})" for t, c in tiers.items())
    )
    ordered = sorted(shares)
    winnable = [s for r, s in zip(rows, shares, strict=True) if r["winnable"]]
    print(
        f"  mean {statistics.fmean(shares):.3f}, terciles {ordered[n // 3]:.3f} and "
        f"{ordered[2 * n // 3]:.3f}; proved winnable: {len(winnable)}, of them hard: "
        f"{sum(1 for s in winnable if tier_of(s) is Tier.HARD)}"
    )
    times = [r["seconds"] for r in rows]
    print(
        f"  a deal's measure (CPU): p50 {percentile(times, 0.5):.2f} s, "
        f"mean {statistics.fmean(times):.2f} s, p99 {percentile(times, 0.99):.2f} s"
    )


def _prediction(rows: list[dict[str, Any]]) -> None:
    shares = [r["wins"] / r["playouts"] for r in rows]
    print(f"{len(rows)} held-out deals")
    for bot in ("greedy", "hint"):
        won = [bool(r[bot]) for r in rows]
        parts = []
        for t in Tier:
            games = [w for w, s in zip(won, shares, strict=True) if tier_of(s) is t]
            if games:
                low, high = wilson(sum(games), len(games))
                parts.append(
                    f"{t.value} {sum(games)}/{len(games)} {_pct(sum(games) / len(games))} "
                    f"[{_pct(low)}, {_pct(high)}]"
                )
        rate = sum(won) / len(won)
        brier = statistics.fmean((s - w) ** 2 for s, w in zip(shares, won, strict=True))
        base = statistics.fmean((rate - w) ** 2 for w in won)
        auc = _auc(shares, won)
        print(f"  {bot}: won " + "; ".join(parts))
        print(
            f"    AUC {auc:.3f} " if auc is not None else "    AUC - ",
            end="",
        )
        print(f"Brier {brier:.4f} (its overall rate {_pct(rate)} as the chance: {base:.4f})")


class _Candidates:
    """Numbered deals drawn from ``rng`` as a draw asks for them, counted."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.drawn = 0

    def __call__(self, k: int) -> int:
        self.drawn += 1
        return self.rng.randrange(MAX_DEAL_NUMBER + 1)


def _draws(rules: Rules, settings: DifficultySettings, draws: int) -> None:
    for tier in Tier:
        times: list[float] = []
        tried: list[int] = []
        rng = random.Random(f"draws-{tier.value}")
        for _ in range(draws):
            candidates = _Candidates(rng)
            began = time.process_time()
            found = first_of_tier(candidates, rules, True, 3600.0, tier, settings)
            times.append(time.process_time() - began)
            assert found is not None
            tried.append(candidates.drawn)
        print(
            f"  {tier.value}: {draws} draws, mean {statistics.fmean(times):.2f} s, p50 "
            f"{percentile(times, 0.5):.2f} s, max {max(times):.2f} s; candidates tried: mean "
            f"{statistics.fmean(tried):.1f}, max {max(tried)}"
        )


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench difficulty")
    parser.add_argument("names", nargs="*")
    parser.add_argument("--layout", default="tripeaks", choices=("tripeaks", "six_peaks", "golf"))
    parser.add_argument("--rules", default="default", choices=("default", "nowrap"))
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--heldout", type=int, default=300)
    parser.add_argument("--heldout-first", type=int, default=100_000)
    parser.add_argument("--playouts", type=int, default=DifficultySettings().playouts)
    parser.add_argument("--samples", type=int, default=DifficultySettings().samples)
    parser.add_argument("--draws", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args([a for a in argv if a != "difficulty"])
    if args.quick:
        args.deals, args.heldout, args.playouts, args.draws = 6, 4, 6, 1
    rules = _rules(args)
    settings = DifficultySettings(playouts=args.playouts, samples=args.samples)
    wanted = [(d, False) for d in range(args.first, args.first + args.deals)] + [
        (d, True) for d in range(args.heldout_first, args.heldout_first + args.heldout)
    ]
    done: dict[tuple[int, bool], dict[str, Any]] = {}
    if args.out is not None and args.out.exists():
        for line in args.out.read_text().splitlines():
            row = json.loads(line)
            done[row["deal"], row["heldout"]] = row
    todo = [w for w in wanted if w not in done]
    print(
        f"layout {args.layout}, rules {args.rules}: the hint's playouts {settings.playouts}, "
        f"{settings.samples} samples of {settings.nodes} nodes a decision; "
        f"{len(todo)} deals to measure ({len(wanted) - len(todo)} kept)"
    )
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        futures = [pool.submit(measure_deal, d, rules, settings, h) for d, h in todo]
        sink = args.out.open("a") if args.out is not None else None
        try:
            for future in futures:
                row = future.result()
                done[row["deal"], row["heldout"]] = row
                if sink is not None:
                    sink.write(json.dumps(row) + "\n")
                    sink.flush()
        finally:
            if sink is not None:
                sink.close()
    rows = [done[w] for w in wanted]
    print("\n### 1. The distribution")
    _distribution([r for r in rows if not r["heldout"]])
    if args.heldout:
        print("\n### 2. What it predicts")
        _prediction([r for r in rows if r["heldout"]])
    if args.draws:
        print("\n### 3. Drawing a deal of each tier (CPU time, one core)")
        _draws(rules, settings, args.draws)
