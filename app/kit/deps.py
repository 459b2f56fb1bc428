"""The request's database session: one transaction a request, ended at the boundary.

``SessionDep`` is for routes that write. Services and repositories add and flush; once the
route has returned, the session commits (before the answer is sent, so that an answer
never announces what failed to land), and when the route raised, it rolls back. The
dependency runs at function scope for that reason: its exit runs before the response.

``ReadSessionDep`` is for routes that only read: no write lock on SQLite, a READ ONLY
transaction on PostgreSQL, and never a commit of anything.

One trip through the threadpool a request. Each trip costs about a third of a bare
request, and FastAPI would make one for every sync dependency, one for the sync endpoint,
one more to check its answer, and the session's end one again. So:

- the sessions' dependencies are ``async`` (making a session does no I/O);
- a route of a ``OneHopRoute`` router with a sync endpoint runs, in a single trip: the
  dependencies' I/O it was handed to do (``in_hop``), the endpoint, then the end of the
  request's sessions (the writing one commits, reading ones close); its answer is
  checked on the event loop. The sessions' exits then have nothing left to do.
- a dependency whose work is I/O (loading a game, say) returns ``await in_hop(request,
  work)``: deferred into the endpoint's trip on such a route, else a trip of its own.
  Its value is then handed to the endpoint itself: such a dependency is declared by
  endpoints, not by other dependencies.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncIterator, Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Annotated, Any, Generic, TypeVar, cast

from fastapi import Depends, Request
from fastapi.routing import APIRoute
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

T = TypeVar("T")


def _has_work(session: Session) -> bool:
    return session.in_transaction() or bool(session.new or session.dirty or session.deleted)


async def _close(session: Session) -> None:
    if session.in_transaction():
        await run_in_threadpool(session.close)  # rolls back what is open
    else:
        session.close()


@dataclass
class _Sessions:
    """The sessions of one request, for its endpoint's trip to end."""

    writing: list[Session] = field(default_factory=list)
    reading: list[Session] = field(default_factory=list)

    def end(self) -> None:
        for session in self.writing:
            if _has_work(session):
                session.commit()
        for session in self.reading:
            session.close()

    def abandon(self) -> None:
        for session in (*self.writing, *self.reading):
            session.close()  # rolls back what is open


# Set in the request's task by the sessions' dependencies (each request runs in a task of
# its own: the value is never another request's).
_request_sessions: ContextVar[_Sessions | None] = ContextVar("request_sessions", default=None)


def _sessions_of_request() -> _Sessions:
    sessions = _request_sessions.get()
    if sessions is None:
        sessions = _Sessions()
        _request_sessions.set(sessions)
    return sessions


async def get_session(request: Request) -> AsyncIterator[Session]:
    session: Session = request.app.state.sessions()
    _sessions_of_request().writing.append(session)
    try:
        yield session
        if _has_work(session):
            await run_in_threadpool(session.commit)
    finally:
        await _close(session)


async def get_read_session(request: Request) -> AsyncIterator[Session]:
    session: Session = request.app.state.read_sessions()
    _sessions_of_request().reading.append(session)
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


# -- one trip through the threadpool ------------------------------------------------------
class _Deferred(Generic[T]):
    """A dependency's value still to be computed, in the endpoint's trip."""

    __slots__ = ("work",)

    def __init__(self, work: Callable[[], T]) -> None:
        self.work = work


async def in_hop(request: Request, work: Callable[[], T]) -> T:
    """``work()`` (sync: it does I/O) as a dependency's value: done in the endpoint's trip
    through the threadpool when the route makes one (``OneHopRoute``), else in a trip of
    its own now."""
    route = request.scope.get("route")
    if isinstance(route, OneHopRoute) and route.one_hop:
        return cast(T, _Deferred(work))
    return await run_in_threadpool(work)


def _run(endpoint: Callable[..., Any], values: dict[str, Any], sessions: _Sessions | None) -> Any:
    try:
        arguments = {
            name: value.work() if isinstance(value, _Deferred) else value
            for name, value in values.items()
        }
        result = endpoint(**arguments)
        if sessions is not None:
            sessions.end()
    except BaseException:
        if sessions is not None:
            sessions.abandon()
        raise
    return result


def _in_one_hop(endpoint: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(endpoint)  # FastAPI reads the parameters of the endpoint wrapped
    async def one_hop(**values: Any) -> Any:
        return await run_in_threadpool(_run, endpoint, values, _request_sessions.get())

    return one_hop


class OneHopRoute(APIRoute):
    """A route whose sync endpoint runs in one trip through the threadpool with the I/O
    of its dependencies (``in_hop``) and the end of the request's sessions."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        self.one_hop = not (
            inspect.iscoroutinefunction(endpoint)
            or inspect.isgeneratorfunction(endpoint)
            or inspect.isasyncgenfunction(endpoint)
        )
        super().__init__(path, _in_one_hop(endpoint) if self.one_hop else endpoint, **kwargs)
