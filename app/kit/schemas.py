from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from app.engine import Scoring
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


class RulesRead(BaseModel):
    """The rules a game is played under: every option set (docs/rules.md says each)."""

    layout: LayoutName
    wrap: bool
    king_stops: bool
    open_peaks: bool
    free_start: bool
    jokers: int
    redeals: int
    undo: bool
    scoring: Scoring
    draw_penalty: int
    deal_cost: int
