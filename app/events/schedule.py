"""When an event's editions and rounds open and close: by the clock alone.

Edition ``n`` (from 0) of an event opens at its start plus ``n`` periods (a UTC day, a
week, a calendar month; a one-off event has one edition, from ``starts_at`` to
``ends_at``); a recurring event's editions stop at ``ends_at`` (no edition opens from
then on). Nothing is scheduled to run: every request computes which edition is open, and
the edition's rows are made the first time anyone needs them.
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

from app.events.models import RoundOpening, Schedule

DAY = timedelta(days=1)
WEEK = timedelta(days=7)
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def midnight(moment: datetime) -> datetime:
    return datetime.combine(moment.astimezone(UTC).date(), time(), tzinfo=UTC)


def add_months(moment: datetime, months: int) -> datetime:
    """The first of the month ``months`` after ``moment``'s (``moment`` is a first)."""
    years, month = divmod(moment.month - 1 + months, 12)
    return moment.replace(year=moment.year + years, month=month + 1)


def aligned_start(schedule: Schedule, starts_at: datetime, weekday: str | None) -> datetime:
    """The first edition's start: ``starts_at`` itself for a one-off event; else 00:00 UTC
    of its day (weekly: of the first ``weekday`` on or after it; monthly: of the first of
    its month, or of the next month when it is not the first)."""
    moment = starts_at.astimezone(UTC)
    if schedule is Schedule.ONCE:
        return moment
    day = midnight(moment)
    if schedule is Schedule.WEEKLY:
        wanted = WEEKDAYS.index(weekday) if weekday is not None else day.weekday()
        return day + timedelta(days=(wanted - day.weekday()) % 7)
    if schedule is Schedule.MONTHLY:
        first = day.replace(day=1)
        return first if first == day else add_months(first, 1)
    return day


def edition_window(
    schedule: Schedule, starts_at: datetime, ends_at: datetime | None, number: int
) -> tuple[datetime, datetime] | None:
    """Edition ``number``'s window, or None when the event has no such edition."""
    if number < 0:
        return None
    if schedule is Schedule.ONCE:
        return (starts_at, ends_at) if number == 0 and ends_at is not None else None
    if schedule is Schedule.MONTHLY:
        opens, closes = add_months(starts_at, number), add_months(starts_at, number + 1)
    else:
        period = DAY if schedule is Schedule.DAILY else WEEK
        opens, closes = starts_at + number * period, starts_at + (number + 1) * period
    if ends_at is not None and opens >= ends_at:
        return None
    return opens, closes


def edition_number(schedule: Schedule, starts_at: datetime, moment: datetime) -> int:
    """The number of the edition whose window holds ``moment`` had the event one (-1
    before the first)."""
    if moment < starts_at:
        return -1
    if schedule is Schedule.ONCE:
        return 0
    if schedule is Schedule.MONTHLY:
        months = (moment.year - starts_at.year) * 12 + moment.month - starts_at.month
        return months if add_months(starts_at, months) <= moment else months - 1
    period = DAY if schedule is Schedule.DAILY else WEEK
    return (moment - starts_at) // period


def open_edition(
    schedule: Schedule, starts_at: datetime, ends_at: datetime | None, moment: datetime
) -> int | None:
    """The edition open at ``moment``, if any."""
    number = edition_number(schedule, starts_at, moment)
    window = edition_window(schedule, starts_at, ends_at, number)
    return number if window is not None and window[0] <= moment < window[1] else None


def next_opening(
    schedule: Schedule, starts_at: datetime, ends_at: datetime | None, moment: datetime
) -> datetime | None:
    """When the next edition after ``moment`` opens (None: no edition will)."""
    window = edition_window(
        schedule, starts_at, ends_at, edition_number(schedule, starts_at, moment) + 1
    )
    return window[0] if window is not None else None


def last_close(
    schedule: Schedule, starts_at: datetime, ends_at: datetime | None
) -> datetime | None:
    """When the event's last edition closes (None: a recurring event without an end)."""
    if schedule is Schedule.ONCE:
        return ends_at
    if ends_at is None:
        return None
    number = edition_number(schedule, starts_at, ends_at - timedelta(microseconds=1))
    window = edition_window(schedule, starts_at, ends_at, number)
    return window[1] if window is not None else starts_at


def round_window(
    opening: RoundOpening, edition: tuple[datetime, datetime], number: int
) -> tuple[datetime, datetime]:
    """Round ``number`` (from 1)'s window: the edition's, or from its day ``number`` on."""
    opens, closes = edition
    if opening is RoundOpening.ONE_PER_DAY:
        return opens + (number - 1) * DAY, closes
    return opens, closes


def edition_days(schedule: Schedule, starts_at: datetime, ends_at: datetime | None) -> float:
    """The days the first edition lasts (a month's: the shortest, 28)."""
    if schedule is Schedule.ONCE:
        return (ends_at - starts_at) / DAY if ends_at is not None else 0
    return {Schedule.DAILY: 1, Schedule.WEEKLY: 7, Schedule.MONTHLY: 28}[schedule]
