"""The purge: delete what is kept no longer; and what opens soon, made ahead.

Every deployment runs both: the servers take turns at them (``app.ops.jobs``: the purge
every ``PURGE_INTERVAL_S``, what opens soon every minute, one process of all of them each
time); ``python -m app.ops.purge`` runs both once (an operator's, or a server run with
``SCHEDULED_JOBS=false``).

What bounds each table, that a client can fill:

- ``games`` (with their ``moves`` and ``analyses``): unfinished games nobody has moved for
  ``RETENTION_UNFINISHED_DAYS`` expire; anonymous finished games are deleted
  ``RETENTION_FINISHED_DAYS`` after their last move; unfinished attempts at a challenge
  whose day is over (they can no longer be ranked) go; and a player keeps the newest
  ``RETENTION_PLAYER_GAMES`` finished games (statistics keep counting the rest; a ranked
  attempt keeps its place on the board).
- ``players`` (with their ``player_stats``): a player who never entered a challenge, made
  more than ``RETENTION_IDLE_PLAYER_DAYS`` ago and with no game moved since, goes (their
  games become anonymous, and expire as such).
- ``challenges``: one a day and layout for the dailies; one a player sets goes
  ``RETENTION_SET_CHALLENGE_DAYS`` after it closed, with its entries and board (its games
  stay, unlinked). ``challenge_entries``: one a player and challenge, kept with the board
  (and bounded by the players); ``follows``, ``daily_streaks``, ``monthly_wins``: bounded
  by the players (and ``FOLLOWING_MAX``, the layouts, the months).

A game's moves and analysis go with it. Deletes run in batches of ``PURGE_BATCH_SIZE``
games, one short transaction each, oldest first, so that no lock is held for long and a
purge stopped halfway has done part of its work and nothing else. A game moved while the
purge runs is kept (the conditions are checked again on the row it deletes). Each run
logs one line with its counts; ``tripeaks_games_purged_total{reason}`` counts them too
(in the server's /metrics when the purge runs where ``PROMETHEUS_MULTIPROC_DIR`` is the
server's, as in the image).

What opens soon (``prepare``): the next UTC day's challenge for every layout that has none
yet, and the events' editions that open within the hour, each a solver search, one after
another, so that at midnight the new day's deals are already there and an edition is
there when it opens: no request has to wait for one (should one be missing, a server's
requests make it with one search between them, in a slot kept for the day's challenges).
A derivation that runs out of time is logged and left to the next run.

``--as-of 2026-12-01T00:00:00+00:00`` purges as if it were then (for tests and audits).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from app import engine
from app.challenges.service import ChallengeService, ensure_challenge
from app.events.service import prepare_editions
from app.games.service import GameService
from app.kit import metrics
from app.kit.database import Database, Sessions, make_database
from app.kit.errors import ServiceUnavailableProblem
from app.kit.logs import FIELDS_ATTR
from app.kit.workload import SolverPool
from app.ops.check import as_of, command_settings
from app.players.service import PlayerService
from app.settings import Settings

SEARCH_MODULES = ("app.engine.solver",)

log = logging.getLogger("app.purge")

Deleter = Callable[[AsyncSession, Settings, datetime, int], Awaitable[int]]


def _games(session: AsyncSession, settings: Settings) -> GameService:
    return GameService(session, settings)


def _days(setting: str, now: datetime, settings: Settings) -> datetime:
    return now - timedelta(days=getattr(settings, setting))


RULES: tuple[tuple[str, Deleter], ...] = (
    (
        "abandoned",
        lambda s, c, now, n: _games(s, c).delete_abandoned(
            _days("retention_unfinished_days", now, c), n
        ),
    ),
    (
        "finished",
        lambda s, c, now, n: _games(s, c).delete_finished(
            _days("retention_finished_days", now, c), n
        ),
    ),
    ("closed_challenge", lambda s, c, now, n: _games(s, c).delete_closed_challenge_games(now, n)),
    ("over_cap", lambda s, c, now, n: _games(s, c).delete_over_cap(c.retention_player_games, n)),
    (
        "closed_set_challenge",
        lambda s, c, now, n: ChallengeService(s, c).delete_closed_set(
            _days("retention_set_challenge_days", now, c), n
        ),
    ),
    (
        "idle_player",
        lambda s, c, now, n: PlayerService(s).delete_idle(
            _days("retention_idle_player_days", now, c), n
        ),
    ),
)


async def purge(sessions: Sessions, settings: Settings, now: datetime) -> dict[str, int]:
    """Delete, batch by batch, what the retention settings say is kept no longer as of
    ``now``; how many rows went, by reason (games, but players for ``idle_player`` and
    challenges for ``closed_set_challenge``)."""
    counts: dict[str, int] = {}
    batch = settings.purge_batch_size
    for reason, delete in RULES:
        total = 0
        while True:
            async with sessions() as session:
                deleted = await delete(session, settings, now, batch)
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
    now = as_of(parser, args.as_of)
    asyncio.run(_purge_with(settings, now))
    return 0


async def derive_next_day(
    database: Database, settings: Settings, solver: SolverPool, now: datetime
) -> list[str]:
    """The next UTC day's challenges, derived and stored for every layout without one
    (one after another, in ``solver``); the ids of those this run stored or found
    stored."""
    day = (now.astimezone(UTC) + timedelta(days=1)).date()
    ready = []
    for layout in sorted(engine.LAYOUTS):
        async with database.read_sessions() as reading, database.sessions() as writing:
            try:
                challenge = await ensure_challenge(
                    day,
                    layout,
                    ChallengeService(reading, settings),
                    ChallengeService(writing, settings),
                    solver,
                    database.sessions,
                )
                await writing.commit()
                ready.append(challenge.id)
            except ServiceUnavailableProblem as e:
                log.warning("the day's %s challenge was not derived: %s", layout, e.detail)
    return ready


async def prepare(
    database: Database, settings: Settings, solver: SolverPool, now: datetime
) -> list[str]:
    """What opens soon, made before anyone needs it: the next day's challenges and the
    events' editions that open within the hour (``app.events.service.prepare_editions``);
    the ids of those made or found made."""
    return [
        *await derive_next_day(database, settings, solver, now),
        *await prepare_editions(database, settings, solver, now),
    ]


async def purge_and_log(database: Database, settings: Settings, now: datetime) -> dict[str, int]:
    """The purge as of ``now``, its one line logged."""
    counts = await purge(database.sessions, settings, now)
    log.info("purged", extra={FIELDS_ATTR: {"deleted": counts, "as_of": now.isoformat()}})
    return counts


async def purge_and_prepare(
    database: Database, settings: Settings, solver: SolverPool, now: datetime
) -> None:
    """The command's run: the purge as of ``now``, then what opens soon (``prepare``),
    in one line."""
    counts = await purge(database.sessions, settings, now)
    derived = await prepare(database, settings, solver, now)
    fields = {"deleted": counts, "as_of": now.isoformat(), "derived": derived}
    log.info("purged", extra={FIELDS_ATTR: fields})


async def _purge_with(settings: Settings, now: datetime) -> None:
    database = make_database(settings)
    # One process, the derivations one after another: nothing here to keep a slot from.
    solver = SolverPool(1, preload=SEARCH_MODULES, niceness=settings.solver_niceness, kept={})
    try:
        await purge_and_prepare(database, settings, solver, now)
    finally:
        solver.close()
        await database.dispose()


if __name__ == "__main__":
    raise SystemExit(main())
