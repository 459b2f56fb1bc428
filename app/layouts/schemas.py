from __future__ import annotations

from pydantic import BaseModel, Field

from app.kit.schemas import LayoutName, RulesRead


class PositionRead(BaseModel):
    index: int
    row: int
    x: int = Field(description="Left edge in half-card widths: the card spans x to x+2")
    covered_by: list[int]
    face_up: bool = Field(description="Dealt face up")
    peak: bool = Field(description="A peak tip: taking it scores a bonus")


class LayoutRead(BaseModel):
    name: LayoutName
    title: str
    description: str
    decks: int
    width: int = Field(description="Table width in half-card widths")
    rows: int
    peaks: list[int]
    defaults: RulesRead = Field(
        description="The rules a game of this layout is played under when it gives none "
        "(the usual defaults, with the layout's own over them)"
    )
    positions: list[PositionRead]


class LayoutSummaryRead(BaseModel):
    name: LayoutName
    title: str
    description: str
    decks: int
    cards: int


class LayoutList(BaseModel):
    layouts: list[LayoutSummaryRead]
