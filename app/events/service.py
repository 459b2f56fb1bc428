"""The events' use cases: events operators create, update and cancel (through the API or
the events file, ending in the same rows, every change logged), their editions made
before they open, joining an edition, a round's attempt, and the totals of the edition's
board.

An edition is made before it opens (``prepare_editions``, the servers' scheduled job:
``PREPARE_AHEAD``), or else the first time anyone needs it while it is open: its rounds'
deals are searched by the solver with no transaction open, then the edition, its rounds
(challenges of kind ``round``) and its board (a challenge of kind ``edition``, whose
entries are the entrants) are stored in one transaction; racing derivations make the same
deals (they come from the server's secret and the round's id: a process runs one search
for all its requests) and one set of rows is kept. An edition made ahead stays out of
sight until it opens, and goes (to be made again) when its event changes or is cancelled
before then. An entrant's total is kept on their
entry in the edition's board, in the transaction of the move that ends a round's game: no
sum over rounds is made on a read.
"""

from __future__ import annotations

import hashlib
import logging
import re
import tomllib
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError
from sqlalchemy.ext.asyncio import AsyncSession

from app import engine
from app.challenges.service import (
    DERIVATIONS,
    BoardService,
    BoardView,
    Challenge,
    ChallengeKind,
    ChallengeService,
    LeaderboardRead,
    challenge_secret,
)
from app.events.errors import (
    EventCancelledProblem,
    EventNotOpenProblem,
    EventStartedProblem,
    KindNotAdmittedProblem,
    NotJoinedProblem,
)
from app.events.models import Edition, Entrants, Event, EventChange, EventStatus, Schedule
from app.events.repository import EventRepository
from app.events.rounds import Entrant, RoundService, total_rounds
from app.events.schedule import (
    WEEKDAYS,
    aligned_start,
    edition_days,
    edition_number,
    edition_window,
    last_close,
    round_window,
)
from app.events.schemas import (
    EventCreate,
    EventUpdate,
    current_edition,
    next_opens_at,
)
from app.games.service import LoadedGame, rules_of
from app.kit.database import Database, Sessions
from app.kit.errors import NotFoundProblem, ServiceUnavailableProblem, ValidationProblem
from app.kit.events import GameEnded
from app.kit.ids import is_id, new_id
from app.kit.models import PlayerKind, utcnow
from app.kit.paging import Count32, decode_cursor, encode_cursor
from app.kit.workload import SolverPool
from app.players.service import Player
from app.settings import Settings

log = logging.getLogger("app.events")
# list_editions' cursor: the last edition's number.
EDITIONS_CURSOR = TypeAdapter(tuple[Count32])

_EDITION_ID = re.compile(r"([A-Za-z0-9_-]{1,32})\.(\d{1,6})")
_ROUND_ID = re.compile(r"([A-Za-z0-9_-]{1,32})\.(\d{1,6})\.(\d{1,2})")
ONCE_LONGEST = timedelta(days=31)
# How long before it opens an edition is made (and its deals committed).
PREPARE_AHEAD = timedelta(hours=1)
ONCE_SHORTEST = timedelta(hours=1)
# The fields that make an edition fair: they may change only while there is none.
FAIRNESS_FIELDS = (
    "layout",
    "rules",
    "entrants",
    "rounds",
    "round_opening",
    "attempts",
    "join_required",
    "cohort_size",
    "winnable_only",
    "tier",
    "schedule",
    "starts_at",
    "weekday",
)


def edition_id(event_id: str, number: int) -> str:
    return f"{event_id}.{number}"


def round_id(edition: str, number: int) -> str:
    return f"{edition}.{number}"


def parse_round_id(value: str) -> tuple[str, int, int] | None:
    """(event id, edition number, round) of a round's challenge id; None for another."""
    match = _ROUND_ID.fullmatch(value)
    if match is None:
        return None
    return match.group(1), int(match.group(2)), int(match.group(3))


def admits(event: Event, kind: PlayerKind) -> bool:
    return event.entrants is Entrants.BOTH or (
        (event.entrants is Entrants.HUMANS) == (kind is PlayerKind.HUMAN)
    )


