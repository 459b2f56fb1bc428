"""``python -m app.ops.purge``: delete what is kept no longer (run it from cron).

- Unfinished games nobody has moved for ``RETENTION_UNFINISHED_DAYS`` expire.
- Finished games are deleted ``RETENTION_FINISHED_DAYS`` after their last move.

A game's moves and analysis go with it. Deletes run in batches of ``PURGE_BATCH_SIZE``
games, one short transaction each, oldest first, so that no lock is held for long and a
purge stopped halfway has done part of its work and nothing else. A game moved while the
purge runs is kept (the conditions are checked again on the row it deletes). Each run
logs one line with its counts; ``tripeaks_games_purged_total{reason}`` counts them too
(in the server's /metrics when the purge runs where ``PROMETHEUS_MULTIPROC_DIR`` is the
server's, as in the image).

Then it derives the next UTC day's challenge for every layout that has none yet (a solver
search each, in a niced process of the purge's own), so that at midnight the new day's
deals are already there: no request has to wait for one, and no load of hints and
analyses on the servers can hold one back (the servers keep a search slot for the day's
challenges too, for a day the purge did not run before). Run it once a day, before
midnight UTC (the Kubernetes CronJob: 03:17). A derivation that runs out of time is
logged and left to the servers.

``--as-of 2026-12-01T00:00:00+00:00`` purges as if it were then (for tests and audits).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

from app import engine
from app.challenges.service import ChallengeService, ensure_challenge
from app.games.service import GameService
from app.kit import metrics
from app.kit.database import Database, Sessions, make_database
from app.kit.errors import ServiceUnavailableProblem
from app.kit.logs import FIELDS_ATTR
from app.kit.models import utcnow
from app.kit.workload import SolverPool
from app.ops.check import command_settings
from app.settings import Settings

SEARCH_MODULES = ("app.engine.solver",)

log = logging.getLogger("app.purge")

Deleter = Callable[[GameService, datetime, int], Awaitable[int]]
RULES: tuple[tuple[str, str, Deleter], ...] = (
    ("abandoned", "retention_unfinished_days", GameService.delete_abandoned),
    ("finished", "retention_finished_days", GameService.delete_finished),
)


async def purge(sessions: Sessions, settings: Settings, now: datetime) -> dict[str, int]:
    """Delete, batch by batch, what the retention settings say is kept no longer as of
    ``now``; the number of games deleted, by reason."""
    counts: dict[str, int] = {}
    batch = settings.purge_batch_size
    for reason, days_setting, delete in RULES:
        cutoff = now - timedelta(days=getattr(settings, days_setting))
        total = 0
        while True:
            async with sessions() as session:
                deleted = await delete(GameService(session, settings), cutoff, batch)
                await session.commit()
            total += deleted
            metrics.games_purged(reason, deleted)
            if deleted < batch:
                break
        counts[reason] = total
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.ops.purge", description=__doc__)
    parser.add_argument("--as-of", type=datetime.fromisoformat, default=None)
    args = parser.parse_args(argv)
    settings = command_settings()
    if settings is None:
        return 2
    now = args.as_of or utcnow()
    if now.tzinfo is None:
        parser.error("--as-of needs a time zone (e.g. +00:00)")
    counts, derived = asyncio.run(_purge_with(settings, now))
    fields = {"deleted": counts, "as_of": now.isoformat(), "derived": derived}
    log.info("purged", extra={FIELDS_ATTR: fields})
    return 0


async def derive_next_day(database: Database, settings: Settings, now: datetime) -> list[str]:
    """The next UTC day's challenges, derived and stored for every layout without one;
    the ids of those this run stored or found stored."""
    day = (now.astimezone(UTC) + timedelta(days=1)).date()
    solver = SolverPool(1, preload=SEARCH_MODULES, niceness=settings.solver_niceness)
    ready = []
    try:
        for layout in sorted(engine.LAYOUTS):
            async with database.read_sessions() as reading, database.sessions() as writing:
                try:
                    challenge = await ensure_challenge(
                        day,
                        layout,
                        ChallengeService(reading, settings),
                        ChallengeService(writing, settings),
                        solver.for_client(None),
                        database.sessions,
                    )
                    await writing.commit()
                    ready.append(challenge.id)
                except ServiceUnavailableProblem as e:
                    log.warning("the day's %s challenge was not derived: %s", layout, e.detail)
    finally:
        solver.close()
    return ready


async def _purge_with(settings: Settings, now: datetime) -> tuple[dict[str, int], list[str]]:
    database = make_database(settings)
    try:
        counts = await purge(database.sessions, settings, now)
        return counts, await derive_next_day(database, settings, now)
    finally:
        await database.dispose()


if __name__ == "__main__":
    raise SystemExit(main())
