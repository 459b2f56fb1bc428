"""Moves as small value objects with one canonical string form that round-trips.

``play <position>``, ``draw``, ``redeal``, ``undo``, ``concede``:
``parse_move(str(m)) == m`` for every move, and ``repr`` can be pasted back into Python.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final

from app.engine.errors import MoveSyntaxError

MAX_MOVE_TEXT: Final = 32


@dataclass(frozen=True, slots=True)
class Play:
    """Move the free tableau card at ``position`` onto the waste."""

    position: int
    kind: ClassVar[str] = "play"

    def __str__(self) -> str:
        return f"play {self.position}"


@dataclass(frozen=True, slots=True)
class Draw:
    """Turn the top stock card onto the waste."""

    kind: ClassVar[str] = "draw"

    def __str__(self) -> str:
        return "draw"


@dataclass(frozen=True, slots=True)
class Redeal:
    """Turn the waste (all but its top card) over to form a new stock."""

    kind: ClassVar[str] = "redeal"

    def __str__(self) -> str:
        return "redeal"


@dataclass(frozen=True, slots=True)
class Undo:
    """Take back the last move that has not been taken back."""

    kind: ClassVar[str] = "undo"

    def __str__(self) -> str:
        return "undo"


@dataclass(frozen=True, slots=True)
class Concede:
    """Give up; the score stands."""

    kind: ClassVar[str] = "concede"

    def __str__(self) -> str:
        return "concede"


Move = Play | Draw | Redeal | Undo | Concede

DRAW: Final = Draw()
REDEAL: Final = Redeal()
UNDO: Final = Undo()
CONCEDE: Final = Concede()
_SIMPLE: Final[dict[str, Move]] = {
    "draw": DRAW,
    "redeal": REDEAL,
    "undo": UNDO,
    "concede": CONCEDE,
}
MOVE_KINDS: Final = ("play", *_SIMPLE)


# Moves by their canonical text, as a stored line holds them ("draw", "play 27"): a
# rehydration reads every move of its line, and these need no parsing.
_CANONICAL: Final[dict[str, Move]] = {
    **_SIMPLE,
    **{f"play {position}": Play(position) for position in range(256)},
}


def parse_move(text: str) -> Move:
    """Read a move string; case and surrounding white space do not matter."""
    canonical = _CANONICAL.get(text) if type(text) is str else None
    if canonical is not None:
        return canonical
    if not isinstance(text, str):
        raise MoveSyntaxError(f"a move must be a string, not {type(text).__name__}")
    if len(text) > MAX_MOVE_TEXT:
        raise MoveSyntaxError(f"move text is longer than {MAX_MOVE_TEXT} characters")
    words = text.strip().lower().split()
    if len(words) == 1 and words[0] in _SIMPLE:
        return _SIMPLE[words[0]]
    if len(words) == 2 and words[0] == "play" and words[1].isascii() and words[1].isdigit():
        return Play(int(words[1]))
    raise MoveSyntaxError(
        f"cannot read move {text!r}: expected 'play <position>', 'draw', 'redeal', "
        f"'undo' or 'concede'"
    )
