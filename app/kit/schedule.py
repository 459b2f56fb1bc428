"""Jobs the servers run on a schedule, once among all their processes and replicas.

Each server process runs the scheduled jobs (``app.ops.jobs``); a job that must run once
per period whatever the number of processes takes its turn here first: ``take_turn``
moves the job's row to its next run in one statement, and only the process whose
statement moved it runs the job. A process that dies during a run leaves the job to its
next period (the jobs are idempotent and batched: nothing is half done for long).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import String, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from app.kit.models import Base, UTCDateTime


class ScheduledJob(Base):
    """A job's next run, and when its last run started."""

    __tablename__ = "scheduled_jobs"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    next_run_at: Mapped[datetime] = mapped_column(UTCDateTime())
    last_started_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


async def take_turn(session: AsyncSession, name: str, now: datetime, every: timedelta) -> bool:
    """Whether this process runs the job ``name`` now: its row is due at ``now`` (made due
    on the first call) and this statement moved it to ``now + every``. Of processes
    racing, one moves it; the others see it moved. Commits nothing: the caller does."""
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    await session.execute(
        insert(ScheduledJob).values(name=name, next_run_at=now).on_conflict_do_nothing()
    )
    moved = await session.execute(
        update(ScheduledJob)
        .where(ScheduledJob.name == name, ScheduledJob.next_run_at <= now)
        .values(next_run_at=now + every, last_started_at=now)
        .returning(ScheduledJob.name)
    )
    return moved.first() is not None
