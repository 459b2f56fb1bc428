"""The player's view: what a player may see of a state, as plain data.

This is the only form of a state meant for a player. Face-down tableau cards appear with
no identity, the stock only as a count, the waste (every card in it was face up) in full.
Under ``open_peaks`` the whole tableau is visible. The deal itself is never part of it.
"""

from __future__ import annotations

from typing import Any

from app.engine.game import GameState, legal_moves, uncovered


def player_view(state: GameState) -> dict[str, Any]:
    # Every answer about a game is built from this: plain loops, as in playable_positions.
    tableau: list[dict[str, Any]] = []
    t = state.tableau
    open_peaks = state.rules.open_peaks
    for pos, card in zip(state.layout.positions, t, strict=True):
        if card is None:
            tableau.append(
                {
                    "position": pos.index,
                    "card": None,
                    "face_up": False,
                    "free": False,
                    "removed": True,
                }
            )
            continue
        free = uncovered(t, pos.covered_by)
        face_up = pos.face_up or open_peaks or free
        tableau.append(
            {
                "position": pos.index,
                "card": card.code if face_up else None,
                "face_up": face_up,
                "free": free,
                "removed": False,
            }
        )
    top = state.waste_top
    return {
        "layout": state.layout.name,
        "rules": state.rules.to_dict(),
        "status": state.outcome.value,
        "tableau": tableau,
        "waste": [c.code for c in state.waste],
        "waste_top": top.code if top is not None else None,
        "stock_count": len(state.stock),
        "redeals_left": state.redeals_left,
        "cards_left": state.cards_left,
        "moves_made": state.moves_made,
        "score": state.score.to_dict(),
        "legal_moves": [str(m) for m in legal_moves(state)],
    }
