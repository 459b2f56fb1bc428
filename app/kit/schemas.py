from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Strict(BaseModel):
    """A request body: unknown fields are refused."""

    model_config = ConfigDict(extra="forbid")


class Problem(BaseModel):
    """An RFC 9457 problem; ``type`` is stable for each kind of error."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "example": {
                "type": "/problems/illegal-move",
                "title": "Illegal move",
                "status": 400,
                "detail": "illegal move 'play 3': position 3 is still covered by 9 and 10",
                "instance": "/v1/games/abc/moves",
            }
        },
    )

    type: str = Field(description="A URI reference that names the kind of problem")
    title: str = Field(
        description="A short summary of the problem type, the same for every problem of that type"
    )
    status: int = Field(description="The HTTP status code")
    detail: str = Field(
        description="What went wrong with this request, for people (never a hidden card)"
    )
    instance: str | None = Field(default=None, description="The path of the request")
    errors: list[dict[str, Any]] | None = Field(
        default=None, description="For validation problems: each field that was refused"
    )
