"""The contract of the game endpoints.

Names: a request body is ``<Thing>Create``, an answer or a part of one ``<Thing>Read``, a
list ``<Thing>List``; none is named like an engine class. The enums (``GameStatus``,
``Scoring``, ``MoveKind``) are defined once and shared by every schema that uses them.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, Field, StrictBool, StrictInt

from app.engine import GameStatus, Scoring
from app.engine.deals import MAX_DEAL_NUMBER
from app.kit.schemas import DEFAULT_LAYOUT, LayoutName, RulesRead, Strict


def _whole_number(value: Any) -> Any:
    """JSON Schema's integers include 3.0: take it as 3 (still never "3" nor true)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


WHOLE = BeforeValidator(_whole_number)  # after the bounds, so that they stay in the schema
CardCode = Annotated[
    str,
    Field(
        min_length=2,
        max_length=3,
        description="A rank (A, 2-9, T or 10, J, Q, K) and a suit (c, d, h, s), or JK",
        examples=["7h"],
    ),
]


class MoveKind(StrEnum):
    """What a move does: play a free card, draw from the stock, turn the waste over
    (``redeal``), take back the last move (``undo``) or give up (``concede``)."""

    PLAY = "play"
    DRAW = "draw"
    REDEAL = "redeal"
    UNDO = "undo"
    CONCEDE = "concede"


class RulesCreate(Strict):
    """Rule options; any left out take the layout's default (golf: no wrap, cards_left)."""

    wrap: StrictBool | None = None
    king_stops: StrictBool | None = None
    open_peaks: StrictBool | None = None
    free_start: StrictBool | None = None
    jokers: Annotated[StrictInt, Field(ge=0, le=2), WHOLE] | None = None
    redeals: Annotated[StrictInt, Field(ge=0, le=9), WHOLE] | None = None
    undo: StrictBool | None = None
    scoring: Scoring | None = None
    draw_penalty: Annotated[StrictInt, Field(ge=0, le=1000), WHOLE] | None = None
    deal_cost: Annotated[StrictInt, Field(ge=0, le=1000), WHOLE] | None = None


class GameCreate(Strict):
    layout: LayoutName = DEFAULT_LAYOUT
    rules: RulesCreate | None = None
    deal_number: Annotated[StrictInt, Field(ge=0, le=MAX_DEAL_NUMBER), WHOLE] | None = Field(
        default=None, description="Play numbered deal N (docs/deals.md); public in the game."
    )
    deal: Annotated[list[CardCode], Field(max_length=110)] | None = Field(
        default=None,
        description="An explicit card order: tableau positions, waste card, stock from the top.",
    )
    winnable_only: StrictBool = Field(
        default=False, description="Deal until the solver proves the deal winnable."
    )


class SlotRead(BaseModel):
    position: int
    card: str | None = Field(description="The card's code, or null when face down or removed")
    face_up: bool
    free: bool = Field(description="Nothing covers it (and it is still on the table)")
    removed: bool


class LegalMoveRead(BaseModel):
    """A move exactly as ``make_move`` accepts it: post it back unchanged."""

    move: str = Field(examples=["play 21", "draw"])
    kind: MoveKind
    position: int | None = Field(description="The position a play takes from; null otherwise")
    card: str | None = Field(description="The card a play moves (face up); null otherwise")


class ScoreRead(BaseModel):
    scheme: Scoring
    total: int
    streak_points: int
    bonus_points: int
    draw_penalties: int
    deal_cost: int
    current_streak: int
    longest_streak: int
    peaks_taken: int
    cards_left: int


class RevealRead(BaseModel):
    """Published when the game ends: check SHA-256 of the deal and salt (docs/deals.md)."""

    deal: list[str]
    salt: str
    deal_number: int | None


class ChallengeLinkRead(BaseModel):
    """The daily challenge a game is the ranked attempt at."""

    id: str
    ranked: bool = Field(
        description="Whether its result counts on the leaderboard: true while the day lasts "
        "and once it has ended within the day; false once the day is over without it"
    )
    reveal_after: datetime = Field(
        description="The end of the challenge's day: until then the deal stays secret (no "
        "reveal, no analysis, even once the game is over) and hints are off"
    )


