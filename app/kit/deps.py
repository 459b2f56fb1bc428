"""The request's database sessions: one transaction a request, ended at the boundary.

``SessionDep`` is for work that writes. Services and repositories add, flush and run
their statements; once the route has returned, the session commits, and when the route
raised, it rolls back. Both happen before the answer is sent (FastAPI's
``Depends(scope="function")``: the dependency's exit runs as the route function returns),
so an answer never announces what failed to land, and a move, the player's statistics
and a leaderboard entry are one transaction. Nothing below this commits.

``ReadSessionDep`` is for reads: an ``AsyncReadSession`` of the reading engine (no write
lock, each statement committed as it returns: ``app.kit.database``; a write on it is a
type error, and refused when it runs), closed at the same boundary. A route that reads,
then searches with the solver, then writes holds no transaction and no connection while
it searches: its reads have returned, and its writing session begins at its first
statement.

Both sessions come from ``app.state.database`` (``app.kit.database.Database``), so that a
test binds them to a connection of its own.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from app.kit.database import AsyncReadSession, Database

log = logging.getLogger("app.db")


async def get_database(request: Request) -> Database:
    database: Database = request.app.state.database
    return database


async def get_session(request: Request) -> AsyncIterator[AsyncSession]:
    session: AsyncSession = request.app.state.database.sessions()
    try:
        yield session
        await session.commit()
    except BaseException:
        await _quietly(session.rollback, "rollback")
        raise
    finally:
        await _quietly(session.close, "close")


async def get_read_session(request: Request) -> AsyncIterator[AsyncReadSession]:
    session: AsyncReadSession = request.app.state.database.read_sessions()
    try:
        yield session
    finally:
        await _quietly(session.close, "close")


async def _quietly(end: Callable[[], Awaitable[None]], what: str) -> None:
    """End a session whose request has its answer (or its error) already: a connection
    the database dropped meanwhile fails the rollback, yet there is nothing left to undo
    (the server dropped the transaction with the connection), and SQLAlchemy discards
    it. The answer stands; the failure is logged."""
    try:
        await end()
    except Exception as e:
        log.warning("database session %s failed: %s", what, type(e).__name__)


DatabaseDep = Annotated[Database, Depends(get_database)]
SessionDep = Annotated[AsyncSession, Depends(get_session, scope="function")]
ReadSessionDep = Annotated[AsyncReadSession, Depends(get_read_session, scope="function")]
