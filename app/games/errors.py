"""The games domain's problems (RFC 9457 types): illegal moves, games over, races."""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from pydantic import Field

from app.engine import GameStatus
from app.kit.errors import Member, ProblemError, ValidationProblem


class OpenChallengeDealProblem(ProblemError):
    status = 409
    slug = "open-challenge-deal"
    when = (
        "`create_game` with a deal (or deal number) whose tableau is an open challenge's,"
        " or the same under the changes that leave a game the same (suits, ranks "
        "reversed, ranks turned under wrap, a symmetric table mirrored), whatever its "
        "waste card and stock: dealt once it closes (`closes_at`)"
    )
    title = "The deal's tableau is an open challenge's (or the same): dealt once it closes"
    members: ClassVar[dict[str, Member]] = {
        "closes_at": (
            str,
            Field(
                description="When that challenge closes (RFC 3339): the deal may be dealt then",
                examples=["2026-12-03T00:00:00Z"],
            ),
        ),
    }


class IllegalMoveProblem(ProblemError):
    status = 400
    slug = "illegal-move"
    when = (
        "the rules refuse the move now: the card is covered or does not fit the waste, "
        "the stock is empty, no redeal or undo is allowed (`move`, `reason`)"
    )
    title = "Illegal move"
    example_detail = "illegal move 'play 3': position 3 is still covered by 9 and 10"
    members: ClassVar[dict[str, Member]] = {
        "move": (str, Field(description="The move refused, as sent", examples=["play 3"])),
        "reason": (
            str,
            Field(
                description="Why, in words",
                examples=["position 3 is still covered by 9 and 10"],
            ),
        ),
    }


class GameOverProblem(ProblemError):
    status = 409
    slug = "game-over"
    when = "a move, or a hint, on a game that has ended (`game_status`)"
    title = "The game is over"
    members: ClassVar[dict[str, Member]] = {
        "move": (
            str | None,
            Field(None, description="The move refused, as sent (a move's)", examples=["draw"]),
        ),
        "game_status": (GameStatus, Field(description="How the game ended", examples=["won"])),
    }


class MoveLimitProblem(ProblemError):
    status = 409
    slug = "move-limit"
    when = "the game holds `MAX_MOVES_PER_GAME` moves; only `concede` is taken (`limit`)"
    title = "The game has reached its move limit"
    members: ClassVar[dict[str, Member]] = {
        "limit": (
            int,
            Field(
                description="The most moves a game may hold (MAX_MOVES_PER_GAME)",
                examples=[5000],
            ),
        ),
    }


class GameInProgressProblem(ProblemError):
    status = 409
    slug = "game-in-progress"
    when = "the analysis of a game that has not ended"
    title = "The game is still in progress"


class ConflictProblem(ProblemError):
    status = 409
    slug = "conflict"
    when = "another move on the game landed first (a race): reload and retry"
    title = "Conflict: the game changed"


class PreconditionFailedProblem(ProblemError):
    status = 412
    slug = "precondition-failed"
    when = "`If-Match` names a version the game is no longer at (`current_version`)"
    title = "Precondition failed: stale If-Match"
    members: ClassVar[dict[str, Member]] = {
        "current_version": (
            int,
            Field(
                description='The game\'s version now: its ETag is "v<current_version>"',
                examples=[12],
            ),
        ),
    }


class IdempotencyMismatchProblem(ValidationProblem):
    slug = "idempotency-key-reused"
    when = "an `Idempotency-Key` sent again with another move (`first_move`)"
    title = "Idempotency-Key reused with a different request"
    members: ClassVar[dict[str, Member]] = {
        **ValidationProblem.members,
        "first_move": (
            str,
            Field(description="The move this key was first used with", examples=["draw"]),
        ),
    }


class RankedGameProblem(ProblemError):
    """Refused while a challenge's day lasts: a hint in a ranked game (a GET never
    changes state, so a hint cannot mark the game as assisted instead), or an analysis,
    which would show the day's deal before the day is over."""

    status = 409
    slug = "ranked-game"
    when = "a hint or an analysis of a challenge's ranked attempt before the challenge closes"
    title = "Not in a ranked challenge game before the day is over"
    members: ClassVar[dict[str, Member]] = {
        "challenge_id": (
            str,
            Field(
                description="The challenge the game is the attempt at",
                examples=["2026-12-01.tripeaks"],
            ),
        ),
        "reveal_after": (
            datetime | None,
            Field(None, description="When the day is over (for an analysis): ask again then"),
        ),
    }