class GameRead(BaseModel):
    id: str
    version: int = Field(description="Moves applied so far; the ETag names it")
    status: GameStatus
    layout: LayoutName
    rules: RulesRead
    tableau: list[SlotRead]
    waste: list[str] = Field(description="The waste from the bottom; its last card is the top")
    waste_top: str | None
    stock_count: int
    redeals_left: int
    cards_left: int
    score: ScoreRead
    can_undo: bool
    legal_moves: list[LegalMoveRead]
    deal_number: int | None = Field(description="The deal number, when the player chose it")
    commitment: str = Field(description="SHA-256 of the deal and a secret salt")
    reveal: RevealRead | None = Field(
        description="The deal and salt, once the game has ended (a challenge's game: once "
        "its day is over too)"
    )
    player_id: str | None = Field(description="The player whose game it is, or null")
    challenge: ChallengeLinkRead | None
    created_at: datetime
    updated_at: datetime


class GameCreated(GameRead):
    token: str = Field(
        description="The player token: send it as 'Authorization: Bearer'. "
        "It is shown once and stored only as a hash."
    )


class MoveCreate(Strict):
    """A move: its string, optionally with the rest of a legal-move object."""

    move: Annotated[
        str,
        Field(
            min_length=1,
            max_length=32,
            description="'play <position>', 'draw', 'redeal', 'undo' or 'concede'",
            examples=["play 21", "draw"],
        ),
    ]
    kind: MoveKind | None = None
    position: Annotated[StrictInt, Field(ge=0, le=1000), WHOLE] | None = None
    card: CardCode | None = None


class PlayCreate(Strict):
    position: Annotated[StrictInt, Field(ge=0, le=1000), WHOLE]
    card: CardCode | None = Field(
        default=None, description="If given, the play is refused unless this card is there"
    )


class LegalMoveList(BaseModel):
    game_id: str
    version: int
    status: GameStatus
    legal_moves: list[LegalMoveRead] = Field(
        description="Every legal move (as in the game's state): post one back unchanged"
    )


class GameScoreRead(BaseModel):
    game_id: str
    version: int
    status: GameStatus
    score: ScoreRead


class MoveRead(BaseModel):
    seq: int
    move: str
    created_at: datetime


class MoveList(BaseModel):
    game_id: str
    total: int = Field(description="Moves the game holds in all (its version)")
    moves: list[MoveRead]
    next: str | None = Field(description="The cursor of the next page (also in Link), or null")


class HintRead(BaseModel):
    """A suggested move, decided from what the player can see and nothing else."""

    game_id: str
    version: int
    move: LegalMoveRead = Field(description="The suggestion, as make_move accepts it")
    win_chance: float = Field(
        ge=0, le=1, description="Share of the sampled deals (consistent with the view) it wins"
    )
    samples: int = Field(description="How many samples were solved within the budget")
    exact: bool = Field(description="True when nothing was hidden, so the chance is exact")
    unknown: int = Field(description="Samples whose search ran out of budget (counted as lost)")


class AnalysisRead(BaseModel):
    """A finished game looked back on with its whole deal known."""

    game_id: str
    status: GameStatus = Field(description="How the game ended: won, lost or conceded")
    final_score: int
    scoring: Scoring
    winnable: bool | None = Field(
        description="Whether the deal could be cleared (null: budget ran out)"
    )
    win_line: list[str] = Field(description="A line of moves that clears it, from the deal")
    best_score: int | None = Field(
        description="The best final score reachable, conceding allowed (cards_left: fewest)"
    )
    best_line: list[str]
    lost_at: int | None = Field(
        description="Index (from 0) of the move after which a win was no longer possible"
    )
    lost_move: str | None
    complete: bool = Field(description="False when the time budget ran out before every answer")