def check_not_cancelled(event: Event) -> None:
    """Refuse (409) to join, play or change a cancelled event."""
    if event.status is EventStatus.CANCELLED:
        raise EventCancelledProblem(f"event {event.id} was cancelled")


def _edition_commitment(round_commitments: list[str]) -> str:
    """The board's own commitment: SHA-256 of its rounds' commitments, in order."""
    text = "tripeaks-edition-v1:" + " ".join(round_commitments)
    return hashlib.sha256(text.encode()).hexdigest()


def event_values(body: EventCreate, now: datetime) -> dict[str, Any]:
    """The row a new event's body makes, checked: a 422 naming the field refused."""
    rules = rules_of(body.layout, body.rules)
    if body.schedule is Schedule.ONCE:
        if body.weekday is not None:
            raise ValidationProblem("weekday: for a weekly event only", loc=("body", "weekday"))
        if body.ends_at is None:
            raise ValidationProblem(
                "ends_at: a one-off event needs its end", loc=("body", "ends_at")
            )
        if not ONCE_SHORTEST <= body.ends_at - body.starts_at <= ONCE_LONGEST:
            raise ValidationProblem(
                "ends_at: 1 hour to 31 days after starts_at", loc=("body", "ends_at")
            )
    elif body.weekday is not None and body.schedule is not Schedule.WEEKLY:
        raise ValidationProblem("weekday: for a weekly event only", loc=("body", "weekday"))
    starts = aligned_start(body.schedule, body.starts_at, body.weekday)
    ends = body.ends_at.astimezone(starts.tzinfo) if body.ends_at is not None else None
    if ends is not None and ends <= starts:
        raise ValidationProblem("ends_at: after the first edition's start", loc=("body", "ends_at"))
    if body.round_opening.value == "one_per_day":
        days = edition_days(body.schedule, starts, ends)
        if body.rounds > days:
            raise ValidationProblem(
                f"rounds: one a day needs an edition of {body.rounds} days; it lasts {days:g}",
                loc=("body", "rounds"),
            )
    return {
        "name": body.name,
        "description": body.description,
        "layout": rules.layout,
        "rules": rules.to_dict(),
        "entrants": body.entrants,
        "rounds": body.rounds,
        "round_opening": body.round_opening,
        "attempts": body.attempts,
        "max_size": body.max_size,
        "join_required": body.join_required,
        "cohort_size": body.cohort_size,
        "winnable_only": body.winnable_only,
        "tier": body.tier,
        "schedule": body.schedule,
        "starts_at": starts,
        "ends_at": ends,
        "finishes_at": last_close(body.schedule, starts, ends),
        "status": EventStatus.ACTIVE,
    }


def _as_json(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v.isoformat() if isinstance(v, datetime) else v for k, v in values.items()}


def _merged(event: Event, body: EventUpdate) -> EventCreate:
    """The event as it would be with ``body`` applied, as a body that creates it."""
    current: dict[str, Any] = {
        "name": event.name,
        "description": event.description,
        "layout": event.layout,
        "rules": {k: v for k, v in event.rules.items() if k != "layout"},
        "entrants": event.entrants,
        "rounds": event.rounds,
        "round_opening": event.round_opening,
        "attempts": event.attempts,
        "max_size": event.max_size,
        "join_required": event.join_required,
        "cohort_size": event.cohort_size,
        "winnable_only": event.winnable_only,
        "tier": event.tier,
        "schedule": event.schedule,
        "starts_at": event.starts_at,
        "ends_at": event.ends_at,
    }
    if event.schedule is Schedule.WEEKLY:
        current["weekday"] = WEEKDAYS[event.starts_at.weekday()]
    given = body.model_dump(exclude_unset=True)
    if "rules" in given and body.rules is not None:
        given["rules"] = body.rules.model_dump(exclude_none=True)
    try:
        return EventCreate.model_validate({**current, **given})
    except ValidationError as e:
        first = e.errors()[0]
        raise ValidationProblem(
            f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}",
            loc=("body", *(str(p) for p in first["loc"])),
        ) from None


@dataclass(frozen=True, slots=True)
class EditionView:
    """An edition with its rounds' challenges and its board's."""

    edition: Edition
    board: Challenge
    rounds: list[Challenge]


