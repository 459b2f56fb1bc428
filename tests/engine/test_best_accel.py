"""The best-score searches' two forms agree: the optional C search (app/engine/solver/best.c
and layers.c, built by the install where a C compiler exists) and the pure Python one (the
fallback, and what runs where it is not built). The exact search's two forms search the same draw
positions in the same order, so on every position they give the same score, the same line
and the same node count; the layered search's (an analysis's answer) give the same
answers, finished; and each line replays through the engine to its score (solve_best
checks it too).

The C search's tests are skipped where it is not built; the pure Python one runs
everywhere (``TRIPEAKS_PURE_SOLVER=1`` turns the C one off for a whole run).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from app.engine import GameState, Rules, apply, get_layout, new_game, numbered_deal
from app.engine.solver import BestAnswer, SearchBudget, accel, layers, solve_best
from bench.positions import position

needs_c = pytest.mark.skipif(
    accel.BUILT is None, reason="the C search is not built (no C compiler at install)"
)


@pytest.fixture
def pure() -> Iterator[None]:
    """The pure Python search, for the test's duration."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(accel, "active", None)
        yield


def best_pure(state: GameState, budget: SearchBudget | None = None) -> BestAnswer:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(accel, "active", None)
        return solve_best(state, budget)


def best_c(state: GameState, budget: SearchBudget | None = None) -> BestAnswer:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(accel, "active", accel.BUILT)
        return solve_best(state, budget)


