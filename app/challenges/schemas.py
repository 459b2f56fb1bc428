"""The contract of the challenge endpoints (names as in app/games/schemas.py)."""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum

from pydantic import BaseModel, Field

from app.kit.models import PlayerKind
from app.kit.schemas import LayoutName, RulesRead


class ChallengeStatus(StrEnum):
    OPEN = "open"  # the day is under way: attempts may start
    CLOSED = "closed"  # the day is over: the deal is revealed


class ChallengeRevealRead(BaseModel):
    """Published once the day is over: check SHA-256 of deal and salt (docs/deals.md)."""

    deal: list[str]
    salt: str


class ChallengeRead(BaseModel):
    id: str = Field(examples=["2026-12-01.tripeaks"])
    date: date
    layout: LayoutName
    rules: RulesRead = Field(
        description="The rules every attempt is played under: the layout's defaults, undo off"
    )
    status: ChallengeStatus
    opens_at: datetime
    closes_at: datetime
    commitment: str = Field(description="SHA-256 of the deal and a secret salt")
    entries: int = Field(description="Attempts started so far")
    reveal: ChallengeRevealRead | None = Field(description="Once the day is over")
    best_score: int | None = Field(
        description="The best final score the deal allowed (the solver's), once the day is "
        "over; null while unknown, or when the search ran out of time "
        "(best_score_searched true)"
    )
    best_score_searched: bool


class LeaderboardEntryRead(BaseModel):
    rank: int = Field(description="1 + the results strictly better (ties share a rank)")
    player_id: str
    name: str | None = Field(description="null for a player without a name, or deleted")
    deleted: bool = Field(description="The player has deleted the account")
    score: int
    moves: int
    finished_at: datetime


class LeaderboardRead(BaseModel):
    challenge_id: str
    kind: PlayerKind
    ranked: int = Field(description="Ranked results on this board")
    entries: list[LeaderboardEntryRead]
    next: str | None = Field(description="The cursor of the next page (also in Link), or null")
