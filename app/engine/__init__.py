"""The TriPeaks rules engine: pure Python, standard library only.

Cards, layouts as data, rule options, numbered and explicit deals, an immutable game
state with its legal moves, scoring, replay and the player's view.
"""

from app.engine.cards import JOKER, Card, format_cards, parse_card, parse_cards
from app.engine.deals import (
    DEAL_ALGORITHM,
    MAX_DEAL_NUMBER,
    Deal,
    commitment,
    format_deal,
    numbered_deal,
    ordered_deck,
    parse_deal,
    validate_deal,
)
from app.engine.errors import (
    CardError,
    DealError,
    GameOverError,
    IllegalMoveError,
    LayoutError,
    MoveSyntaxError,
    RulesError,
    TriPeaksError,
)
from app.engine.game import (
    GameState,
    GameStatus,
    apply,
    fits,
    legal_moves,
    new_game,
    playable_positions,
    replay,
)
from app.engine.layouts import GOLF, LAYOUTS, SIX_PEAKS, TRIPEAKS, Layout, Position, get_layout
from app.engine.moves import (
    CONCEDE,
    DRAW,
    REDEAL,
    UNDO,
    Concede,
    Draw,
    Move,
    Play,
    Redeal,
    Undo,
    parse_move,
)
from app.engine.rules import OPTIONS, Rules, Scoring
from app.engine.scoring import Score
from app.engine.view import player_view

__all__ = [
    "CONCEDE",
    "DEAL_ALGORITHM",
    "DRAW",
    "GOLF",
    "JOKER",
    "LAYOUTS",
    "MAX_DEAL_NUMBER",
    "OPTIONS",
    "REDEAL",
    "SIX_PEAKS",
    "TRIPEAKS",
    "UNDO",
    "Card",
    "CardError",
    "Concede",
    "Deal",
    "DealError",
    "Draw",
    "GameOverError",
    "GameState",
    "GameStatus",
    "IllegalMoveError",
    "Layout",
    "LayoutError",
    "Move",
    "MoveSyntaxError",
    "Play",
    "Position",
    "Redeal",
    "Rules",
    "RulesError",
    "Score",
    "Scoring",
    "TriPeaksError",
    "Undo",
    "apply",
    "commitment",
    "fits",
    "format_cards",
    "format_deal",
    "get_layout",
    "legal_moves",
    "new_game",
    "numbered_deal",
    "ordered_deck",
    "parse_card",
    "parse_cards",
    "parse_deal",
    "parse_move",
    "playable_positions",
    "player_view",
    "replay",
    "validate_deal",
]
