"""The request's database session: one transaction a request, ended at the boundary.

``SessionDep`` is for routes that write. Services and repositories add and flush; once the
route has returned, the session commits (before the answer is sent, so that an answer
never announces what failed to land), and when the route raised, it rolls back. The
dependency runs at function scope for that reason: its exit runs before the response.

On PostgreSQL a route whose writes are one statement (a move, a new game) may send its
statements in autocommit (``app.kit.database.statements_commit_alone``): each has landed
when it returns, so the commit at the boundary has nothing left to do (no round trip),
and the rule holds: nothing is answered that did not land.

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


_SESSIONS = "tripeaks.sessions"  # the key of a request's _Sessions in its ASGI scope


def _sessions_of(request: Request) -> _Sessions:
    """The request's sessions (made on first use: the endpoint's trip may ask first)."""
    sessions: _Sessions = request.scope.setdefault(_SESSIONS, _Sessions())
    return sessions


async def get_session(request: Request) -> AsyncIterator[Session]:
    session: Session = request.app.state.sessions()
    _sessions_of(request).writing.append(session)
    try:
        yield session
        if _has_work(session):
            await run_in_threadpool(session.commit)
    finally:
        await _close(session)


async def get_read_session(request: Request) -> AsyncIterator[Session]:
    session: Session = request.app.state.read_sessions()
    _sessions_of(request).reading.append(session)
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

    def __getattr__(self, name: str) -> Any:
        raise TypeError(
            f"a value of in_hop() was used before the endpoint's trip (.{name}): such a"
            " dependency is declared by the endpoint itself, not by another dependency"
        )


async def in_hop(request: Request, work: Callable[[], T]) -> T:
    """``work()`` (sync: it does I/O) as a dependency's value: done in the endpoint's trip
    through the threadpool when the route makes one (``OneHopRoute``), else in a trip of
    its own now."""
    route = request.scope.get("route")
    if isinstance(route, OneHopRoute) and route.one_hop:
        return cast(T, _Deferred(work))
    return await run_in_threadpool(work)


def _run(endpoint: Callable[..., Any], values: dict[str, Any], sessions: _Sessions) -> Any:
    try:
        arguments = {
            name: value.work() if isinstance(value, _Deferred) else value
            for name, value in values.items()
        }
        result = endpoint(**arguments)
        sessions.end()
    except BaseException:
        sessions.abandon()
        raise
    return result


async def _the_sessions(request: Request) -> _Sessions:
    return _sessions_of(request)


_SESSIONS_PARAMETER = inspect.Parameter(
    "one_hop_sessions",
    inspect.Parameter.KEYWORD_ONLY,
    annotation=Annotated[_Sessions, Depends(_the_sessions)],
)


def _in_one_hop(endpoint: Callable[..., Any]) -> Callable[..., Any]:
    """``endpoint`` as an async endpoint that makes the one trip. FastAPI reads its
    parameters, and one more: the request's sessions, to end in the trip."""

    @functools.wraps(endpoint)
    async def one_hop(**values: Any) -> Any:
        sessions: _Sessions = values.pop(_SESSIONS_PARAMETER.name)
        return await run_in_threadpool(_run, endpoint, values, sessions)

    signature = inspect.signature(endpoint)
    one_hop.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*signature.parameters.values(), _SESSIONS_PARAMETER]
    )
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
