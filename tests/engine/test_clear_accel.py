"""The clearing search's two forms agree: the optional C search (``_accel.Clear``, which
``solver.clear_search`` gives where the install built it and the rules have no redeals)
and the pure Python one (``solve_clear``, and what ``clear_search`` gives otherwise). They
search in different orders, so only the answers are compared: won or lost, on positions of
numbered deals reached by random legal play, under every rule scheme without redeals; each
winning line the C search gives is replayed through the engine to a win. One C search
answers many positions of one deal, as the hint asks them (the position, then the position
after each move), its table of lost positions shared: each answer is checked against a
fresh Python search. A budget (nodes or seconds) that runs out gives "unknown", never a
wrong answer.

The C search's tests are skipped where it is not built; ``TRIPEAKS_PURE_SOLVER=1`` turns
it off for a whole run, and ``test_the_pure_path_answers`` runs the pure path here.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator, Sequence

import pytest

from app.engine import (
    GameState,
    GameStatus,
    Rules,
    apply,
    legal_moves,
    new_game,
    numbered_deal,
    player_view,
)
from app.engine.hints import analysis, hint
from app.engine.solver import (
    DRAW_CODE,
    BudgetExhausted,
    ClearingSearch,
    SearchBudget,
    accel,
    clear_search,
    solve_clear,
    start_of,
)
from app.engine.solver.clear import ClearSearch
from bench.positions import random_play

needs_c = pytest.mark.skipif(
    accel.BUILT is None, reason="the C search is not built (no C compiler at install)"
)

PYTHON_BUDGET = SearchBudget(max_nodes=300_000)


@pytest.fixture
def c_path() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(accel, "active", accel.BUILT)
        yield


@pytest.fixture
def pure() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(accel, "active", None)
        yield


def c_search(state: GameState, budget: SearchBudget | None = None) -> ClearingSearch:
    search = clear_search(state.layout, state.rules, start_of(state), budget or SearchBudget(None))
    assert not isinstance(search, ClearSearch), "expected the C search"
    return search


def python_answer(state: GameState) -> bool | None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(accel, "active", None)
        return solve_clear(state, PYTHON_BUDGET).winnable


def move_texts(codes: Sequence[int]) -> list[str]:
    return ["draw" if c == DRAW_CODE else f"play {c}" for c in codes]


def assert_wins(state: GameState, codes: Sequence[int]) -> None:
    for move in move_texts(codes):
        state = apply(state, move)
    assert state.outcome is GameStatus.WON


SCHEMES: list[tuple[str, dict[str, object]]] = [
    ("tripeaks", {}),
    ("tripeaks", {"wrap": False}),
    ("tripeaks", {"wrap": False, "king_stops": True}),
    ("tripeaks", {"free_start": True}),
    ("tripeaks", {"free_start": True, "wrap": False}),
    ("tripeaks", {"jokers": 1}),
    ("tripeaks", {"jokers": 2, "wrap": False}),
    ("golf", {}),
    ("golf", {"wrap": True}),
    ("six_peaks", {}),
    ("six_peaks", {"wrap": False}),
]


@needs_c
@pytest.mark.parametrize(("layout", "options"), SCHEMES, ids=[str(s) for s in SCHEMES])
def test_c_and_python_agree(c_path: None, layout: str, options: dict[str, object]) -> None:
    rules = Rules.for_layout(layout, **options)
    rng = random.Random(19)
    answered = {True: 0, False: 0}
    for _ in range(30):
        state = random_play(rules, rng.randrange(10_000), rng, rng.randint(0, 30))
        expected = python_answer(state)
        if expected is None:
            continue
        search = c_search(state)
        won = search.wins(start_of(state))
        assert won == expected, (layout, options, state.deal, state.stock)
        answered[won] += 1
        if won:
            assert_wins(state, search.line)
    assert answered[True] + answered[False] >= 25


@needs_c
@pytest.mark.parametrize(
    ("layout", "options"), [SCHEMES[0], SCHEMES[1], SCHEMES[2], SCHEMES[7]], ids=str
)
def test_one_search_answers_every_move_as_the_hint_asks(
    c_path: None, layout: str, options: dict[str, object]
) -> None:
    """The position, then the position after each legal move, on one C search (its table
    shared), each answer against a fresh Python search; the first move of a win is legal
    and leads to a position the search calls won."""
    rules = Rules.for_layout(layout, **options)
    rng = random.Random(7)
    for _ in range(12):
        state = random_play(rules, rng.randrange(10_000), rng, rng.randint(0, 20))
        search = c_search(state)
        won = search.wins(start_of(state))
        assert won == python_answer(state)
        if won:
            assert_wins(state, search.line)
            first = apply(state, move_texts(search.line[:1])[0])
            assert search.wins(start_of(first)) or first.outcome is GameStatus.WON
        moves = legal_moves(state)
        rng.shuffle(moves)
        for move in moves:
            after = apply(state, move)
            if after.is_over:
                continue
            expected = python_answer(after)
            search.nodes = 0
            answer = search.wins(start_of(after))
            assert answer == expected, (state.deal, state.stock, str(move))
            if answer:
                assert_wins(after, search.line)


@needs_c
def test_a_budget_gives_unknown_never_a_wrong_answer(c_path: None) -> None:
    rules = Rules.for_layout("golf")
    rng = random.Random(3)
    unknown = 0
    for _ in range(10):
        state = random_play(rules, rng.randrange(10_000), rng, rng.randint(0, 10))
        expected = python_answer(state)
        for budget in (SearchBudget(max_nodes=n) for n in (1, 10, 100, 1000)):
            search = c_search(state, budget)
            try:
                won = search.wins(start_of(state))
            except BudgetExhausted:
                unknown += 1
                assert search.nodes > 0
                # The search goes on answering (its table holds only finished proofs).
                search.nodes = 0
                with contextlib.suppress(BudgetExhausted):
                    assert search.wins(start_of(state)) == expected
                continue
            assert won == expected
        timed = c_search(state, SearchBudget(max_nodes=None, seconds=0.0))
        try:
            assert timed.wins(start_of(state)) == expected
        except BudgetExhausted:
            unknown += 1
    assert unknown > 0


@needs_c
def test_the_c_table_is_kept_to_its_size(c_path: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``accel.MAX_ENTRIES`` positions the answer is unknown, as when the budget runs
    out."""
    state = new_game(numbered_deal(80), Rules.for_layout("tripeaks", wrap=False))
    monkeypatch.setattr(accel, "MAX_ENTRIES", 100)
    with pytest.raises(BudgetExhausted):
        c_search(state).wins(start_of(state))


