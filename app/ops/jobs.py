"""The jobs every server process runs beside its requests, so that every deployment runs
them with nothing else to set up (``make run``, the container, compose, Kubernetes):

- **the fair-play measure** (``app.challenges.fairplay.measure_due``): each process
  claims the ranked results due and measures them one at a time, in the search slot its
  solver pool keeps for them (``KEPT_SLOTS``: no hint or analysis waits for a measure,
  and none holds one back); finding none due, it looks again after
  ``FAIR_PLAY_INTERVAL_S``. A result is measured seconds after it is entered while the
  processes keep up with the results; more replicas measure more at once.
- **the purge and the next day's challenges** (``app.ops.purge.purge_and_prepare``):
  every ``PURGE_INTERVAL_S``, run by the one process that takes the turn
  (``app.kit.schedule.take_turn``); the others see it taken.

A run that fails is logged and tried again at the job's next period: a job never stops
the server. ``SCHEDULED_JOBS=false`` runs neither (the commands ``python -m
app.ops.fairplay`` and ``python -m app.ops.purge`` run them once). The jobs read the time
from the app's clock, as the routes do.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from datetime import timedelta
from typing import Any

from app.challenges.fairplay import measure_due
from app.kit.clock import Clock
from app.kit.database import Database
from app.kit.schedule import take_turn
from app.kit.workload import SolverPool
from app.ops.purge import purge_and_prepare
from app.settings import Settings

log = logging.getLogger("app.jobs")

# Results a process measures before it looks again whether it should stop.
MEASURE_BATCH = 10
# How often a process asks whether it is the purge's turn (at most its period).
TURN_CHECK_S = 60


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
        jobs: list[Coroutine[Any, Any, None]] = [self._measure(), self._purge()]
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
            except Exception:
                log.exception("the fair-play measure failed: it goes on in %d s", interval)
                measured = None
            if measured is None or not measured.kept:
                await asyncio.sleep(interval)

    async def _purge(self) -> None:
        every = self.settings.purge_interval_s
        while True:
            try:
                now = self.clock()
                async with self.database.sessions() as session:
                    mine = await take_turn(session, "purge", now, timedelta(seconds=every))
                    await session.commit()
                if mine:
                    await purge_and_prepare(self.database, self.settings, self.solver, now)
            except Exception:
                log.exception("the purge failed: it runs again at its next turn")
            await asyncio.sleep(min(every, TURN_CHECK_S))
