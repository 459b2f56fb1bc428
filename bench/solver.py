"""Solver speed against the plain memoised search (bench/plain_dfs.py), in one run.

    python -m bench solver [--deals N] [--seed S] [--plain-nodes K] [--many D]
                           [--best-deals M] [--best-seconds T] [--six-deals M6]
                           [--six-seconds T6] [--python-deals Q] [--positions P] [--no-bound]
                           [--hint-positions H] [--hint-samples K] [--hint-only]
                           [--layout L] [--layout-deals N6] [--analysis-seconds T]

1. Clearing, classic deals S..S+N-1 with and without wrap: the solver's deals per second,
   p50 and p99 per deal, its unknown answers (default budget), and the plain search on
   the same deals (with a node budget: a deal it cannot finish counts with the time it
   took, so the ratio is then a lower bound, marked ">=").
   Then the solver alone on D deals (default 1,000), for a p99 that is not just the
   slowest of a few deals, with how many took over 100 ms and the slowest five.
2. Best score on whole deals: classic deals S..S+M-1 (default 300) with and without wrap,
   and six_peaks deals (``--six-deals``, default 5, 10 s each as the analysis gives): p50,
   p99 and mean of the best score (the C search where it is built) beside clearing on the
   same deals, and the pure Python search (the fallback) on the first ``--python-deals``
   of them, as a ratio. The best score's CPU time is given too: on a machine others load,
   the wall-clock time includes waiting for a core. The plain search keys the streak and
   whole cards, and cannot finish whole deals: it is measured against on positions (3.).
3. Both questions on P positions of classic deals played forward to a short stock (as in
   the tests), solver against plain search, as a ratio.
4. The hint's clearing searches (``--hint-positions H``, default 60, and ``--hint-samples``
   K each; ``--hint-only`` runs this alone): classic deals with and without wrap, played
   some random moves in, the hidden cards re-dealt K times as the hint deals them; each
   sample asks what the hint asks (the position, then, when it is won, each legal move's
   position, on one search with the hint's default node budget), by the C search
   (``solver.clear_search``) and by the pure Python ``ClearSearch``, in turn on the same
   sample: time a sample (p50, mean), the ratio, the samples 250 ms holds at that mean;
   then the hint itself (250 ms) on each position on both paths: the samples it got
   through.
5. ``--layout L`` runs this alone: the best score as an analysis asks it (anytime, within
   ``--analysis-seconds``, default 10) on ``--layout-deals`` deals of L (default 100) with
   its default rules: how many answers are exact, and on the others the mean gap between
   the best line found and the sound bound; then classic and golf deals (``--best-deals``)
   by the exact search alone and by the anytime call, as a ratio of their times.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from app.engine import (
    GameState,
    Play,
    Rules,
    get_layout,
    legal_moves,
    new_game,
    numbered_deal,
    player_view,
)
from app.engine.bots import percentile
from app.engine.hints import DEFAULT_HINT_SECONDS, DEFAULT_SAMPLE_NODES, _after, hint
from app.engine.solver import (
    DRAW_CODE,
    BudgetExhausted,
    ClearingSearch,
    SearchBudget,
    Start,
    accel,
    clear_search,
    solve_best,
    solve_clear,
    start_of,
)
from app.engine.solver.clear import ClearSearch
from bench.plain_dfs import plain_best, plain_clear
from bench.positions import position, random_play


def _line(name: str, times: list[float]) -> str:
    total = sum(times)
    rate = len(times) / total if total else float("inf")
    return (
        f"{name}: {len(times)} deals, {rate:.1f}/s, p50 {percentile(times, 0.5) * 1000:.1f} ms,"
        f" p99 {percentile(times, 0.99) * 1000:.1f} ms, mean {total / len(times) * 1000:.1f} ms,"
        f" max {max(times) * 1000:.1f} ms"
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


def _stats(times: list[float]) -> str:
    return (
        f"p50 {percentile(times, 0.5) * 1000:.1f} ms, p99 {percentile(times, 0.99) * 1000:.1f} ms,"
        f" mean {sum(times) / len(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms"
    )


def _form() -> str:
    return "C search" if accel.active is not None else "pure Python search"


def _pure_best(state: GameState, budget: SearchBudget) -> tuple[float, int | None]:
    """The pure Python best-score search (the fallback where the C one is not built)."""
    kept = accel.active
    accel.active = None
    try:
        began = time.perf_counter()
        score = solve_best(state, budget).score
        return time.perf_counter() - began, score
    finally:
        accel.active = kept


def _best_whole(args: argparse.Namespace, layout_name: str, wrap: bool) -> None:
    """Whole deals: clearing and the best score (the default search: the C one where it is
    built) on each, and the pure Python search on the first ``--python-deals`` of them."""
    rules = Rules.for_layout(layout_name, wrap=wrap)
    layout = get_layout(layout_name)
    six = layout_name == "six_peaks"
    deals = args.six_deals if six else args.best_deals
    budget = SearchBudget(max_nodes=None, seconds=args.six_seconds if six else args.best_seconds)
    clear_times: list[float] = []
    best_times: list[float] = []
    best_cpu: list[float] = []  # the process's CPU time: what the load of others leaves out
    pairs: list[tuple[float, float]] = []  # (default, pure Python) where both finished
    unknown = 0
    scores: list[int] = []
    for k, n in enumerate(range(args.seed, args.seed + deals)):
        state = new_game(numbered_deal(n, layout.decks, rules.jokers), rules, layout)
        clear_times.append(_clear_timed(state, args)[0])
        began, cpu = time.perf_counter(), time.process_time()
        score = solve_best(state, budget).score
        best_times.append(time.perf_counter() - began)
        best_cpu.append(time.process_time() - cpu)
        if score is None:
            unknown += 1
        else:
            scores.append(score)
        if k < args.python_deals and accel.active is not None:
            seconds, pure = _pure_best(state, budget)
            if score is not None and pure is not None:
                if pure != score:
                    raise AssertionError(f"deal {n}: C search {score}, pure Python {pure}")
                pairs.append((best_times[-1], seconds))
    label = "wrap" if wrap else "no wrap"
    mean = sum(scores) / len(scores) if scores else float("nan")
    print(
        f"best score, whole {layout_name} deals {args.seed}..{args.seed + deals - 1}, {label}:"
        f" unknown {unknown} (budget {budget.seconds} s a deal), mean best score {mean:.1f}"
    )
    print(f"  clear: {_stats(clear_times)}")
    print(f"  best ({_form()}): {_stats(best_times)}")
    print(f"  best ({_form()}), CPU time: {_stats(best_cpu)}")
    if pairs:
        mine = sum(a for a, _ in pairs)
        pure_total = sum(b for _, b in pairs)
        print(
            f"  pure Python search on {len(pairs)} of them: {pure_total / len(pairs) * 1000:.0f} ms"
            f" a deal, {pure_total / mine:.1f}x the {_form()}'s time on them"
        )


def _anytime(args: argparse.Namespace) -> None:
    """The best score as an analysis asks it (``solve_best(..., anytime=True)`` within the
    analysis budget) on ``--layout-deals`` deals of ``--layout`` with its default rules:
    how many are exact, and on the rest the gap between the best line found and the bound.
    Then, in the same run, classic and golf deals (``--best-deals``): the anytime call
    against the exact search alone, as a ratio of their times (the anytime answer must
    cost nothing where the exact search finishes)."""
    layout = get_layout(args.layout)
    rules = Rules.for_layout(layout)
    budget = SearchBudget(max_nodes=None, seconds=args.analysis_seconds)
    first, deals = args.seed, args.layout_deals
    exact = 0
    found: list[int] = []
    bounds: list[int] = []
    times: list[float] = []
    cpu: list[float] = []
    for n in range(first, first + deals):
        state = new_game(numbered_deal(n, layout.decks, rules.jokers), rules, layout)
        began, began_cpu = time.perf_counter(), time.process_time()
        answer = solve_best(state, budget, anytime=True)
        times.append(time.perf_counter() - began)
        cpu.append(time.process_time() - began_cpu)
        if answer.exact:
            exact += 1
        elif answer.score is not None and answer.bound is not None:
            found.append(answer.score)
            bounds.append(answer.bound)
    print(
        f"anytime best score, {args.layout} deals {first}..{first + deals - 1}"
        f" ({budget.seconds} s a deal, {_form()}): exact {exact}/{deals}"
    )
    if found:
        to_bound = [(b - f) / abs(b) for f, b in zip(found, bounds, strict=True) if b]
        to_found = [(b - f) / abs(f) for f, b in zip(found, bounds, strict=True) if f]
        print(
            f"  the other {len(found)}: best found mean {sum(found) / len(found):.1f}"
            f" (min {min(found)}, max {max(found)}), bound mean {sum(bounds) / len(bounds):.1f};"
            f" mean gap {sum(to_bound) / len(to_bound):.1%} of the bound,"
            f" {sum(to_found) / len(to_found):.1%} of the best found"
        )
    print(f"  time: {_stats(times)}; CPU: {_stats(cpu)}")
    for name, options in (("tripeaks", {"wrap": True}), ("golf", {})):
        other = get_layout(name)
        other_rules = Rules.for_layout(other, **options)
        plain: list[float] = []
        anytime: list[float] = []
        differ = 0
        for n in range(first, first + args.best_deals):
            state = new_game(numbered_deal(n, other.decks), other_rules, other)
            began = time.perf_counter()
            alone = solve_best(state, budget)
            plain.append(time.perf_counter() - began)
            began = time.perf_counter()
            both = solve_best(state, budget, anytime=True)
            anytime.append(time.perf_counter() - began)
            differ += (alone.score, alone.exact) != (both.score, both.exact)
        print(
            f"  {name} deals {first}..{first + args.best_deals - 1}: exact search alone"
            f" {_stats(plain)}; anytime call {_stats(anytime)};"
            f" anytime/alone {sum(anytime) / sum(plain):.2f}x; answers that differ {differ}"
        )


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
        form = f" ({_form()})" if question == "best" else ""
        print(f"{question}, {len(states)} short-stock positions, {label}{form}:")
        print("  " + _line("solver", solver_times))
        print("  " + _line("plain ", plain_times))
        print(f"  plain/solver time = {sum(plain_times) / sum(solver_times):.1f}x")


def _redealt(state: GameState, rng: random.Random) -> Start:
    """The position with the cards the player cannot see (face-down tableau cards and the
    stock) dealt again at random, as a hint's sample."""
    start = start_of(state)
    view = player_view(state)
    hidden = [e["position"] for e in view["tableau"] if not e["removed"] and e["card"] is None]
    pool = [start.ranks[p] for p in hidden] + list(start.stock)
    rng.shuffle(pool)
    ranks = list(start.ranks)
    for p, r in zip(hidden, pool, strict=False):
        ranks[p] = r
    stock = tuple(pool[len(hidden) :])
    return Start(tuple(ranks), start.mask, start.top, start.waste, stock, 0, 0, 0)


