"""The database: async SQLAlchemy engines, and the sessions requests work in.

One way to the database, as Polar's ``postgres.py``: an async engine over psycopg's async
driver on PostgreSQL and over aiosqlite on SQLite (the embedded default: a file, no other
service), and an ``AsyncSession`` per request. Like Polar, two engines: one whose
sessions write (a transaction each, committed or rolled back once, at the request's
boundary: ``app.kit.deps``) and one whose sessions only read.

- **Writing sessions** run in a transaction. On SQLite it begins with ``BEGIN IMMEDIATE``
  (SQLAlchemy's documented recipe for aiosqlite: the driver's own transaction handling
  off, the BEGIN emitted on the engine's ``begin`` event), so that a move's read and its
  write happen under one lock and two racing moves are serialised instead of failing to
  upgrade a stale snapshot. The writer engine of SQLite holds one connection: SQLite
  has one writer at a time anyway, and this process's writers then wait their turn for
  it on the pool's asyncio queue (``pool_timeout``), not in SQLite's busy handler, which
  sleeps 1, 2, 5, 10... up to 100 ms between tries. On PostgreSQL the transactions are
  READ COMMITTED; the version check in the repositories decides races.
- **Reading sessions** take no write lock: their engine is in autocommit (each
  statement its own snapshot, as READ COMMITTED would give; one round trip, no BEGIN and
  no COMMIT) and refuses writes: PostgreSQL's ``default_transaction_read_only``,
  SQLite's ``query_only``.

How long a request waits on the database is bounded: for a pooled connection by
``pool_timeout``; for a new PostgreSQL connection by libpq's ``connect_timeout``; for
SQLite's lock by its busy timeout; and for each answer by ``asyncio.timeout`` around every
call a session makes (``BoundedSession``). The last is the one a stopped database (a
frozen host or VM, a SIGSTOP'ed server, a stalled proxy) meets: its kernel still accepts
and acknowledges bytes, so neither TCP keepalives nor ``tcp_user_timeout`` ever fire.
psycopg cancels a query whose task is cancelled and, when the server does not answer
the cancellation either, closes the connection within 10 s more (psycopg's floor in
pyproject.toml); SQLAlchemy invalidates a connection interrupted so, and the pool opens a new one
for the next request. The TCP options serve where the peer's kernel is gone too (a host
down, a network cut): a pooled connection found dead by keepalives is replaced before a
request meets it.

A pooled connection is not pinged when it is checked out (a round trip on every
request): a connection the server has closed meanwhile (``pg_terminate_backend``, a
restart, ``idle_session_timeout``) has said so on its socket, a FATAL message and the end
of the stream, so a connection whose socket has anything to read while idle is replaced
at checkout without asking the server anything (``idle_and_open``).
"""

from __future__ import annotations

import asyncio
import select
from collections.abc import AsyncIterator, Awaitable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import psycopg
from sqlalchemy import event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.pool import AsyncAdaptedQueuePool
from typing_extensions import deprecated

from app.settings import Settings

# How the server's connections name themselves to PostgreSQL (pg_stat_activity), unless
# DATABASE_URL names them itself.
APPLICATION_NAME = "tripeaks"


T = TypeVar("T")


class DatabaseTimeoutError(Exception):
    """The database did not answer within ``DB_TIMEOUT_S``: a 503."""


