"""A challenge's id and its window: the forms an id takes (a daily's, a random one, an
event's edition's or round's), the UTC day of a daily, and whether a challenge is open."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from typing import Annotated

from pydantic import AfterValidator, Field

from app import engine
from app.challenges.errors import ChallengeClosedProblem, ChallengeNotOpenProblem
from app.challenges.models import Challenge, ChallengeKind
from app.kit.errors import NotFoundProblem
from app.kit.ids import is_id

_DAILY_ID = re.compile(r"(\d{4}-\d{2}-\d{2})\.([a-z0-9_]{1,32})")


def challenge_id(day: date, layout: str) -> str:
    return f"{day.isoformat()}.{layout}"


def daily_of(value: str) -> tuple[date, str] | None:
    """(day, layout) of a daily challenge's id; None for an id of any other form."""
    match = _DAILY_ID.fullmatch(value)
    if match is None or match.group(2) not in engine.LAYOUTS:
        return None
    try:
        return date.fromisoformat(match.group(1)), match.group(2)
    except ValueError:
        return None


# An event's edition ("<event id>.<number>") and round ("<event id>.<number>.<round>").
_EVENT_ID = re.compile(r"[A-Za-z0-9_-]{1,32}\.\d{1,6}(\.\d{1,2})?")


def is_challenge_id(value: str) -> bool:
    """Whether ``value`` can name a challenge: a daily's id, a random one, or an event's
    edition's or round's."""
    return daily_of(value) is not None or is_id(value) or _EVENT_ID.fullmatch(value) is not None


def check_challenge_id(value: str) -> None:
    """A 404 for an id that can name no challenge."""
    if not is_challenge_id(value):
        raise NotFoundProblem(f"no challenge {value[:48]!r}")


def _challenge_key(value: str) -> str:
    if not is_challenge_id(value):
        raise ValueError("no challenge's id")
    return value


# A challenge's id in a cursor: of any of the forms above (a daily's and an event's hold a
# dot, which a random id, ``RowId``, does not).
ChallengeKey = Annotated[str, Field(strict=True, max_length=64), AfterValidator(_challenge_key)]


def opens_at(day: date) -> datetime:
    return datetime.combine(day, time(), tzinfo=UTC)


def closes_at(day: date) -> datetime:
    return opens_at(day) + timedelta(days=1)


def check_day_open(day: date, now: datetime) -> None:
    """Refuse (409) an attempt at the daily of ``day`` unless ``now`` is within it."""
    if now < opens_at(day):
        raise ChallengeNotOpenProblem(f"the challenge of {day} opens at {opens_at(day)}")
    if now >= closes_at(day):
        raise ChallengeClosedProblem(f"the challenge of {day} closed at {closes_at(day)}")


def check_open(challenge: Challenge, now: datetime) -> None:
    """Refuse (409) an attempt at ``challenge`` unless ``now`` is within its window."""
    if now < challenge.opens_at:
        raise ChallengeNotOpenProblem(f"challenge {challenge.id} opens at {challenge.opens_at}")
    if now >= challenge.closes_at:
        raise ChallengeClosedProblem(f"challenge {challenge.id} closed at {challenge.closes_at}")


def is_closed(challenge: Challenge, now: datetime) -> bool:
    return now >= challenge.closes_at


def is_public(challenge: Challenge) -> bool:
    """Whether its board is public (the daily, an event's): there a provisional result
    is ranked apart until measured; on a challenge a player set it ranks, marked."""
    return challenge.kind is not ChallengeKind.SET
