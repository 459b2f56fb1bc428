"""The app the HTTP benchmark serves: the real ``create_app`` plus bare routes.

The bare routes are the yardstick: they go through the same server, middleware and
(for the sync one) the same threadpool as the game endpoints, and do nothing else.
``/bench/db`` adds one database round trip (a session and ``SELECT 1``) to show what the
database alone costs; ``/bench/signature/{game_id}`` takes make_move's parameters and
dependencies (path, JSON body, token, service and session, two headers) and does nothing
with them, to show what the framework alone costs for a move. ``/bench/cpu`` answers the
worker process's CPU time, for the figures of a one-worker server.
"""

from __future__ import annotations

import time

from fastapi import FastAPI, Request
from sqlalchemy import text

from app.games.access import GameIdPath
from app.games.endpoints import GameServiceDep, IdempotencyKeyHeader, IfMatchHeader
from app.games.schemas import MoveCreate
from app.kit.auth import BearerDep
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
    def db(request: Request) -> dict[str, bool]:
        with request.app.state.sessions() as session:
            session.execute(text("SELECT 1"))
            session.commit()
        return {"ok": True}

    @app.post("/bench/signature/{game_id}", include_in_schema=False)
    def signature(
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