class EventService:
    def __init__(self, session: AsyncSession, settings: Settings) -> None:
        self.session = session
        self.settings = settings
        self.events = EventRepository(session)
        self.challenges = ChallengeService(session, settings)
        self.rounds = RoundService(session, settings)

    # -- events -------------------------------------------------------------------------
    async def get(self, event_id: str, *, for_update: bool = False) -> Event:
        """The event (its row locked for this transaction with ``for_update``), or a 404."""
        event = await self.events.get(event_id, for_update=for_update) if is_id(event_id) else None
        if event is None:
            raise NotFoundProblem(f"no event {event_id[:32]!r}")
        return event

    async def page(
        self,
        now: datetime,
        state: str | None,
        layout: str | None,
        kind: PlayerKind | None,
        after: tuple[datetime, str] | None,
        limit: int,
    ) -> tuple[list[Event], tuple[datetime, str] | None]:
        rows = list(await self.events.page(now, state, layout, kind, after, limit + 1))
        more = len(rows) > limit
        rows = rows[:limit]
        return rows, (rows[-1].starts_at, rows[-1].id) if more else None

    async def create(self, body: EventCreate, now: datetime, *, source: str = "operator") -> Event:
        values = event_values(body, now)
        event = Event(id=new_id(), key=None, created_at=now, updated_at=now, **values)
        await self.events.add(event)
        await self.events.log(event.id, "created", source, _as_json(values))
        log.info("event created", extra={"event_id": event.id, "source": source})
        return event

    async def update(
        self, event_id: str, body: EventUpdate, now: datetime, *, source: str = "operator"
    ) -> Event:
        """Apply ``body`` (see ``EventUpdate``), the event's row locked; logged."""
        event = await self.get(event_id, for_update=True)
        check_not_cancelled(event)
        given = body.model_dump(exclude_unset=True)
        values = event_values(_merged(event, body), now)
        changed = {k: v for k, v in values.items() if getattr(event, k) != v}
        if changed:  # an edition made ahead is made again, of the event as it will be
            await self._drop_unopened_editions(event, now)
        fair = [
            k
            for k in FAIRNESS_FIELDS
            if (k in given and k in changed)
            or (k == "weekday" and k in given and "starts_at" in changed)
        ]
        if fair and await self.events.has_editions(event.id):
            raise EventStartedProblem(
                f"{', '.join(sorted(set(fair)))}: the event has had an edition; what makes "
                "its editions fair no longer changes (cancel it and create another)",
                fields=sorted(set(fair)),
            )
        if (
            "max_size" in changed
            and event.max_size is not None
            and (values["max_size"] is None or values["max_size"] < event.max_size)
            and await self.events.has_editions(event.id)
        ):
            raise EventStartedProblem(
                "max_size: an event that has had an edition takes more entrants, never fewer",
                fields=["max_size"],
            )
        open_number = current_edition(event, now)
        if "ends_at" in changed and open_number is not None:
            window = edition_window(event.schedule, event.starts_at, event.ends_at, open_number)
            assert window is not None
            cut = values["ends_at"] is not None and values["ends_at"] < window[1]
            if cut and (event.schedule is Schedule.ONCE or values["ends_at"] <= window[0]):
                raise EventStartedProblem(
                    "ends_at: an edition is open; it may not be cut short",
                    fields=["ends_at"],
                )
        if not changed:
            return event
        for name, value in changed.items():
            setattr(event, name, value)
        event.updated_at = now
        if "max_size" in changed and open_number is not None:
            await self.challenges.set_max_entries(
                edition_id(event.id, open_number), values["max_size"]
            )
        await self.session.flush()
        await self.events.log(event.id, "updated", source, _as_json(changed))
        log.info("event updated", extra={"event_id": event.id, "source": source})
        return event

    async def cancel(self, event_id: str, now: datetime, *, source: str = "operator") -> Event:
        """Cancel the event: no edition opens from now on; one open closes now (its deals
        revealed, its board as it stands)."""
        event = await self.get(event_id, for_update=True)
        if event.status is EventStatus.CANCELLED:
            return event
        open_number = current_edition(event, now)
        await self._drop_unopened_editions(event, now)
        event.status = EventStatus.CANCELLED
        event.finishes_at = now
        event.updated_at = now
        if open_number is not None:  # (an edition never made has nothing to close)
            await self.rounds.close_edition(edition_id(event.id, open_number), event.rounds, now)
        await self.session.flush()
        await self.events.log(event.id, "cancelled", source, {"status": "cancelled"})
        log.info("event cancelled", extra={"event_id": event.id, "source": source})
        return event

    async def changes(self, event_id: str) -> list[EventChange]:
        await self.get(event_id)
        return list(await self.events.changes(event_id))

    # -- editions -----------------------------------------------------------------------
    async def _drop_unopened_editions(self, event: Event, now: datetime) -> None:
        """Delete the editions made ahead that have not opened (nobody has seen them)."""
        first = edition_number(event.schedule, event.starts_at, now) + 1
        for edition in await self.events.editions_from(event.id, first):
            ids = [edition.id, *(round_id(edition.id, r) for r in range(1, event.rounds + 1))]
            await self.challenges.delete_unopened(ids, now)
            await self.events.delete_edition(edition.id)

    async def editions_to_make(self, now: datetime, ahead: timedelta) -> list[tuple[Event, int]]:
        """The editions of the active events that are open at ``now`` or open within
        ``ahead``, and are not made yet: (event, number)."""
        wanted = []
        for event in await self.events.active(now, now + ahead):
            numbers = {current_edition(event, now)}
            upcoming = next_opens_at(event, now)
            if upcoming is not None and upcoming <= now + ahead:
                numbers.add(edition_number(event.schedule, event.starts_at, upcoming))
            for number in sorted(n for n in numbers if n is not None):
                if await self.stored_edition(event, number) is None:
                    wanted.append((event, number))
        return wanted

    async def opened_editions(
        self, event: Event, before: int | None, limit: int, now: datetime
    ) -> list[Edition]:
        """The event's editions that have opened by ``now`` (one made ahead is not shown
        before), the newest first, before number ``before``."""
        opened = edition_number(event.schedule, event.starts_at, now) + 1
        before = opened if before is None else min(before, opened)
        return list(await self.events.editions(event.id, before, limit))

    def window(self, event: Event, number: int) -> tuple[datetime, datetime]:
        window = edition_window(event.schedule, event.starts_at, event.ends_at, number)
        if window is None:
            raise NotFoundProblem(f"event {event.id} has no edition {number}")
        return window

    async def stored_edition(self, event: Event, number: int) -> Edition | None:
        return await self.events.edition(edition_id(event.id, number))

    async def view(self, edition: Edition, rounds: int) -> EditionView:
        """The edition with its board's challenge and its ``rounds`` rounds'."""
        board = await self.challenges.stored(edition.id)
        found = [
            await self.challenges.stored(round_id(edition.id, r)) for r in range(1, rounds + 1)
        ]
        assert board is not None and all(r is not None for r in found)
        return EditionView(edition, board, [r for r in found if r is not None])

    async def derive_edition(
        self, event: Event, number: int, secret: bytes, solver: SolverPool
    ) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
        """An edition's rows, its rounds' deals searched (call it with no transaction
        open): the edition, its rounds' challenges, its board's challenge."""
        window = self.window(event, number)
        edition = edition_id(event.id, number)
        rounds = []
        for r in range(1, event.rounds + 1):
            rounds.append(
                await self.rounds.derive_round(
                    round_id(edition, r),
                    event.rules,
                    event.winnable_only,
                    event.tier,
                    event.attempts,
                    round_window(event.round_opening, window, r),
                    secret,
                    solver,
                )
            )
        board = {
            "id": edition,
            "kind": ChallengeKind.EDITION,
            "day": None,
            "layout": event.layout,
            "rules": event.rules,
            "deal": "",
            "salt": "",
            "commitment": _edition_commitment([r["commitment"] for r in rounds]),
            "opens_at": window[0],
            "closes_at": window[1],
            "attempts": 1,
            "max_entries": event.max_size,
            "winnable_only": event.winnable_only,
        }
        row = {"id": edition, "event_id": event.id, "number": number}
        return row, rounds, board

    async def store_edition(
        self,
        row: dict[str, Any],
        rounds: list[dict[str, Any]],
        board: dict[str, Any],
        event: Event,
    ) -> Edition | None:
        """Keep an edition derived from ``event`` as it was then, unless the event has
        changed or been cancelled since (its row locked): None then (it is made again, of
        the event as it is)."""
        now = await self.events.get(event.id, for_update=True)
        if now is None or now.updated_at != event.updated_at or now.status != event.status:
            return None
        for values in [*rounds, board]:
            await self.challenges.store(values)
        await self.events.add_edition_if_absent(row)
        stored = await self.events.edition(row["id"])
        assert stored is not None
        return stored

    async def edition_page(
        self, event_id: str, cursor: str | None, limit: int, now: datetime
    ) -> tuple[list[EditionView], str | None]:
        """A page of the event's editions that have opened by ``now``, the newest first,
        and its next cursor (a 422 for a cursor this server did not give)."""
        event = await self.get(event_id)
        before = decode_cursor(cursor, EDITIONS_CURSOR)[0] if cursor is not None else None
        rows = await self.opened_editions(event, before, limit + 1, now)
        more = len(rows) > limit
        views = [await self.view(e, event.rounds) for e in rows[:limit]]
        next_cursor = encode_cursor([views[-1].edition.number]) if more else None
        return views, next_cursor

    async def leaderboard(
        self,
        event_id: str,
        number: int,
        kind: PlayerKind,
        limit: int,
        cursor: str | None,
        view: BoardView | None,
        player: Player | None,
        now: datetime,
    ) -> tuple[LeaderboardRead, str | None]:
        """A page of the edition's board and its next cursor; a 409 before it opens, or
        for an edition nobody played."""
        event = await self.get(event_id)
        opens_at = self.window(event, number)[0]
        edition = await self.stored_edition(event, number) if now >= opens_at else None
        if edition is None:
            raise EventNotOpenProblem(
                f"edition {number} of event {event.id} has not been played",
                next_opens_at=None,
            )
        boards = BoardService(self.session, self.settings)
        return await boards.edition_board(edition.id, kind, limit, cursor, view, player, now)

    # -- entrants -----------------------------------------------------------------------
    async def join(
        self, event: Event, edition: EditionView, player: Player, now: datetime
    ) -> Entrant:
        """The player's place in the edition (made if they had none: refused when the
        edition is full or not open, or the event does not admit their kind)."""
        self._admit(event, player)
        return await self.rounds.enter(edition.board, player, now, event.cohort_size)

    async def start_round(
        self, event: Event, edition: EditionView, number: int, player: Player, now: datetime
    ) -> tuple[LoadedGame, str]:
        """An attempt of the player's at round ``number`` of the edition: joined first
        where the event needs it (else joined by it)."""
        self._admit(event, player)
        if not 1 <= number <= len(edition.rounds):
            raise NotFoundProblem(f"event {event.id} has rounds 1 to {len(edition.rounds)}")
        if await self.rounds.entrant(edition.board.id, player.id) is None:
            if event.join_required:
                raise NotJoinedProblem(
                    f"event {event.id} needs a player to join (join_event) before playing"
                )
            await self.rounds.enter(edition.board, player, now, event.cohort_size)
        return await self.rounds.start(edition.rounds[number - 1], player, now)

    @staticmethod
    def _admit(event: Event, player: Player) -> None:
        check_not_cancelled(event)
        if not admits(event, player.kind):
            raise KindNotAdmittedProblem(
                f"event {event.id} admits {event.entrants.value}, not a {player.kind.value}",
                admits=event.entrants.value,
            )


