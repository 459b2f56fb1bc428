"""The duels domain's problems."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from app.kit.errors import Member, ProblemError


class DuelGameInProgressProblem(ProblemError):
    status = 409
    slug = "duel-game-in-progress"
    when = "a duel asked for by a player whose game in another duel is not finished yet"
    title = "The player has a duel game to finish first"
    members: ClassVar[dict[str, Member]] = {
        "duel_id": (
            str,
            Field(
                description="The duel whose game is in progress",
                examples=["Qm3xT8vLk2YpN4rW7sZ1bA"],
            ),
        ),
        "game_id": (
            str | None,
            Field(description="That game (null once purged)", examples=["lWD9UcJ1KtBuUH8ZQphj4w"]),
        ),
    }


class TooManyWaitingDuelsProblem(ProblemError):
    status = 409
    slug = "too-many-waiting-duels"
    when = (
        "a duel asked for by a player with `DUEL_WAITING_PER_PLAYER` duels waiting for a "
        "challenger already"
    )
    title = "The player has as many duels waiting as they may"
    members: ClassVar[dict[str, Member]] = {
        "limit": (int, Field(description="Duels a player may have waiting at once", examples=[3])),
    }


class NoRatingProblem(ProblemError):
    status = 404
    slug = "no-rating"
    when = "`around=me` on a rating board where the caller has no rating (no duel decided yet)"
    title = "The player has no rating in this pool"
