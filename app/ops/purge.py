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

``--as-of 2026-12-01T00:00:00+00:00`` purges as if it were then (for tests and audits).
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy.orm import Session, sessionmaker

from app.games.service import GameService
from app.kit.database import make_engine, make_sessionmaker
from app.kit.models import utcnow
from app.ops import metrics
from app.ops.logs import FIELDS_ATTR
from app.settings import Settings, command_settings

log = logging.getLogger("app.purge")

Deleter = Callable[[GameService, datetime, int], int]
RULES: tuple[tuple[str, str, Deleter], ...] = (
    ("abandoned", "retention_unfinished_days", GameService.delete_abandoned),
    ("finished", "retention_finished_days", GameService.delete_finished),
)


def purge(sessions: sessionmaker[Session], settings: Settings, now: datetime) -> dict[str, int]:
    """Delete, batch by batch, what the retention settings say is kept no longer as of
    ``now``; the number of games deleted, by reason."""
    counts: dict[str, int] = {}
    batch = settings.purge_batch_size
    for reason, days_setting, delete in RULES:
        cutoff = now - timedelta(days=getattr(settings, days_setting))
        total = 0
        while True:
            with sessions() as session:
                deleted = delete(GameService(session, settings), cutoff, batch)
                session.commit()
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
    engine = make_engine(settings)
    try:
        counts = purge(make_sessionmaker(engine), settings, now)
    finally:
        engine.dispose()
    log.info("purged", extra={FIELDS_ATTR: {"deleted": counts, "as_of": now.isoformat()}})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