async def edition_to_use(
    event: Event,
    number: int | None,
    reader: EventService,
    writer: EventService,
    solver: SolverPool,
    sessions: Sessions,
    now: datetime,
) -> EditionView:
    """Edition ``number`` (the one open now when None: 409 event-not-open without one,
    event-cancelled for a cancelled event) with its board and rounds, made first if the
    scheduled job did not make it ahead: read through ``reader`` (its connection then
    given back), its deals searched with no transaction open (one search for every
    request of this process), stored and read back through ``writer``. An edition not
    begun is 409 event-not-open, made ahead or not; one that closed unplayed is not
    made."""
    if number is None:
        check_not_cancelled(event)  # it has no edition open, and never will again
        number = current_edition(event, now)
        if number is None:
            upcoming = next_opens_at(event, now)
            raise EventNotOpenProblem(
                f"event {event.id} has no edition open now",
                next_opens_at=upcoming.isoformat() if upcoming is not None else None,
            )
    window = reader.window(event, number)
    if now < window[0]:
        raise EventNotOpenProblem(
            f"edition {number} of event {event.id} opens at {window[0].isoformat()}",
            next_opens_at=window[0].isoformat(),
        )
    stored = await reader.stored_edition(event, number)
    view = await reader.view(stored, event.rounds) if stored is not None else None
    await reader.session.close()
    if view is not None:
        return view
    if now >= window[1] or event.status is EventStatus.CANCELLED:
        # Nobody needed it while it was open (or the event was cancelled first): it was
        # never dealt, and is not dealt now.
        raise NotFoundProblem(f"edition {number} of event {event.id} was not played")
    secret = await challenge_secret(reader.settings, sessions)
    row, rounds, board = await DERIVATIONS.run(
        edition_id(event.id, number),
        lambda: reader.derive_edition(event, number, secret, solver),
    )
    stored = await writer.store_edition(row, rounds, board, event)
    if stored is None:
        raise ServiceUnavailableProblem(
            f"event {event.id} changed while its edition was made; retry", retry_after=1
        )
    return await writer.view(stored, event.rounds)