def anytime_pure(state: GameState, budget: SearchBudget | None = None) -> BestAnswer:
    """An analysis's answer (the layered search), in pure Python."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(accel, "active", None)
        return solve_best(state, budget, anytime=True)


def anytime_c(state: GameState, budget: SearchBudget | None = None) -> BestAnswer:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(accel, "active", accel.BUILT)
        return solve_best(state, budget, anytime=True)


def replay(state: GameState, line: tuple[str, ...]) -> GameState:
    for move in line:
        state = apply(state, move)
    return state


def assert_same(state: GameState) -> BestAnswer:
    c = best_c(state)
    p = best_pure(state)
    assert c.score is not None
    assert (c.score, c.line, c.nodes) == (p.score, p.line, p.nodes), state.deal
    end = replay(state, c.line)
    assert end.score.total == c.score
    assert end.is_over
    return c


CASES: list[tuple[str, dict[str, object], int]] = [
    ("tripeaks", {}, 12),
    ("tripeaks", {"wrap": False}, 14),
    ("tripeaks", {"scoring": "msc"}, 12),
    ("tripeaks", {"scoring": "msc", "wrap": False}, 14),
    ("tripeaks", {"scoring": "cards_left"}, 12),
    ("tripeaks", {"scoring": "cards_left", "wrap": False}, 14),
    ("tripeaks", {"draw_penalty": 0, "deal_cost": 52}, 10),
    ("tripeaks", {"draw_penalty": 40}, 14),
    ("tripeaks", {"wrap": False, "king_stops": True}, 14),
    ("tripeaks", {"free_start": True}, 12),
    ("tripeaks", {"jokers": 2}, 10),
    ("golf", {}, 10),
    ("golf", {"scoring": "classic", "wrap": True}, 8),
    ("six_peaks", {}, 6),
    ("six_peaks", {"wrap": False, "scoring": "msc"}, 8),
]


@needs_c
@pytest.mark.parametrize(("layout", "options", "stock_left"), CASES, ids=[str(c) for c in CASES])
def test_c_and_python_agree(layout: str, options: dict[str, object], stock_left: int) -> None:
    """Positions of real deals (bench/positions.py: along a winning line or by a random
    player, streaks running), every scoring scheme, with and without wrap."""
    rules = Rules.for_layout(layout, **options)
    rng = random.Random(18)
    for n in range(12):
        assert_same(position(n, rules, rng, rng.randint(stock_left // 2, stock_left)))


@needs_c
@pytest.mark.parametrize(("layout", "options", "stock_left"), CASES, ids=[str(c) for c in CASES])
def test_the_layered_search_finishes_with_the_exact_answer_in_both(
    layout: str, options: dict[str, object], stock_left: int
) -> None:
    """The layered search (``LayerSearch``, an analysis's answer) in C and in Python, on
    positions the exact search solves: both finish, with the exact search's score as their
    own bound. Their lines may differ (equal points, found in another order); each replays
    to its score."""
    rules = Rules.for_layout(layout, **options)
    rng = random.Random(19)
    for n in range(6):
        state = position(n, rules, rng, rng.randint(stock_left // 2, stock_left))
        exact = best_c(state)
        for found in (anytime_c(state), anytime_pure(state)):
            assert found.exact and found.score == found.bound == exact.score, state.deal
            end = replay(state, found.line)
            assert end.is_over and end.score.total == found.score


@needs_c
@pytest.mark.parametrize("share", [0.0, 1.0], ids=["by_bound", "by_layer"])
def test_the_layered_search_finishes_exact_in_either_order(
    share: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Taken by bound from the first position on (``_LAYER_SHARE`` 0), or layer by layer
    to the end (1), both forms finish with the exact answer."""
    monkeypatch.setattr(layers, "_LAYER_SHARE", share)
    rng = random.Random(20)
    for layout, options, stock_left in (CASES[0], CASES[5], CASES[12], CASES[13]):
        rules = Rules.for_layout(layout, **options)
        for n in range(4):
            state = position(n, rules, rng, rng.randint(stock_left // 2, stock_left))
            exact = best_c(state)
            for found in (anytime_c(state), anytime_pure(state)):
                assert found.exact and found.score == found.bound == exact.score, state.deal
                assert replay(state, found.line).score.total == found.score


@pytest.mark.slow
@needs_c
def test_the_layered_search_keeps_to_its_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """With room for ``_LAYER_MAX_ENTRIES`` draw positions only, on a whole six-peaks deal,
    the layered search makes room (``_evict``) as it goes and answers within its budget:
    the best line found, and a bound that still holds."""
    layout = get_layout("six_peaks")
    state = new_game(numbered_deal(1, layout.decks), Rules.for_layout("six_peaks"), layout)
    monkeypatch.setattr(layers, "_LAYER_MAX_ENTRIES", 1000)
    for solve in (anytime_c, anytime_pure):
        found = solve(state, SearchBudget(max_nodes=2_000_000))
        assert not found.exact and found.score is not None and found.bound is not None
        assert found.score < found.bound <= 56 * 57 // 2 + 5 * 15 + 30
        assert replay(state, found.line).score.total == found.score


@needs_c
@pytest.mark.slow
@pytest.mark.parametrize("wrap", [True, False], ids=["wrap", "no_wrap"])
def test_c_and_python_agree_on_whole_classic_deals(wrap: bool) -> None:
    rules = Rules.for_layout("tripeaks", wrap=wrap)
    for n in (1, 4) if wrap else (0, 1, 3, 4):
        assert_same(new_game(numbered_deal(n), rules))


@needs_c
@pytest.mark.slow
def test_c_and_python_agree_on_a_whole_golf_deal() -> None:
    rules = Rules.for_layout("golf", scoring="classic")
    layout = get_layout("golf")
    for n in range(1):
        assert_same(new_game(numbered_deal(n, layout.decks), rules, layout))


@needs_c
@pytest.mark.slow
def test_known_best_score_by_both() -> None:
    state = new_game(numbered_deal(1), Rules.for_layout("tripeaks"))
    assert best_c(state).score == best_pure(state).score == 88


@needs_c
def test_out_of_budget_is_unknown_in_both() -> None:
    state = new_game(numbered_deal(80), Rules.for_layout("tripeaks"))
    answers = [solve(state, SearchBudget(max_nodes=500)) for solve in (best_c, best_pure)]
    for answer in answers:
        assert answer.score is None
        assert answer.line == ()
        assert answer.nodes > 500  # a streak's walk is counted at its end
    assert answers[0].nodes == answers[1].nodes
    timed = best_c(state, SearchBudget(max_nodes=None, seconds=0.0))
    assert timed.score is None


@needs_c
def test_the_c_table_is_kept_to_its_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``accel.MAX_ENTRIES`` draw positions the answer is unknown, as when the
    budget runs out (a time budget alone would let the table grow for seconds)."""
    state = new_game(numbered_deal(80), Rules.for_layout("tripeaks"))
    monkeypatch.setattr(accel, "MAX_ENTRIES", 1000)
    assert best_c(state).score is None
    monkeypatch.setattr(accel, "MAX_ENTRIES", 1 << 22)
    assert best_c(state).score is not None


def test_the_pure_python_search_answers(pure: None) -> None:
    """Where the C search is not built (or turned off) the pure Python one answers."""
    assert accel.active is None
    rules = Rules.for_layout("tripeaks", wrap=False)
    state = position(3, rules, random.Random(2), 8)
    answer = solve_best(state)
    assert answer.score is not None
    assert replay(state, answer.line).score.total == answer.score
