"""The best score's anytime answer: the best line found when the exact search cannot
finish (six peaks), and the sound bound beside it, tested against exact answers on
positions small enough to solve exactly (half-cleared six-peaks tables with a short
stock, classic positions), under every scoring scheme."""

from __future__ import annotations

import random

import pytest

from app.engine import (
    DRAW,
    GameState,
    Play,
    Rules,
    apply,
    get_layout,
    legal_moves,
    new_game,
    numbered_deal,
)
from app.engine.hints import analysis
from app.engine.solver import BestAnswer, SearchBudget, solve_best


def half_cleared(number: int, rules: Rules, seed: int, stock_left: int) -> GameState:
    """Deal ``number`` played forward by a random player (a card half the time it can)
    until ``stock_left`` stock cards are left: a half-cleared table, a short stock."""
    layout = get_layout(rules.layout)
    rng = random.Random(seed)
    state = new_game(numbered_deal(number, layout.decks, rules.jokers), rules, layout)
    while len(state.stock) > stock_left:
        plays = [m for m in legal_moves(state) if isinstance(m, Play)]
        after = apply(state, rng.choice(plays) if plays and rng.random() < 0.5 else DRAW)
        if after.is_over:
            break
        state = after
    return state


def replayed(state: GameState, answer: BestAnswer) -> int:
    for move in answer.line:
        state = apply(state, move)
    assert state.is_over  # the line ends the game, by a concession when it stops early
    return state.score.total


def anytime_against_exact(state: GameState) -> tuple[BestAnswer, BestAnswer]:
    """The exact answer, and the anytime answer with as many nodes as the exact search
    took (3 million at most): its exact quarter cannot finish, so the beam search answers."""
    exact = solve_best(state, SearchBudget(max_nodes=None))
    assert exact.exact and exact.score is not None and exact.bound == exact.score
    budget = SearchBudget(max_nodes=min(exact.nodes, 3_000_000))
    return exact, solve_best(state, budget, anytime=True)


# Half-cleared six-peaks positions (deal, seed) that the exact search solves in a second
SIX_PEAKS = [(1, 2), (2, 1), (13, 2), (15, 1)]


@pytest.mark.parametrize("scoring", ["classic", "msc", "cards_left"])
def test_six_peaks_the_bound_holds_and_the_line_found_is_a_line(scoring: str) -> None:
    rules = Rules.for_layout("six_peaks", scoring=scoring)
    lower = scoring == "cards_left"
    beam_answers = same = 0
    for number, seed in SIX_PEAKS:
        state = half_cleared(number, rules, seed, 12)
        exact, found = anytime_against_exact(state)
        assert found.score is not None and found.bound is not None and exact.score is not None
        assert replayed(state, exact) == exact.score
        assert replayed(state, found) == found.score
        if lower:  # cards left: the bound is a floor, the line found leaves at least the best
            assert found.bound <= exact.score <= found.score
        else:
            assert found.score <= exact.score <= found.bound
        if scoring == "classic":
            # The bound is every card left in one streak continuing the current one, and
            # every peak left: 15 each, 30 for the last (counted by hand here).
            left = sum(card is not None for card in state.tableau)
            streak = state.score.current_streak
            peaks = sum(state.tableau[p] is not None for p in state.layout.peaks)
            cards = sum(range(streak + 1, streak + left + 1))
            assert found.bound == state.score.total + cards + 15 * peaks + 15 * (peaks > 0)
        if not found.exact:
            beam_answers += 1
        else:  # reached the bound: nothing can be better
            assert found.score == exact.score == found.bound
        same += found.score == exact.score
    if lower:
        # The beam search answered, and reached the floor on deal 15 (1 card: the table is
        # proved unclearable), so that answer is exact; deal 1 is cleared (0, exact by the
        # clearing search). Measured: the fewest cards on 2 of the 4 (3 against 1, and 8
        # against 7 on the others), where it stopped at its first width before the search
        # was given the most cards a line can take as its ceiling (only deal 1's then).
        assert beam_answers >= 2 and same >= 2
    else:
        assert beam_answers >= 3  # the beam search did answer (the exact search ran out)
    if scoring == "classic":
        # Not only sound but good: measured, the best line on 3 of the 4 (and 51 points
        # short on deal 13's, -60 against -9: a position with little to gain).
        assert same >= 3


