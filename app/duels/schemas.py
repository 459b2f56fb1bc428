"""The duels' request and answers: a duel as one of its players sees it, a player's
ratings and their history, the rating board."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from app.duels.models import DuelStatus
from app.duels.pools import Preset
from app.games.service import CREATED_EXAMPLE, GameCreated
from app.kit.models import PlayerKind
from app.kit.schemas import DEFAULT_LAYOUT, LayoutName, Strict

DUEL_ID = "Qm3xT8vLk2YpN4rW7sZ1bA"
PLAYER_ID = "p8Yc1vQmS0aLk3XwZ2rNbg"
OPPONENT_ID = "r2Lk9XbWq0TnM5cVa7sYhe"
GAME_ID = "lWD9UcJ1KtBuUH8ZQphj4w"
COMMITMENT = "3f7c1e0d9b2a4c6e8f1a3b5d7e9f0a2c" * 2


DUEL_EXAMPLE: dict[str, Any] = {
    "id": DUEL_ID,
    "pool": "tripeaks.standard",
    "layout": "tripeaks",
    "preset": "standard",
    "status": "finished",
    "tier": "medium",
    "commitment": COMMITMENT,
    "created_at": "2026-12-06T09:00:00Z",
    "expires_at": "2026-12-13T09:00:00Z",
    "matched_at": "2026-12-06T09:03:10Z",
    "ended_at": "2026-12-06T09:12:44Z",
    "role": "host",
    "game_id": GAME_ID,
    "result": "won",
    "you": {
        "player_id": PLAYER_ID,
        "name": "Ada",
        "kind": "human",
        "rating": 1500,
        "provisional": True,
        "due_at": "2026-12-07T09:00:00Z",
        "finished": True,
        "score": 164,
        "moves": 41,
        "forfeit": False,
        "flagged": False,
        "rating_change": 158,
    },
    "opponent": {
        "player_id": OPPONENT_ID,
        "name": "Grace",
        "kind": "human",
        "rating": 1540,
        "provisional": True,
        "due_at": "2026-12-07T09:03:10Z",
        "finished": True,
        "score": 120,
        "moves": 44,
        "forfeit": False,
        "flagged": False,
        "rating_change": -160,
    },
}


class DuelCreate(Strict):
    """What kind of duel the player asks for."""

    layout: LayoutName = Field(default=DEFAULT_LAYOUT, description="The layout of its deal")
    preset: Preset = Field(
        default=Preset.STANDARD,
        description="Its rules: standard (the layout's own, undo off, as the daily) or "
        "no-wrap (the same without wrapping King-Ace). Layout and preset make the pool: "
        "whom it may match and which rating it changes",
    )
    with_bots: bool = Field(
        default=False,
        description="A person's choice to be matched with bots too (a bot's duels take "
        "bots, and people who chose this)",
    )


class YourResult(StrEnum):
    WON = "won"
    LOST = "lost"
    DRAW = "draw"
    VOID = "void"  # neither finished in time, or the other player deleted the account


class DuelSideRead(BaseModel):
    player_id: str | None = Field(description="The player (null once they deleted the account)")
    name: str | None = Field(description="Their display name (null: none, or deleted)")
    kind: PlayerKind = Field(description="human or bot")
    rating: int = Field(description="Their rating in the pool when they got the deal")
    provisional: bool = Field(description="That rating was provisional")
    due_at: datetime | None = Field(
        description="By when they must finish their game (null: not matched yet)"
    )
    finished: bool = Field(description="Their game has ended (or they ran out of time)")
    score: int | None = Field(
        description="Their final score: yours once your game ended, the opponent's once the "
        "duel has ended (null until then, and for a forfeit)"
    )
    moves: int | None = Field(description="Moves their game took, shown as the score is")
    forfeit: bool = Field(description="They did not finish in time: they lose the duel")
    flagged: bool = Field(
        description="The fair-play measure flagged their result: it loses the duel, and its "
        "rating gain is taken back"
    )
    rating_change: int | None = Field(
        description="What the duel did to their rating (null until it is decided; 0 where "
        "it changed nothing); a change taken back reads 0"
    )


class DuelRead(BaseModel):
    """A duel as one of its two players sees it."""

    model_config = ConfigDict(json_schema_extra={"examples": [DUEL_EXAMPLE]})

    id: str = Field(description="The duel's id (unguessable; its players alone read it)")
    pool: str = Field(description="Its layout and preset: whom it matched, which ratings")
    layout: str = Field(description="The layout of its deal")
    preset: Preset = Field(description="Its rules preset")
    status: DuelStatus = Field(
        description="waiting (no challenger yet: the host may play at once), matched (both "
        "have the deal), finished, or expired (nobody was matched in time: no rating changes)"
    )
    tier: str | None = Field(
        description="The difficulty tier its deal was drawn for, from the host's rating "
        "(null where the layout's deals of that tier were not found in time: any deal proved "
        "winnable)"
    )
    commitment: str = Field(
        description="SHA-256 of the deal and a salt, given before the first move; each game "
        "reveals deal and salt once the duel has ended"
    )
    created_at: datetime = Field(description="When it was opened")
    expires_at: datetime = Field(description="Unmatched by then, it expires")
    matched_at: datetime | None = Field(description="When the challenger got the deal")
    ended_at: datetime | None = Field(description="When it was decided (or expired)")
    role: str = Field(description="host (played first) or challenger")
    game_id: str | None = Field(
        description="Your game of the duel's deal (play it as any game: your player key or "
        "its token); null once purged"
    )
    result: YourResult | None = Field(description="Yours, once the duel is decided")
    you: DuelSideRead = Field(description="Your side")
    opponent: DuelSideRead | None = Field(description="The other side, once matched")


# A duel just opened: its host plays at once, nobody matched yet.
CREATED_DUEL_EXAMPLE: dict[str, Any] = {
    **DUEL_EXAMPLE,
    "status": "waiting",
    "matched_at": None,
    "ended_at": None,
    "result": None,
    "you": {
        **DUEL_EXAMPLE["you"],
        "finished": False,
        "score": None,
        "moves": None,
        "rating_change": None,
    },
    "opponent": None,
    "game": CREATED_EXAMPLE,
}


class DuelCreated(DuelRead):
    """A duel just asked for: the duel, and the player's game of its deal with its token
    (shown once)."""

    model_config = ConfigDict(json_schema_extra={"examples": [CREATED_DUEL_EXAMPLE]})

    game: GameCreated = Field(description="Your game of the duel's deal, with its token")


class MyDuelsRead(BaseModel):
    """A page of the caller's duels, newest first."""

    duels: list[DuelRead] = Field(description="This page, newest first")
    next: str | None = Field(description="The cursor of the next page (also in Link), or null")


