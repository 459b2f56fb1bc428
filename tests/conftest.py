"""Fixtures shared by the API and database tests: a migrated database on SQLite and on
PostgreSQL, and an HTTP client on an app bound to it.

``client`` isolates each test: every session of the test's requests is bound to one
connection inside a transaction that is rolled back when the test ends, joined with
SQLAlchemy's ``join_transaction_mode="create_savepoint"`` (each request's writing session
begins a savepoint where it would begin a transaction, and its commit releases it; a
reading session joins as it is, as it begins nothing in production either): the requests
run the statements production runs, on the production code path, and a test sees
exactly the rows it made, so that a test that reads every row (a leaderboard, a count)
can be written. Tests that need real commits (other connections, server processes,
races) use ``committing_client`` or a live server instead.

An app's requests run on one event loop (its engines' connections belong to it): every
client here is a ``TestClient`` entered once (its lifespan and its loop), and a test's
own database work on the app's loop goes through the client's ``portal``.

PostgreSQL: ``TEST_POSTGRES_URL`` (default: the machine's server on 127.0.0.1:5432, user
postgres). A fresh database is created for the run and dropped after it. Where none can
be reached the PostgreSQL tests are skipped, saying so; under CI (``CI`` set) they fail
instead, since CI must test PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path

import anyio.from_thread
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.ext.asyncio import AsyncConnection

from app.kit.database import Database, make_database, read_sessions_of, sessions_of
from app.main import create_app
from app.ops.migrations import upgrade
from app.settings import Settings
from tests.fixtures.clock import NOON
from tests.fixtures.postgres import new_postgres_database
from tests.fixtures.servers import ROOMY_RATE_LIMITS

BACKENDS = ("sqlite", "postgresql")


@pytest.fixture(scope="session")
def postgresql_url() -> Iterator[str]:
    """A fresh PostgreSQL database for this run, migrated to head (a test that takes it
    alone must not depend on another having migrated it first)."""
    with new_postgres_database() as url:
        upgrade(url)
        yield url


@pytest.fixture(params=BACKENDS)
def empty_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A new database with nothing in it, on each backend (for migration tests)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.sqlite3'}"
    else:
        with new_postgres_database() as url:
            yield url


@pytest.fixture(scope="session")
def sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    path: Path = tmp_path_factory.mktemp("db") / "tripeaks.sqlite3"
    return f"sqlite:///{path}"


@pytest.fixture(scope="session", params=BACKENDS)
def database_url(request: pytest.FixtureRequest) -> str:
    """A database migrated to head, once per backend per run."""
    url: str = request.getfixturevalue(f"{request.param}_url")
    upgrade(url)
    return url


@pytest.fixture(scope="session")
def settings(database_url: str) -> Settings:
    # Generous solver budgets, and searches at the requests' priority: the machine running
    # the tests may be loaded, and a search at the lowest priority then gets no CPU at all
    # (tests/kit/test_workload.py shows the niceness applies).
    return Settings(
        solver_niceness=0,
        # The scheduled jobs (the fair-play measure, the purge) run in the tests that test
        # them: elsewhere they would measure and purge the rows of tests under way.
        scheduled_jobs=False,
        database_url=database_url,
        cors_origins=["https://client.example"],
        solver_budget_ms=20000,
        hint_budget_ms=10000,
        analysis_budget_ms=20000,
        # A deal's difficulty from 4 of the hint's games, not 24: the same measure, a sixth
        # of the time (tests/engine/test_difficulty.py measures the default).
        difficulty_playouts=4,
        difficulty_budget_ms=20000,
        rate_limit_read=ROOMY_RATE_LIMITS["RATE_LIMIT_READ"],
        rate_limit_move=ROOMY_RATE_LIMITS["RATE_LIMIT_MOVE"],
        rate_limit_create=ROOMY_RATE_LIMITS["RATE_LIMIT_CREATE"],
        rate_limit_solver=ROOMY_RATE_LIMITS["RATE_LIMIT_SOLVER"],
        rate_limit_refused=ROOMY_RATE_LIMITS["RATE_LIMIT_REFUSED"],
    )


def portal_of(client: TestClient) -> anyio.from_thread.BlockingPortal:
    """The event loop of an entered client's app, to run a test's own async work on."""
    assert client.portal is not None, "enter the TestClient first (with ... as client)"
    return client.portal


@pytest.fixture
def client_with(settings: Settings) -> Iterator[Callable[..., TestClient]]:
    """``client_with(NAME=value, ...)``: an entered client on an app of its own with those
    settings changed (its requests commit; its lifespan ends after the test)."""
    with ExitStack() as stack:

        def make(**changes: object) -> TestClient:
            application = create_app(settings.model_copy(update=changes))
            return stack.enter_context(TestClient(application, raise_server_exceptions=False))

        yield make


@pytest.fixture(scope="session")
def served(settings: Settings) -> Iterator[TestClient]:
    """The run's app, entered once: its lifespan, its loop, its engines."""
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        yield client


@pytest.fixture(scope="session")
def app(served: TestClient) -> FastAPI:
    application = served.app
    assert isinstance(application, FastAPI)
    return application


@pytest.fixture(scope="session")
def committing_client(served: TestClient) -> TestClient:
    """A client whose requests commit for real (the rows stay for the rest of the run)."""
    return served


@pytest.fixture(scope="session")
def isolation_database(served: TestClient, settings: Settings) -> Iterator[Database]:
    """Engines of the tests' own for the isolated connections (not the app's: on SQLite
    its writer engine holds one connection, which readiness and the like still use)."""
    database = make_database(settings)
    yield database
    portal_of(served).call(database.dispose)


@pytest.fixture
def client(served: TestClient, isolation_database: Database) -> Iterator[TestClient]:
    """A client whose writes are rolled back when the test ends (see the module's doc)."""
    portal = portal_of(served)
    database: Database = served.app.state.database  # type: ignore[attr-defined]

    async def begin() -> AsyncConnection:
        connection = await isolation_database.writer.connect()
        await connection.begin()
        return connection

    async def end(connection: AsyncConnection) -> None:
        await connection.rollback()
        await connection.close()

    connection = portal.call(begin)
    saved = database.sessions, database.read_sessions
    database.sessions = sessions_of(
        connection, database.timeout_s, join_transaction_mode="create_savepoint"
    )
    # Reading sessions begin no savepoint (in production they begin nothing at all):
    # a request's reading and writing sessions are open at once, and savepoints of two
    # sessions on one connection would not nest.
    database.read_sessions = read_sessions_of(
        connection, database.timeout_s, join_transaction_mode="rollback_only"
    )
    try:
        yield served
    finally:
        database.sessions, database.read_sessions = saved
        portal.call(end, connection)


@pytest.fixture
def set_clock(app: FastAPI) -> Iterator[Callable[[datetime], None]]:
    """``set_clock(t)``: the run's app tells the time ``t`` until the test ends (``NOON``
    from the start)."""
    saved = app.state.clock

    def set_to(moment: datetime) -> None:
        app.state.clock = lambda: moment

    set_to(NOON)
    yield set_to
    app.state.clock = saved
