"""The players domain's problems."""

from __future__ import annotations

from app.kit.errors import ProblemError


class PlayerKeyRequiredProblem(ProblemError):
    status = 401
    slug = "player-key-required"
    title = "This call needs a player key"


class PlayerKeyRefusedProblem(ProblemError):
    status = 403
    slug = "player-key-refused"
    title = "The player key opens no account"
