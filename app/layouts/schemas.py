from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from app.engine.layouts import TRIPEAKS


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

    model_config = ConfigDict(json_schema_extra={"examples": [TRIPEAKS.to_dict()]})

    name: str = Field(description="The layout's name, as create_game takes it")
    title: str = Field(description="Its name for people")
    description: str = Field(description="What the table looks like")
    decks: int = Field(description="Decks dealt: 1, or 2 for six_peaks")
    width: int = Field(description="Table width in half-card widths")
    rows: int = Field(description="Rows of the table")
    peaks: list[int] = Field(
        description="The positions of the peak tips (taking one scores a bonus)"
    )
    defaults: dict[str, Any] = Field(description="Rule options this layout sets by default")
    positions: list[PositionRead] = Field(description="Every position, in order")


class LayoutSummaryRead(BaseModel):
    name: str = Field(description="The layout's name, as create_game takes it")
    title: str = Field(description="Its name for people")
    description: str = Field(description="What the table looks like")
    decks: int = Field(description="Decks dealt: 1, or 2 for six_peaks")
    cards: int = Field(description="Tableau cards")


class LayoutList(BaseModel):
    layouts: list[LayoutSummaryRead] = Field(description="Every layout the server plays")
