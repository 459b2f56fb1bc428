"""The events domain's problems (a full or closed edition is a full or closed
challenge's: an edition's board is one)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from app.kit.errors import Member, ProblemError


class EventNotOpenProblem(ProblemError):
    status = 409
    slug = "event-not-open"
    when = (
        "joining or playing an event with no edition open, or reading an edition not "
        "begun (`next_opens_at`)"
    )
    title = "No edition of the event is open"
    members: ClassVar[dict[str, Member]] = {
        "next_opens_at": (
            str | None,
            Field(
                description="When its next edition opens (RFC 3339), or null: none will",
                examples=["2026-12-04T00:00:00Z"],
            ),
        ),
    }


class EventCancelledProblem(ProblemError):
    status = 409
    slug = "event-cancelled"
    when = "joining, playing or changing a cancelled event"
    title = "The event was cancelled"


class EventStartedProblem(ProblemError):
    status = 409
    slug = "event-started"
    when = (
        "changing what makes an event's editions fair once it has had one, a lower "
        "`max_size`, or an end within an open edition (`fields`)"
    )
    title = "The event has had an edition: what makes its editions fair no longer changes"
    members: ClassVar[dict[str, Member]] = {
        "fields": (
            list[str],
            Field(description="The fields that may no longer change", examples=[["rounds"]]),
        ),
    }


class KindNotAdmittedProblem(ProblemError):
    status = 403
    slug = "kind-not-admitted"
    when = "a human at a bots' event or a bot at a humans' (`admits`)"
    title = "The event does not admit this kind of player"
    members: ClassVar[dict[str, Member]] = {
        "admits": (str, Field(description="humans, bots or both", examples=["humans"])),
    }


class NotJoinedProblem(ProblemError):
    status = 409
    slug = "not-joined"
    when = "a round of an event that needs joining first (`join_event`)"
    title = "The event needs the player to join before playing"


class OperatorTokenRefusedProblem(ProblemError):
    status = 403
    slug = "operator-token-refused"
    when = "an operator route without the operator's token"
    title = "This call needs the operator's token"