def _sample(
    make: Callable[[], ClearingSearch], root: Start, codes: list[int]
) -> tuple[float, list[bool | None]]:
    """What the hint asks of one sample: the position, then each move's when it is won."""
    began = time.perf_counter()
    search = make()
    answers: list[bool | None] = []
    try:
        won: bool | None = search.wins(root)
    except BudgetExhausted:
        won = None
    answers.append(won)
    if won:
        winner = search.line[0]
        for code in codes:
            search.nodes = 0
            try:
                answers.append(code == winner or search.wins(_after(root, code, root.ranks)))
            except BudgetExhausted:
                answers.append(None)
    return time.perf_counter() - began, answers


def _hint_samples(args: argparse.Namespace, wrap: bool) -> None:
    if accel.BUILT is None:
        print("hint samples: the C search is not built, nothing to compare")
        return
    rules = Rules.for_layout("tripeaks", wrap=wrap)
    layout = get_layout("tripeaks")
    rng = random.Random(args.seed + 19)
    states = [
        random_play(rules, args.seed + n, rng, rng.randint(0, 25))
        for n in range(args.hint_positions)
    ]
    budget = SearchBudget(max_nodes=DEFAULT_SAMPLE_NODES)
    c_times: list[float] = []
    py_times: list[float] = []
    unknown = {"C": 0, "Python": 0}
    differ = 0
    for k, state in enumerate(states):
        codes = [m.position if isinstance(m, Play) else DRAW_CODE for m in legal_moves(state)]
        for _ in range(args.hint_samples):
            root = _redealt(state, rng)
            runs = {
                "C": lambda root=root: clear_search(layout, rules, root, budget),
                "Python": lambda root=root: ClearSearch(layout, rules, root, budget),
            }
            order = ["C", "Python"] if k % 2 == 0 else ["Python", "C"]
            found: dict[str, list[bool | None]] = {}
            for name in order:
                seconds, found[name] = _sample(runs[name], root, codes)
                (c_times if name == "C" else py_times).append(seconds)
                unknown[name] += found[name].count(None)
            pairs = zip(found["C"], found["Python"], strict=False)
            differ += any(a is not None and b is not None and a != b for a, b in pairs)
    if differ:
        raise AssertionError(f"the C and Python clearing searches disagree on {differ} samples")
    c_mean = sum(c_times) / len(c_times)
    py_mean = sum(py_times) / len(py_times)
    label = "wrap" if wrap else "no wrap"
    print(
        f"hint samples, classic, {label}: {len(states)} positions x {args.hint_samples}"
        f" samples (position + each move, {DEFAULT_SAMPLE_NODES} nodes a search)"
    )
    for name, times, mean in (("C     ", c_times, c_mean), ("Python", py_times, py_mean)):
        print(
            f"  {name}: p50 {percentile(times, 0.5) * 1000:.2f} ms, mean {mean * 1000:.2f} ms,"
            f" p99 {percentile(times, 0.99) * 1000:.2f} ms a sample,"
            f" {DEFAULT_HINT_SECONDS / mean:.0f} samples in {DEFAULT_HINT_SECONDS * 1000:.0f} ms"
            f" at that mean; searches out of budget {unknown[name.strip()]}"
        )
    print(
        f"  Python/C: mean {py_mean / c_mean:.1f}x,"
        f" p50 {percentile(py_times, 0.5) / percentile(c_times, 0.5):.1f}x"
    )
    # The hint itself: its race may settle before the time is up (the same samples on both
    # paths then), so the samples of the positions where both ran the whole time are given.
    got: dict[str, list[tuple[int, bool]]] = {"C": [], "Python": []}
    for k, state in enumerate(states):
        view = player_view(state)
        for name in ["C", "Python"] if k % 2 == 0 else ["Python", "C"]:
            kept = accel.active
            accel.active = accel.BUILT if name == "C" else None
            try:
                began = time.perf_counter()
                samples = hint(view, rules, seed=k).samples
                timed_out = time.perf_counter() - began >= DEFAULT_HINT_SECONDS
                got[name].append((samples, timed_out))
            finally:
                accel.active = kept
    full = [
        k for k in range(len(states)) if got["C"][k][1] and got["Python"][k][1]
    ]  # both ran to the time
    for name, tried in got.items():
        counts = [float(n) for n, _ in tried]
        whole = [counts[k] for k in full]
        print(
            f"  the hint ({DEFAULT_HINT_SECONDS * 1000:.0f} ms) with the {name} search: samples"
            f" p50 {percentile(counts, 0.5):.0f}, mean {sum(counts) / len(counts):.0f};"
            f" on the {len(full)} positions where both ran the whole time: p50"
            f" {percentile(whole, 0.5) if whole else 0:.0f}, mean"
            f" {sum(whole) / len(whole) if whole else 0:.0f}"
        )


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench.solver")
    parser.add_argument("--deals", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plain-nodes", type=int, default=200_000)
    parser.add_argument("--many", type=int, default=1000)
    parser.add_argument("--best-deals", type=int, default=300)
    parser.add_argument("--best-seconds", type=float, default=60.0)
    parser.add_argument("--six-deals", type=int, default=5)
    parser.add_argument("--six-seconds", type=float, default=10.0)
    parser.add_argument("--python-deals", type=int, default=5)
    parser.add_argument("--positions", type=int, default=100)
    parser.add_argument("--no-bound", action="store_true", help="clear without the bound")
    parser.add_argument("--hint-positions", type=int, default=60)
    parser.add_argument("--hint-samples", type=int, default=4)
    parser.add_argument("--hint-only", action="store_true", help="only the hint's searches")
    parser.add_argument("--layout", default=None, help="only the anytime best score (5.)")
    parser.add_argument("--layout-deals", type=int, default=100)
    parser.add_argument("--analysis-seconds", type=float, default=10.0)
    args, _ = parser.parse_known_args(argv)  # other modules' names and flags pass by
    if args.layout is not None:
        _anytime(args)
        return
    if args.hint_only:
        for wrap in (True, False):
            _hint_samples(args, wrap)
        return
    for wrap in (True, False):
        _clear(args, wrap)
    for wrap in (True, False):
        _clear_many(args, wrap)
    for layout, wrap in (("tripeaks", True), ("tripeaks", False), ("six_peaks", True)):
        _best_whole(args, layout, wrap)
    for wrap in (True, False):
        _positions(args, wrap)
    for wrap in (True, False):
        _hint_samples(args, wrap)
