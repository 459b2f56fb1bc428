"""Hand-worked games on explicit deals: known move lists, outcomes and exact scores."""

from __future__ import annotations

import dataclasses

import pytest

from app.engine import (
    CONCEDE,
    DRAW,
    REDEAL,
    UNDO,
    GameOverError,
    GameState,
    GameStatus,
    IllegalMoveError,
    Layout,
    Play,
    Rules,
    RulesError,
    apply,
    fits,
    legal_moves,
    line_after,
    line_of,
    parse_card,
    playable_positions,
    replay,
    restore,
)
from tests.engine.engine_helpers import at, build_deal, play_all, start, tripeaks_deal

# A deal cleared in three streaks with two draws between them.
#   Streak A: the bottom row 18-27, Ah..Th going up from the waste's Kc (wrap: A on K).
#   Draw 5c. Streak B: row three 9-17 going down 4c 3c 2c Ac Kd Qd Jd Td 9d.
#   Draw 9s. Streak C: row two and the tips, Ts Js [tip Qs] Ks As [tip 2s] 3s 4s [tip 5s].
STREAK_A = at(18, "Ah 2h 3h 4h 5h 6h 7h 8h 9h Th")
STREAK_B = at(9, "4c 3c 2c Ac Kd Qd Jd Td 9d")
STREAK_C_ORDER = [3, 4, 0, 5, 6, 1, 7, 8, 2]
STREAK_C = at(STREAK_C_ORDER, "Ts Js Qs Ks As 2s 3s 4s 5s")
THREE_STREAKS_DEAL = tripeaks_deal({**STREAK_A, **STREAK_B, **STREAK_C}, "Kc", ["5c", "9s"])
THREE_STREAKS_MOVES = [
    *(f"play {p}" for p in range(18, 28)),
    "draw",
    *(f"play {p}" for p in range(9, 18)),
    "draw",
    *(f"play {p}" for p in STREAK_C_ORDER),
]


def test_won_classic_game_exact_score() -> None:
    state = start(THREE_STREAKS_DEAL)
    assert state.waste_top == parse_card("Kc")
    assert len(state.stock) == 23
    assert state.score.total == 0
    totals = []
    for move in THREE_STREAKS_MOVES:
        assert state.outcome is GameStatus.IN_PROGRESS
        assert move in [str(m) for m in legal_moves(state)]
        state = apply(state, move)
        totals.append(state.score.total)
    # Streak A: 1+..+10 = 55. Draw: -5. Streak B: 1+..+9 = 45. Draw: -5.
    # Streak C: 1+..+9 = 45, tips taken as its 3rd, 6th and 9th cards: 15, 15, 30.
    assert totals[9] == 55
    assert totals[10] == 50
    assert totals[19] == 95
    assert totals[20] == 90
    assert totals[21:] == [91, 93, 111, 115, 120, 141, 148, 156, 195]
    assert state.outcome is GameStatus.WON
    assert state.score.total == 195
    assert state.score.streak_points == 145
    assert state.score.bonus_points == 60
    assert state.score.draw_penalties == 10
    assert state.score.longest_streak == 10
    assert state.score.current_streak == 9
    assert state.score.peaks_taken == 3
    assert state.score.cards_left == 0
    assert len(state.stock) == 21  # won at once, whatever is left in the stock
    assert state.moves_made == 30
    assert legal_moves(state) == []
    for move in ("draw", "play 0", "concede", "undo", "redeal"):
        with pytest.raises(GameOverError, match=r"the game is over \(won\)"):
            apply(state, move)


def test_draw_penalty_and_deal_cost_options() -> None:
    no_penalty = play_all(start(THREE_STREAKS_DEAL, draw_penalty=0), THREE_STREAKS_MOVES)
    assert no_penalty.score.total == 205
    assert no_penalty.score.draw_penalties == 0
    steep = play_all(start(THREE_STREAKS_DEAL, draw_penalty=12), THREE_STREAKS_MOVES)
    assert steep.score.total == 205 - 24
    staked = start(THREE_STREAKS_DEAL, deal_cost=52)
    assert staked.score.total == -52  # taken when the game is dealt
    assert staked.score.deal_cost == 52
    assert play_all(staked, THREE_STREAKS_MOVES).score.total == 195 - 52