@dataclass(frozen=True, slots=True)
class EventUseCases:
    """A request's use cases that may make an edition: ``reader`` on the request's read
    session (closed before a search), ``writer`` on its write session, ``solver`` the
    server's pool (an edition's deals are the server's searches, not the caller's),
    ``sessions`` for the server's own secret."""

    reader: EventService
    writer: EventService
    solver: SolverPool
    sessions: Sessions

    async def edition(self, event_id: str, number: int, now: datetime) -> EditionView:
        """The edition (made first if it is open and nobody needed it yet), its closed
        rounds' best scores and difficulties searched once (no transaction open, no
        connection held), then kept through the writer."""
        event = await self.reader.get(event_id)
        view = await self._edition(event, number, now)
        if now < view.board.closes_at:
            return view
        # Closed: read by the reader, whose connection is given back (a closed edition is
        # not made), so no connection is held while the solver searches.
        looks = self.reader.challenges
        found = [(c.id, await looks.look_back(c, self.solver)) for c in view.rounds]
        for challenge_id, looked in found:
            if looked:
                await self.writer.challenges.keep_look_back(challenge_id, looked)
        if any(looked for _, looked in found):
            view = await self.writer.view(view.edition, event.rounds)
        return view

    async def join(self, event_id: str, player: Player, now: datetime) -> tuple[str, Entrant]:
        """The player's place in the edition open now (made first if need be): the
        edition's id and their place."""
        event = await self.reader.get(event_id)
        edition = await self._edition(event, None, now)
        return edition.board.id, await self.writer.join(event, edition, player, now)

    async def start_round(
        self, event_id: str, number: int, player: Player, now: datetime
    ) -> tuple[LoadedGame, str]:
        """An attempt of the player's at round ``number`` of the edition open now."""
        event = await self.reader.get(event_id)
        edition = await self._edition(event, None, now)
        return await self.writer.start_round(event, edition, number, player, now)

    async def _edition(self, event: Event, number: int | None, now: datetime) -> EditionView:
        return await edition_to_use(
            event, number, self.reader, self.writer, self.solver, self.sessions, now
        )


