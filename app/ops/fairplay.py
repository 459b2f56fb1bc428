"""``python -m app.ops.fairplay``: measure the ranked results of closed challenges.

Each run measures up to ``--limit`` ranked results not measured yet (default 500), of the
challenges closed by now (or ``--as-of``), newest close first, in a niced process pool of
its own (``SOLVER_NICENESS``), ``--workers`` results at a time (default 1; a classic
result takes about 3 s of one core: ``app.challenges.fairplay``): run it often (the
Kubernetes CronJob: every 10 minutes), so that a board's results are measured soon after
it closes.
``--challenge ID`` measures that challenge's only. A run logs one line with its counts.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
from datetime import datetime

from app.challenges.fairplay import Measured, measure_closed
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
        return await measure_closed(database, settings, solver, now, limit, challenge_id, workers)
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