def test_score_goes_below_zero() -> None:
    state = play_all(start(THREE_STREAKS_DEAL, deal_cost=52), ["draw", "draw", "draw"])
    assert state.score.total == -52 - 15
    state = apply(state, "concede")
    assert state.outcome is GameStatus.CONCEDED
    assert state.score.total == -67


# Lost: play 18 (Tc on 9c), then draw the whole stock. The last stock card is Kd; the
# free cards then are 19-27 (2s, 3s and 4s), none of which goes on a King.
LOST_DEAL = tripeaks_deal(
    {18: "Tc", **at(19, "2c 2d 2h 2s 3c 3d 3h 3s 4c")},
    "9c",
    last=["Kd"],
)


def test_lost_at_once_when_stock_runs_out_with_nothing_playable() -> None:
    state = apply(start(LOST_DEAL), "play 18")
    assert state.score.total == 1
    for _ in range(22):
        state = apply(state, "draw")
        assert state.outcome is GameStatus.IN_PROGRESS
    assert len(state.stock) == 1
    assert DRAW in legal_moves(state)
    state = apply(state, "draw")
    # Lost the moment the last card is drawn: no further move is needed to find out.
    assert state.outcome is GameStatus.LOST
    assert state.waste_top == parse_card("Kd")
    assert state.stock == ()
    assert playable_positions(state) == []
    assert legal_moves(state) == []
    assert state.score.total == 1 - 23 * 5
    assert state.cards_left == 27
    with pytest.raises(GameOverError, match="lost"):
        apply(state, CONCEDE)


def test_king_ace_king_with_wrap() -> None:
    deal = tripeaks_deal({18: "Ah", 19: "Kd", 20: "Qh"}, "Kc")
    state = start(deal)
    assert 18 in playable_positions(state)
    assert 19 not in playable_positions(state)  # Kd does not go on Kc
    state = play_all(state, ["play 18", "play 19", "play 20"])  # A on K, K on A, Q on K
    assert [c.code for c in state.waste] == ["Kc", "Ah", "Kd", "Qh"]
    assert state.score.total == 6


def test_king_ace_refused_without_wrap() -> None:
    deal = tripeaks_deal({18: "Ah", 19: "Qd"}, "Kc")
    state = start(deal, wrap=False)
    assert 18 not in playable_positions(state)
    with pytest.raises(IllegalMoveError, match="King and Ace are not neighbours without wrap"):
        apply(state, "play 18")
    state = apply(state, "play 19")  # Q on K is still fine
    assert state.waste_top == parse_card("Qd")
    rules_no_wrap = Rules(wrap=False)
    assert not fits(parse_card("Ah"), parse_card("Kc"), rules_no_wrap)
    assert not fits(parse_card("Kh"), parse_card("Ac"), rules_no_wrap)
    assert fits(parse_card("Kh"), parse_card("Ac"), Rules())


def test_king_stops() -> None:
    deal = tripeaks_deal({18: "Qh", 19: "Kh", 20: "Qd", 21: "Ac"}, "Jc")
    state = start(deal, wrap=False, king_stops=True)
    state = play_all(state, ["play 18", "play 19"])  # Q on J, K on Q
    assert state.waste_top == parse_card("Kh")
    assert playable_positions(state) == []  # nothing at all onto a King
    for p in (20, 21):
        with pytest.raises(IllegalMoveError, match=r"nothing may be played on a King \(king_stops"):
            apply(state, Play(p))
    state = apply(state, "draw")
    assert state.outcome is GameStatus.IN_PROGRESS


def test_king_stops_with_wrap_is_refused() -> None:
    with pytest.raises(RulesError, match="king_stops") as err:
        Rules.for_layout("tripeaks", king_stops=True)
    assert err.value.option == "king_stops"
    with pytest.raises(RulesError) as err:
        Rules(wrap=True, king_stops=True)
    assert err.value.option == "king_stops"
    assert Rules.for_layout("golf", king_stops=True).king_stops  # golf plays without wrap


