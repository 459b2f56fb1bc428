"""The contract of the event endpoints (names as in app/games/schemas.py)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Final

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, StrictBool

from app.challenges.service import Challenge, ChallengeRevealRead, challenge_out
from app.engine.difficulty import Tier
from app.events.models import (
    Edition,
    Entrants,
    Event,
    EventChange,
    EventStatus,
    RoundOpening,
    Schedule,
)
from app.events.rounds import Entrant
from app.events.schedule import next_opening, open_edition
from app.games.service import RulesCreate
from app.kit.models import PlayerKind
from app.kit.schemas import DEFAULT_LAYOUT, DifficultyRead, LayoutName, RulesRead, Strict

MAX_ROUNDS = 31
MAX_ATTEMPTS = 3
MAX_COHORT = 1000
EventName = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^\S(.*\S)?$")]
Description = Annotated[str, Field(max_length=2000)]


class Weekday(StrEnum):
    MONDAY = "monday"
    TUESDAY = "tuesday"
    WEDNESDAY = "wednesday"
    THURSDAY = "thursday"
    FRIDAY = "friday"
    SATURDAY = "saturday"
    SUNDAY = "sunday"


class EventState(StrEnum):
    UPCOMING = "upcoming"  # its first edition has not opened
    RUNNING = "running"  # an edition is open (or the next of a recurring one is due)
    FINISHED = "finished"  # its last edition has closed
    CANCELLED = "cancelled"


class EditionState(StrEnum):
    UPCOMING = "upcoming"
    OPEN = "open"
    CLOSED = "closed"


EVENT_CREATE_EXAMPLE: Final[dict[str, Any]] = {
    "name": "Weekend league",
    "description": "Seven rounds of classic TriPeaks, a league of 100 by when you join.",
    "layout": "tripeaks",
    "rounds": 7,
    "round_opening": "all_at_once",
    "attempts": 2,
    "cohort_size": 100,
    "schedule": "weekly",
    "weekday": "friday",
    "starts_at": "2026-12-04T00:00:00Z",
}


class EventCreate(Strict):
    """An event: what is played, who may enter, and when (one window, or an edition a
    day, a week or a month, each with its own deals, entrants and boards)."""

    model_config = ConfigDict(json_schema_extra={"examples": [EVENT_CREATE_EXAMPLE]})

    name: EventName = Field(description="1-64 characters", examples=["Weekend league"])
    description: Description = Field(default="", description="Up to 2,000 characters")
    layout: LayoutName = Field(default=DEFAULT_LAYOUT, description="The layout played")
    rules: RulesCreate | None = Field(
        default=None, description="Rule options; any left out take the layout's default"
    )
    entrants: Entrants = Field(
        default=Entrants.HUMANS,
        description="Who may enter: humans, bots, or both (each kind on boards of its own)",
    )
    rounds: int = Field(default=1, ge=1, le=MAX_ROUNDS, description="Rounds an edition, 1-31")
    round_opening: RoundOpening = Field(
        default=RoundOpening.ALL_AT_ONCE,
        description="all_at_once: every round open for the whole edition; one_per_day: "
        "round n opens on the edition's day n (the edition must last as many days)",
    )
    attempts: int = Field(
        default=1,
        ge=1,
        le=MAX_ATTEMPTS,
        description="Games a round, one at a time; the best counts",
    )
    max_size: int | None = Field(
        default=None, ge=1, le=10_000_000, description="Entrants an edition takes; null: no bound"
    )
    join_required: StrictBool = Field(
        default=True,
        description="Whether a player joins (join_event) before playing; else their first "
        "round joins them",
    )
    cohort_size: int = Field(
        default=0,
        ge=0,
        le=MAX_COHORT,
        description="0: one board; else entrants are grouped by join order into cohorts of "
        "this size, each ranked among itself as well as on the whole board",
    )
    winnable_only: StrictBool = Field(
        default=True, description="Each round's deal proved winnable under the rules"
    )
    tier: Tier | None = Field(
        default=None,
        description="Each round's deal drawn of this difficulty (easy, medium or hard: "
        "docs/difficulty.md), measured when the edition is made; null: any deal",
    )
    schedule: Schedule = Field(
        default=Schedule.ONCE,
        description="once (one edition, starts_at to ends_at), or an edition each UTC day, "
        "week (from weekday) or calendar month, from starts_at until ends_at (if given)",
    )
    starts_at: AwareDatetime = Field(
        description="The first edition's start. A recurring event's is taken to 00:00 UTC "
        "of its day (weekly: of the first weekday on or after it; monthly: of the first of "
        "its month, or the next month's)",
        examples=["2026-12-04T00:00:00Z"],
    )
    ends_at: AwareDatetime | None = Field(
        default=None,
        description="once: the edition's end (required, 1 hour to 31 days after the start); "
        "recurring: no edition starts from then on (null: they go on)",
    )
    weekday: Weekday | None = Field(
        default=None,
        description="weekly only: the day each edition starts (default: that of starts_at)",
    )


class EventUpdate(Strict):
    """What may change of an event: its name, description, bound and end at any time (a
    bound only upward, an end not within an edition already made); the rest only while
    it has no edition yet (409 event-started after), since they make its editions fair."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"description": "Now with prizes.", "max_size": 5000}]}
    )

    name: EventName | None = Field(default=None, description="A new name")
    description: Description | None = Field(default=None, description="A new description")
    max_size: int | None = Field(
        default=None,
        ge=1,
        le=10_000_000,
        description="More entrants an edition takes (once it has had one, only more)",
    )
    ends_at: AwareDatetime | None = Field(
        default=None,
        description="A new end (once) or stop (recurring); never within an open edition",
    )
    layout: LayoutName | None = Field(default=None, description="Before any edition only")
    rules: RulesCreate | None = Field(default=None, description="Before any edition only")
    entrants: Entrants | None = Field(default=None, description="Before any edition only")
    rounds: int | None = Field(
        default=None, ge=1, le=MAX_ROUNDS, description="Before any edition only"
    )
    round_opening: RoundOpening | None = Field(default=None, description="Before any edition only")
    attempts: int | None = Field(
        default=None, ge=1, le=MAX_ATTEMPTS, description="Before any edition only"
    )
    join_required: StrictBool | None = Field(default=None, description="Before any edition only")
    cohort_size: int | None = Field(
        default=None, ge=0, le=MAX_COHORT, description="Before any edition only"
    )
    winnable_only: StrictBool | None = Field(default=None, description="Before any edition only")
    tier: Tier | None = Field(default=None, description="Before any edition only")
    schedule: Schedule | None = Field(default=None, description="Before any edition only")
    starts_at: AwareDatetime | None = Field(default=None, description="Before any edition only")
    weekday: Weekday | None = Field(default=None, description="Before any edition only")


