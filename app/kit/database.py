"""The database engine and sessions: one for requests that write, one for those that read.

SQLite is opened in WAL mode with a busy timeout. A writing session starts its transaction
with ``BEGIN IMMEDIATE``: a game's read and its write then happen under one lock, so two
racing moves are serialised instead of failing to upgrade a stale read snapshot. A reading
session starts with a plain (deferred) ``BEGIN``, which takes no write lock: in WAL mode
readers never wait for a writer, nor writers for them. PostgreSQL runs in READ COMMITTED
(reading sessions in READ ONLY transactions); the optimistic version check in the
repositories decides races there.

How long a request waits on the database is bounded by ``DB_TIMEOUT_S``: on SQLite, the
wait for the write lock; on PostgreSQL, the wait for a pooled connection, for a new one
(libpq's ``connect_timeout``, at least 2 s), and for each answer. The last needs its own
code: a database that has stopped (a frozen host or VM, a SIGSTOP'ed server, a stalled
proxy) still has its kernel accept and acknowledge bytes, so neither TCP keepalives nor
``tcp_user_timeout`` ever fire, and psycopg would wait for the answer forever. Its
connections here are ``BoundedConnection``: a wait past the bound closes the connection
and raises an OperationalError, which the pool discards and the handlers answer with a
503; a request on a database that stopped answering gets its 503 within about
``DB_TIMEOUT_S`` (its pooled connection's first answer; the next requests, once the pool
has been invalidated, one try of a new connection each), and the server recovers by
itself once the database answers again. The TCP options still serve where the kernel does
not answer either (a host gone, a network cut): a pooled connection found dead by
keepalives is replaced before a request meets it.

A pooled connection is not pinged when it is checked out (a round trip on every request):
a connection the server has closed meanwhile (``pg_terminate_backend``, a restart, an idle
timeout) has said so on its socket, a FATAL message and the end of the stream, so a
connection whose socket has anything to read while idle is replaced at checkout, without
asking the server anything (``BoundedConnection.idle_and_open``).

A request whose writes are one statement need not pay for a transaction around it
(psycopg sends BEGIN, then COMMIT, each a round trip): ``statements_commit_alone`` puts a
writing session's PostgreSQL connection in autocommit, where each statement is its own
transaction, with its own snapshot, committed when it returns. A move is then two round
trips: the game's row read, and the move's one statement (``app.games.repository``).
``one_transaction`` gives such a session a real transaction back, before the first of
several writes that must land together.

Those statements are the server's hottest (a move's read and write, a new game's insert),
and SQLAlchemy's execution of a statement (its context, cursor result and metadata, the
session's transaction and connection around it) costs more server CPU than the round trip
itself: about 0.1 ms a statement, and as much again to put the session's connection in
autocommit and take it back. So a session whose statements commit alone holds a pooled
connection for them, in autocommit (``RequestSession.driver``), and the repositories run
those few statements on it as ``DriverStatement``: compiled once by SQLAlchemy, their
parameters and columns still processed by its types and their errors raised as its
errors, but sent by the driver directly. The pool's checkout check, bounded waits and
invalidation apply to that connection as to every other; anything else the session runs
meanwhile goes through the session as usual, in a transaction of its own. On SQLite the
same statements are sent by the driver too (the ORM's read of a game cost a fifth of a
move's server CPU), on the session's own connection and inside its transaction, which
keeps BEGIN IMMEDIATE's lock from a move's read to its write and commits at the end.

A move on PostgreSQL needs no session at all when it is plain: ``LoopStatements`` is a
pool of connections in autocommit on the event loop (psycopg's async connections), on
which its two statements go without a trip through the threadpool, with the same bounds
(the wait for a connection, for each answer) and errors (``app.games.access``).
"""

from __future__ import annotations

import asyncio
import logging
import select
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, TypeVar

import psycopg
import psycopg.conninfo
from psycopg.abc import PQGen
from psycopg_pool import AsyncConnectionPool, PoolTimeout
from sqlalchemy import Dialect, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, DisconnectionError, OperationalError
from sqlalchemy.orm import DeclarativeBase, Session, configure_mappers, sessionmaker
from sqlalchemy.pool import PoolProxiedConnection, PoolResetState
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler

from app.settings import Settings

log = logging.getLogger("app.db")

