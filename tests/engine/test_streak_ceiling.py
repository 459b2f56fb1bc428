"""How many cards no streak of any line passes (``solver.ceiling.streak_ceiling``), which
the best score's bound takes as a cap on every streak: proved exactly against a brute
force over every line on positions small enough (half-cleared tables, short stocks), in
C and in Python, and never below the truth when the budget cuts it short."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

import pytest

from app.engine import GameState, Rules, get_layout, new_game, numbered_deal
from app.engine.solver import SearchBudget, accel, start_of
from app.engine.solver.bounds import streak_caps
from app.engine.solver.budget import Meter
from app.engine.solver.ceiling import streak_ceiling, streak_reaches
from app.engine.solver.layers import LayerSearch
from app.engine.solver.streaks import Streaks
from app.engine.solver.tables import Table, rank_fits
from tests.engine.test_anytime import half_cleared


@pytest.fixture(params=["c", "python"])
def implementation(request: pytest.FixtureRequest) -> Iterator[str]:
    """The C search where it is built, then the pure Python one."""
    if request.param == "c" and accel.BUILT is None:
        pytest.skip("the C search is not built (no C compiler at install)")
    with pytest.MonkeyPatch.context() as mp:
        if request.param == "python":
            mp.setattr(accel, "active", None)
        yield request.param


def longest_by_brute_force(state: GameState) -> int:
    """The longest streak of any line from ``state`` (the one going on counted whole): every
    state (mask, top, stock index, streak) reachable by a play or a draw, each visited once."""
    start = start_of(state)
    layout, rules = state.layout, state.rules
    free_of = Table(layout, rules, start.ranks).free_of
    seen = set()
    stack = [(start.mask, start.top, 0, start.streak)]
    most = 0
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        mask, top, idx, streak = node
        most = max(most, streak)
        free = free_of(mask)
        for p in range(layout.size):
            if free >> p & 1 and rank_fits(start.ranks[p], top, rules):
                stack.append((mask | 1 << p, start.ranks[p], idx, streak + 1))
        if idx < len(start.stock):
            stack.append((mask, start.stock[idx], idx + 1, 0))
    return most


@cache
def positions(
    layout: str, options: tuple[tuple[str, object], ...], stock_left: int
) -> list[tuple[GameState, int]]:
    """Deals 0-3 played forward (``half_cleared``), each with its longest streak by brute
    force (worked out once for both searches)."""
    rules = Rules.for_layout(get_layout(layout), **dict(options))
    found = []
    for number in range(4):
        state = half_cleared(number, rules, number, stock_left)
        if not state.is_over:
            found.append((state, longest_by_brute_force(state)))
    return found


def ceiling(state: GameState, budget: SearchBudget) -> int:
    start = start_of(state)
    search = LayerSearch(state.layout, state.rules, start, budget)
    return streak_ceiling(search.streaks, start, search.longest)


POSITIONS = [
    ("tripeaks", {"wrap": True}, 8),
    ("tripeaks", {"wrap": False}, 8),
    ("tripeaks", {"wrap": False, "king_stops": True}, 8),
    ("tripeaks", {"wrap": True, "jokers": 2}, 6),
    ("golf", {}, 6),
    ("six_peaks", {}, 5),
]


@pytest.mark.slow
@pytest.mark.parametrize(("layout", "options", "stock_left"), POSITIONS, ids=str)
def test_the_ceiling_is_the_longest_streak_of_any_line(
    implementation: str, layout: str, options: dict[str, object], stock_left: int
) -> None:
    """With the budget to finish, the ceiling is exactly the longest streak some line
    plays: no streak passes it (the bound's cap is sound), and one reaches it (each length
    above it was proved out of reach, not given up)."""
    below = 0
    for state, truth in positions(layout, tuple(sorted(options.items())), stock_left):
        assert ceiling(state, SearchBudget(max_nodes=None)) == truth, implementation
        start = start_of(state)
        table = Table(state.layout, state.rules, start.ranks)
        first, anyway = streak_caps(table, start.mask, start.top)
        below += truth < max(start.streak + first, anyway)
    if layout != "golf":  # golf's longest streaks are mostly what the ranks allow
        assert below >= 1  # the caps alone are not the answer


def test_cut_short_the_ceiling_never_falls_below_the_truth(implementation: str) -> None:
    """With too few nodes to finish, the ceiling is the last length proved out of reach:
    never below the longest streak of any line."""
    for state, truth in positions("six_peaks", (), 5):
        for nodes in (10, 1_000, 20_000):
            assert ceiling(state, SearchBudget(max_nodes=nodes)) >= truth


@pytest.mark.skipif(
    accel.BUILT is None, reason="the C search is not built (no C compiler at install)"
)
@pytest.mark.slow
def test_a_whole_six_peaks_deal_proves_a_ceiling_below_the_caps() -> None:
    """The start of six-peaks deal 2 (caps: 51 cards), with a fifth of 40 million nodes
    to prove in (in C: under 2 s): no streak of any line passes 49 cards."""
    rules = Rules.for_layout("six_peaks")
    layout = get_layout("six_peaks")
    state = new_game(numbered_deal(2, layout.decks, rules.jokers), rules, layout)
    proved = ceiling(state, SearchBudget(max_nodes=40_000_000))
    assert proved <= 49


@pytest.mark.skipif(
    accel.BUILT is None, reason="the C search is not built (no C compiler at install)"
)
def test_c_and_python_search_the_same_states() -> None:
    """The same answer and the same count of states at every length tried."""
    rules = Rules.for_layout("six_peaks")
    state = half_cleared(1, rules, 1, 8)
    start = start_of(state)
    table = Table(state.layout, rules, start.ranks)
    anyway = streak_caps(table, start.mask, start.top)[1]
    answered = set()
    for length in range(anyway - 12, anyway + 1, 3):
        answers = []
        streaks = Streaks(table, start.stock, Meter(SearchBudget(max_nodes=None)))
        free = table.free_of(start.mask)
        found = streak_reaches(streaks, start, free, length, 1 << 40, None)
        answers.append((found, streaks.meter.nodes))
        assert accel.BUILT is not None
        answers.append(
            accel.BUILT.longest(
                table.rank,
                table.uncovers,
                table.fit,
                start.stock,
                start.mask,
                free,
                start.top,
                start.streak,
                length,
                -1,
                -1.0,
                1 << 22,
                table.wraps,
            )
        )
        assert answers[0] == answers[1], length
        answered.add(answers[0][0])
    assert answered == {True, False}  # lengths some line reaches, and lengths none does