class EventRead(BaseModel):
    """An event as players and operators see it."""

    id: str = Field(description="The event's id")
    key: str | None = Field(description="Its key in the events file; null when made by the API")
    name: str = Field(description="Its name")
    description: str = Field(description="What it is, in words")
    layout: LayoutName = Field(description="The layout played")
    rules: RulesRead = Field(description="The rules every round is played under")
    entrants: Entrants = Field(description="Who may enter")
    rounds: int = Field(description="Rounds an edition")
    round_opening: RoundOpening = Field(description="How an edition's rounds open")
    attempts: int = Field(description="Games a round, one at a time; the best counts")
    max_size: int | None = Field(description="Entrants an edition takes; null: no bound")
    join_required: bool = Field(description="Whether join_event comes before playing")
    cohort_size: int = Field(description="0: one board; else the size of a cohort")
    winnable_only: bool = Field(description="Each round's deal proved winnable")
    tier: Tier | None = Field(description="The difficulty of each round's deal; null: any")
    schedule: Schedule = Field(description="once, daily, weekly or monthly")
    starts_at: datetime = Field(description="The first edition's start")
    ends_at: datetime | None = Field(description="The end (once), or when editions stop")
    state: EventState = Field(description="upcoming, running, finished or cancelled")
    current_edition: int | None = Field(description="The number of the edition open now, or null")
    next_opens_at: datetime | None = Field(
        description="When the next edition opens (null: none will)"
    )
    created_at: datetime = Field(description="When it was created")
    updated_at: datetime = Field(description="When it last changed")