async def prepare_editions(
    database: Database, settings: Settings, solver: SolverPool, now: datetime
) -> list[str]:
    """Make the editions that open within ``PREPARE_AHEAD`` of ``now``, or are open, and
    that nobody made yet (the servers' scheduled job, and the purge command): one at a
    time, each derived with no transaction open. The ids of those made; one whose search
    ran out of time is logged and left to the next run."""
    async with database.read_sessions() as reading:
        wanted = await EventService(reading, settings).editions_to_make(now, PREPARE_AHEAD)
    if not wanted:
        return []
    secret = await challenge_secret(settings, database.sessions)
    made = []
    for event, number in wanted:
        async with database.sessions() as writing:
            writer = EventService(writing, settings)
            try:  # the search queries nothing: no transaction is open while it runs
                row, rounds, board = await DERIVATIONS.run(
                    edition_id(event.id, number),
                    partial(writer.derive_edition, event, number, secret, solver),
                )
            except ServiceUnavailableProblem as e:
                log.warning("edition %d of event %s was not made: %s", number, event.id, e.detail)
                continue
            if await writer.store_edition(row, rounds, board, event) is not None:
                await writing.commit()
                made.append(row["id"])
    return made


async def total_round_result(session: AsyncSession, ended: GameEnded) -> None:
    """The listener of ``GameEnded`` (``app.main`` wires it after the challenges'): when
    the game is an attempt at an event's round, its player's total on the edition's board
    is made again from their rounds' best results (in the transaction of its last move)."""
    if ended.challenge_id is None or ended.player_id is None:
        return
    parsed = parse_round_id(ended.challenge_id)
    if parsed is None:
        return
    event = await EventRepository(session).get(parsed[0])
    if event is None:
        return
    edition = edition_id(event.id, parsed[1])
    scoring = engine.Rules.from_dict(event.rules).scoring
    # A round not played counts 0 points; under cards_left, every tableau card left.
    unplayed = (
        len(engine.get_layout(event.layout).positions)
        if scoring is engine.Scoring.CARDS_LEFT
        else 0
    )
    rounds = [round_id(edition, r) for r in range(1, event.rounds + 1)]
    await total_rounds(
        session,
        edition,
        rounds,
        ended.player_id,
        unplayed=unplayed,
        lower_is_better=scoring is engine.Scoring.CARDS_LEFT,
    )


