"""The contract of the challenge endpoints (names as in app/games/schemas.py)."""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from app.kit.models import PlayerKind
from app.kit.schemas import LayoutName, RulesRead


class ChallengeStatus(StrEnum):
    OPEN = "open"  # the day is under way: attempts may start
    CLOSED = "closed"  # the day is over: the deal is revealed


class ChallengeRevealRead(BaseModel):
    """Published once the day is over: check SHA-256 of deal and salt (docs/deals.md)."""

    deal: list[str] = Field(description="The day's whole deal in dealing order")
    salt: str = Field(description="The salt hashed with the deal into the commitment")


class ChallengeRead(BaseModel):
    """A day's challenge for one layout: its commitment from the day's first second, its
    deal, salt and best score once the day is over."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "id": "2026-12-01.tripeaks",
                    "date": "2026-12-01",
                    "layout": "tripeaks",
                    "rules": {
                        "layout": "tripeaks",
                        "wrap": True,
                        "king_stops": False,
                        "open_peaks": False,
                        "free_start": False,
                        "jokers": 0,
                        "redeals": 0,
                        "undo": False,
                        "scoring": "classic",
                        "draw_penalty": 5,
                        "deal_cost": 0,
                    },
                    "status": "open",
                    "opens_at": "2026-12-01T00:00:00Z",
                    "closes_at": "2026-12-02T00:00:00Z",
                    "commitment": (
                        "9b2f61c0e4d8a7b35c1e0f9d8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b"
                    ),
                    "entries": 57,
                    "reveal": None,
                    "best_score": None,
                    "best_score_searched": False,
                }
            ]
        }
    )

    id: str = Field(
        description="The challenge's id: its date and layout", examples=["2026-12-01.tripeaks"]
    )
    date: Annotated[date, Field(description="Its UTC day")]
    layout: LayoutName = Field(description="The layout it is played on")
    rules: RulesRead = Field(
        description="The rules every attempt is played under: the layout's defaults, undo off"
    )
    status: ChallengeStatus = Field(
        description="open while the day lasts (attempts may start), closed once it is over"
    )
    opens_at: datetime = Field(description="The start of its UTC day")
    closes_at: datetime = Field(description="The end of its UTC day: then the deal is revealed")
    commitment: str = Field(description="SHA-256 of the deal and a secret salt")
    entries: int = Field(description="Attempts started so far")
    reveal: ChallengeRevealRead | None = Field(description="Once the day is over")
    best_score: int | None = Field(
        description="The best final score the deal allowed (the solver's), once the day is "
        "over; null while unknown, or when the search ran out of time "
        "(best_score_searched true)"
    )
    best_score_searched: bool = Field(
        description="Whether the solver has searched the best score (once the day is over)"
    )


class LeaderboardEntryRead(BaseModel):
    rank: int = Field(description="1 + the results strictly better (ties share a rank)")
    player_id: str = Field(description="The player's id")
    name: str | None = Field(description="null for a player without a name, or deleted")
    deleted: bool = Field(description="The player has deleted the account")
    score: int = Field(description="The final score (cards_left: cards left, fewer ranks first)")
    moves: int = Field(description="Moves the game took, undos included")
    finished_at: datetime = Field(description="When the game ended")


class LeaderboardRead(BaseModel):
    """A page of a challenge's board."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "challenge_id": "2026-12-01.tripeaks",
                    "kind": "human",
                    "ranked": 3,
                    "entries": [
                        {
                            "rank": 1,
                            "player_id": "p8Yc1vQmS0aLk3XwZ2rNbg",
                            "name": "Ada",
                            "deleted": False,
                            "score": 164,
                            "moves": 41,
                            "finished_at": "2026-12-01T08:14:09Z",
                        },
                        {
                            "rank": 2,
                            "player_id": "Jq3rT7uVw0xYz1aBc2dEfg",
                            "name": None,
                            "deleted": True,
                            "score": 120,
                            "moves": 38,
                            "finished_at": "2026-12-01T11:40:51Z",
                        },
                    ],
                    "next": "MTIwLjM4LjIwMjYtMTItMDE",
                }
            ]
        }
    )

    challenge_id: str = Field(description="The challenge's id")
    kind: PlayerKind = Field(description="Whose board: human or bot players'")
    ranked: int = Field(description="Ranked results on this board")
    entries: list[LeaderboardEntryRead] = Field(description="This page of results, best first")
    next: str | None = Field(description="The cursor of the next page (also in Link), or null")