class EventList(BaseModel):
    events: list[EventRead] = Field(description="This page, by start")
    next: str | None = Field(description="The cursor of the next page (also in Link), or null")


class RoundRead(BaseModel):
    """A round of an edition: a challenge (its id serves start_practice_game and
    get_leaderboard once it has closed)."""

    round: int = Field(description="Its number, from 1")
    challenge_id: str = Field(description="The round's challenge")
    opens_at: datetime = Field(description="When its attempts may start")
    closes_at: datetime = Field(description="When it closes: the edition's end")
    commitment: str = Field(description="SHA-256 of its deal and a secret salt")
    entries: int = Field(description="Players who have played it")
    reveal: ChallengeRevealRead | None = Field(description="Its deal and salt, once closed")
    best_score: int | None = Field(
        description="The best final score its deal allowed (the solver's), once closed, when "
        "`best_score_exact`; else the best score of the lines the solver found (six peaks). "
        "Null while unknown or when the search found nothing in time"
    )
    best_score_bound: int | None = Field(
        description="No line on the deal scores more (cards_left: leaves fewer cards); null "
        "until searched"
    )
    best_score_exact: bool = Field(description="Whether best_score is the exact best")
    best_score_searched: bool = Field(description="Whether that search has been made")
    difficulty: DifficultyRead | None = Field(
        description="How hard its deal is (docs/difficulty.md), once closed; null before, or "
        "when the measure ran out of time"
    )


class EditionRead(BaseModel):
    """An edition: its window, its rounds with their commitments (deals and best scores
    once it has closed), and how many have entered."""

    id: str = Field(description="The edition's id: its board is get_event_leaderboard's")
    event_id: str = Field(description="Its event")
    number: int = Field(description="0 for the first edition, then 1, 2, ...")
    state: EditionState = Field(description="upcoming, open or closed")
    opens_at: datetime = Field(description="Its start")
    closes_at: datetime = Field(description="Its end: then its deals are revealed")
    entrants: int = Field(description="Players who have joined it")
    rounds: list[RoundRead] = Field(description="Its rounds, in order")


class EditionList(BaseModel):
    editions: list[EditionRead] = Field(description="This page, the newest first")
    next: str | None = Field(description="The cursor of the next page (also in Link), or null")


class EntrantRead(BaseModel):
    """The caller's place in an edition."""

    edition_id: str = Field(description="The edition joined")
    player_id: str = Field(description="The player")
    kind: PlayerKind = Field(description="human or bot: the board they are ranked on")
    number: int = Field(description="Their place in the join order, from 1")
    cohort: int | None = Field(
        description="Their cohort (from 0; the first cohort_size to join are cohort 0), or "
        "null for an event of one board"
    )


class FieldChangeRead(BaseModel):
    field: str = Field(description="The field set", examples=["rounds"])
    value: Any = Field(description="Its new value (RFC 3339 for a time; null: none)")


class EventChangeRead(BaseModel):
    at: datetime = Field(description="When")
    action: str = Field(description="created, updated or cancelled")
    source: str = Field(description="operator (the API) or file (EVENTS_FILE)")
    changes: list[FieldChangeRead] = Field(description="The fields set, with their new values")


