"""The database's own bounds and guarantees (``app.kit.database``), on its public face:
the engines and sessions a ``Database`` makes.

- DB_TIMEOUT_S is SQLite's busy timeout, and PostgreSQL's connect timeout and TCP user
  timeout, next to keepalives that find a dead peer of an idle pooled connection;
- every call a session makes waits at most DB_TIMEOUT_S for its answer (then
  ``DatabaseTimeoutError``), and the connection it waited on is not used again;
- a pooled connection is checked out without a round trip, and replaced when the server
  has closed it;
- reading sessions refuse writes; writing sessions on SQLite take turns for the one
  writer connection, each turn ending with its commit, its rollback or its connection
  discarded, and a writer that waits past the timeout is refused.

(A database that stops answering without going away is tested through a server:
tests/ops/test_freeze.py.)
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TypeVar

import pytest
from mypy import api as mypy_api
from psycopg.conninfo import conninfo_to_dict
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from sqlalchemy.ext.asyncio import AsyncConnection, create_async_engine

from app.kit.database import (
    Database,
    DatabaseTimeoutError,
    ReadOnlySessionError,
    make_database,
)
from app.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
T = TypeVar("T")


def run(work: Callable[[], Awaitable[T]]) -> T:
    return asyncio.run(work())  # type: ignore[arg-type]


@asynccontextmanager
async def database_of(url: str, **settings: object) -> AsyncIterator[Database]:
    database = make_database(Settings(database_url=url, **settings))  # type: ignore[arg-type]
    try:
        yield database
    finally:
        await database.dispose()


@asynccontextmanager
async def monitor(url: str) -> AsyncIterator[AsyncConnection]:
    """A connection of the test's own, in autocommit, to watch the server."""
    engine = create_async_engine(url, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as connection:
            yield connection
    finally:
        await engine.dispose()


async def backend(database: Database) -> int:
    async with database.read_sessions() as session:
        return int(await session.scalar(text("SELECT pg_backend_pid()")))


async def last_query(watch: AsyncConnection, pid: int) -> str:
    query = text("SELECT query FROM pg_stat_activity WHERE pid = :pid")
    return str(await watch.scalar(query, {"pid": pid}))


def test_the_connections_carry_the_database_timeout(database_url: str) -> None:
    async def work() -> None:
        async with database_of(database_url, db_timeout_s=7) as database:
            for engine in (database.writer, database.reader):
                async with engine.connect() as connection:
                    if engine.dialect.name == "sqlite":
                        assert await connection.scalar(text("PRAGMA busy_timeout")) == 7000
                        continue
                    raw = await connection.get_raw_connection()
                    dsn = raw.driver_connection.info.dsn  # type: ignore[union-attr]
                    options = conninfo_to_dict(dsn)
                    assert options["connect_timeout"] == "7"
                    assert options["tcp_user_timeout"] == "7000"
                    assert options["keepalives"] == "1"
                    assert {"keepalives_idle", "keepalives_interval"} <= options.keys()

    run(work)


def test_a_reading_session_refuses_to_write(database_url: str) -> None:
    async def work() -> None:
        async with database_of(database_url) as database, database.read_sessions() as session:
            with pytest.raises(DBAPIError, match=r"read-only|readonly"):
                await session.execute(text("CREATE TABLE never_made (n INTEGER)"))

    run(work)


def test_a_reading_session_refuses_the_orm_s_writes_before_any_statement(
    database_url: str,
) -> None:
    async def work() -> None:
        async with database_of(database_url) as database, database.read_sessions() as session:
            # What mypy refuses (the next test), run all the same.
            with pytest.warns(DeprecationWarning), pytest.raises(ReadOnlySessionError):
                session.add(object())  # type: ignore[deprecated]
            with pytest.warns(DeprecationWarning), pytest.raises(ReadOnlySessionError):
                await session.flush()  # type: ignore[deprecated]

    run(work)


@pytest.mark.slow
def test_a_write_on_a_reading_session_does_not_type_check(tmp_path: Path) -> None:
    """The guarantee is the type checker's: mypy, with the project's settings, refuses
    ``add`` and ``flush`` on an ``AsyncReadSession`` and accepts its reads."""
    source = tmp_path / "reads.py"
    source.write_text(
        "from sqlalchemy import text\n"
        "from app.kit.database import AsyncReadSession\n\n\n"
        "async def reads(session: AsyncReadSession) -> None:\n"
        "    await session.execute(text('SELECT 1'))\n"
        "    session.add(object())\n"
        "    await session.flush()\n"
    )
    out, _, status = mypy_api.run(
        ["--config-file", str(ROOT / "pyproject.toml"), "--no-incremental", str(source)]
    )
    refused = [line for line in out.splitlines() if "[deprecated]" in line]
    assert status == 1, out
    assert [line.split(":")[1] for line in refused] == ["7", "8"], out


def test_an_answer_past_the_timeout_is_a_timeout_and_its_connection_is_discarded(
    postgresql_url: str,
) -> None:
    """The server answers nothing for longer than DB_TIMEOUT_S (a query that sleeps): the
    call gets DatabaseTimeoutError within about the bound, the query is cancelled, and
    the next session works on another connection."""

    async def work() -> None:
        async with database_of(postgresql_url, db_timeout_s=1, db_pool_size=1) as database:
            before = await backend(database)
            loop = asyncio.get_running_loop()
            started = loop.time()
            async with database.read_sessions() as session:
                with pytest.raises(DatabaseTimeoutError, match="within 1 s"):
                    await session.execute(text("SELECT pg_sleep(60)"))
            assert loop.time() - started < 30  # cancelled, not slept out
            assert await backend(database) != before

    run(work)


def test_a_pooled_connection_is_checked_out_without_a_round_trip(postgresql_url: str) -> None:
    async def work() -> None:
        async with (
            database_of(postgresql_url, db_pool_size=1) as database,
            monitor(postgresql_url) as watch,
        ):
            pid = await backend(database)  # back in the pool
            assert await last_query(watch, pid) == "SELECT pg_backend_pid()"
            async with database.reader.connect() as connection:  # checked out: nothing asked
                assert await last_query(watch, pid) == "SELECT pg_backend_pid()"
                assert await connection.scalar(text("SELECT pg_backend_pid()")) == pid

    run(work)


def test_a_pooled_connection_the_server_closed_is_replaced_at_checkout(
    postgresql_url: str,
) -> None:
    async def work() -> None:
        async with (
            database_of(postgresql_url, db_pool_size=1) as database,
            monitor(postgresql_url) as watch,
        ):
            for session_of in (database.read_sessions, database.sessions):
                async with session_of() as session:
                    pid = int(await session.scalar(text("SELECT pg_backend_pid()")))
                    await session.commit()
                terminated = text("SELECT pg_terminate_backend(:pid)")
                assert await watch.scalar(terminated, {"pid": pid})
                for _ in range(200):  # gone from pg_stat_activity
                    if await last_query(watch, pid) == "None":
                        break
                    await asyncio.sleep(0.05)
                # The request that meets it gets a new connection, not an error.
                async with session_of() as session:
                    assert await session.scalar(text("SELECT pg_backend_pid()")) != pid

    run(work)


def test_a_connection_given_back_inside_a_transaction_is_rolled_back(database_url: str) -> None:
    async def work() -> None:
        async with database_of(database_url, db_pool_size=1) as database:
            session = database.sessions()
            await session.execute(text("SELECT 1"))  # a transaction is open
            await session.close()  # back to the pool
            async with database.writer.connect() as connection:
                raw = await connection.get_raw_connection()
                driver = raw.driver_connection
                if database.dialect == "postgresql":
                    assert driver.info.transaction_status.name == "IDLE"  # type: ignore[union-attr]
                else:
                    assert not driver.in_transaction  # type: ignore[union-attr]

    run(work)


# -- SQLite: this process's writers take turns --------------------------------------------
def _sqlite(database_url: str) -> str:
    if not database_url.startswith("sqlite"):
        pytest.skip("SQLite's writers")
    return database_url


def test_a_sqlite_writer_waits_for_the_one_before_it_to_end_in_any_way(
    database_url: str,
) -> None:
    """Each writer's turn ends with its commit, its rollback, or its connection discarded
    (invalidated); the next writer goes then and not before."""

    async def work() -> None:
        async with database_of(_sqlite(database_url)) as database:
            async with database.sessions() as session:
                await session.execute(
                    text("CREATE TABLE IF NOT EXISTS writer_turns (n INTEGER NOT NULL)")
                )
                await session.commit()
            for end in ("commit", "rollback", "invalidate"):
                first = database.sessions()
                await first.execute(text("INSERT INTO writer_turns (n) VALUES (1)"))
                order: list[str] = []

                async def second(order: list[str] = order) -> None:
                    async with database.sessions() as session:
                        await session.execute(text("INSERT INTO writer_turns (n) VALUES (2)"))
                        order.append("second wrote")
                        await session.commit()

                task = asyncio.create_task(second())
                for _ in range(20):  # every chance to go, were it free to
                    await asyncio.sleep(0.01)
                order.append(f"first's {end}")
                if end == "commit":
                    await first.commit()
                elif end == "rollback":
                    await first.rollback()
                else:
                    await first.invalidate()
                await first.close()
                await task
                assert order == [f"first's {end}", "second wrote"]
            async with database.sessions() as session:
                counted = await session.scalar(
                    text("SELECT count(*) FROM writer_turns WHERE n = 2")
                )
                assert counted == 3
                await session.execute(text("DROP TABLE writer_turns"))
                await session.commit()

    run(work)


def test_a_sqlite_writer_that_waits_past_the_timeout_is_refused(database_url: str) -> None:
    async def work() -> None:
        async with database_of(_sqlite(database_url), db_timeout_s=1) as database:
            holding = database.sessions()
            await holding.execute(text("SELECT 1"))  # BEGIN IMMEDIATE: the writer's turn
            loop = asyncio.get_running_loop()
            started = loop.time()
            # The pool's wait for the one connection, or the session's own bound: a 503.
            with pytest.raises((PoolTimeoutError, OperationalError, DatabaseTimeoutError)):
                async with database.sessions() as waiting:
                    await waiting.execute(text("SELECT 1"))
            assert loop.time() - started >= 0.9
            await holding.rollback()
            await holding.close()
            async with database.sessions() as session:  # the turn was given back
                await session.execute(text("SELECT 1"))
                await session.commit()

    run(work)
