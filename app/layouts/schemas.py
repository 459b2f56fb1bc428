from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from app.engine import Rules
from app.engine.layouts import TRIPEAKS
from app.kit.schemas import LayoutName, RulesRead


class PositionRead(BaseModel):
    index: int = Field(description="The position's number: plays name it (play <index>)")
    row: int = Field(description="Its row from the top (0); later rows are drawn over earlier ones")
    x: int = Field(description="Left edge in half-card widths: the card spans x to x+2")
    covered_by: list[int] = Field(
        description="The positions that cover it: it is free once all of them are played"
    )
    face_up: bool = Field(description="Dealt face up")
    peak: bool = Field(description="A peak tip: taking it scores a bonus")


class LayoutRead(BaseModel):
    """A layout's geometry: enough to draw its table and to know what covers what."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {**TRIPEAKS.to_dict(), "defaults": Rules.for_layout(TRIPEAKS).to_dict()},
            ]
        }
    )

    name: LayoutName = Field(description="The layout's name, as create_game takes it")
    title: str = Field(description="Its name for people")
    description: str = Field(description="What the table looks like")
    decks: int = Field(description="Decks dealt: 1, or 2 for six_peaks")
    width: int = Field(description="Table width in half-card widths")
    rows: int = Field(description="Rows of the table")
    peaks: list[int] = Field(
        description="The positions of the peak tips (taking one scores a bonus)"
    )
    defaults: RulesRead = Field(
        description="The rules a game of this layout is played under when it gives none "
        "(the usual defaults, with the layout's own over them)"
    )
    positions: list[PositionRead] = Field(description="Every position, in order")


class LayoutSummaryRead(BaseModel):
    name: LayoutName = Field(description="The layout's name, as create_game takes it")
    title: str = Field(description="Its name for people")
    description: str = Field(description="What the table looks like")
    decks: int = Field(description="Decks dealt: 1, or 2 for six_peaks")
    cards: int = Field(description="Tableau cards")


class LayoutList(BaseModel):
    layouts: list[LayoutSummaryRead] = Field(description="Every layout the server plays")