# -- the events file --------------------------------------------------------------------
class EventsFileError(ValueError):
    """The events file cannot be read or holds an event the API would refuse."""


def read_events_file(path: Path) -> list[tuple[str, EventCreate]]:
    """The events the file declares, each by its key (``[[event]]`` tables with a
    ``key`` and the fields of create_event), checked as the API checks them."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise EventsFileError(f"EVENTS_FILE {path}: {e}") from None
    declared: list[tuple[str, EventCreate]] = []
    for i, table in enumerate(data.get("event", [])):
        key = table.pop("key", None) if isinstance(table, dict) else None
        if not isinstance(key, str) or not re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,63}", key):
            raise EventsFileError(f"EVENTS_FILE {path}: event {i + 1} needs a key ([a-z0-9_-])")
        try:
            declared.append((key, EventCreate.model_validate(table)))
        except ValidationError as e:
            error = e.errors()[0]
            where = ".".join(str(p) for p in error["loc"])
            raise EventsFileError(
                f"EVENTS_FILE {path}: event {key!r}: {where}: {error['msg']}"
            ) from None
    if len({k for k, _ in declared}) != len(declared):
        raise EventsFileError(f"EVENTS_FILE {path}: two events have the same key")
    return declared


async def apply_events_file(
    database: Database, settings: Settings, now: datetime | None = None
) -> int:
    """Make the events file's events, or bring them up to date, as the API would (the
    same rows, every change logged with the source ``file``); how many changed. Called
    when the server starts."""
    if settings.events_file is None:
        return 0
    declared = read_events_file(Path(settings.events_file))
    moment = now or utcnow()
    changed = 0
    for key, body in declared:
        async with database.sessions() as session:
            service = EventService(session, settings)
            values = event_values(body, moment)
            made = await service.events.add_keyed(
                {**values, "id": new_id(), "key": key, "created_at": moment, "updated_at": moment}
            )
            event = await service.events.by_key(key)
            assert event is not None
            if made:
                await service.events.log(event.id, "created", "file", _as_json(values))
                changed += 1
            else:
                update = EventUpdate.model_validate(body.model_dump(exclude_unset=True))
                before = event.updated_at
                try:
                    event = await service.update(event.id, update, moment, source="file")
                except (EventStartedProblem, EventCancelledProblem) as e:
                    raise EventsFileError(f"EVENTS_FILE: event {key!r}: {e.detail}") from None
                changed += int(event.updated_at != before)
            await session.commit()
    return changed