# The execution option that picks SQLite's BEGIN: IMMEDIATE (the default: a writer) or
# DEFERRED (a reader).
SQLITE_BEGIN = "tripeaks_sqlite_begin"
IDLE = psycopg.pq.TransactionStatus.IDLE  # a PostgreSQL connection with no transaction open


def _pg_connect_args(settings: Settings) -> dict[str, Any]:
    """libpq's options for every PostgreSQL connection, the engine's and the moves'."""
    return {
        "options": f"-c statement_timeout={settings.db_statement_timeout_ms}",
        "connect_timeout": max(2, settings.db_timeout_s),  # libpq's least is 2 s
        # A pooled connection whose peer vanished is found out while idle (probes after
        # 30 s, then every 10 s, 3 unanswered: dead), and data unacknowledged for the
        # timeout closes the connection: a host gone or a network cut, not a frozen server.
        "keepalives": 1,
        "keepalives_idle": 30,
        "keepalives_interval": 10,
        "keepalives_count": 3,
        "tcp_user_timeout": settings.db_timeout_s * 1000,
    }


def make_engine(settings: Settings) -> Engine:
    url = make_url(settings.database_url)
    if url.get_backend_name() == "sqlite":
        database = url.database or ""
        if database and database != ":memory:" and not database.startswith("file:"):
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": settings.db_timeout_s},
            hide_parameters=True,  # errors and logs never show a deal, a token hash...
        )
        _sqlite_pragmas(engine, settings.db_timeout_s)
        return engine
    connect_args = _pg_connect_args(settings)
    engine = create_engine(
        url,
        pool_size=settings.db_pool_size,
        max_overflow=settings.db_pool_size * 2,
        # No pre-ping (a round trip each checkout): a connection the server dropped is
        # found by its socket at checkout (below), and replaced.
        pool_pre_ping=False,
        pool_timeout=settings.db_timeout_s,
        pool_recycle=1800,
        # A connection given back is rolled back only when a transaction is open on it
        # (_rollback_if_open, below), not on every return: most come back idle (committed,
        # or in autocommit), and psycopg's rollback of an idle connection, which sends
        # nothing, still cost about 2% of a move's server CPU.
        pool_reset_on_return=None,
        connect_args=connect_args,
        hide_parameters=True,
    )
    answer_timeout = float(settings.db_timeout_s)

    @event.listens_for(engine, "do_connect")
    def _bounded_connect(_dialect: Any, _record: Any, cargs: Any, cparams: Any) -> Any:
        connection = BoundedConnection.connect(*cargs, **cparams)
        connection.answer_timeout = answer_timeout
        return connection

    @event.listens_for(engine, "checkout")
    def _replace_if_dropped(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        if not dbapi_connection.idle_and_open():
            raise DisconnectionError("the server closed the pooled connection")

    @event.listens_for(engine, "reset")
    def _rollback_if_open(dbapi_connection: Any, _record: Any, state: PoolResetState) -> None:
        # As SQLAlchemy's own reset: not where the connection cannot be used (asyncio
        # cleanup); an error here invalidates the connection.
        if state.asyncio_safe and dbapi_connection.info.transaction_status != IDLE:
            dbapi_connection.rollback()

    return engine


def idle_and_open(connection: psycopg.Connection[Any] | psycopg.AsyncConnection[Any]) -> bool:
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


RV = TypeVar("RV")
WAIT_INTERVAL_S = 0.1  # psycopg's default (Connection.wait): how often a wait wakes up


class BoundedConnection(psycopg.Connection[Any]):
    """A psycopg connection that waits at most ``answer_timeout`` seconds for an answer.

    Every exchange of a sync psycopg connection (a query, a fetch, a commit, a rollback)
    is a generator that ``wait`` drives, resuming it whenever the socket is ready and at
    least every tenth of a second (psycopg's interval, there so that Ctrl-C is seen):
    given the bound as psycopg's own timeout, it checks it each time. Past it the exchange
    is left half done, so the connection is closed before the error is raised: SQLAlchemy
    then sees it closed and invalidates it, and the pool opens a new one for the next
    request.
    """

    answer_timeout: float | None = None

    def idle_and_open(self) -> bool:
        return idle_and_open(self)

    def wait(
        self, gen: PQGen[RV], interval: float = WAIT_INTERVAL_S, timeout: float | None = None
    ) -> RV:
        bound = self.answer_timeout
        if bound is None or (timeout is not None and timeout < bound):
            return super().wait(gen, interval, timeout)
        # psycopg's own wait keeps the deadline (in C with psycopg[binary]), checked each
        # time the exchange is resumed, after what was ready has been taken.
        try:
            return super().wait(gen, interval, bound)
        except psycopg.errors._WaitTimeout:
            self.pgconn.finish()
            raise psycopg.OperationalError(
                f"the database did not answer within {bound:g} s: connection closed"
            ) from None


class _OneWriter:
    """SQLite: this process's writers (``BEGIN IMMEDIATE`` to its commit or rollback) take
    turns on a lock of its own before they ask SQLite for its write lock. SQLite makes a
    writer that finds the database locked sleep and try again, 1 ms, then 2, 5, 10... up
    to 100 ms at a time: four clients moving at once had a move's p99 at 57 ms, where a
    waiter on this lock goes the moment the writer before it is done. Writers in other
    processes (more workers, a purge) still meet SQLite's busy timeout. The wait here is
    bounded by the same timeout, and ends as SQLite's would: "database is locked"."""

    def __init__(self, dialect: Dialect, timeout_s: float) -> None:
        self._lock = threading.Lock()
        self._holder: int | None = None  # id() of the DBAPI connection holding it
        self._timeout_s = timeout_s
        commit, rollback, close = dialect.do_commit, dialect.do_rollback, dialect.do_close

        def do_commit(dbapi_connection: Any) -> None:
            try:
                commit(dbapi_connection)
            finally:
                self.release(dbapi_connection)

        def do_rollback(dbapi_connection: Any) -> None:
            try:
                rollback(dbapi_connection)
            finally:
                self.release(dbapi_connection)

        def do_close(dbapi_connection: Any) -> None:
            try:
                close(dbapi_connection)
            finally:
                self.release(dbapi_connection)

        # The dialect is this engine's own instance: its commit, rollback and close (an
        # invalidated connection's) end a writer's turn, after SQLite has let go.
        dialect.do_commit = do_commit  # type: ignore[method-assign]
        dialect.do_rollback = do_rollback  # type: ignore[method-assign]
        dialect.do_close = do_close  # type: ignore[method-assign]

    def acquire(self, connection: Any) -> None:
        """For ``connection``'s writer (the driver's connection, or the pool's proxy of
        it, as SQLAlchemy hands either to the dialect)."""
        if not self._lock.acquire(timeout=self._timeout_s):
            raise OperationalError(
                "BEGIN IMMEDIATE", None, sqlite3.OperationalError("database is locked")
            )
        self._holder = id(_driver_connection(connection))

    def release(self, connection: Any) -> None:
        if self._holder is not None and self._holder == id(_driver_connection(connection)):
            self._holder = None
            self._lock.release()


def _driver_connection(connection: Any) -> Any:
    """The driver's connection behind the pool's proxy, if ``connection`` is one."""
    return getattr(connection, "dbapi_connection", connection)


def _sqlite_pragmas(engine: Engine, timeout_s: int) -> None:
    writers = _OneWriter(engine.dialect, timeout_s)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN itself (below)
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={timeout_s * 1000}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        mode = connection.get_execution_options().get(SQLITE_BEGIN, "IMMEDIATE")
        if mode != "IMMEDIATE":
            connection.exec_driver_sql(f"BEGIN {mode}")
            return
        dbapi_connection = connection.connection.dbapi_connection
        writers.acquire(dbapi_connection)
        try:
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        except BaseException:
            writers.release(dbapi_connection)
            raise


class RequestSession(Session):
    """A session whose closing survives a connection the database dropped, and which can
    hold a connection whose statements commit alone.

    Closing rolls back whatever is open; when the server has terminated the connection
    in the meantime that rollback fails, although there is nothing left to undo (the
    server dropped the transaction with the connection). The request has been answered by
    then, so the error must not escape: the connection is discarded instead.
    """

    _alone: PoolProxiedConnection | None = None
    # SQLite: the driver sends the repositories' hot statements on the session's own
    # connection, in its transaction (``statements_commit_alone``).
    _driver_in_transaction = False

    def driver(self) -> Any | None:
        """The driver's connection on which the repositories send their hot statements
        themselves: PostgreSQL's that commit alone, or SQLite's own, in the session's
        transaction (begun, with its lock, if it was not yet); else None."""
        if self._alone is not None:
            return self._alone.driver_connection
        if self._driver_in_transaction:
            return self.connection().connection.driver_connection
        return None

    def drive_in_transaction(self) -> None:
        """SQLite: the repositories' hot statements are sent by the driver, on this
        session's own connection, in its transaction (until ``end_alone``)."""
        self._driver_in_transaction = True

    def begin_alone(self, engine: Engine) -> None:
        if self._alone is not None or self.in_transaction():
            return
        try:
            # The pool's checkout, its check included: a dropped connection is replaced.
            proxied = engine.raw_connection()
        except psycopg.Error as e:  # as SQLAlchemy raises a failed connect, wrapped
            raise _as_sqlalchemy_error(None, e) from e
        try:
            proxied.driver_connection.autocommit = True  # type: ignore[union-attr]
        except psycopg.Error as e:
            proxied.invalidate()
            proxied.close()
            raise _as_sqlalchemy_error(None, e) from e
        self._alone = proxied

    def end_alone(self) -> None:
        """Give the connection whose statements committed alone back to the pool, in its
        usual mode (discarded if it broke); on SQLite, the session runs its statements
        itself again."""
        self._driver_in_transaction = False
        proxied, self._alone = self._alone, None
        if proxied is None:
            return
        try:
            proxied.driver_connection.autocommit = False  # type: ignore[union-attr]
        except psycopg.Error:
            proxied.invalidate()
        proxied.close()

    def close(self) -> None:
        self.end_alone()
        try:
            super().close()
        except DBAPIError as e:
            if not (e.connection_invalidated or isinstance(e, OperationalError)):
                raise
            log.warning("database connection lost at session close: %s", type(e.orig).__name__)
            self.invalidate()


def statements_commit_alone(session: Session) -> None:
    """PostgreSQL: each statement the repositories run as a ``DriverStatement`` in
    ``session``, until ``one_transaction`` or the session's end, commits as it returns
    (autocommit, on a connection the session holds for them: no BEGIN and no COMMIT, a
    round trip each); the session's commit has nothing of them left to do, its rollback
    nothing to undo. For a request whose writes are at most one statement, which is
    atomic alone; call it before the session's first statement. SQLite: nothing commits
    alone (a writer holds BEGIN IMMEDIATE's lock from its read to its write, and the
    session commits at the request's end), but the same statements are sent by the
    driver too, on the session's own connection: the rows the repositories answer are
    the same, in no session, on both. Nothing either for a session bound to a connection
    whose transaction it joins (a test's, rolled back after it)."""
    bind = session.get_bind()
    if not (isinstance(session, RequestSession) and isinstance(bind, Engine)):
        return
    if bind.dialect.name == "postgresql":
        session.begin_alone(bind)
    elif bind.dialect.name == "sqlite":
        session.drive_in_transaction()


def driver_rows(
    session: Session, statement: ClauseElement, params: Mapping[str, Any]
) -> list[tuple[Any, ...]] | None:
    """``statement`` sent by the driver on ``session``'s driver connection
    (``statements_commit_alone``): the rows it answers (none for one that returns no
    rows). None when the session has none: the caller then has the session run it."""
    connection = session.driver() if isinstance(session, RequestSession) else None
    if connection is None:
        return None
    return DriverStatement.of(statement, session.get_bind().dialect).rows(connection, params)


def one_transaction(session: Session) -> None:
    """From here on, ``session``'s statements share one transaction again, committed at
    the request's boundary: for writes that must land together. A session whose
    statements committed alone gives that connection back (nothing is left to commit:
    no round trip); its next statement runs in the session's own transaction."""
    end_alone(session)


def end_alone(session: Session) -> None:
    """Give back the connection on which ``session``'s statements commit alone, if any."""
    if isinstance(session, RequestSession):
        session.end_alone()


Processor = Callable[[Any], Any]


class DriverStatement:
    """A Core statement compiled once for a dialect and sent by the driver itself, on a
    connection whose statements commit alone (see the module's doc). SQLAlchemy's types
    still process its parameters and the columns it answers, and a driver's error is
    raised as SQLAlchemy's (``IntegrityError``, ``OperationalError``...), its parameters
    hidden, as for a statement a session runs. ``rows`` sends it and answers its rows
    (none for a statement that returns no rows)."""

    def __init__(self, statement: ClauseElement, dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        assert isinstance(compiled, SQLCompiler)  # a statement's, not a DDL element's
        self.sql = compiled.string
        # sqlite3's "?": the parameters in order; psycopg's "%(name)s": by name.
        self._order = tuple(compiled.positiontup or ()) if compiled.positional else None
        self._error: type[Exception] = dialect.loaded_dbapi.Error
        self._binds: list[tuple[str, Processor]] = []
        for name, bind in compiled.binds.items():
            process = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if process is not None:
                self._binds.append((name, process))
        columns = getattr(statement, "exported_columns", ())
        self._columns: list[Processor | None] = [
            column.type.dialect_impl(dialect).result_processor(dialect, None) for column in columns
        ]
        self._processed = any(p is not None for p in self._columns)

    @staticmethod
    @lru_cache(maxsize=64)
    def of(statement: ClauseElement, dialect: Dialect) -> DriverStatement:
        """``statement`` compiled for ``dialect``, once."""
        return DriverStatement(statement, dialect)

    @property
    def returns_rows(self) -> bool:
        return bool(self._columns)

    def bound(self, params: Mapping[str, Any]) -> Any:
        """``params`` as the driver takes them: processed by their types, by name or in
        order."""
        bound = dict(params)
        for name, process in self._binds:
            if name in bound:
                bound[name] = process(bound[name])
        return bound if self._order is None else tuple(bound[name] for name in self._order)

    def processed(self, rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """The driver's ``rows``, their columns processed by their types."""
        if not self._processed:
            return rows
        columns = self._columns
        return [
            tuple(v if p is None or v is None else p(v) for p, v in zip(columns, row, strict=True))
            for row in rows
        ]

    def rows(self, connection: Any, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        try:
            cursor = connection.execute(self.sql, self.bound(params))
            rows: list[tuple[Any, ...]] = cursor.fetchall() if self.returns_rows else []
        except self._error as e:
            raise _as_sqlalchemy_error(self.sql, e, connection, self._error) from e
        return self.processed(rows)


M = TypeVar("M", bound=DeclarativeBase)


def loaded(model: type[M], row: tuple[Any, ...]) -> M:
    """An instance of ``model`` holding ``row`` (a ``DriverStatement``'s row of its
    table's columns, in order) as loaded values, as the ORM's own loading leaves them,
    but in no session: nothing about it is pending or tracked, and it loads nothing by
    itself. Read it; write through the repositories."""
    mapper = model.__mapper__
    if not mapper.configured:  # as the ORM's first use does: its attributes are set up
        configure_mappers()
    instance: M = mapper.class_manager.new_instance()
    # Where the ORM keeps loaded values: a new instance has nothing pending or expired,
    # so this is set_committed_value for every column at once (a tenth of its cost).
    instance.__dict__.update(zip(_column_keys(model), row, strict=True))
    return instance


@cache
def _column_keys(model: type[DeclarativeBase]) -> tuple[str, ...]:
    return tuple(column.key for column in model.__table__.columns)


def _as_sqlalchemy_error(
    sql: str | None,
    error: Exception,
    connection: Any | None = None,
    base: type[Exception] = psycopg.Error,
) -> Exception:
    """``error`` (of the driver whose errors derive from ``base``) as SQLAlchemy raises a
    driver's error (``sql`` failed on ``connection``, or the connection itself could not
    be had). A psycopg connection says whether it broke; sqlite3's has no such state."""
    broken = connection is not None and bool(
        getattr(connection, "closed", False) or getattr(connection, "broken", False)
    )
    return DBAPIError.instance(
        sql,
        None,  # hidden, as hide_parameters hides them: a deal, a token's hash...
        error,
        base,
        connection_invalidated=broken,
    )


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    """Sessions for requests that write (SQLite: ``BEGIN IMMEDIATE``)."""
    return sessionmaker(engine, class_=RequestSession, expire_on_commit=False, autoflush=False)


def make_read_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    """Sessions for requests that only read: no write lock on SQLite, a READ ONLY
    transaction on PostgreSQL (a write by mistake fails instead of landing)."""
    if engine.dialect.name == "sqlite":
        reader = engine.execution_options(**{SQLITE_BEGIN: "DEFERRED"})
    else:
        reader = engine.execution_options(postgresql_readonly=True)
    return sessionmaker(reader, class_=RequestSession, expire_on_commit=False, autoflush=False)


# How the moves' connections on the event loop name themselves to PostgreSQL
# (pg_stat_activity), unless DATABASE_URL names its connections itself.
LOOP_APPLICATION = "tripeaks-loop"


class LoopStatements:
    """PostgreSQL: a pool of connections in autocommit for the event loop, on which the
    hottest request, a move, sends its statements without a trip through the threadpool
    (``app.games.access.move_on_loop``). Each statement commits as it returns, as on the
    connection of ``statements_commit_alone``, and the same bounds hold: the wait for a connection
    (``DB_TIMEOUT_S``, then a 503), for each answer (past it the connection is closed and
    the request answered 503), a connection the server closed found by its socket and
    replaced without a round trip; and a driver's error is raised as SQLAlchemy's.
    Connections are opened as needed, at most ``DB_POOL_SIZE`` (besides the engine's
    pool), and set to autocommit once, when opened.

    It serves the event loop it was opened on (a server's: ``open`` in the app's
    lifespan), and ``serves()`` says whether the running loop is that one."""

    def __init__(self, settings: Settings, dialect: Dialect) -> None:
        url = make_url(settings.database_url).set(drivername="postgresql")
        named = {} if "application_name" in url.query else {"application_name": LOOP_APPLICATION}
        conninfo = psycopg.conninfo.make_conninfo(
            url.render_as_string(hide_password=False), **_pg_connect_args(settings), **named
        )
        self.dialect = dialect
        self.timeout_s = float(settings.db_timeout_s)
        self._pool = AsyncConnectionPool(
            conninfo,
            min_size=0,
            max_size=settings.db_pool_size,
            timeout=self.timeout_s,
            kwargs={"autocommit": True},
            check=_checked_idle,
            open=False,
            name="moves",
        )
        self._loop: asyncio.AbstractEventLoop | None = None

    async def open(self) -> None:
        await self._pool.open(wait=False)
        self._loop = asyncio.get_running_loop()

    async def close(self) -> None:
        self._loop = None
        await self._pool.close(timeout=self.timeout_s)

    def serves(self) -> bool:
        try:
            return self._loop is not None and asyncio.get_running_loop() is self._loop
        except RuntimeError:
            return False

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        """A pooled connection, given back at the end (discarded if it broke)."""
        try:
            connection = await self._pool.getconn()
        except PoolTimeout as e:
            raise OperationalError(None, None, e) from e
        try:
            yield connection
        finally:
            await self._pool.putconn(connection)

    async def rows(
        self,
        connection: psycopg.AsyncConnection[Any],
        statement: ClauseElement,
        params: Mapping[str, Any],
    ) -> list[tuple[Any, ...]]:
        """``statement`` sent on ``connection``, committed as it returns: its rows, as
        ``DriverStatement.rows`` answers them."""
        driver = DriverStatement.of(statement, self.dialect)
        try:
            async with asyncio.timeout(self.timeout_s):
                cursor = await connection.execute(driver.sql, driver.bound(params))
                rows = await cursor.fetchall() if driver.returns_rows else []
        except TimeoutError:
            # The exchange is left half done: the connection is closed, and the pool
            # discards it when it is given back.
            connection.pgconn.finish()
            error = psycopg.OperationalError(
                f"the database did not answer within {self.timeout_s:g} s: connection closed"
            )
            raise _as_sqlalchemy_error(driver.sql, error, connection) from None
        except psycopg.Error as e:
            raise _as_sqlalchemy_error(driver.sql, e, connection) from e
        return driver.processed(rows)


async def _checked_idle(connection: psycopg.AsyncConnection[Any]) -> None:
    """The pool's check at each checkout: a connection the server has closed is replaced."""
    if not idle_and_open(connection):
        raise psycopg.OperationalError("the server closed the pooled connection")


def make_loop_statements(settings: Settings, engine: Engine) -> LoopStatements | None:
    """The moves' pool on the event loop: PostgreSQL's only."""
    if engine.dialect.name != "postgresql":
        return None
    return LoopStatements(settings, engine.dialect)