def test_free_start() -> None:
    deal = tripeaks_deal({25: "7h", 18: "8h"}, None, ["Ks"])
    state = start(deal, free_start=True)
    assert state.waste == ()
    assert state.waste_top is None
    assert len(state.stock) == 24
    assert state.stock[0] == parse_card("Ks")  # the card after the tableau tops the stock
    assert playable_positions(state) == list(range(18, 28))  # any free card first
    state = play_all(state, ["play 25", "play 18"])
    assert [c.code for c in state.waste] == ["7h", "8h"]
    assert state.score.total == 3
    state = apply(state, "draw")
    assert state.waste_top == parse_card("Ks")
    assert len(state.stock) == 23


def test_joker_both_ways() -> None:
    deal = tripeaks_deal({18: "JK", 19: "Kd", 20: "JK", 21: "5s"}, "5c", jokers=2)
    assert len(deal) == 54
    state = start(deal, jokers=2)
    assert len(state.stock) == 54 - 29
    assert 18 in playable_positions(state)
    state = apply(state, "play 18")  # a joker onto any card
    assert state.waste_top is not None and state.waste_top.is_joker
    assert playable_positions(state) == list(range(19, 28))  # any card onto a joker
    state = play_all(state, ["play 19", "play 20", "play 21"])  # K on joker, joker, 5 on it
    assert [c.code for c in state.waste] == ["5c", "JK", "Kd", "JK", "5s"]
    assert state.score.total == 10


def test_joker_deals_need_the_jokers_in_the_rules() -> None:
    deal = tripeaks_deal({18: "JK"}, "5c", jokers=1)
    with pytest.raises(ValueError, match="JK"):
        start(deal)


def test_nothing_goes_on_a_king_under_king_stops_not_even_a_joker() -> None:
    deal = tripeaks_deal({18: "JK"}, "Kc", jokers=1)
    state = start(deal, jokers=1, wrap=False, king_stops=True)
    assert playable_positions(state) == []


# Redeal: the waste 9c, the stock ends with 5c; 6h (18) goes on 5c, 7h (19) on 6h, and
# 4h (9, free once 18 and 19 are gone) goes on 5c again after the second pass.
REDEAL_DEAL = tripeaks_deal({18: "6h", 19: "7h", 9: "4h"}, "9c", last=["5c"])


def test_redeal() -> None:
    state = start(REDEAL_DEAL, redeals=1)
    assert state.redeals_left == 1
    assert REDEAL not in legal_moves(state)
    with pytest.raises(IllegalMoveError, match="the stock is not empty yet"):
        apply(state, "redeal")
    state = play_all(state, ["draw"] * 23)
    assert state.outcome is GameStatus.IN_PROGRESS  # a redeal is still possible
    assert REDEAL in legal_moves(state)
    with pytest.raises(IllegalMoveError, match="the stock is empty; redeal first"):
        apply(state, "draw")
    state = apply(state, "play 18")  # 6h on 5c: a streak of one
    before = state.score
    waste = state.waste
    assert [c.code for c in waste[-2:]] == ["5c", "6h"]
    state = apply(state, "redeal")
    # The waste, all but its top card, turned over: its bottom card is the new stock top.
    assert state.stock == waste[:-1]
    assert state.stock == REDEAL_DEAL[28:]
    assert state.stock[0] == parse_card("9c")
    assert state.waste == (parse_card("6h"),)
    assert state.redeals_left == 0
    assert state.score == before  # a redeal neither scores nor breaks the streak
    state = apply(state, "play 19")  # 7h on 6h: the second card of the streak
    assert state.score.total == before.total + 2
    assert state.score.current_streak == 2
    state = play_all(state, ["draw"] * 24)
    assert state.waste_top == parse_card("5c")
    assert state.outcome is GameStatus.IN_PROGRESS  # 4h at 9 goes on 5c
    assert REDEAL not in legal_moves(state)
    with pytest.raises(IllegalMoveError, match="no redeal is left"):
        apply(state, "redeal")
    assert state.score.total == -23 * 5 + 1 + 2 - 24 * 5


def test_redeal_not_allowed_by_the_rules() -> None:
    state = play_all(start(REDEAL_DEAL), ["draw"] * 23)
    assert state.outcome is GameStatus.IN_PROGRESS  # 6h at 18 goes on 5c
    assert REDEAL not in legal_moves(state)
    with pytest.raises(IllegalMoveError, match="these rules allow no redeal"):
        apply(state, "redeal")