class RatingChangeRead(BaseModel):
    duel_id: str = Field(description="The duel that made it")
    at: datetime = Field(description="When the duel was decided")
    before: int = Field(description="The rating before")
    after: int = Field(description="And after")
    taken_back: bool = Field(
        description="Taken back: the fair-play measure flagged the duel (the player's gain "
        "from a flagged result, or their loss to one)"
    )


class RatingRead(BaseModel):
    pool: str = Field(description="Layout and preset")
    rating: int = Field(description="The rating (OpenSkill's mu, 1500 to begin with)")
    deviation: int = Field(description="How unsure it still is (OpenSkill's sigma)")
    provisional: bool = Field(
        description="Marked for the first RATING_PROVISIONAL_GAMES duels in the pool"
    )
    games: int = Field(description="Duels decided in the pool")
    wins: int = Field(description="Duels won")
    losses: int = Field(description="Duels lost")
    draws: int = Field(description="Duels drawn")
    rank: int = Field(description="Place on the pool's board of the player's kind")
    recent: list[RatingChangeRead] = Field(
        description="The latest changes, newest first (list_rating_history pages through all)"
    )


class PlayerRatingsRead(BaseModel):
    """A player's ratings, a pool each."""

    player_id: str = Field(description="The player")
    kind: PlayerKind = Field(description="human or bot: the board they are ranked on")
    ratings: list[RatingRead] = Field(description="One per pool they have dueled in")


class RatingHistoryRead(BaseModel):
    """A page of a player's rating changes in a pool, newest first."""

    player_id: str = Field(description="The player")
    pool: str = Field(description="The pool")
    changes: list[RatingChangeRead] = Field(description="This page, newest first")
    next: str | None = Field(description="The cursor of the next page (also in Link), or null")


class RatingBoardEntryRead(BaseModel):
    rank: int = Field(
        description="1 + the players rated higher (ties share a rank), on this board: the "
        "whole board, or among=following's players"
    )
    global_rank: int = Field(description="Its rank on the whole board")
    player_id: str = Field(description="The player")
    name: str | None = Field(description="Display name (null: none)")
    rating: int = Field(description="The rating")
    deviation: int = Field(description="How unsure it still is")
    provisional: bool = Field(description="Still provisional (marked)")
    games: int = Field(description="Duels decided in the pool")


class RatingBoardRead(BaseModel):
    """A page of a pool's rating board (one kind of player)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "pool": "tripeaks.standard",
                    "kind": "human",
                    "rated": 2,
                    "entries": [
                        {
                            "rank": 1,
                            "global_rank": 1,
                            "player_id": PLAYER_ID,
                            "name": "Ada",
                            "rating": 1658,
                            "deviation": 484,
                            "provisional": True,
                            "games": 1,
                        },
                        {
                            "rank": 2,
                            "global_rank": 2,
                            "player_id": OPPONENT_ID,
                            "name": "Grace",
                            "rating": 1342,
                            "deviation": 484,
                            "provisional": True,
                            "games": 1,
                        },
                    ],
                    "next": None,
                }
            ]
        }
    )

    pool: str = Field(description="Layout and preset")
    kind: PlayerKind = Field(description="Whose board: human or bot players'")
    rated: int = Field(description="Players rated on this board")
    entries: list[RatingBoardEntryRead] = Field(description="This page, highest first")
    next: str | None = Field(description="The cursor of the next page (also in Link), or null")
