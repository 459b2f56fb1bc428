"""The challenges domain's problems."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from app.kit.errors import Member, ProblemError


class ChallengeNotOpenProblem(ProblemError):
    status = 409
    slug = "challenge-not-open"
    when = (
        "a challenge (or its board) that has not opened: a day not begun, a set "
        "challenge's `opens_at` ahead"
    )
    title = "The challenge has not opened yet"


class ChallengeClosedProblem(ProblemError):
    status = 409
    slug = "challenge-closed"
    when = "an attempt started after the challenge closed"
    title = "The challenge has closed"


class AlreadyEnteredProblem(ProblemError):
    status = 409
    slug = "already-entered"
    when = "an attempt by a player with none left, or one in progress (`game_id`: their latest)"
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
    when = "`around=me` on a board where the caller has no ranked result"
    title = "The player has no ranked result on this board"


class ChallengeFullProblem(ProblemError):
    status = 409
    slug = "challenge-full"
    when = "a first attempt at a challenge that has taken `CHALLENGE_MAX_ENTRIES` entrants"
    title = "The challenge takes no more entrants"


class TooManyOpenChallengesProblem(ProblemError):
    status = 409
    slug = "too-many-open-challenges"
    when = (
        "a player setting one more challenge than `CHALLENGE_OPEN_PER_PLAYER` open at "
        "once (`limit`)"
    )
    title = "The player has as many open challenges as they may set"
    members: ClassVar[dict[str, Member]] = {
        "limit": (int, Field(description="Open challenges a player may have", examples=[10])),
    }


class ChallengeStillOpenProblem(ProblemError):
    status = 409
    slug = "challenge-still-open"
    when = "practice of a challenge that has not closed (`closes_at`)"
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
    when = "deleting a challenge somebody has entered (close it instead)"
    title = "Somebody has entered the challenge: it can no longer be deleted (close it)"


class NotChallengeCreatorProblem(ProblemError):
    status = 403
    slug = "not-challenge-creator"
    when = "closing or deleting a challenge the caller did not set (a daily included)"
    title = "Only the player who set the challenge may do this"
