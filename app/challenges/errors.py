"""The challenges domain's problems."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from app.kit.errors import Member, ProblemError


class ChallengeNotOpenProblem(ProblemError):
    status = 409
    slug = "challenge-not-open"
    title = "The challenge's day has not begun"


class ChallengeClosedProblem(ProblemError):
    status = 409
    slug = "challenge-closed"
    title = "The challenge's day is over"


class AlreadyEnteredProblem(ProblemError):
    status = 409
    slug = "already-entered"
    title = "The player has already entered this challenge"
    members: ClassVar[dict[str, Member]] = {
        "game_id": (
            str | None,
            Field(
                description="The player's attempt (null once that game has been purged)",
                examples=["lWD9UcJ1KtBuUH8ZQphj4w"],
            ),
        ),
    }


class NoRankedResultProblem(ProblemError):
    status = 404
    slug = "no-ranked-result"
    title = "The player has no ranked result on this board"
