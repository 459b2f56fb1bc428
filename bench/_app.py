"""The app the HTTP benchmark serves: the real ``create_app`` plus bare routes.

The bare routes are the yardstick: they go through the same server, middleware and
(for the sync one) the same threadpool as the game endpoints, and do nothing else.
``/bench/db`` adds one database round trip (a session and ``SELECT 1``) to show what the
database alone costs.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from sqlalchemy import text

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

    return app
