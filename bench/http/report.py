"""The tables ``python -m bench http`` prints: each server's figures against its own bare
route, and with ``--baseline`` the two checkouts' side by side."""

from __future__ import annotations

import os
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from bench.http.figures import (
    CLIENTS,
    CPU_GOAL,
    DEEP_MOVE,
    DEEP_RULES,
    DEPTH_GOAL,
    LABELS,
    SCALE_CLIENTS,
    SCALE_WORKERS,
    TIME_GOAL,
    DepthFigure,
    Figure,
    Figures,
    Sizes,
)
from bench.http.servers import Checkout


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f}"


def _ratio(x: float | None, y: float | None) -> str:
    return f"{x / y:.2f}x" if x is not None and y else "-"


def _table(by_route: dict[str, Figure]) -> None:
    bare = by_route["bare"]
    print(
        f"  {'endpoint':28} {'requests':>8} {'req/s':>6} {'p50 ms':>7} {'p99 ms':>7}"
        f" {'x bare':>7} {'p50 x':>7} {'cpu ms':>7} {'cpu x':>7}"
    )
    for key in LABELS:
        f = by_route[key]
        cost = statistics.median(f.round_costs(bare))
        cpu = f"{f.cpu_ms:7.2f}" if f.cpu_ms is not None else f"{'-':>7}"
        print(
            f"  {f.label:28} {f.requests:8d} {f.rps:6.0f} {_ms(f.p50):>7} {_ms(f.p99):>7}"
            f" {cost:6.2f}x {_ratio(f.p50, bare.p50):>7} {cpu}"
            f" {_ratio(f.cpu_ms, bare.cpu_ms):>7}"
        )


def _move_goal(by_route: dict[str, Figure]) -> str:
    """A move against the goals: by server CPU, by time (median over rounds) and by p50."""
    bare, move = by_route["bare"], by_route["move"]
    cost = statistics.median(move.round_costs(bare))
    cpu_cost = move.cpu_ms / bare.cpu_ms if move.cpu_ms is not None and bare.cpu_ms else None
    measures = [
        ("server CPU", cpu_cost, CPU_GOAL),
        ("time", cost, TIME_GOAL),
        ("p50", move.p50 / bare.p50, TIME_GOAL),
    ]
    return ", ".join(
        f"{m} {r:.2f}x {'met' if r <= goal else 'MISSED'}"
        for m, r, goal in measures
        if r is not None
    )


def report(name: str, figures: Figures, depth: DepthFigure, sizes: Sizes) -> None:
    print(f"\n### {name}: one worker, {sizes.rounds} interleaved rounds")
    goal: list[str] = []
    for clients, by_route in figures.items():
        print(
            f"{clients} client{'s' if clients > 1 else ''}"
            f"{' (sequential)' if clients == 1 else ' (threads, each its own connection)'}:"
        )
        _table(by_route)
        goal.append(f"  {clients} client{'s' if clients > 1 else ''}: {_move_goal(by_route)}")
    print(
        f"goal: a move costs <= {TIME_GOAL:g} bare requests by time and <= {CPU_GOAL:g} by"
        " server CPU (the steady measure):"
    )
    print("\n".join(goal))
    first, deep = statistics.median(depth.first), statistics.median(depth.deep)
    rf, rd = statistics.median(depth.read_first), statistics.median(depth.read_deep)
    ratio = deep / first
    mean_ratio = statistics.fmean(depth.deep) / statistics.fmean(depth.first)
    verdict = "met" if ratio <= DEPTH_GOAL else "MISSED"
    print(
        f"goal: move {DEEP_MOVE} costs <= {DEPTH_GOAL:g}x move 1 (one client,"
        f" {depth.pairs} interleaved pairs of games with rules {DEEP_RULES}; medians):"
    )
    print(
        f"  draw at move 1: {_ms(first)} ms, at move {DEEP_MOVE}: {_ms(deep)} ms"
        f" -> {ratio:.2f}x (means {mean_ratio:.2f}x) {verdict}"
    )
    print(
        f"  list_legal_moves at version 0: {_ms(rf)} ms, at version {DEEP_MOVE - 1}:"
        f" {_ms(rd)} ms -> {rd / rf:.2f}x"
    )


def report_workers(name: str, by_route: dict[str, Figure], sizes: Sizes) -> None:
    """The two-worker run: its table, and moves per second per core against the bare
    route of the same run."""
    print(
        f"\n### {name}: {SCALE_WORKERS} workers, {SCALE_CLIENTS} clients,"
        f" {sizes.rounds} rounds (server CPU summed over the workers, 10 ms ticks)"
    )
    _table(by_route)
    bare, move = by_route["bare"], by_route["move"]
    cores = os.cpu_count() or 1
    per_cpu_second = 1000 / move.cpu_ms if move.cpu_ms else None
    print(
        f"moves: {move.rps:.0f}/s, {move.rps / cores:.0f}/s per core ({cores} cores);"
        f" bare: {bare.rps:.0f}/s, {bare.rps / cores:.0f}/s per core; a move costs"
        f" {statistics.median(move.round_costs(bare)):.2f}x bare by time,"
        f" {_ratio(move.cpu_ms, bare.cpu_ms)} by server CPU"
        + (f" ({per_cpu_second:.0f} moves per server CPU second)" if per_cpu_second else "")
    )
    print(f"goal: {_move_goal(by_route)}")


