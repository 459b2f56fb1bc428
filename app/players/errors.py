"""The players domain's problems."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from app.kit.errors import Member, ProblemError


class PlayerKeyRequiredProblem(ProblemError):
    status = 401
    slug = "player-key-required"
    when = (
        "a call that needs a player key (`/v1/players/me…`, `start_challenge_game`, "
        "`around=me`) made with another credential (a game's token)"
    )
    title = "This call needs a player key"


class PlayerKeyRefusedProblem(ProblemError):
    status = 403
    slug = "player-key-refused"
    when = "the player key opens no account (rotated, or the account deleted)"
    title = "The player key opens no account"


class FollowSelfProblem(ProblemError):
    status = 409
    slug = "follow-self"
    when = "a player following themselves"
    title = "A player cannot follow themselves (their own results are on every board)"


class FollowingLimitProblem(ProblemError):
    status = 409
    slug = "following-limit"
    when = "following one more than `FOLLOWING_MAX` players (`limit`)"
    title = "The player follows as many players as they may"
    members: ClassVar[dict[str, Member]] = {
        "limit": (int, Field(description="Players one may follow", examples=[500])),
    }
