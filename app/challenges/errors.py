"""The challenges domain's problems."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from app.kit.errors import Member, ProblemError


class ChallengeNotOpenProblem(ProblemError):
    status = 409
    slug = "challenge-not-open"
    title = "The challenge has not opened yet"


class ChallengeClosedProblem(ProblemError):
    status = 409
    slug = "challenge-closed"
    title = "The challenge has closed"


class AlreadyEnteredProblem(ProblemError):
    status = 409
    slug = "already-entered"
    title = "The player has no attempt left at this challenge, or one in progress"
    members: ClassVar[dict[str, Member]] = {
        "game_id": (
            str | None,
            Field(
                description="The player's latest attempt (null once that game has been "
                "purged): in progress, or the last of their attempts",
                examples=["lWD9UcJ1KtBuUH8ZQphj4w"],
            ),
        ),
    }


class NoRankedResultProblem(ProblemError):
    status = 404
    slug = "no-ranked-result"
    title = "The player has no ranked result on this board"


class ChallengeFullProblem(ProblemError):
    status = 409
    slug = "challenge-full"
    title = "The challenge takes no more entrants"


class TooManyOpenChallengesProblem(ProblemError):
    status = 409
    slug = "too-many-open-challenges"
    title = "The player has as many open challenges as they may set"
    members: ClassVar[dict[str, Member]] = {
        "limit": (int, Field(description="Open challenges a player may have", examples=[10])),
    }


class ChallengeStillOpenProblem(ProblemError):
    status = 409
    slug = "challenge-still-open"
    title = "The challenge is still open: its deal is practised once it has closed"
    members: ClassVar[dict[str, Member]] = {
        "closes_at": (
            str,
            Field(description="When it closes (RFC 3339)", examples=["2026-12-02T00:00:00Z"]),
        ),
    }


class ChallengeEnteredProblem(ProblemError):
    status = 409
    slug = "challenge-entered"
    title = "Somebody has entered the challenge: it can no longer be deleted (close it)"


class NotChallengeCreatorProblem(ProblemError):
    status = 403
    slug = "not-challenge-creator"
    title = "Only the player who set the challenge may do this"