@needs_c
def test_redeals_keep_the_python_search(c_path: None) -> None:
    rules = Rules.for_layout("tripeaks", redeals=1)
    state = new_game(numbered_deal(2), rules)
    search = clear_search(state.layout, rules, start_of(state), SearchBudget())
    assert isinstance(search, ClearSearch)


def hints_of(rules: Rules, number: int) -> list[object]:
    """Hints (every sample searched to the end) and an analysis along a game played by
    its hints, the same on both paths when every search finishes."""
    state = new_game(numbered_deal(number), rules)
    out: list[object] = []
    moves: list[str] = []
    budget = SearchBudget(max_nodes=1_000_000)
    for k in range(4):
        h = hint(
            player_view(state), rules, seed=k, time_budget=None, max_samples=6, sample_budget=budget
        )
        out.append(h)
        if h.move is None:
            break
        state = apply(state, h.move)
        moves.append(h.move)
        if state.is_over:
            break
    out.append(analysis(numbered_deal(number), rules, moves, best=False))
    return out


@needs_c
@pytest.mark.parametrize("wrap", [True, False], ids=["wrap", "no_wrap"])
def test_hints_are_the_same_on_both_paths(wrap: bool) -> None:
    rules = Rules.for_layout("tripeaks", wrap=wrap)
    for number in (5, 6):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(accel, "active", accel.BUILT)
            fast = hints_of(rules, number)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(accel, "active", None)
            slow = hints_of(rules, number)
        assert [_without_time(x) for x in fast] == [_without_time(x) for x in slow]


def _without_time(answer: object) -> object:
    to_dict = getattr(answer, "to_dict", None)
    data = to_dict() if to_dict is not None else answer
    if isinstance(data, dict):
        return {k: v for k, v in data.items() if k not in ("seconds", "nodes")}
    return data


def test_the_pure_path_answers(pure: None) -> None:
    """Where the C search is not built (or turned off) ``clear_search`` is the Python one."""
    rules = Rules.for_layout("tripeaks")
    state = random_play(rules, 4, random.Random(1), 10)
    search = clear_search(state.layout, rules, start_of(state), SearchBudget())
    assert isinstance(search, ClearSearch)
    if search.wins(start_of(state)):
        assert_wins(state, search.line)
