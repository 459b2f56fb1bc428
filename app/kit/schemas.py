from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from app.engine import Scoring
from app.engine.difficulty import Tier
from app.engine.layouts import LAYOUTS

# The vocabulary every domain's contract shares, named once in the OpenAPI.
if TYPE_CHECKING:
    LayoutName = str
else:
    LayoutName = StrEnum("LayoutName", {name: name for name in LAYOUTS}, module=__name__)
    LayoutName.__doc__ = "A layout's name: one of those list_layouts gives (layouts are data)"
DEFAULT_LAYOUT = LayoutName("tripeaks")


class Strict(BaseModel):
    """A request body: unknown fields are refused."""

    model_config = ConfigDict(extra="forbid")


class Problem(BaseModel):
    """An RFC 9457 problem; ``type`` is stable for each kind of error."""

    model_config = ConfigDict(extra="allow")

    type: str = Field(
        description="A URI reference naming the kind of problem, stable: branch on it"
    )
    title: str = Field(description="The kind of problem in words; the same for every one")
    status: int = Field(description="The HTTP status, repeated")
    detail: str = Field(description="This occurrence in words, for a person to read")
    instance: str | None = Field(None, description="The path of the request refused")


class DifficultyRead(BaseModel):
    """How hard a deal is: the share of games the hint wins on it, playing from the
    player's view alone (docs/difficulty.md), and its tier."""

    tier: Tier = Field(
        description="easy (the hint won at least 80% of its games), hard (under 25%: a "
        "deal nobody can clear is hard) or medium"
    )
    share: float = Field(ge=0, le=1, description="The share of the hint's games won")
    low: float = Field(ge=0, le=1, description="The 95% interval of that share: its low end")
    high: float = Field(ge=0, le=1, description="Its high end")
    wins: int = Field(ge=0, description="Games the hint won")
    playouts: int = Field(ge=1, description="Games it played (each with other sampling seeds)")
    samples: int = Field(ge=1, description="Samples the hint solved a decision")
    nodes: int = Field(ge=1, description="Search nodes a sample")


class RulesRead(BaseModel):
    """The rules a game is played under: every option set (docs/rules.md says each)."""

    layout: LayoutName = Field(description="The layout the game is played on")
    wrap: bool = Field(description="King and Ace are neighbours")
    king_stops: bool = Field(description="Nothing may be played onto a King")
    open_peaks: bool = Field(description="The whole tableau was dealt face up")
    free_start: bool = Field(description="No card started the waste")
    jokers: int = Field(description="Jokers in the deck (0-2)")
    redeals: int = Field(description="Times the waste may be turned over into a new stock")
    undo: bool = Field(description="Whether moves may be taken back")
    scoring: Scoring = Field(description="The scoring scheme")
    draw_penalty: int = Field(
        description="Points a draw costs (classic scoring; the other schemes ignore it)"
    )
    deal_cost: int = Field(
        description="Points the hand cost when dealt (classic scoring; the others ignore it)"
    )
