"""Each scoring scheme's figures worked by hand, on tripeaks, six_peaks and golf."""

from __future__ import annotations

from collections import Counter

import pytest

from app.engine import (
    GOLF,
    SIX_PEAKS,
    Card,
    GameStatus,
    IllegalMoveError,
    Rules,
    RulesError,
    Scoring,
    apply,
    ordered_deck,
    parse_card,
    playable_positions,
)
from tests.engine.engine_helpers import (
    at,
    build_deal,
    cards_for_ranks,
    chain_ranks,
    clearing_order,
    play_all,
    start,
    tripeaks_deal,
)

# All 28 cards in one streak: from the waste's Kc up A..K, A..K, A, 2 (wrap), clearing
# the bottom row, row three, row two and then the tips 0, 1, 2 as the last three cards.
ORDER = clearing_order()
PERFECT = {
    **at(ORDER[:10], "Ah 2h 3h 4h 5h 6h 7h 8h 9h Th"),
    **at(ORDER[10:19], "Jh Qh Kh Ad 2d 3d 4d 5d 6d"),
    **at(ORDER[19:25], "7d 8d 9d Td Jd Qd"),
    **at(ORDER[25:], "Kd As 2s"),
}
PERFECT_DEAL = tripeaks_deal(PERFECT, "Kc", ["Tc"])
PERFECT_MOVES = [f"play {p}" for p in ORDER]
# The same cards with a draw after the bottom row: Tc from the stock, Jh goes on it.
BROKEN_MOVES = [*PERFECT_MOVES[:10], "draw", *PERFECT_MOVES[10:]]


def test_perfect_classic_game() -> None:
    state = play_all(start(PERFECT_DEAL), PERFECT_MOVES)
    assert state.outcome is GameStatus.WON
    assert state.score.longest_streak == 28
    assert state.score.streak_points == 28 * 29 // 2  # 406
    assert state.score.bonus_points == 15 + 15 + 30
    assert state.score.total == 466


