"""The player's view of a fixed deal: what is shown, and what never is."""

from __future__ import annotations

import dataclasses
import json

import pytest

from app.engine import Play, Rules, new_game, numbered_deal, player_view, view_of
from tests.engine.engine_helpers import play_all, start

DEAL_0 = numbered_deal(0)


def test_view_of_a_new_classic_game() -> None:
    view = player_view(new_game(DEAL_0, Rules()))
    tableau = view["tableau"]
    assert [t["position"] for t in tableau] == list(range(28))
    for t in tableau[:18]:
        assert t == {
            "position": t["position"],
            "card": None,
            "face_up": False,
            "free": False,
            "removed": False,
        }
    assert [t["card"] for t in tableau[18:]] == [c.code for c in DEAL_0[18:28]]
    assert all(t["face_up"] and t["free"] for t in tableau[18:])
    assert view["waste"] == [DEAL_0[28].code]
    assert view["waste_top"] == DEAL_0[28].code
    assert view["stock_count"] == 23
    assert view["status"] == "in_progress"
    assert view["cards_left"] == 28
    assert view["moves_made"] == 0
    assert view["redeals_left"] == 0
    assert view["score"]["total"] == 0
    assert view["rules"] == Rules().to_dict()
    assert view["legal_moves"][-2:] == ["draw", "concede"]
    text = json.dumps(view)
    for card in (*DEAL_0[:18], *DEAL_0[29:]):
        assert f'"{card.code}"' not in text
    assert "deal" not in view and "stock" not in view


def test_a_card_turns_face_up_when_both_covers_are_gone() -> None:
    # Deal 0: position 9 lies on 18 and 19; play them once they fit, drawing otherwise.
    state = new_game(DEAL_0, Rules())
    while not (state.tableau[18] is None and state.tableau[19] is None) and not state.is_over:
        playable = [p for p in (18, 19) if f"play {p}" in player_view(state)["legal_moves"]]
        moves = [f"play {playable[0]}"] if playable else ["draw"]
        state = play_all(state, moves)
    assert state.tableau[18] is None and state.tableau[19] is None
    entry = player_view(state)["tableau"][9]
    assert entry["face_up"] and entry["free"]
    assert entry["card"] == DEAL_0[9].code


def test_open_peaks_shows_the_whole_tableau_but_not_the_stock() -> None:
    state = start(DEAL_0, open_peaks=True)
    view = player_view(state)
    assert [t["card"] for t in view["tableau"]] == [c.code for c in DEAL_0[:28]]
    assert all(t["face_up"] for t in view["tableau"])
    assert [t["free"] for t in view["tableau"]] == [False] * 18 + [True] * 10
    text = json.dumps(view)
    for card in DEAL_0[29:]:
        assert f'"{card.code}"' not in text


def test_free_start_view_has_no_waste() -> None:
    view = player_view(start(DEAL_0, free_start=True))
    assert view["waste"] == []
    assert view["waste_top"] is None
    assert view["stock_count"] == 24
    assert f'"{DEAL_0[28].code}"' not in json.dumps(view)


def test_the_view_is_a_frozen_value_that_holds_nothing_hidden() -> None:
    state = new_game(DEAL_0, Rules())
    view = view_of(state)
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.stock_count = 0  # type: ignore[misc]
    # Everything it holds, printed: no face-down tableau card, no stock card.
    shown = repr(view)
    for card in (*DEAL_0[:18], *DEAL_0[29:]):
        assert f"'{card.code}'" not in shown
    assert view.to_dict() == player_view(state)
    assert [str(m) for m in view.legal_moves] == view.to_dict()["legal_moves"]
    assert view.can_undo is False


def test_a_legal_play_in_the_view_names_its_face_up_card() -> None:
    state = new_game(DEAL_0, Rules())
    while not any(isinstance(m, Play) for m in view_of(state).legal_moves):
        state = play_all(state, ["draw"])
    view = view_of(state)
    for move in view.legal_moves:
        if isinstance(move, Play):
            card = state.tableau[move.position]
            assert card is not None and view.card_of(move) == card.code
            assert view.tableau[move.position].face_up
        else:
            assert view.card_of(move) is None
