"""The request's database session: one transaction a request, ended at the boundary.

``SessionDep`` is for routes that write. Services and repositories add and flush; once the
route has returned, the session commits (before the answer is sent, so that an answer
never announces what failed to land), and when the route raised, it rolls back. The
dependency runs at function scope for that reason: its exit runs before the response.

``ReadSessionDep`` is for routes that only read: no write lock on SQLite, a READ ONLY
transaction on PostgreSQL, and never a commit of anything.

Both are ``async``: making a session does no I/O, nor does closing one with no transaction
open, so only ending an open transaction goes through the threadpool (a sync dependency
would cost two hops through it on every request).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool


def _has_work(session: Session) -> bool:
    return session.in_transaction() or bool(session.new or session.dirty or session.deleted)


async def _close(session: Session) -> None:
    if session.in_transaction():
        await run_in_threadpool(session.close)  # rolls back what is open
    else:
        session.close()


async def get_session(request: Request) -> AsyncIterator[Session]:
    session: Session = request.app.state.sessions()
    try:
        yield session
        if _has_work(session):
            await run_in_threadpool(session.commit)
    finally:
        await _close(session)


async def get_read_session(request: Request) -> AsyncIterator[Session]:
    session: Session = request.app.state.read_sessions()
    try:
        yield session
    finally:
        await _close(session)


def release(session: Session) -> None:
    """End a reading session's transaction now (there is nothing to commit): what the
    route does next, a solver search say, holds no transaction, lock or connection."""
    session.commit()


SessionDep = Annotated[Session, Depends(get_session, scope="function")]
ReadSessionDep = Annotated[Session, Depends(get_read_session, scope="function")]