def test_redeal_needs_a_card_under_the_waste_top() -> None:
    # A flat layout of 51 free cards leaves one waste card and no stock at all.
    flat = Layout.from_dict(
        {
            "name": "flat",
            "positions": [{"index": i, "row": 0, "x": 2 * i, "face_up": True} for i in range(51)],
        }
    )
    deal = build_deal({0: "2c", 51: "3c"})
    state = start(deal, flat, redeals=1)
    assert state.stock == ()
    assert len(state.waste) == 1
    assert state.outcome is GameStatus.IN_PROGRESS  # 2c goes on 3c
    assert REDEAL not in legal_moves(state)
    with pytest.raises(IllegalMoveError, match="the waste has no card under its top card"):
        apply(state, "redeal")


def _without_version(state: GameState) -> GameState:
    return dataclasses.replace(state, moves_made=0)


def test_undo_multi_level() -> None:
    initial = start(THREE_STREAKS_DEAL, undo=True)
    assert UNDO not in legal_moves(initial)
    with pytest.raises(IllegalMoveError, match="there is no move to take back"):
        apply(initial, "undo")
    s1 = apply(initial, "play 18")
    s2 = apply(s1, "play 19")
    s3 = apply(s2, "draw")
    assert UNDO in legal_moves(s3)
    assert s3.score.total == 3 - 5
    u1 = apply(s3, "undo")
    assert _without_version(u1) == _without_version(s2)
    assert u1.score.total == 3
    assert u1.moves_made == 4  # every move counts, undo included
    u2 = apply(u1, UNDO)
    assert _without_version(u2) == _without_version(s1)
    u3 = apply(u2, UNDO)
    assert _without_version(u3) == _without_version(initial)
    assert u3.score == initial.score
    assert u3.moves_made == 6
    assert UNDO not in legal_moves(u3)
    # After an undo the game goes on from the restored state.
    again = apply(u3, "play 18")
    assert _without_version(again) == _without_version(s1)


def test_a_line_drops_what_was_undone_and_restores_the_same_state() -> None:
    """A thousand draw/undo pairs leave an empty line; the line and the version restore
    exactly the state that replaying the whole log gives."""
    deal = THREE_STREAKS_DEAL
    rules = Rules(undo=True)
    log = ["play 18", *(["draw", "undo"] * 1000), "play 19", "draw", "undo", "draw"]
    line = line_of(log)
    assert line == ("play 18", "play 19", "draw")
    assert line_after(line, "undo") == ("play 18", "play 19")
    assert line_after(line, "Draw") == ("play 18", "play 19", "draw", "draw")
    replayed = replay(deal, rules, log)
    restored = restore(deal, rules, line, len(log))
    assert restored == replayed and restored.moves_made == 2005
    assert legal_moves(restored) == legal_moves(replayed)
    assert apply(restored, "undo") == apply(replayed, "undo")


def test_undo_refused_when_the_rules_forbid_it() -> None:
    state = apply(start(THREE_STREAKS_DEAL), "play 18")
    assert UNDO not in legal_moves(state)
    with pytest.raises(IllegalMoveError, match="these rules do not allow undo"):
        apply(state, "undo")


def test_concede() -> None:
    state = play_all(start(THREE_STREAKS_DEAL), ["play 18", "play 19", "draw"])
    score = state.score
    conceded = apply(state, "concede")
    assert conceded.outcome is GameStatus.CONCEDED
    assert conceded.is_over
    assert conceded.score == score  # the score stands
    assert conceded.score.total == 1 + 2 - 5
    assert conceded.moves_made == state.moves_made + 1
    assert legal_moves(conceded) == []
    for move in ("play 20", "draw", "concede"):
        with pytest.raises(GameOverError, match=r"the game is over \(conceded\)"):
            apply(conceded, move)
    assert CONCEDE in legal_moves(state)


def test_illegal_plays_say_why() -> None:
    state = start(THREE_STREAKS_DEAL)
    with pytest.raises(IllegalMoveError, match="position 9 is still covered by 18 and 19"):
        apply(state, "play 9")
    with pytest.raises(IllegalMoveError, match="there is no position 28; positions are 0-27"):
        apply(state, "play 28")
    with pytest.raises(IllegalMoveError, match="2h does not go on Kc: ranks must be one apart"):
        apply(state, "play 19")
    state = apply(state, "play 18")
    with pytest.raises(IllegalMoveError, match="position 18 has already been played"):
        apply(state, "play 18")