class BoundedSession(AsyncSession):
    """An ``AsyncSession`` whose every call on the database is given at most
    ``timeout_s`` seconds (see the module's doc): past it the call is cancelled (the
    driver cancels the query, SQLAlchemy discards the connection) and
    ``DatabaseTimeoutError`` is raised. Only the calls this server makes are bounded
    here (``scalars`` goes through ``execute``); nothing else of the session changes."""

    def __init__(self, *args: Any, timeout_s: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.timeout_s = timeout_s

    async def _within(self, call: Awaitable[T]) -> T:
        try:
            async with asyncio.timeout(self.timeout_s):
                return await call
        except TimeoutError:
            raise DatabaseTimeoutError(
                f"the database did not answer within {self.timeout_s:g} s"
            ) from None

    async def execute(self, *args: Any, **kwargs: Any) -> Any:
        return await self._within(super().execute(*args, **kwargs))

    async def scalar(self, *args: Any, **kwargs: Any) -> Any:
        return await self._within(super().scalar(*args, **kwargs))

    async def get(self, *args: Any, **kwargs: Any) -> Any:
        return await self._within(super().get(*args, **kwargs))

    async def flush(self, *args: Any, **kwargs: Any) -> None:
        await self._within(super().flush(*args, **kwargs))

    async def refresh(self, *args: Any, **kwargs: Any) -> None:
        await self._within(super().refresh(*args, **kwargs))

    async def commit(self) -> None:
        await self._within(super().commit())

    async def rollback(self) -> None:
        await self._within(super().rollback())

    async def close(self) -> None:
        await self._within(super().close())


READ_ONLY = "a reading session writes nothing: write in the request's writing session"
# (mypy reads a deprecation's message only when it is written out: a literal each time.)


class ReadOnlySessionError(TypeError):
    """A write was asked of a reading session (the type checker refuses it first)."""


class AsyncReadSession(BoundedSession):
    """A session of the reading engine: a type of its own, as Polar's ``AsyncReadSession``
    beside its ``AsyncSession``, so that a write on it is caught before it runs. Its
    writing methods are marked with PEP 702's ``deprecated``, which mypy reports as an
    error here (``enable_error_code = ["deprecated"]``): ``reading.add(row)`` does not
    type-check. Should one run all the same, it raises ``ReadOnlySessionError``, and the
    engine refuses a statement that writes (``default_transaction_read_only``,
    ``query_only``). It reads wherever an ``AsyncSession`` reads."""

    @deprecated("a reading session writes nothing: write in the request's writing session")
    def add(self, instance: object, _warn: bool = True) -> None:
        raise ReadOnlySessionError(READ_ONLY)

    @deprecated("a reading session writes nothing: write in the request's writing session")
    def add_all(self, instances: Iterable[object]) -> None:
        raise ReadOnlySessionError(READ_ONLY)

    @deprecated("a reading session writes nothing: write in the request's writing session")
    async def delete(self, instance: object) -> None:
        raise ReadOnlySessionError(READ_ONLY)

    @deprecated("a reading session writes nothing: write in the request's writing session")
    async def merge(self, *args: Any, **kwargs: Any) -> Any:
        raise ReadOnlySessionError(READ_ONLY)

    @deprecated("a reading session writes nothing: write in the request's writing session")
    async def flush(self, *args: Any, **kwargs: Any) -> None:
        raise ReadOnlySessionError(READ_ONLY)


Sessions = async_sessionmaker[AsyncSession]
ReadSessions = async_sessionmaker[AsyncReadSession]


@dataclass
class Database:
    """This process's engines and the sessions made from them."""

    writer: AsyncEngine
    reader: AsyncEngine
    sessions: Sessions  # that write: a transaction each
    read_sessions: ReadSessions  # that only read: autocommit, writes refused
    timeout_s: float

    @property
    def dialect(self) -> str:
        return self.writer.dialect.name

    @asynccontextmanager
    async def autocommit(self) -> AsyncIterator[AsyncConnection]:
        """A writer's connection in autocommit, each statement its own transaction, for
        work that belongs to no request (the server's own secret, say)."""
        async with self.writer.connect() as connection:
            yield await connection.execution_options(isolation_level="AUTOCOMMIT")

    async def dispose(self) -> None:
        await self.writer.dispose()
        await self.reader.dispose()


def async_url(database_url: str) -> URL:
    """``DATABASE_URL`` as the async engine takes it: ``sqlite:`` becomes
    ``sqlite+aiosqlite:``; ``postgresql+psycopg:`` names psycopg, whose async driver the
    async engine picks by itself."""
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        return url.set(drivername="sqlite+aiosqlite")
    return url


def make_database(settings: Settings) -> Database:
    url = async_url(settings.database_url)
    if url.get_backend_name() == "sqlite":
        writer, reader = _sqlite_engines(url, settings)
    else:
        writer, reader = _postgres_engines(url, settings)
    return Database(
        writer=writer,
        reader=reader,
        sessions=sessions_of(writer, float(settings.db_timeout_s)),
        read_sessions=read_sessions_of(reader, float(settings.db_timeout_s)),
        timeout_s=float(settings.db_timeout_s),
    )


def sessions_of(bind: AsyncEngine | AsyncConnection, timeout_s: float, **options: Any) -> Sessions:
    """Bounded writing sessions on ``bind``, as every request's are (``options``: the
    sessionmaker's own, such as ``join_transaction_mode`` for a test's connection)."""
    return async_sessionmaker(
        bind,
        class_=BoundedSession,
        expire_on_commit=False,
        autoflush=False,
        timeout_s=timeout_s,
        **options,
    )


def read_sessions_of(
    bind: AsyncEngine | AsyncConnection, timeout_s: float, **options: Any
) -> ReadSessions:
    """Bounded reading sessions on ``bind`` (``AsyncReadSession``), as ``sessions_of``."""
    return async_sessionmaker(
        bind,
        class_=AsyncReadSession,
        expire_on_commit=False,
        autoflush=False,
        timeout_s=timeout_s,
        **options,
    )


# The readers' engines: autocommit, and no ROLLBACK sent when a connection is given back
# (there is no transaction to end; the driver's rollback would still be a call, on
# aiosqlite a trip to its thread). Never the writers': SQLite's writer connections are in
# the driver's autocommit too (SQLAlchemy emits their BEGIN), and their rollbacks count.
READER_OPTIONS: dict[str, Any] = {"isolation_level": "AUTOCOMMIT", "skip_autocommit_rollback": True}


# -- PostgreSQL ---------------------------------------------------------------------------
def _postgres_connect_args(settings: Settings, url: URL, *, read_only: bool) -> dict[str, Any]:
    options = f"-c statement_timeout={settings.db_statement_timeout_ms}"
    if read_only:
        options += " -c default_transaction_read_only=on"
    named = {} if "application_name" in url.query else {"application_name": APPLICATION_NAME}
    return {
        "options": options,
        "connect_timeout": max(2, settings.db_timeout_s),  # libpq's least is 2 s
        # A pooled connection whose peer vanished is found out while idle (probes after
        # 30 s, then every 10 s, 3 unanswered: dead), and data unacknowledged for the
        # timeout closes the connection: a host gone or a network cut, not a frozen server.
        "keepalives": 1,
        "keepalives_idle": 30,
        "keepalives_interval": 10,
        "keepalives_count": 3,
        "tcp_user_timeout": settings.db_timeout_s * 1000,
        **named,
    }


def _postgres_engines(url: URL, settings: Settings) -> tuple[AsyncEngine, AsyncEngine]:
    def engine(*, read_only: bool) -> AsyncEngine:
        made = create_async_engine(
            url,
            pool_size=settings.db_pool_size,
            max_overflow=settings.db_pool_size,
            pool_timeout=settings.db_timeout_s,
            pool_recycle=1800,
            # No pre-ping (a round trip each checkout): a connection the server closed is
            # found by its socket at checkout (below), and replaced.
            pool_pre_ping=False,
            connect_args=_postgres_connect_args(settings, url, read_only=read_only),
            hide_parameters=True,  # errors and logs never show a deal, a token hash...
            **(READER_OPTIONS if read_only else {}),
        )
        event.listen(made.sync_engine, "checkout", _replace_if_closed)
        return made

    return engine(read_only=False), engine(read_only=True)


def _replace_if_closed(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    if not idle_and_open(dbapi_connection.driver_connection):
        raise DisconnectionError("the server closed the pooled connection")


def idle_and_open(connection: psycopg.AsyncConnection[Any]) -> bool:
    """Whether the connection is open with nothing to read, as a pooled connection the
    server has not closed is: no round trip, a poll of the socket. A server that ends a
    connection sends a FATAL message and closes it (readable); one that vanished without
    a word is the keepalives' (it is then closed, or broken)."""
    if connection.closed or connection.broken:
        return False
    try:
        readable, _, _ = select.select([connection.pgconn.socket], [], [], 0)
    except (OSError, ValueError, psycopg.Error):
        return False
    return not readable


# -- SQLite -------------------------------------------------------------------------------
def _sqlite_engines(url: URL, settings: Settings) -> tuple[AsyncEngine, AsyncEngine]:
    database = url.database or ""
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    timeout_s = settings.db_timeout_s

    def engine(*, read_only: bool, connections: int) -> AsyncEngine:
        made = create_async_engine(
            url,
            poolclass=AsyncAdaptedQueuePool,
            pool_size=connections,
            max_overflow=0,
            pool_timeout=timeout_s,
            connect_args={"timeout": timeout_s},  # SQLite's busy timeout, for other processes
            hide_parameters=True,
            **(READER_OPTIONS if read_only else {}),
        )

        @event.listens_for(made.sync_engine, "connect")
        def _on_connect(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN itself (below)
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")  # readers never wait for the writer
            cursor.execute(f"PRAGMA busy_timeout={timeout_s * 1000}")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA synchronous=NORMAL")
            if read_only:
                cursor.execute("PRAGMA query_only=ON")
            cursor.close()

        if not read_only:

            @event.listens_for(made.sync_engine, "begin")
            def _on_begin(connection: Any) -> None:
                if connection.get_execution_options().get("isolation_level") != "AUTOCOMMIT":
                    connection.exec_driver_sql("BEGIN IMMEDIATE")

        return made

    return (
        engine(read_only=False, connections=1),
        engine(read_only=True, connections=settings.db_pool_size),
    )
