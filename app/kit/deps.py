"""The request's database session: one transaction a request, ended at the boundary.

``SessionDep`` is for routes that write. Services and repositories add and flush; once the
route has returned, the session commits (before the answer is sent, so that an answer
never announces what failed to land), and when the route raised, it rolls back. So the
session ends before the response: a ``OneHopRoute``'s handler ends its request's sessions
itself; on other routes each session's end joins the function-scoped dependencies' exits.

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
  checked on the event loop. The route's handler then has nothing left to end.
- the sessions' dependencies are no generators: FastAPI's exit of a generator dependency
  (a context manager, an exit-stack entry, a shielded cancel scope) cost about 5% of a
  move's server CPU.
- a dependency whose work is I/O (loading a game, say) returns ``await in_hop(request,
  work)``: deferred into the endpoint's trip on such a route, else a trip of its own.
  Its value is then handed to the endpoint itself: such a dependency is declared by
  endpoints, not by other dependencies.
- an async endpoint that makes its trip itself (a move that is not done on the event
  loop: ``app.games.endpoints.GameToMove``) does its work in ``in_session``: a writing
  session of its own, ended in that trip.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Coroutine
from contextlib import AsyncExitStack
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Annotated, Any, Generic, TypeVar, cast

import anyio
from fastapi import Depends, Request, Response
from fastapi.routing import APIRoute
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from app.kit.database import end_alone

T = TypeVar("T")


def _has_work(session: Session) -> bool:
    return session.in_transaction() or bool(session.new or session.dirty or session.deleted)


async def _close(session: Session) -> None:
    if session.in_transaction():
        with anyio.CancelScope(shield=True):  # a request cancelled still gives back its connection
            await run_in_threadpool(session.close)  # rolls back what is open
    else:
        session.close()


@dataclass
class _Sessions:
    """The sessions of one request, for its endpoint's trip (or the route) to end."""

    writing: list[Session] = field(default_factory=list)
    reading: list[Session] = field(default_factory=list)

    def end(self) -> None:
        for session in self.writing:
            if _has_work(session):
                session.commit()
        self.abandon()  # what is committed has nothing left to roll back

    def abandon(self) -> None:
        for session in (*self.writing, *self.reading):
            session.close()  # rolls back what is open
        self.writing.clear()
        self.reading.clear()

    async def settle(self, failed: bool) -> None:
        """End, on the event loop, what the endpoint's trip did not: commit the writing
        sessions unless the request ``failed``; close every one."""
        writing, reading = [*self.writing], [*self.reading]
        self.writing.clear()
        self.reading.clear()
        for session in writing:
            if not failed and _has_work(session):
                with anyio.CancelScope(shield=True):
                    await run_in_threadpool(session.commit)
            await _close(session)
        for session in reading:
            await _close(session)


# The sessions of the request whose OneHopRoute handler is running (its task's context).
_ROUTE_SESSIONS: ContextVar[_Sessions | None] = ContextVar("tripeaks_sessions", default=None)


async def _exit_writing(session: Session, exc_type: type[BaseException] | None, *_: object) -> None:
    try:
        if exc_type is None and _has_work(session):
            with anyio.CancelScope(shield=True):
                await run_in_threadpool(session.commit)
    finally:
        await _close(session)


async def _exit_reading(session: Session, *_: object) -> None:
    await _close(session)


def _on_exit(request: Request, exit_: Callable[..., Awaitable[None]], session: Session) -> None:
    """Outside a OneHopRoute: ``exit_(session, exc_type, exc, tb)`` as the route's
    function-scoped dependencies end (after the endpoint, before the answer is sent)."""
    stack: AsyncExitStack = request.scope["fastapi_function_astack"]
    stack.push_async_exit(functools.partial(exit_, session))


def _enrolled(request: Request, session: Session, *, writing: bool) -> Session:
    """``session``, to be ended with the request. No generators (see the module's doc): a
    OneHopRoute's handler ends the sessions it put in the context; elsewhere each ends as
    a function-scoped generator's exit would."""
    sessions = _ROUTE_SESSIONS.get()
    if sessions is not None:
        (sessions.writing if writing else sessions.reading).append(session)
    else:
        _on_exit(request, _exit_writing if writing else _exit_reading, session)
    return session


async def get_session(request: Request) -> Session:
    return _enrolled(request, request.app.state.sessions(), writing=True)


async def get_read_session(request: Request) -> Session:
    return _enrolled(request, request.app.state.read_sessions(), writing=False)


def in_session(request: Request, work: Callable[[Session], T]) -> T:
    """``work`` given a writing session of its own, ended with it as a ``OneHopRoute``'s
    trip ends one: committed unless ``work`` raised, then closed. Sync (I/O): for a
    threadpool trip that an async endpoint makes itself."""
    sessions = _Sessions()
    sessions.writing.append(request.app.state.sessions())
    try:
        result = work(sessions.writing[0])
        sessions.end()
    except BaseException:
        sessions.abandon()
        raise
    return result


def release(session: Session) -> None:
    """End a reading session's transaction now (there is nothing to commit), and give back
    the connection its statements committed alone on, if any: what the route does next,
    a solver search say, holds no transaction, lock or connection."""
    session.commit()
    end_alone(session)


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


def _in_one_hop(endpoint: Callable[..., Any]) -> Callable[..., Any]:
    """``endpoint`` as an async endpoint that makes the one trip, ending the request's
    sessions in it (``OneHopRoute`` has put them in the context)."""

    @functools.wraps(endpoint)
    async def one_hop(**values: Any) -> Any:
        sessions = _ROUTE_SESSIONS.get()
        assert sessions is not None, "a one-hop endpoint runs under its OneHopRoute's handler"
        return await run_in_threadpool(_run, endpoint, values, sessions)

    return one_hop


class OneHopRoute(APIRoute):
    """A route whose sync endpoint runs in one trip through the threadpool with the I/O
    of its dependencies (``in_hop``) and the end of the request's sessions. Its handler
    ends, after it, whatever sessions are left (an async endpoint's, or a request refused
    before its endpoint ran): committed unless it raised, then closed."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        self.one_hop = not (
            inspect.iscoroutinefunction(endpoint)
            or inspect.isgeneratorfunction(endpoint)
            or inspect.isasyncgenfunction(endpoint)
        )
        super().__init__(path, _in_one_hop(endpoint) if self.one_hop else endpoint, **kwargs)

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def handle(request: Request) -> Response:
            sessions = _Sessions()
            token = _ROUTE_SESSIONS.set(sessions)
            try:
                response = await handler(request)
            except BaseException:
                await sessions.settle(failed=True)
                raise
            finally:
                _ROUTE_SESSIONS.reset(token)
            await sessions.settle(failed=False)
            return response

        return handle
