"""An event operators run (its rules, rounds, schedule and cohorts), the editions it has
had, and the log of every change made to it.

An edition's rounds and its board are the challenges domain's: each round is a challenge
(its deal committed when the edition opens, revealed when it closes, its attempts and
their best as any challenge's), and the edition itself is a challenge without a deal of
its own whose entries are the entrants, each ranked by their total over the rounds.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Boolean, Enum, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.engine.difficulty import Tier
from app.kit.models import Base, UTCDateTime, utcnow


def _enum(kind: type[StrEnum], length: int) -> Enum:
    return Enum(
        kind, native_enum=False, length=length, values_callable=lambda e: [m.value for m in e]
    )


class Schedule(StrEnum):
    ONCE = "once"  # one edition: starts_at to ends_at
    DAILY = "daily"  # an edition a UTC day
    WEEKLY = "weekly"  # an edition a week, from weekday 00:00 UTC
    MONTHLY = "monthly"  # an edition a calendar month (UTC)


class RoundOpening(StrEnum):
    ALL_AT_ONCE = "all_at_once"  # every round open for the whole edition
    ONE_PER_DAY = "one_per_day"  # round n opens on the edition's day n, open to its end


class Entrants(StrEnum):
    HUMANS = "humans"
    BOTS = "bots"
    BOTH = "both"  # each kind on boards of its own


class EventStatus(StrEnum):
    ACTIVE = "active"
    CANCELLED = "cancelled"


class Event(Base):
    __tablename__ = "events"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    # The name an events file gives it (its rows are updated from the file by that key);
    # None for an event created through the API.
    key: Mapped[str | None] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(64))
    description: Mapped[str] = mapped_column(Text)
    layout: Mapped[str] = mapped_column(String(32))
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    entrants: Mapped[Entrants] = mapped_column(_enum(Entrants, 8))
    rounds: Mapped[int] = mapped_column(Integer)
    round_opening: Mapped[RoundOpening] = mapped_column(_enum(RoundOpening, 16))
    attempts: Mapped[int] = mapped_column(Integer)
    max_size: Mapped[int | None] = mapped_column(Integer)
    join_required: Mapped[bool] = mapped_column(Boolean)
    cohort_size: Mapped[int] = mapped_column(Integer)  # 0: one board
    winnable_only: Mapped[bool] = mapped_column(Boolean)
    tier: Mapped[Tier | None] = mapped_column(_enum(Tier, 8))  # each round's deal's; None: any
    schedule: Mapped[Schedule] = mapped_column(_enum(Schedule, 8))
    # The first edition's start (aligned to its schedule) and, for ONCE, the end of its
    # one edition; for a recurring event, when editions stop (None: never).
    starts_at: Mapped[datetime] = mapped_column(UTCDateTime())
    ends_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # When its last edition closes (None: it goes on), for listing by state.
    finishes_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    status: Mapped[EventStatus] = mapped_column(_enum(EventStatus, 16))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    __table_args__ = (
        # list_events: in the order of their start.
        Index("ix_events_starts_at", "starts_at", "id"),
    )


class Edition(Base):
    """An occurrence of an event, made on first need (no background job): its rounds
    are the challenges ``<id>.<round>`` and its board the challenge ``id``, whose window
    is the edition's (kept there alone: cancelling an event closes it there)."""

    __tablename__ = "event_editions"

    id: Mapped[str] = mapped_column(String(48), primary_key=True)  # "<event id>.<number>"
    event_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("events.id", ondelete="CASCADE"), index=True
    )
    number: Mapped[int] = mapped_column(Integer)  # 0, 1, 2, ... from the event's start
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class EventChange(Base):
    """Every change made to an event, by whom: the operator's API or the events file."""

    __tablename__ = "event_changes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    event_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("events.id", ondelete="CASCADE"), index=True
    )
    at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    action: Mapped[str] = mapped_column(String(16))  # created, updated, cancelled
    source: Mapped[str] = mapped_column(String(16))  # operator, file
    changes: Mapped[dict[str, Any]] = mapped_column(JSON)
