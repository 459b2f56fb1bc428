"""The challenges domain's problems."""

from __future__ import annotations

from app.kit.errors import ProblemError


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


class NoRankedResultProblem(ProblemError):
    status = 404
    slug = "no-ranked-result"
    title = "The player has no ranked result on this board"
