"""The layout endpoints: the geometry a client needs to draw a table."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from app import engine
from app.kit.errors import NotFoundProblem, ValidationProblem
from app.kit.problems import problem_responses
from app.kit.ratelimit import RATE_LIMIT_HEADERS, Budget, RateLimitedProblem, rate_limit
from app.layouts import service
from app.layouts.schemas import LayoutList, LayoutRead, LayoutSummaryRead

router = APIRouter(prefix="/v1/layouts", tags=["layouts"], dependencies=[rate_limit(Budget.READ)])


@router.get(
    "",
    operation_id="list_layouts",
    response_model=LayoutList,
    responses={200: {"headers": RATE_LIMIT_HEADERS}, **problem_responses(RateLimitedProblem)},
    summary="Every layout",
)
async def list_layouts() -> LayoutList:
    """The layouts a game may be played on, each with its card count and default rules."""
    return LayoutList(
        layouts=[
            LayoutSummaryRead(
                name=lay.name,
                title=lay.title,
                description=lay.description,
                decks=lay.decks,
                cards=lay.size,
            )
            for lay in service.list_layouts()
        ]
    )


@router.get(
    "/{name}",
    operation_id="get_layout",
    response_model=LayoutRead,
    responses={
        200: {"headers": RATE_LIMIT_HEADERS},
        **problem_responses(NotFoundProblem, ValidationProblem, RateLimitedProblem),
    },
    summary="A layout's geometry: every position, what covers it, how it is dealt",
)
async def get_layout(
    name: Annotated[
        str,
        Path(
            max_length=64,
            description="The layout's name, as list_layouts gives it: tripeaks, six_peaks, golf",
            examples=["tripeaks"],
        ),
    ],
) -> LayoutRead:
    """Everything a client needs to draw a layout's table: each position's row, x and peak,
    which positions cover it, and whether it is dealt face up; and the rules a game of it is
    played under by default.
    """
    layout = service.get_layout(name)
    return LayoutRead.model_validate(
        {**layout.to_dict(), "defaults": engine.Rules.for_layout(layout).to_dict()}
    )
