"""The contract of the players endpoints (names as in app/games/schemas.py)."""

from __future__ import annotations

import unicodedata
from datetime import datetime
from typing import Annotated

from pydantic import AfterValidator, BaseModel, Field

from app.engine import GameStatus, Scoring
from app.kit.models import PlayerKind
from app.kit.schemas import LayoutName, Strict

NAME_LENGTH = 32
# Control, format (zero-width and direction marks), surrogate, private-use and unassigned
# characters, and line or paragraph separators: nothing a name shows, or shows as it is.
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def clean_name(value: str) -> str:
    """A display name as kept: NFKC-normalised, trimmed, 1-32 characters, no control or
    invisible character and no space but the plain one."""
    name = unicodedata.normalize("NFKC", value).strip()
    if not 1 <= len(name) <= NAME_LENGTH:
        raise ValueError(f"a name is 1 to {NAME_LENGTH} characters once trimmed")
    for char in name:
        if unicodedata.category(char) in REFUSED_CATEGORIES or (char.isspace() and char != " "):
            raise ValueError(f"a name may not hold the character U+{ord(char):04X}")
    return name


DisplayName = Annotated[
    str,
    Field(min_length=1, max_length=4 * NAME_LENGTH, examples=["Ada"]),
    AfterValidator(clean_name),
]


class PlayerCreate(Strict):
    name: DisplayName | None = Field(
        default=None,
        description="Shown on leaderboards; trimmed and NFKC-normalised, 1-32 characters. "
        "Not unique: the id is.",
    )
    kind: PlayerKind = Field(
        default=PlayerKind.HUMAN, description="human or bot: leaderboards rank them apart"
    )


class PlayerUpdate(Strict):
    name: DisplayName


class StatLineRead(BaseModel):
    """A record over the games that ended (``*``: every layout or scheme)."""

    layout: str
    scoring: str
    played: int
    won: int
    lost: int
    conceded: int
    win_rate: float | None = Field(description="won / played; null before any game ended")
    best_score: int | None = Field(description="cards_left: the fewest cards left")
    mean_score: float | None
    current_run: int = Field(description="Games won in a row, up to the last one")
    longest_run: int


class StatsRead(BaseModel):
    overall: StatLineRead
    by_layout: list[StatLineRead] = Field(description="One line a layout and scoring scheme")


class PlayerRead(BaseModel):
    """A player's public profile."""

    id: str
    name: str | None
    kind: PlayerKind
    created_at: datetime
    stats: StatsRead


class PlayerCreated(PlayerRead):
    key: str = Field(
        description="The player key: send it as 'Authorization: Bearer'. Shown once, "
        "stored only as a hash; rotate_key replaces it."
    )


class PlayerKeyRead(BaseModel):
    key: str = Field(description="The new player key; the old one no longer works")


class GameSummaryRead(BaseModel):
    id: str
    layout: LayoutName
    scoring: Scoring
    status: GameStatus
    score: int
    cards_left: int
    version: int
    challenge_id: str | None
    created_at: datetime
    updated_at: datetime
    ended_at: datetime | None


class GameSummaryList(BaseModel):
    games: list[GameSummaryRead]
    next: str | None = Field(description="The cursor of the next page (also in Link), or null")
