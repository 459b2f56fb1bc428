"""Solver speed against the plain memoised search (bench/plain_dfs.py), in one run.

    python -m bench solver [--deals N] [--seed S] [--plain-nodes K] [--many D]
                           [--best-deals M] [--positions P] [--no-bound]

1. Clearing, classic deals S..S+N-1 with and without wrap: the solver's deals per second,
   p50 and p99 per deal, its unknown answers (default budget), and the plain search on
   the same deals (with a node budget: a deal it cannot finish counts with the time it
   took, so the ratio is then a lower bound, marked ">=").
   Then the solver alone on D deals (default 1,000), for a p99 that is not just the
   slowest of a few deals, with how many took over 100 ms and the slowest five.
2. Best score on whole classic deals (the first M): the solver alone (the plain search
   keys the streak and whole cards, and cannot finish them).
3. Both questions on P positions of classic deals played forward to a short stock (as in
   the tests), solver against plain search, as a ratio.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from app.cli import percentile
from app.engine import GameState, Rules, new_game, numbered_deal
from app.engine.solver import Budget, solve_best, solve_clear
from bench.plain_dfs import plain_best, plain_clear
from bench.positions import position


def _line(name: str, times: list[float]) -> str:
    total = sum(times)
    rate = len(times) / total if total else float("inf")
    return (
        f"{name}: {len(times)} deals, {rate:.1f}/s, p50 {percentile(times, 0.5) * 1000:.1f} ms,"
        f" p99 {percentile(times, 0.99) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms"
    )


def _clear_timed(state: GameState, args: argparse.Namespace) -> tuple[float, bool | None]:
    began = time.perf_counter()
    winnable = solve_clear(state, bound=not args.no_bound).winnable
    return time.perf_counter() - began, winnable


def _clear(args: argparse.Namespace, wrap: bool) -> None:
    rules = Rules.for_layout("tripeaks", wrap=wrap)
    solver_times: list[float] = []
    plain_times: list[float] = []
    unknown = unfinished = winnable = 0
    finished: list[tuple[float, float]] = []  # (solver, plain) where the plain one ended
    for n in range(args.seed, args.seed + args.deals):
        state = new_game(numbered_deal(n), rules)
        seconds, w = _clear_timed(state, args)
        solver_times.append(seconds)
        unknown += w is None
        winnable += w is True
        began = time.perf_counter()
        plain = plain_clear(state, args.plain_nodes)
        plain_times.append(time.perf_counter() - began)
        if plain is None:
            unfinished += 1
        else:
            finished.append((solver_times[-1], plain_times[-1]))
            if w is not None and plain != w:
                raise AssertionError(f"deal {n}: solver says {w}, plain search {plain}")
    label = "wrap" if wrap else "no wrap"
    print(f"clear, classic, {label}: winnable {winnable}/{args.deals}, solver unknown {unknown}")
    print("  " + _line("solver", solver_times))
    print("  " + _line("plain ", plain_times))
    bound = ">=" if unfinished else "="
    print(
        f"  plain/solver time {bound} {sum(plain_times) / sum(solver_times):.1f}x"
        f" (plain search out of its {args.plain_nodes} nodes on {unfinished} deals)"
    )
    if finished:
        mine = sum(a for a, _ in finished)
        theirs = sum(b for _, b in finished)
        print(f"  on the {len(finished)} deals the plain search finished: {theirs / mine:.1f}x")


def _clear_many(args: argparse.Namespace, wrap: bool) -> None:
    """The solver alone on many deals: a p99 over 50 deals is their slowest deal, so the
    tail is measured on ``--many`` deals (the plain search could not finish them)."""
    rules = Rules.for_layout("tripeaks", wrap=wrap)
    unknown = winnable = 0
    slow: list[tuple[float, int, bool | None]] = []  # (seconds, deal, winnable)
    for n in range(args.seed, args.seed + args.many):
        seconds, w = _clear_timed(new_game(numbered_deal(n), rules), args)
        unknown += w is None
        winnable += w is True
        slow.append((seconds, n, w))
    times = [t for t, _, _ in slow]
    label = "wrap" if wrap else "no wrap"
    print(
        f"clear, classic, {label}, deals {args.seed}..{args.seed + args.many - 1}:"
        f" winnable {winnable}/{args.many}, unknown {unknown}"
    )
    print("  " + _line("solver", times))
    over = sum(t > 0.1 for t in times)
    worst = ", ".join(
        f"{n} ({'won' if w else 'lost'}) {t * 1000:.0f} ms" for t, n, w in sorted(slow)[-5:]
    )
    print(f"  over 100 ms: {over} deals; slowest: {worst}")


def _best_whole(args: argparse.Namespace, wrap: bool) -> None:
    rules = Rules.for_layout("tripeaks", wrap=wrap)
    times: list[float] = []
    unknown = 0
    scores = []
    for n in range(args.seed, args.seed + args.best_deals):
        state = new_game(numbered_deal(n), rules)
        began = time.perf_counter()
        score = solve_best(state, Budget(max_nodes=20_000_000)).score
        times.append(time.perf_counter() - began)
        if score is None:
            unknown += 1
        else:
            scores.append(score)
    label = "wrap" if wrap else "no wrap"
    mean = sum(scores) / len(scores) if scores else float("nan")
    print(f"best score, whole classic deals, {label}: unknown {unknown}, mean {mean:.1f}")
    print("  " + _line("solver", times))


def _clear_answer(state: GameState) -> object:
    return solve_clear(state).winnable


def _best_answer(state: GameState) -> object:
    return solve_best(state).score


def _positions(args: argparse.Namespace, wrap: bool) -> None:
    rules = Rules.for_layout("tripeaks", wrap=wrap)
    rng = random.Random(2026)
    states = [position(n, rules, rng, rng.randint(2, 6)) for n in range(args.positions)]
    label = "wrap" if wrap else "no wrap"
    questions: list[tuple[str, Callable[[GameState], object], Callable[[GameState], object]]]
    questions = [("clear", _clear_answer, plain_clear), ("best", _best_answer, plain_best)]
    for question, mine, plain in questions:
        solver_times: list[float] = []
        plain_times: list[float] = []
        for state in states:
            began = time.perf_counter()
            a = mine(state)
            solver_times.append(time.perf_counter() - began)
            began = time.perf_counter()
            b = plain(state)
            plain_times.append(time.perf_counter() - began)
            if a != b:
                raise AssertionError(f"{question}: solver {a}, plain search {b}")
        print(f"{question}, {len(states)} short-stock positions, {label}:")
        print("  " + _line("solver", solver_times))
        print("  " + _line("plain ", plain_times))
        print(f"  plain/solver time = {sum(plain_times) / sum(solver_times):.1f}x")


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench.solver")
    parser.add_argument("--deals", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plain-nodes", type=int, default=200_000)
    parser.add_argument("--many", type=int, default=1000)
    parser.add_argument("--best-deals", type=int, default=10)
    parser.add_argument("--positions", type=int, default=100)
    parser.add_argument("--no-bound", action="store_true", help="clear without the bound")
    args, _ = parser.parse_known_args(argv)  # other modules' names and flags pass by
    for wrap in (True, False):
        _clear(args, wrap)
    for wrap in (True, False):
        _clear_many(args, wrap)
    for wrap in (True, False):
        _best_whole(args, wrap)
    for wrap in (True, False):
        _positions(args, wrap)
