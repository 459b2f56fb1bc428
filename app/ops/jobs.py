"""The jobs every server process runs beside its requests, so that every deployment runs
them with nothing else to set up (``make run``, the container, compose, Kubernetes):

- **the fair-play measure** (``app.challenges.fairplay.measure_due``): each process
  claims the ranked results due and measures them one at a time, in the search slot its
  solver pool keeps for them (``KEPT_SLOTS``: no hint or analysis waits for a measure,
  and none holds one back); finding none due, it looks again after
  ``FAIR_PLAY_INTERVAL_S``. A result is measured seconds after it is entered while the
  processes keep up with the results; more replicas measure more at once.
- **the purge** (``app.ops.purge.purge_and_log``): every ``PURGE_INTERVAL_S``, run by
  the one process that takes the turn (``app.kit.schedule.take_turn``); the others see
  it taken;
- **the duels** (``app.duels.service.run_duels``): every minute, taken in turn the same
  way: a duel nobody took in time expires, a player who has not finished in time loses,
  and the fair-play measure's verdicts on duel results are applied;
- **what opens soon** (``app.ops.purge.prepare``: the next day's challenges, the events'
  editions that open within the hour): every minute, taken in turn the same way, so that
  no request waits on a search for them.

A run that fails is logged and tried again at the job's next period: a job never stops
the server. ``SCHEDULED_JOBS=false`` runs neither (the commands ``python -m
app.ops.fairplay`` and ``python -m app.ops.purge`` run them once). The jobs read the time
from the app's clock, as the routes do.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine
from datetime import datetime, timedelta
from typing import Any

from app.challenges.fairplay import measure_due
from app.duels.service import run_duels
from app.kit.clock import Clock
from app.kit.database import Database
from app.kit.logs import FIELDS_ATTR
from app.kit.problems import database_unavailable
from app.kit.schedule import take_turn
from app.kit.workload import SolverPool
from app.ops.purge import prepare, purge_and_log
from app.settings import Settings

log = logging.getLogger("app.jobs")

# Results a process measures before it looks again whether it should stop.
MEASURE_BATCH = 10
# How often a process asks whether it is a job's turn (at most its period), and how often
# what opens soon is made.
TURN_CHECK_S = 60
PREPARE_EVERY_S = 60
DUELS_EVERY_S = 60


def failed(error: Exception, what: str) -> None:
    """Log a job's failure: a warning when the database was away (a lost connection, a
    timeout: the job runs again, as a request gets a 503), an error with its traceback
    for anything else (a bug)."""
    if database_unavailable(error):
        log.warning("%s (the database is unavailable: %s)", what, type(error).__name__)
    else:
        log.error("%s", what, exc_info=error)


class ScheduledJobs:
    """The jobs of one server process: ``start`` them with its lifespan, ``stop`` them
    before its solver pool and database close."""

    def __init__(
        self, database: Database, settings: Settings, solver: SolverPool, clock: Clock
    ) -> None:
        self.database = database
        self.settings = settings
        self.solver = solver
        self.clock = clock
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        jobs: list[Coroutine[Any, Any, None]] = [
            self._measure(),
            self._in_turn("purge", self.settings.purge_interval_s, self._purge),
            self._in_turn("prepare", PREPARE_EVERY_S, self._prepare),
            self._in_turn("duels", DUELS_EVERY_S, self._duels),
        ]
        self._tasks = [asyncio.create_task(job) for job in jobs]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []

    async def _measure(self) -> None:
        interval = self.settings.fair_play_interval_s
        while True:
            try:
                measured = await measure_due(
                    self.database, self.settings, self.solver, self.clock, MEASURE_BATCH
                )
            except Exception as e:
                failed(e, f"the fair-play measure failed: it goes on in {interval} s")
                measured = None
            if measured is None or not measured.kept:
                await asyncio.sleep(interval)

    async def _in_turn(
        self, name: str, every: int, run: Callable[[datetime], Awaitable[object]]
    ) -> None:
        """``run`` every ``every`` seconds, by the one process of all that takes the turn."""
        while True:
            try:
                now = self.clock()
                async with self.database.sessions() as session:
                    mine = await take_turn(session, name, now, timedelta(seconds=every))
                    await session.commit()
                if mine:
                    await run(now)
            except Exception as e:
                failed(e, f"the {name} job failed: it runs again at its next turn")
            await asyncio.sleep(min(every, TURN_CHECK_S))

    async def _purge(self, now: datetime) -> None:
        await purge_and_log(self.database, self.settings, now)

    async def _duels(self, now: datetime) -> None:
        # Duels past a deadline decided, and the fair-play measure's verdicts applied.
        changed = await run_duels(self.database, self.settings, now)
        log.debug("duels", extra={FIELDS_ATTR: {"changed": changed, "as_of": now.isoformat()}})

    async def _prepare(self, now: datetime) -> None:
        # What opens soon, made or found made (a search that ran out is a warning).
        ready = await prepare(self.database, self.settings, self.solver, now)
        log.debug("prepared", extra={FIELDS_ATTR: {"ready": ready, "as_of": now.isoformat()}})
