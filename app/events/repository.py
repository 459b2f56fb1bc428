"""Every query of the events domain, and nothing else."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Table, delete, or_, select, tuple_
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from app.events.models import Edition, Entrants, Event, EventChange, EventStatus
from app.kit.models import PlayerKind, utcnow

EVENTS: Table = Event.__table__  # type: ignore[assignment]
EDITIONS: Table = Edition.__table__  # type: ignore[assignment]


def _insert(dialect: str, table: Table) -> postgresql.Insert | sqlite.Insert:
    return postgresql.insert(table) if dialect == "postgresql" else sqlite.insert(table)


class EventRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    @property
    def _dialect(self) -> str:
        return self.session.get_bind().dialect.name

    # -- events -------------------------------------------------------------------------
    async def get(self, event_id: str, *, for_update: bool = False) -> Event | None:
        statement = select(Event).where(Event.id == event_id)
        if for_update:
            statement = statement.with_for_update()
        return (await self.session.scalars(statement)).one_or_none()

    async def by_key(self, key: str) -> Event | None:
        return (await self.session.scalars(select(Event).where(Event.key == key))).one_or_none()

    async def add(self, event: Event) -> None:
        self.session.add(event)
        await self.session.flush()

    async def add_keyed(self, values: dict[str, Any]) -> bool:
        """Insert an event of the events file unless one has its key (replicas starting
        together read the same file: one inserts it); whether this one did."""
        made = await self.session.execute(
            _insert(self._dialect, EVENTS)
            .values(**values)
            .on_conflict_do_nothing(index_elements=[EVENTS.c.key])
            .returning(EVENTS.c.id)
        )
        return made.first() is not None

    async def page(
        self,
        now: datetime,
        state: str | None,
        layout: str | None,
        kind: PlayerKind | None,
        after: tuple[datetime, str] | None,
        limit: int,
    ) -> Sequence[Event]:
        """Events in the order of their start, filtered by state at ``now`` (upcoming,
        running, finished: a cancelled one is finished), layout and the kind of player
        they admit; ``limit`` of them after the one ``after`` names."""
        e = EVENTS.c
        active = e.status == EventStatus.ACTIVE
        where: list[Any] = []
        if state == "upcoming":
            where += [active, e.starts_at > now]
        elif state == "running":
            where += [
                active,
                e.starts_at <= now,
                or_(e.finishes_at.is_(None), e.finishes_at > now),
            ]
        elif state == "finished":
            where.append(or_(~active, e.finishes_at <= now))
        if layout is not None:
            where.append(e.layout == layout)
        if kind is not None:
            own = Entrants.HUMANS if kind is PlayerKind.HUMAN else Entrants.BOTS
            where.append(e.entrants.in_([own, Entrants.BOTH]))
        if after is not None:
            where.append(tuple_(e.starts_at, e.id) > tuple_(*after))
        q = select(Event).where(*where).order_by(Event.starts_at, Event.id).limit(limit)
        return (await self.session.scalars(q)).all()

    async def active(self, now: datetime, started_by: datetime) -> Sequence[Event]:
        """The events not cancelled, started by ``started_by``, not finished at ``now``."""
        e = EVENTS.c
        q = select(Event).where(
            e.status == EventStatus.ACTIVE,
            e.starts_at <= started_by,
            or_(e.finishes_at.is_(None), e.finishes_at > now),
        )
        return (await self.session.scalars(q.order_by(Event.starts_at, Event.id))).all()

    # -- editions -----------------------------------------------------------------------
    async def edition(self, edition_id: str) -> Edition | None:
        return await self.session.get(Edition, edition_id)

    async def add_edition_if_absent(self, values: dict[str, Any]) -> None:
        await self.session.execute(
            _insert(self._dialect, EDITIONS)
            .values(**values, created_at=utcnow())
            .on_conflict_do_nothing()
        )

    async def editions(self, event_id: str, before: int | None, limit: int) -> Sequence[Edition]:
        """The event's editions made so far, the newest first, before number ``before``."""
        q = select(Edition).where(Edition.event_id == event_id)
        if before is not None:
            q = q.where(Edition.number < before)
        q = q.order_by(Edition.number.desc()).limit(limit)
        return (await self.session.scalars(q)).all()

    async def editions_from(self, event_id: str, first: int) -> Sequence[Edition]:
        """The event's editions made so far from number ``first`` on."""
        q = select(Edition).where(Edition.event_id == event_id, Edition.number >= first)
        return (await self.session.scalars(q)).all()

    async def delete_edition(self, edition_id: str) -> None:
        await self.session.execute(delete(EDITIONS).where(EDITIONS.c.id == edition_id))

    async def has_editions(self, event_id: str) -> bool:
        found = await self.session.scalar(
            select(Edition.id).where(Edition.event_id == event_id).limit(1)
        )
        return found is not None

    # -- changes ------------------------------------------------------------------------
    async def log(self, event_id: str, action: str, source: str, changes: dict[str, Any]) -> None:
        self.session.add(
            EventChange(
                event_id=event_id, at=utcnow(), action=action, source=source, changes=changes
            )
        )
        await self.session.flush()

    async def changes(self, event_id: str) -> Sequence[EventChange]:
        q = select(EventChange).where(EventChange.event_id == event_id)
        return (await self.session.scalars(q.order_by(EventChange.id))).all()