def test_perfect_msc_game_scores_84900() -> None:
    state = start(PERFECT_DEAL, scoring="msc")
    bonuses = []
    for move in PERFECT_MOVES:
        before = state.score.bonus_points
        state = apply(state, move)
        bonuses.append(state.score.bonus_points - before)
    assert bonuses[25:] == [500, 1000, 5000]
    assert sum(bonuses[:25]) == 0
    assert state.outcome is GameStatus.WON
    # 100 + 300 + ... : the n-th card of the streak scores 100 + 200(n-1).
    assert state.score.streak_points == 28 * 100 + 200 * (27 * 28 // 2)  # 78,400
    assert state.score.total == 84_900


def test_msc_streak_points_and_free_draws() -> None:
    state = start(PERFECT_DEAL, scoring="msc")
    state = play_all(state, ["play 18", "play 19", "play 20"])
    assert state.score.total == 100 + 300 + 500
    state = play_all(start(PERFECT_DEAL, scoring="msc"), BROKEN_MOVES)
    assert state.outcome is GameStatus.WON
    assert state.score.draw_penalties == 0
    # Streaks of 10 and 18: 10*100 + 200*45 and 18*100 + 200*153, then 6,500 of bonuses.
    assert state.score.total == 10_000 + 32_400 + 6_500


def test_classic_with_a_draw() -> None:
    state = play_all(start(PERFECT_DEAL), BROKEN_MOVES)
    assert state.score.total == 55 + 171 + 60 - 5
    assert state.score.longest_streak == 18


def test_cards_left_on_tripeaks() -> None:
    state = start(PERFECT_DEAL, scoring="cards_left")
    assert state.score.total == 28
    totals = []
    for move in BROKEN_MOVES:
        state = apply(state, move)
        totals.append(state.score.total)
    assert totals[:12] == [27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 18, 17]
    assert state.score.total == 0
    assert state.score.bonus_points == 0
    assert state.outcome is GameStatus.WON


def test_cards_left_after_conceding() -> None:
    state = play_all(start(PERFECT_DEAL, scoring="cards_left"), [*PERFECT_MOVES[:5], "concede"])
    assert state.outcome is GameStatus.CONCEDED
    assert state.score.total == 23


@pytest.mark.parametrize("scoring", ["msc", "cards_left"])
def test_classic_only_options_refused_under_other_schemes(scoring: str) -> None:
    for option, value in (("draw_penalty", 0), ("deal_cost", 52)):
        with pytest.raises(RulesError, match=f"{option}: counts only under classic") as err:
            Rules.for_layout("tripeaks", scoring=scoring, **{option: value})
        assert err.value.option == option


def _six_peaks_game(halves: int = 2) -> tuple[tuple[Card, ...], list[str]]:
    """Each half of the table cleared in one streak, with one draw between the halves."""
    pool = Counter(ordered_deck(2))
    pool.subtract([parse_card("Kc"), parse_card("5h")])  # the waste and the first stock card
    left, right = clearing_order(0), clearing_order(28)
    # From the waste's Kc up A 2 ... K A 2 ... K A 2 over the left half.
    placed = dict(zip(left, cards_for_ranks(chain_ranks(13, 28), pool), strict=True))
    placed[56] = "Kc"
    moves = [f"play {p}" for p in left]
    if halves == 2:
        # After the draw of 5h the right half goes down: 4 3 2 A K Q ...
        placed.update(zip(right, cards_for_ranks(chain_ranks(5, 28, step=-1), pool), strict=True))
        placed[57] = "5h"
        moves += ["draw", *(f"play {p}" for p in right)]
    return build_deal(placed, decks=2), moves


def test_six_peaks_win() -> None:
    deal, moves = _six_peaks_game()
    assert len(deal) == 104
    state = start(deal, "six_peaks")
    assert state.layout is SIX_PEAKS
    assert len(state.tableau) == 56
    assert len(state.stock) == 47
    assert SIX_PEAKS.peaks == (0, 1, 2, 28, 29, 30)
    bonuses = []
    for move in moves:
        assert state.outcome is GameStatus.IN_PROGRESS
        before = state.score.bonus_points
        state = apply(state, move)
        if state.score.bonus_points != before:
            bonuses.append(state.score.bonus_points - before)
    assert bonuses == [15, 15, 15, 15, 15, 30]  # 15 for each peak but the last
    assert state.outcome is GameStatus.WON
    assert state.score.peaks_taken == 6
    assert state.score.bonus_points == 15 * 5 + 30
    assert state.score.total == 406 + 406 - 5 + 105
    msc = play_all(start(deal, "six_peaks", scoring="msc"), moves)
    assert msc.score.bonus_points == 4 * 500 + 1000 + 5000
    assert msc.score.total == 2 * 78_400 + 8_000


def test_six_peaks_is_not_won_until_all_six_peaks_are_down() -> None:
    deal, moves = _six_peaks_game(halves=1)
    state = play_all(start(deal, "six_peaks"), moves)
    assert state.score.peaks_taken == 3
    assert state.score.bonus_points == 45  # the third of six peaks is not the last
    assert state.outcome is GameStatus.IN_PROGRESS
    assert state.cards_left == 28


# Golf: columns of five, positions r*7+c; only row 4 (28-34) is free at the start.
GOLF_ORDER = [*range(28, 35), *range(21, 28), *range(14, 21), *range(7, 14), *range(7)]


def _golf_win_deal() -> tuple[str, ...]:
    # From the waste's Ac: up 2..K, down Q..A, up 2..Q: 35 cards, never K-A.
    ranks = [*range(2, 14), *range(12, 0, -1), *range(2, 13)]
    assert len(ranks) == 35
    pool = Counter(ordered_deck())
    pool[parse_card("Ac")] -= 1
    return tuple(cards_for_ranks(ranks, pool))


def test_golf_win_with_cards_left_scoring() -> None:
    codes = _golf_win_deal()
    deal = build_deal({**dict(zip(GOLF_ORDER, codes, strict=True)), 35: "Ac"})
    state = start(deal, "golf")
    assert state.layout is GOLF
    assert state.rules.wrap is False
    assert state.rules.scoring is Scoring.CARDS_LEFT
    assert len(state.tableau) == 35
    assert len(state.stock) == 16
    assert state.score.total == 35
    assert playable_positions(state) == [28]  # only bottom cards are free; 2 on A
    state = apply(state, "play 28")
    assert state.score.total == 34
    assert state.is_free(21)  # the card above is free now
    assert not state.is_free(14)
    state = play_all(state, [f"play {p}" for p in GOLF_ORDER[1:]])
    assert state.outcome is GameStatus.WON
    assert state.score.total == 0
    assert len(state.stock) == 16


def test_golf_only_the_bottom_card_of_a_column_is_free() -> None:
    deal = build_deal({28: "2c", 21: "3c", 29: "5d", 35: "Ac"})
    state = start(deal, "golf")
    with pytest.raises(IllegalMoveError, match="position 21 is still covered by 28"):
        apply(state, "play 21")
    state = play_all(state, ["play 28", "play 21"])
    assert state.score.total == 33


def test_golf_no_wrap_by_default_and_lost_with_cards_left() -> None:
    # Waste Kc, bottom row with an Ace and no Queen: the Ace does not go on the King.
    deal = build_deal({**at(28, "Ah 2d 2h 2s 3c 3d 3h"), 35: "Kc", -1: "Kd"})
    state = start(deal, "golf")
    with pytest.raises(IllegalMoveError, match="King and Ace are not neighbours"):
        apply(state, "play 28")
    state = play_all(state, ["draw"] * 16)
    assert state.outcome is GameStatus.LOST
    assert state.score.total == 35
    assert state.score.draw_penalties == 0
    wrapped = start(deal, "golf", wrap=True)
    assert playable_positions(wrapped) == [28]
