"""Hints see only the player's view; the analysis of a finished game."""

from __future__ import annotations

import pytest

from app.engine import (
    Deal,
    GameState,
    GameStatus,
    Rules,
    apply,
    legal_moves,
    new_game,
    numbered_deal,
    player_view,
)
from app.engine.calibration import KNOTS, calibrated
from app.engine.hints import HintError, analysis, hint
from app.engine.solver import SearchBudget, solve_clear

CLASSIC = Rules.for_layout("tripeaks")


def swapped(deal: Deal, i: int, j: int) -> Deal:
    cards = list(deal)
    cards[i], cards[j] = cards[j], cards[i]
    return tuple(cards)


def test_same_view_same_hint_whatever_the_hidden_cards() -> None:
    deal = numbered_deal(5)
    # Swap a face-down tableau card (position 0) with a stock card, and two stock cards:
    # the player sees the same table, the games differ.
    other = swapped(swapped(deal, 0, 40), 33, 50)
    a, b = new_game(deal, CLASSIC), new_game(other, CLASSIC)
    assert a.tableau != b.tableau and a.stock != b.stock
    for _ in range(3):  # and after a few identical moves
        va, vb = player_view(a), player_view(b)
        assert va == vb
        ha = hint(va, CLASSIC, seed=11, time_budget=None, max_samples=12)
        hb = hint(vb, CLASSIC, seed=11, time_budget=None, max_samples=12)
        assert ha == hb
        assert ha.samples == 12
        a, b = apply(a, "draw"), apply(b, "draw")


def test_hint_is_exact_when_nothing_is_hidden() -> None:
    rules = Rules.for_layout("tripeaks", open_peaks=True)
    state = new_game(numbered_deal(1), rules)
    # draw all but the last stock card: the last one is the only card not seen
    while len(state.stock) > 1:
        state = apply(state, "draw")
    h = hint(player_view(state), rules, seed=1)
    assert h.exact
    assert h.samples == 1
    for text, won in h.wins.items():
        assert won == int(bool(solve_clear(apply(state, text)).winnable))
    assert h.win_chance == h.sample_share == max(h.wins.values())
    assert h.ci95 == (h.win_chance, h.win_chance)


def test_hint_picks_a_winning_move_and_estimates_the_chance() -> None:
    state = new_game(numbered_deal(1), CLASSIC)
    h = hint(player_view(state), CLASSIC, seed=3, time_budget=None, max_samples=30)
    assert h.move in {str(m) for m in legal_moves(state)}
    assert 0.5 <= h.sample_share <= 1.0
    assert h.samples == 30
    # The chance a player following the hints wins is less than a clairvoyant's share
    # of the samples (classic with wrap), and inside its interval.
    assert h.win_chance < h.sample_share
    assert h.win_chance == calibrated(h.sample_share, KNOTS["wrap"])
    low, high = h.ci95
    assert low <= h.win_chance <= high
    assert h.to_dict()["move"] == h.move


def test_hint_on_a_finished_game_and_a_bad_view() -> None:
    state = apply(new_game(numbered_deal(1), CLASSIC), "concede")
    assert hint(player_view(state), CLASSIC).move is None
    view = player_view(new_game(numbered_deal(1), CLASSIC))
    view["waste"] = [*view["waste"], view["waste"][0]]
    with pytest.raises(HintError):
        hint(view, CLASSIC)


def test_hint_with_a_time_budget() -> None:
    state = new_game(numbered_deal(4), CLASSIC)
    h = hint(player_view(state), time_budget=0.05, sample_budget=SearchBudget(max_nodes=2000))
    assert h.samples >= 1
    assert h.move is not None


def _greedy_game(deal: Deal, rules: Rules) -> tuple[list[str], GameState]:
    """Draw whenever possible: a sure way to lose a winnable deal."""
    state = new_game(deal, rules)
    moves = []
    while not state.is_over:
        move = "draw" if state.stock else str(legal_moves(state)[0])
        moves.append(move)
        state = apply(state, move)
    return moves, state


def test_analysis_finds_the_move_that_lost_the_game() -> None:
    deal = numbered_deal(1)
    moves, end = _greedy_game(deal, CLASSIC)
    assert end.outcome is GameStatus.LOST
    report = analysis(deal, CLASSIC, moves, best=False)
    assert report.winnable is True
    assert report.complete
    i = report.lost_at
    assert i is not None
    assert report.lost_move == moves[i]
    state = new_game(deal, CLASSIC)
    for move in moves[:i]:
        state = apply(state, move)
    assert solve_clear(state).winnable is True
    assert solve_clear(apply(state, moves[i])).winnable is False
    assert report.to_dict()["lost_at"] == i


def test_analysis_with_undo_and_of_a_won_game() -> None:
    rules = Rules.for_layout("tripeaks", undo=True)
    deal = numbered_deal(1)
    line = list(solve_clear(new_game(deal, rules)).line)
    won = analysis(deal, rules, line, best=False)
    assert won.outcome == "won"
    assert won.lost_at is None
    # Draw to the end, undo back and forth, then concede: the concession lost it at the
    # end only if the position was still winnable then.
    moves = ["draw", "undo", "concede"]
    report = analysis(deal, rules, moves, best=True)
    assert report.lost_at == 2
    assert report.lost_move == "concede"
    assert report.best_score == 88