class EventChangesRead(BaseModel):
    changes: list[EventChangeRead] = Field(description="Every change, the oldest first")


# -- what anyone sees of an event -------------------------------------------------------
def event_state(event: Event, now: datetime) -> EventState:
    if event.status is EventStatus.CANCELLED:
        return EventState.CANCELLED
    if now < event.starts_at:
        return EventState.UPCOMING
    if event.finishes_at is not None and now >= event.finishes_at:
        return EventState.FINISHED
    return EventState.RUNNING


def edition_state(board: Challenge, now: datetime) -> EditionState:
    """An edition's state, by its board's window (which cancelling closes)."""
    if now < board.opens_at:
        return EditionState.UPCOMING
    return EditionState.OPEN if now < board.closes_at else EditionState.CLOSED


def current_edition(event: Event, now: datetime) -> int | None:
    if event.status is EventStatus.CANCELLED:
        return None
    return open_edition(event.schedule, event.starts_at, event.ends_at, now)


def next_opens_at(event: Event, now: datetime) -> datetime | None:
    if event.status is EventStatus.CANCELLED:
        return None
    if now < event.starts_at:
        return event.starts_at
    return next_opening(event.schedule, event.starts_at, event.ends_at, now)


def event_out(event: Event, now: datetime) -> EventRead:
    """An event as anyone sees it at ``now``."""
    return EventRead(
        id=event.id,
        key=event.key,
        name=event.name,
        description=event.description,
        layout=event.layout,
        rules=RulesRead.model_validate(event.rules),
        entrants=event.entrants,
        rounds=event.rounds,
        round_opening=event.round_opening,
        attempts=event.attempts,
        max_size=event.max_size,
        join_required=event.join_required,
        cohort_size=event.cohort_size,
        winnable_only=event.winnable_only,
        tier=event.tier,
        schedule=event.schedule,
        starts_at=event.starts_at,
        ends_at=event.ends_at,
        state=event_state(event, now),
        current_edition=current_edition(event, now),
        next_opens_at=next_opens_at(event, now),
        created_at=event.created_at,
        updated_at=event.updated_at,
    )


def edition_out(
    edition: Edition, board: Challenge, rounds: list[Challenge], now: datetime
) -> EditionRead:
    """An edition as anyone sees it at ``now``: each round's deal and best score once
    it has closed."""
    shown = []
    for number, challenge in enumerate(rounds, start=1):
        seen = challenge_out(challenge, now)
        shown.append(
            RoundRead(
                round=number,
                challenge_id=challenge.id,
                opens_at=challenge.opens_at,
                closes_at=challenge.closes_at,
                commitment=challenge.commitment,
                entries=challenge.entries,
                reveal=seen.reveal,
                best_score=seen.best_score,
                best_score_bound=seen.best_score_bound,
                best_score_exact=seen.best_score_exact,
                best_score_searched=seen.best_score_searched,
                difficulty=seen.difficulty,
            )
        )
    return EditionRead(
        id=edition.id,
        event_id=edition.event_id,
        number=edition.number,
        state=edition_state(board, now),
        opens_at=board.opens_at,
        closes_at=board.closes_at,
        entrants=board.entries,
        rounds=shown,
    )


def entrant_out(board_id: str, player_id: str, kind: PlayerKind, entrant: Entrant) -> EntrantRead:
    """A player's place in an edition, as they see it when they join."""
    return EntrantRead(
        edition_id=board_id,
        player_id=player_id,
        kind=kind,
        number=entrant.number,
        cohort=entrant.cohort,
    )


def event_changes_out(changes: list[EventChange]) -> EventChangesRead:
    """An event's log of changes, as its operator reads it."""
    return EventChangesRead(
        changes=[
            EventChangeRead(
                at=c.at,
                action=c.action,
                source=c.source,
                changes=[FieldChangeRead(field=k, value=v) for k, v in c.changes.items()],
            )
            for c in changes
        ]
    )
