"""The database engine and sessions: one for requests that write, one for those that read.

SQLite is opened in WAL mode with a busy timeout. A writing session starts its transaction
with ``BEGIN IMMEDIATE``: a game's read and its write then happen under one lock, so two
racing moves are serialised instead of failing to upgrade a stale read snapshot. A reading
session starts with a plain (deferred) ``BEGIN``, which takes no write lock: in WAL mode
readers never wait for a writer, nor writers for them. PostgreSQL runs in READ COMMITTED
(reading sessions in READ ONLY transactions); the optimistic version check in the
repositories decides races there.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from app.settings import Settings

log = logging.getLogger("app.db")

# The execution option that picks SQLite's BEGIN: IMMEDIATE (the default: a writer) or
# DEFERRED (a reader).
SQLITE_BEGIN = "tripeaks_sqlite_begin"


def make_engine(settings: Settings) -> Engine:
    url = make_url(settings.database_url)
    if url.get_backend_name() == "sqlite":
        database = url.database or ""
        if database and database != ":memory:" and not database.startswith("file:"):
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": 30},
            hide_parameters=True,  # errors and logs never show a deal, a token hash...
        )
        _sqlite_pragmas(engine)
        return engine
    connect_args: dict[str, Any] = {
        "options": f"-c statement_timeout={settings.db_statement_timeout_ms}",
        "connect_timeout": 5,
    }
    return create_engine(
        url,
        pool_size=settings.db_pool_size,
        max_overflow=settings.db_pool_size * 2,
        pool_pre_ping=True,  # a connection the server dropped is replaced, not used
        pool_timeout=10,
        pool_recycle=1800,
        connect_args=connect_args,
        hide_parameters=True,
    )


def _sqlite_pragmas(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN itself (below)
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        mode = connection.get_execution_options().get(SQLITE_BEGIN, "IMMEDIATE")
        connection.exec_driver_sql(f"BEGIN {mode}")


class RequestSession(Session):
    """A session whose closing survives a connection the database dropped.

    Closing rolls back whatever is open; when the server has terminated the connection
    in the meantime that rollback fails, although there is nothing left to undo (the
    server dropped the transaction with the connection). The request has been answered by
    then, so the error must not escape: the connection is discarded instead.
    """

    def close(self) -> None:
        try:
            super().close()
        except DBAPIError as e:
            if not (e.connection_invalidated or isinstance(e, OperationalError)):
                raise
            log.warning("database connection lost at session close: %s", type(e.orig).__name__)
            self.invalidate()


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