@pytest.mark.parametrize("wrap", [True, False])
def test_classic_positions_the_bound_holds(wrap: bool) -> None:
    rules = Rules.for_layout("tripeaks", wrap=wrap)
    for number in range(6):
        state = half_cleared(number, rules, 3, 8)
        exact, found = anytime_against_exact(state)
        assert found.score is not None and found.bound is not None and exact.score is not None
        assert found.score <= exact.score <= found.bound
        assert replayed(state, found) == found.score


def test_a_whole_six_peaks_deal_answers_a_line_and_a_bound() -> None:
    """Where the exact search cannot finish, the answer is the best line found (replayed
    by the engine to its score) and the bound: every card left in one streak and every
    peak's bonus (1596 + 105 at the start), never None."""
    rules = Rules.for_layout("six_peaks")
    layout = get_layout("six_peaks")
    state = new_game(numbered_deal(1, layout.decks), rules, layout)
    budget = SearchBudget(max_nodes=3_000_000)
    found = solve_best(state, budget, anytime=True)
    assert not found.exact
    assert found.bound == 56 * 57 // 2 + 5 * 15 + 30
    assert found.score is not None and 300 < found.score < found.bound
    assert replayed(state, found) == found.score
    # The same budget gives the same answer: nodes, not the clock, when no seconds are set.
    again = solve_best(state, budget, anytime=True)
    assert (again.score, again.line) == (found.score, found.line)
    # Without ``anytime``, an unfinished search is unknown, never a guess; the bound stands.
    unknown = solve_best(state, SearchBudget(max_nodes=100_000))
    assert unknown.score is None and unknown.line == () and not unknown.exact
    assert unknown.bound == found.bound


def test_an_exact_answer_is_its_own_bound() -> None:
    state = new_game(numbered_deal(1), Rules.for_layout("tripeaks"))
    for anytime in (False, True):
        answer = solve_best(state, anytime=anytime)
        assert answer.exact and answer.score == answer.bound == 88


def test_with_redeals_there_is_no_line_found_but_the_bound() -> None:
    rules = Rules.for_layout("six_peaks", redeals=1)
    layout = get_layout("six_peaks")
    state = new_game(numbered_deal(2, layout.decks), rules, layout)
    answer = solve_best(state, SearchBudget(max_nodes=50_000), anytime=True)
    assert answer.score is None and not answer.exact
    assert answer.bound == 56 * 57 // 2 + 5 * 15 + 30


def test_an_analysis_keeps_the_game_itself_when_it_beats_every_line_found() -> None:
    """The game analysed is a line too: when the search found nothing better (here a
    budget too small to find anything), the analysis's best line is the game's own."""
    rules = Rules.for_layout("six_peaks")
    layout = get_layout("six_peaks")
    deal = numbered_deal(3, layout.decks)
    state = new_game(deal, rules, layout)
    moves: list[str] = []
    while not state.is_over:
        plays = [m for m in legal_moves(state) if isinstance(m, Play)]
        move = str(plays[0] if plays else DRAW)
        moves.append(move)
        state = apply(state, move)
    a = analysis(deal, rules, moves, layout, budget=SearchBudget(max_nodes=2_000))
    assert not a.best_score_exact and not a.complete
    assert a.best_score == state.score.total and list(a.best_line) == moves
    assert a.best_score_bound == 56 * 57 // 2 + 5 * 15 + 30
    roomy = analysis(deal, rules, moves, layout, budget=SearchBudget(max_nodes=4_000_000))
    assert roomy.best_score is not None and roomy.best_score > state.score.total
    assert roomy.best_score_bound == a.best_score_bound
