"""The database's own bounds, as the connections carry them: DB_TIMEOUT_S is SQLite's
wait for the write lock, and PostgreSQL's connect timeout and TCP user timeout, next to
keepalives that find a dead peer of an idle pooled connection; a pooled connection is
checked out without a round trip, and replaced when the server has closed it. (A database that stops
answering without going away is tested through a server: tests/ops/test_freeze.py.)"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from app.kit.database import make_engine, make_sessionmaker
from app.settings import Settings


def test_the_connections_carry_the_database_timeout(database_url: str) -> None:
    engine = make_engine(Settings(database_url=database_url, db_timeout_s=7))
    try:
        with engine.connect() as connection:
            if engine.dialect.name == "sqlite":
                assert connection.scalar(text("PRAGMA busy_timeout")) == 7000
                return
            dsn = connection.connection.driver_connection.info.dsn  # type: ignore[union-attr]
    finally:
        engine.dispose()
    options = dict(item.split("=", 1) for item in dsn.split())
    assert options["connect_timeout"] == "7"
    assert options["tcp_user_timeout"] == "7000"
    assert options["keepalives"] == "1"
    assert {"keepalives_idle", "keepalives_interval", "keepalives_count"} <= options.keys()


def _backend(engine: Engine) -> int:
    with engine.connect() as connection:
        return int(connection.scalar(text("SELECT pg_backend_pid()")))


@contextmanager
def _monitor(url: str) -> Iterator[Connection]:
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            yield connection
    finally:
        engine.dispose()


@contextmanager
def _disposed(engine: Engine) -> Iterator[Engine]:
    try:
        yield engine
    finally:
        engine.dispose()


def _last_query(monitor: Connection, pid: int) -> str:
    query = text("SELECT query FROM pg_stat_activity WHERE pid = :pid")
    return str(monitor.scalar(query, {"pid": pid}))


def test_a_pooled_connection_is_checked_out_without_a_round_trip(postgresql_url: str) -> None:
    engine = make_engine(Settings(database_url=postgresql_url, db_pool_size=1))
    with _monitor(postgresql_url) as monitor, _disposed(engine):
        pid = _backend(engine)  # returned to the pool: rolled back, the last thing it ran
        assert _last_query(monitor, pid) == "ROLLBACK"
        with engine.connect() as connection:  # checked out: nothing is asked
            assert _last_query(monitor, pid) == "ROLLBACK"
            assert connection.scalar(text("SELECT pg_backend_pid()")) == pid


def test_a_pooled_connection_the_server_closed_is_replaced_at_checkout(
    postgresql_url: str,
) -> None:
    engine = make_engine(Settings(database_url=postgresql_url, db_pool_size=1))
    with _monitor(postgresql_url) as monitor, _disposed(engine):
        pid = _backend(engine)
        assert monitor.scalar(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        deadline = time.monotonic() + 10
        while _last_query(monitor, pid) != "None":  # gone from pg_stat_activity
            assert time.monotonic() < deadline
            time.sleep(0.05)
        # The request that meets it gets a new connection, not an error.
        assert _backend(engine) != pid


def test_a_connection_given_back_inside_a_transaction_is_rolled_back(database_url: str) -> None:
    """The pool rolls back only what is open (PostgreSQL), yet always does: a connection
    handed back mid-transaction, past SQLAlchemy's own rollback, comes back clean."""
    engine = make_engine(Settings(database_url=database_url, db_pool_size=1))
    try:
        raw = engine.raw_connection()
        cursor = raw.cursor()
        cursor.execute("SELECT 1")  # opens a transaction (not autocommit)
        if engine.dialect.name == "postgresql":
            assert raw.driver_connection.info.transaction_status.name == "INTRANS"  # type: ignore[union-attr]
        raw.close()  # back to the pool, its transaction still open
        again = engine.raw_connection()
        if engine.dialect.name == "postgresql":
            info = again.driver_connection.info  # type: ignore[union-attr]
            assert info.transaction_status.name == "IDLE"
        else:
            assert not again.driver_connection.in_transaction  # type: ignore[union-attr]
        again.close()
    finally:
        engine.dispose()


# -- SQLite: this process's writers take turns --------------------------------------------
def _sqlite_engine(database_url: str, timeout_s: int = 5) -> Engine:
    if not database_url.startswith("sqlite"):
        pytest.skip("SQLite's writers")
    return make_engine(Settings(database_url=database_url, db_timeout_s=timeout_s))


def _second_writer(
    sessions: sessionmaker[Session], began: threading.Event, went: list[float]
) -> None:
    with sessions() as session:
        began.set()
        session.execute(text("INSERT INTO writer_turns (n) VALUES (2)"))
        went.append(time.monotonic())
        session.commit()


def test_a_sqlite_writer_waits_for_the_one_before_it_to_end_in_any_way(
    database_url: str,
) -> None:
    """Each writer's turn ends with its commit, its rollback, or its connection closed
    (invalidated); the next writer, on another connection, goes then and not before."""
    engine = _sqlite_engine(database_url)
    sessions = make_sessionmaker(engine)
    with _disposed(engine):
        with engine.begin() as connection:
            connection.exec_driver_sql(
                "CREATE TABLE IF NOT EXISTS writer_turns (n INTEGER NOT NULL)"
            )
        for end in ("commit", "rollback", "invalidate"):
            first = sessions()
            first.execute(text("INSERT INTO writer_turns (n) VALUES (1)"))  # its turn
            began = threading.Event()
            went: list[float] = []
            thread = threading.Thread(target=_second_writer, args=(sessions, began, went))
            thread.start()
            assert began.wait(5)
            time.sleep(0.2)
            assert not went, f"a writer went before the one holding the lock ended ({end})"
            ended = time.monotonic()
            if end == "commit":
                first.commit()
            elif end == "rollback":
                first.rollback()
            else:
                first.connection().invalidate()
            first.close()
            thread.join(5)
            assert went and went[0] >= ended
        with engine.connect() as connection:
            counted = connection.scalar(text("SELECT count(*) FROM writer_turns WHERE n = 2"))
            assert counted == 3
            connection.exec_driver_sql("DROP TABLE writer_turns")
            connection.commit()


def test_a_sqlite_writer_that_waits_past_the_timeout_is_told_the_database_is_locked(
    database_url: str,
) -> None:
    engine = _sqlite_engine(database_url, timeout_s=1)
    sessions = make_sessionmaker(engine)
    with _disposed(engine), sessions() as holding:
        holding.connection()  # BEGIN IMMEDIATE: the process's writer
        failed: list[BaseException] = []

        def waiting() -> None:
            try:
                with sessions() as session:
                    session.connection()
            except OperationalError as e:
                failed.append(e)

        started = time.monotonic()
        thread = threading.Thread(target=waiting)
        thread.start()
        thread.join(10)
        assert failed and "database is locked" in str(failed[0])
        assert 0.9 <= time.monotonic() - started < 5
        holding.rollback()
        with sessions() as session:  # the turn was given back
            session.connection()
            session.commit()
