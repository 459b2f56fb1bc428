"""The player's view: what a player may see of a state, as a frozen value.

This is the only form of a state meant for a player (an *observation*, as OpenSpiel calls
it): ``view_of(state)`` is a ``PlayerView``, built once from the state and holding nothing
else of it. Face-down tableau cards appear with no identity, the stock only as a count,
the waste (every card in it was face up) in full. Under ``open_peaks`` the whole tableau
is visible. The deal itself is never part of it. Its legal moves are the engine's own
``Move`` values, and each play's card is the face-up card of its slot, so an answer
built from a view needs nothing else of the state.

``player_view(state)`` is the same view as plain data (``PlayerView.to_dict``): what the
strategies, the hints and the fair-play measure read, and what a test compares.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.engine.game import GameState, GameStatus, legal_moves, uncovered
from app.engine.moves import Move, Play, Undo
from app.engine.rules import Rules
from app.engine.scoring import Score


@dataclass(frozen=True, slots=True)
class Slot:
    """One tableau position as the player sees it: its card only when face up."""

    position: int
    card: str | None  # the card's code; None face down or removed
    face_up: bool
    free: bool  # nothing covers it, and it is still on the table
    removed: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "card": self.card,
            "face_up": self.face_up,
            "free": self.free,
            "removed": self.removed,
        }


@dataclass(frozen=True, slots=True)
class PlayerView:
    """What a player sees of a game's state, and nothing more."""

    layout: str
    rules: Rules
    status: GameStatus
    tableau: tuple[Slot, ...]
    waste: tuple[str, ...]  # from the bottom; the last is the top
    waste_top: str | None
    stock_count: int
    redeals_left: int
    cards_left: int
    moves_made: int
    score: Score
    legal_moves: tuple[Move, ...]

    @property
    def can_undo(self) -> bool:
        return any(isinstance(m, Undo) for m in self.legal_moves)

    def card_of(self, move: Move) -> str | None:
        """The card ``move`` plays (a legal play's card is free, so face up), else None."""
        return self.tableau[move.position].card if isinstance(move, Play) else None

    def to_dict(self) -> dict[str, Any]:
        """The view as plain data (JSON's types; each legal move as its string)."""
        return {
            "layout": self.layout,
            "rules": self.rules.to_dict(),
            "status": self.status.value,
            "tableau": [slot.to_dict() for slot in self.tableau],
            "waste": list(self.waste),
            "waste_top": self.waste_top,
            "stock_count": self.stock_count,
            "redeals_left": self.redeals_left,
            "cards_left": self.cards_left,
            "moves_made": self.moves_made,
            "score": self.score.to_dict(),
            "legal_moves": [str(m) for m in self.legal_moves],
        }


def view_of(state: GameState) -> PlayerView:
    """The player's view of ``state``. Every answer about a game is built from this: plain
    loops, as in playable_positions."""
    tableau: list[Slot] = []
    t = state.tableau
    open_peaks = state.rules.open_peaks
    for pos, card in zip(state.layout.positions, t, strict=True):
        if card is None:
            tableau.append(Slot(pos.index, None, False, False, True))
            continue
        free = uncovered(t, pos.covered_by)
        face_up = pos.face_up or open_peaks or free
        tableau.append(Slot(pos.index, card.code if face_up else None, face_up, free, False))
    top = state.waste_top
    return PlayerView(
        layout=state.layout.name,
        rules=state.rules,
        status=state.outcome,
        tableau=tuple(tableau),
        waste=tuple(c.code for c in state.waste),
        waste_top=top.code if top is not None else None,
        stock_count=len(state.stock),
        redeals_left=state.redeals_left,
        cards_left=state.cards_left,
        moves_made=state.moves_made,
        score=state.score,
        legal_moves=tuple(legal_moves(state)),
    )


def player_view(state: GameState) -> dict[str, Any]:
    """``view_of(state)`` as plain data."""
    return view_of(state).to_dict()
