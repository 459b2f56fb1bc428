"""``python -m app.ops.fairplay``: measure the ranked results due now, at once.

Every server process measures the results due on a schedule (``app.ops.jobs``:
``FAIR_PLAY_INTERVAL_S``), in its solver pool: nothing needs this command to run. It is
for an operator with a backlog (``--workers`` results at a time, each in a niced process
of its own: ``SOLVER_NICENESS``), one challenge's results (``--challenge ID``), or a
server run with ``SCHEDULED_JOBS=false``. It measures up to ``--limit`` results (default
500) due by now (or ``--as-of``), the longest due first, and logs one line with its
counts. Claims keep it and the servers from measuring a result twice.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
from datetime import datetime

from app.challenges.fairplay import Measured, measure_due
from app.kit.database import make_database
from app.kit.logs import FIELDS_ATTR
from app.kit.workload import SolverPool
from app.ops.check import as_of, command_settings
from app.settings import Settings

SEARCH_MODULES = ("app.engine.fairplay",)

log = logging.getLogger("app.fairplay")


async def run(
    settings: Settings,
    now: datetime,
    limit: int,
    challenge_id: str | None = None,
    workers: int = 1,
) -> Measured:
    database = make_database(settings)
    solver = SolverPool(workers, preload=SEARCH_MODULES, niceness=settings.solver_niceness, kept={})
    try:
        return await measure_due(
            database, settings, solver, lambda: now, limit, challenge_id, workers
        )
    finally:
        solver.close()
        await database.dispose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.ops.fairplay", description=__doc__)
    parser.add_argument("--as-of", type=datetime.fromisoformat, default=None)
    parser.add_argument("--limit", type=int, default=500)
    parser.add_argument("--challenge", default=None, help="measure this challenge's only")
    parser.add_argument(
        "--workers", type=int, default=1, help="results measured at once, each in a process"
    )
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers: at least 1")
    settings = command_settings()
    if settings is None:
        return 2
    now = as_of(parser, args.as_of)
    measured = asyncio.run(run(settings, now, args.limit, args.challenge, args.workers))
    fields = {"ok": measured.ok, "flagged": measured.flagged, "missing": measured.missing}
    log.info("measured", extra={FIELDS_ATTR: {**fields, "as_of": now.isoformat()}})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
