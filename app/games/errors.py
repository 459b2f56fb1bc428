"""The games domain's problems (RFC 9457 types): illegal moves, games over, races."""

from __future__ import annotations

from app.kit.errors import ProblemError, ValidationProblem


class IllegalMoveProblem(ProblemError):
    status = 400
    slug = "illegal-move"
    title = "Illegal move"


class GameOverProblem(ProblemError):
    status = 409
    slug = "game-over"
    title = "The game is over"


class MoveLimitProblem(ProblemError):
    status = 409
    slug = "move-limit"
    title = "The game has reached its move limit"


class GameInProgressProblem(ProblemError):
    status = 409
    slug = "game-in-progress"
    title = "The game is still in progress"


class ConflictProblem(ProblemError):
    status = 409
    slug = "conflict"
    title = "Conflict: the game changed"


class PreconditionFailedProblem(ProblemError):
    status = 412
    slug = "precondition-failed"
    title = "Precondition failed: stale If-Match"


class IdempotencyMismatchProblem(ValidationProblem):
    slug = "idempotency-key-reused"
    title = "Idempotency-Key reused with a different request"


class RankedGameProblem(ProblemError):
    """Refused while a challenge's day lasts: a hint in a ranked game (a GET never
    changes state, so a hint cannot mark the game as assisted instead), or an analysis,
    which would show the day's deal before the day is over."""

    status = 409
    slug = "ranked-game"
    title = "Not in a ranked challenge game before the day is over"
