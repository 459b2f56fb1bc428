"""The solver agrees with a plain memoised depth-first search (bench/plain_dfs.py).

The plain search runs on the engine's own states and is too slow for whole classic deals
when a deal is lost, so the 300-deal agreement is on real classic deals played forward to
a position with a short stock: half of them along the solver's own winning line (mostly
winnable positions), half by a random player (mostly lost ones), with streaks running at
the start. Both questions, with and without wrap; then every rule option on fewer deals.
"""

from __future__ import annotations

import random

import pytest

from app.engine import (
    GameState,
    Rules,
    apply,
    new_game,
    numbered_deal,
)
from app.engine.solver import accel, solve_best, solve_clear
from bench.plain_dfs import plain_best, plain_clear
from bench.positions import position

pytestmark = pytest.mark.slow


def check(state: GameState, *, bound: bool = True, plain_nodes: int | None = None) -> int:
    """Both questions agree; returns how many answers of the plain search were compared
    (it may be given a node budget, then an answer it could not finish is not compared).
    """
    compared = 0
    clear = solve_clear(state, bound=bound)
    assert clear.winnable is not None
    if clear.winnable:
        assert apply_line(state, clear.line).outcome.value == "won"
    expected = plain_clear(state, plain_nodes) if plain_nodes else plain_clear(state)
    if expected is not None:
        assert clear.winnable is expected, state.deal
        compared += 1
    best = solve_best(state)
    assert best.score is not None
    assert apply_line(state, best.line).score.total == best.score
    expected_score = plain_best(state, plain_nodes) if plain_nodes else plain_best(state)
    if expected_score is not None:
        assert best.score == expected_score, state.deal
        compared += 1
    return compared


def winnable(state: GameState) -> bool:
    return bool(solve_clear(state).winnable)


def apply_line(state: GameState, line: tuple[str, ...]) -> GameState:
    for move in line:
        state = apply(state, move)
    return state


@pytest.mark.parametrize("wrap", [True, False], ids=["wrap", "no_wrap"])
def test_agrees_with_plain_search_on_300_classic_deals(wrap: bool) -> None:
    rules = Rules.for_layout("tripeaks", wrap=wrap)
    rng = random.Random(2026)
    won = 0
    for n in range(300):
        state = position(n, rules, rng, rng.randint(2, 6))
        assert check(state) == 2
        won += winnable(state)
    # the sample holds both answers in numbers
    assert 30 <= won <= 270


OPTIONS: list[tuple[str, dict[str, object]]] = [
    ("tripeaks", {"scoring": "msc"}),
    ("tripeaks", {"scoring": "cards_left"}),
    ("tripeaks", {"draw_penalty": 0, "deal_cost": 52}),
    ("tripeaks", {"wrap": False, "king_stops": True}),
    ("tripeaks", {"free_start": True}),
    ("tripeaks", {"jokers": 2}),
    ("tripeaks", {"open_peaks": True}),
    ("golf", {}),
    ("golf", {"king_stops": True}),
    ("six_peaks", {}),
]


@pytest.mark.parametrize(("layout", "options"), OPTIONS, ids=[str(o) for o in OPTIONS])
def test_agrees_under_every_rule_option(layout: str, options: dict[str, object]) -> None:
    rules = Rules.for_layout(layout, **options)
    rng = random.Random(7)
    stock_left = 3 if layout == "six_peaks" else 7
    for n in range(16):
        assert check(position(n, rules, rng, rng.randint(2, stock_left))) == 2


@pytest.mark.parametrize("options", [{"redeals": 1}, {"redeals": 1, "wrap": False}])
def test_agrees_with_redeals(options: dict[str, object]) -> None:
    """A redeal brings back the whole waste, so the plain search (which keys whole
    waste orders) is given a budget and compared where it finishes."""
    rules = Rules.for_layout("tripeaks", **options)
    rng = random.Random(5)
    compared = sum(
        check(position(n, rules, rng, rng.randint(0, 3)), plain_nodes=20_000) for n in range(10)
    )
    assert compared >= 10


def test_the_search_agrees_without_its_bound() -> None:
    """The same positions searched without the bound (module docstring of the solver):
    the bound must never turn a winnable position into a lost one."""
    for wrap in (True, False):
        rules = Rules.for_layout("tripeaks", wrap=wrap)
        rng = random.Random(99)
        for n in range(60):
            check(position(n, rules, rng, rng.randint(2, 7)), bound=False)


@pytest.mark.parametrize("wrap", [True, False], ids=["wrap", "no_wrap"])
def test_the_bound_agrees_on_whole_deals(wrap: bool) -> None:
    """Whole classic deals (too big for the plain search when lost) searched with and
    without the bound agree: the first deals, enough of them to hold lost ones, which
    are where the bound cuts most."""
    rules = Rules.for_layout("tripeaks", wrap=wrap)
    lost = 0
    for n in range(40 if wrap else 24):
        state = new_game(numbered_deal(n), rules)
        with_bound = solve_clear(state)
        without = solve_clear(state, bound=False)
        assert with_bound.winnable is not None
        assert with_bound.winnable is without.winnable, n
        lost += with_bound.winnable is False
    assert lost >= 2


SCHEMES = [
    (scoring, wrap, form)
    for scoring in ("classic", "msc", "cards_left")
    for wrap in (True, False)
    for form in ("c", "python")
]


@pytest.mark.parametrize(("scoring", "wrap", "form"), SCHEMES, ids=[str(c) for c in SCHEMES])
def test_best_score_agrees_under_every_scheme(
    scoring: str, wrap: bool, form: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The best score, by the C search and by the pure Python one (the fallback), equals
    the plain search's on 40 positions under each scheme, with and without wrap; its line
    reaches it."""
    if form == "c" and accel.BUILT is None:
        pytest.skip("the C search is not built (no C compiler at install)")
    monkeypatch.setattr(accel, "active", accel.BUILT if form == "c" else None)
    rules = Rules.for_layout("tripeaks", scoring=scoring, wrap=wrap)
    rng = random.Random(1800)
    for n in range(40):
        state = position(n, rules, rng, rng.randint(2, 7))
        best = solve_best(state)
        assert best.score is not None
        assert apply_line(state, best.line).score.total == best.score
        assert best.score == plain_best(state), (n, state.deal)


@pytest.mark.parametrize("layout", ["golf", "six_peaks"])
def test_best_score_agrees_in_python_on_other_layouts(
    layout: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``test_agrees_under_every_rule_option`` checks the default search (the C one where
    built) on golf and six_peaks; the pure Python one here."""
    monkeypatch.setattr(accel, "active", None)
    rules = Rules.for_layout(layout)
    rng = random.Random(7)
    for n in range(12):
        state = position(n, rules, rng, rng.randint(2, 3 if layout == "six_peaks" else 7))
        assert solve_best(state).score == plain_best(state)


def test_free_start_from_the_deal() -> None:
    """The very first position, with no waste card yet (anything may be played)."""
    rules = Rules.for_layout("golf", free_start=True)
    for n in range(3):
        state = new_game(numbered_deal(n), rules)
        assert state.waste == ()
        clear = solve_clear(state)
        assert clear.winnable is not None
