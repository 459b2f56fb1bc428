from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class PositionRead(BaseModel):
    index: int
    row: int
    x: int = Field(description="Left edge in half-card widths: the card spans x to x+2")
    covered_by: list[int]
    face_up: bool = Field(description="Dealt face up")
    peak: bool = Field(description="A peak tip: taking it scores a bonus")


class LayoutRead(BaseModel):
    name: str
    title: str
    description: str
    decks: int
    width: int = Field(description="Table width in half-card widths")
    rows: int
    peaks: list[int]
    defaults: dict[str, Any] = Field(description="Rule options this layout sets by default")
    positions: list[PositionRead]


class LayoutSummaryRead(BaseModel):
    name: str
    title: str
    description: str
    decks: int
    cards: int


class LayoutList(BaseModel):
    layouts: list[LayoutSummaryRead]