# Positions from hint-bot games (classic rules) where the move a simple player takes first
# (a play before a draw, the card holding up the most cards first) loses the deal and the
# hint's move keeps it winnable (every other move loses), with a clear margin in the
# samples: a hint that fell back to the simple order, or stopped telling winning moves from
# losing ones, fails here.
CLEAR_CHOICES = [
    (
        110,
        "play 27, play 23, play 19, play 22, play 25, draw, play 21, play 20, play 24, "
        "play 26, play 12, play 16, play 17, play 15, play 10, play 8, play 11, draw, draw, "
        "play 4, draw, play 14, draw, draw, draw, play 13, draw, draw, draw, draw, draw, "
        "draw, play 7, draw, play 18, play 9, draw, draw",
        "play 6",
    ),
    (
        128,
        "play 24, play 27, play 21, draw, draw, play 20, play 19, play 11, play 23, draw, "
        "play 25, play 22, play 10, play 15, play 18, draw, draw, draw, draw, draw, play 26, "
        "play 13, draw, play 14, play 6, draw, play 9, play 4, play 12, draw, play 5, draw, "
        "draw, draw, play 17, draw, draw, play 3, play 0, play 1, play 16, draw",
        "play 8",
    ),
    (
        131,
        "play 20, play 19, play 23, draw, play 24, draw, draw, play 27, play 10, play 26, "
        "play 21, play 22, play 25, play 12, play 18, draw, draw, play 16, play 13, draw, "
        "play 14, play 5, play 6, draw, play 15, play 17, play 9, play 11, play 3, draw, "
        "play 7, draw, draw",
        "draw",
    ),
]


@pytest.mark.parametrize(("deal", "moves", "right"), CLEAR_CHOICES)
def test_hint_finds_the_move_that_keeps_the_deal_winnable(
    deal: int, moves: str, right: str
) -> None:
    state = new_game(numbered_deal(deal), CLASSIC)
    for move in moves.split(", "):
        state = apply(state, move)
    for legal in legal_moves(state):
        if str(legal) != "concede":
            assert solve_clear(apply(state, legal)).winnable is (str(legal) == right)
    h = hint(player_view(state), CLASSIC, seed=1, time_budget=None, max_samples=30)
    assert h.move == right


def test_hint_stops_sampling_when_one_move_clearly_leads() -> None:
    deal, moves, right = CLEAR_CHOICES[0]
    state = new_game(numbered_deal(deal), CLASSIC)
    for move in moves.split(", "):
        state = apply(state, move)
    h = hint(player_view(state), CLASSIC, seed=1, time_budget=None, max_samples=200)
    assert h.move == right
    assert h.samples < 200
    # the moves dropped from the race were solved on fewer samples and won none of them
    assert h.wins[right] == round(h.sample_share * h.samples)
    assert all(won == 0 for text, won in h.wins.items() if text != right)


def test_among_moves_the_samples_cannot_tell_apart_a_card_turned_up_comes_first() -> None:
    """Solving each sample with every card known gives information no value, so where
    two moves win (nearly) the same samples the hint prefers the play that turns a
    face-down card up. Here that is play 9 (it uncovers position 3), against play 24,
    which holds up more cards (the order used before) but uncovers none."""
    state = new_game(numbered_deal(45), CLASSIC)
    for move in ("play 19", "play 22", "play 18", "play 20", "draw", "play 10"):
        state = apply(state, move)
    assert state.tableau[3] is not None and state.tableau[10] is None  # 9 alone covers 3
    view = player_view(state)
    assert view["tableau"][3]["card"] is None  # face down
    h = hint(view, CLASSIC, seed=3, time_budget=None, max_samples=64)
    assert h.wins["play 24"] >= h.wins["play 9"] >= h.wins["play 24"] - 1
    assert h.move == "play 9"


def test_a_move_one_sample_behind_in_64_counts_as_equal() -> None:
    """The margin (``TIE_SHARE``): play 27 wins one sample more than play 9, which
    turns a face-down card up and is suggested."""
    state = new_game(numbered_deal(0), CLASSIC)
    moves = (
        "draw, draw, draw, play 23, draw, play 22, play 19, play 21, play 24, draw, play 18, "
        "draw, play 20, draw, play 25, play 11, play 26, play 12, play 13, draw, draw, "
        "play 14, play 10, play 5, play 15"
    )
    for move in moves.split(", "):
        state = apply(state, move)
    h = hint(player_view(state), CLASSIC, seed=7, time_budget=None, max_samples=64)
    assert h.wins["play 27"] == h.wins["play 9"] + 1 == max(h.wins.values())
    assert h.move == "play 9"
    assert h.sample_share == h.wins["play 9"] / 64