@dataclass
class Compared:
    """One database's figures, the baseline's first: what report_comparison sets side by
    side."""

    database: str
    figures: list[Figures]
    depths: list[DepthFigure]
    workers: list[dict[str, Figure]] | None = None


SHORT = {
    "move": "make_move",
    "create": "create_game",
    "read": "list_legal_moves",
    "get": "get_game",
    "bare": "bare GET (sync)",
}


def _number(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.0f}" if abs(x) >= 100 else f"{x:.2f}"


Pair = tuple[float | None, float | None]  # the baseline's figure, the new one's
Rounds = tuple[Sequence[float | None], Sequence[float | None]]  # the same, round by round


def _compare(label: str, figures: Pair, rounds: Rounds = ((), ())) -> None:
    """One row: the baseline's figure, the new one's, new/baseline, and that ratio round
    by round (median, lowest-highest)."""
    (base, new), (base_rounds, new_rounds) = figures, rounds
    paired = [n / b for b, n in zip(base_rounds, new_rounds, strict=True) if b and n is not None]
    spread = (
        f"{statistics.median(paired):5.2f}x {min(paired):5.2f}-{max(paired):.2f}" if paired else ""
    )
    print(f"  {label:36} {_number(base):>9} {_number(new):>9} {_ratio(new, base):>9}  {spread}")


def _over(xs: Sequence[float | None], ys: Sequence[float | None]) -> list[float | None]:
    return [x / y if x is not None and y else None for x, y in zip(xs, ys, strict=True)]


def _compare_routes(base: dict[str, Figure], new: dict[str, Figure]) -> None:
    for key in ("move", "create", "read", "get", "bare"):
        b, n = base[key], new[key]
        _compare(f"{SHORT[key]} ms", (b.ms, n.ms), (b.round_ms(), n.round_ms()))
        rounds = (b.round_cpu_ms(), n.round_cpu_ms())
        _compare(f"{SHORT[key]} server cpu ms", (b.cpu_ms, n.cpu_ms), rounds)
    costs = base["move"].round_costs(base["bare"]), new["move"].round_costs(new["bare"])
    medians = statistics.median(costs[0]), statistics.median(costs[1])
    _compare("make_move x bare, by time", medians, costs)
    cpu = (
        _over([base["move"].cpu_ms], [base["bare"].cpu_ms])[0],
        _over([new["move"].cpu_ms], [new["bare"].cpu_ms])[0],
    )
    cpu_rounds = (
        _over(base["move"].round_cpu_ms(), base["bare"].round_cpu_ms()),
        _over(new["move"].round_cpu_ms(), new["bare"].round_cpu_ms()),
    )
    _compare("make_move x bare, by server cpu", cpu, cpu_rounds)


def _compare_workers(base: dict[str, Figure], new: dict[str, Figure]) -> None:
    (bm, bb), (nm, nb) = (base["move"], base["bare"]), (new["move"], new["bare"])
    _compare("make_move moves/s", (bm.rps, nm.rps), (bm.round_rps(), nm.round_rps()))
    rounds = (bm.round_cpu_ms(), nm.round_cpu_ms())
    _compare("make_move server cpu ms", (bm.cpu_ms, nm.cpu_ms), rounds)
    _compare("bare GET (sync) req/s", (bb.rps, nb.rps), (bb.round_rps(), nb.round_rps()))
    costs = bm.round_costs(bb), nm.round_costs(nb)
    medians = statistics.median(costs[0]), statistics.median(costs[1])
    _compare("make_move x bare, by time", medians, costs)


def report_comparison(checkouts: Sequence[Checkout | None], compared: Sequence[Compared]) -> None:
    """The new server's figures against the baseline's, row by row."""
    print("\n### new against baseline, in the same run (phases interleaved)")
    for checkout in checkouts:
        if checkout is not None:
            print(checkout.describe())
    print(
        "'ms': a phase's wall time over its requests (with several clients: over the"
        " throughput); 'server cpu ms': the server's CPU time per request; 'new/base': the"
        " new figure over the baseline's (under 1: the new is cheaper; for the per-second"
        " figures, faster); 'rounds': that ratio round by round (the two servers' phases of"
        " a round run back to back): median, lowest-highest."
    )
    print(f"  {'':36} {'baseline':>9} {'new':>9} {'new/base':>9}  {'rounds':>6}")
    for c in compared:
        base, new = c.figures
        for clients in (1, CLIENTS):
            print(f"{c.database}, 1 worker, {clients} client{'s' if clients > 1 else ''}:")
            _compare_routes(base[clients], new[clients])
        if c.workers is not None:
            print(f"{c.database}, {SCALE_WORKERS} workers, {SCALE_CLIENTS} clients:")
            _compare_workers(c.workers[0], c.workers[1])
        print(f"{c.database}, depth (one client, medians):")
        depth = [statistics.median(d.deep) / statistics.median(d.first) for d in c.depths]
        _compare(f"draw at move {DEEP_MOVE} x move 1", (depth[0], depth[1]))
