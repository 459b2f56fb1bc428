"""The app the HTTP benchmark serves: the real ``create_app`` plus bare routes.

The bare routes are the yardstick: they go through the same server and middleware as the
game endpoints, and do nothing else (the sync one through the threadpool as well, which no
endpoint of the app uses any more; the async one on the event loop, as they all are).
``/bench/db`` adds one database round trip (a reading session and ``SELECT 1``) to show
what the database alone costs; ``/bench/signature/{game_id}`` takes make_move's parameters and
dependencies (path, JSON body, token, service and session, two headers) and does nothing
with them, to show what the framework alone costs for a move. ``/bench/cpu`` answers the
worker process's CPU time, for the figures of a one-worker server.
"""

from __future__ import annotations

import time

from fastapi import FastAPI
from sqlalchemy import text

from app.games.access import GameIdPath
from app.games.endpoints import GameServiceDep, IdempotencyKeyHeader, IfMatchHeader
from app.games.schemas import MoveCreate
from app.kit.auth import BearerDep
from app.kit.deps import ReadSessionDep
from app.main import create_app


def create_bench_app() -> FastAPI:
    app = create_app()

    @app.get("/bench/bare", include_in_schema=False)
    def bare() -> dict[str, bool]:
        return {"ok": True}

    @app.get("/bench/bare-async", include_in_schema=False)
    async def bare_async() -> dict[str, bool]:
        return {"ok": True}

    @app.get("/bench/db", include_in_schema=False)
    async def db(session: ReadSessionDep) -> dict[str, bool]:
        await session.execute(text("SELECT 1"))
        return {"ok": True}

    @app.post("/bench/signature/{game_id}", include_in_schema=False)
    async def signature(
        game_id: GameIdPath,
        body: MoveCreate,
        token: BearerDep,
        service: GameServiceDep,
        if_match: IfMatchHeader = None,
        idempotency_key: IdempotencyKeyHeader = None,
    ) -> dict[str, bool]:
        return {"ok": True}

    @app.get("/bench/cpu", include_in_schema=False)
    async def cpu() -> dict[str, float]:
        """This process's CPU seconds so far (to the nanosecond; /proc counts 10 ms ticks)."""
        return {"seconds": time.process_time()}

    return app
