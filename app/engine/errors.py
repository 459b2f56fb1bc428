"""One error hierarchy for the engine, rooted in ``ValueError``.

Each error names the input it refused and why, so that a caller (the HTTP layer, a bot,
a test) can show the message as it is.
"""

from __future__ import annotations


class TriPeaksError(ValueError):
    """Base of every error the engine raises for bad input."""


class CardError(TriPeaksError):
    """A card code that cannot be read."""


class LayoutError(TriPeaksError):
    """A layout definition that is not self-consistent, or an unknown layout name."""


class RulesError(TriPeaksError):
    """An impossible rule option value or combination; ``option`` names the option."""

    def __init__(self, option: str, reason: str) -> None:
        super().__init__(f"{option}: {reason}")
        self.option = option
        self.reason = reason


class DealError(TriPeaksError):
    """A deal that does not match the deck the rules call for."""


class MoveSyntaxError(TriPeaksError):
    """A move string that cannot be read."""


class IllegalMoveError(TriPeaksError):
    """A well-formed move that the rules do not allow in this state."""

    def __init__(self, move: str, reason: str) -> None:
        super().__init__(f"illegal move {move!r}: {reason}")
        self.move = move
        self.reason = reason


class GameOverError(IllegalMoveError):
    """A move on a game that has already ended."""
