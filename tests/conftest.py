"""Fixtures shared by the API and database tests: a migrated database on SQLite and on
PostgreSQL, and an HTTP client on an app bound to it.

``client`` isolates each test: every request of the test runs on one connection inside a
transaction that is rolled back when the test ends (each request's commit ends a
savepoint), so a test sees exactly the rows it made, and a test that reads every row (a
leaderboard, a count) can be written. Tests that need real commits (other connections,
server processes, races) use ``committing_client`` or a live server instead.

PostgreSQL: ``TEST_POSTGRES_URL`` (default: the machine's server on 127.0.0.1:5432, user
postgres). A fresh database is created for the run and dropped after it. Where none can
be reached the PostgreSQL tests are skipped, saying so; under CI (``CI`` set) they fail
instead, since CI must test PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session, sessionmaker

from app.kit.database import SQLITE_BEGIN, RequestSession
from app.main import create_app
from app.ops.migrations import upgrade
from app.settings import Settings
from tests.fixtures.postgres import new_postgres_database
from tests.fixtures.servers import ROOMY_RATE_LIMITS

BACKENDS = ("sqlite", "postgresql")


@pytest.fixture(scope="session")
def postgresql_url() -> Iterator[str]:
    """A fresh PostgreSQL database for this run."""
    with new_postgres_database() as url:
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
    # Generous solver budgets: the machine running the tests may be loaded.
    return Settings(
        database_url=database_url,
        cors_origins=["https://client.example"],
        solver_budget_ms=20000,
        hint_budget_ms=10000,
        analysis_budget_ms=20000,
        rate_limit_read=ROOMY_RATE_LIMITS["RATE_LIMIT_READ"],
        rate_limit_move=ROOMY_RATE_LIMITS["RATE_LIMIT_MOVE"],
        rate_limit_create=ROOMY_RATE_LIMITS["RATE_LIMIT_CREATE"],
        rate_limit_solver=ROOMY_RATE_LIMITS["RATE_LIMIT_SOLVER"],
    )


@pytest.fixture
def client_with(settings: Settings) -> Iterator[Callable[..., TestClient]]:
    """``client_with(NAME=value, ...)``: a client on an app of its own with those settings
    changed (its requests commit; its engine is disposed after the test)."""
    apps: list[FastAPI] = []

    def make(**changes: object) -> TestClient:
        application = create_app(settings.model_copy(update=changes))
        apps.append(application)
        return TestClient(application, raise_server_exceptions=False)

    yield make
    for application in apps:
        application.state.solver.close()
        application.state.engine.dispose()


@pytest.fixture(scope="session")
def app(settings: Settings) -> Iterator[FastAPI]:
    application = create_app(settings)
    with TestClient(application, raise_server_exceptions=False):  # runs its lifespan
        yield application


@pytest.fixture(scope="session")
def committing_client(app: FastAPI) -> Iterator[TestClient]:
    """A client whose requests commit for real (the rows stay for the rest of the run)."""
    yield TestClient(app, raise_server_exceptions=False)


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    """A client whose writes are rolled back when the test ends (see the module's doc)."""
    # Deferred on SQLite: the write lock is taken at the test's first write (and held to
    # its end), so that other connections (readiness, say) can still read.
    connection = app.state.engine.execution_options(**{SQLITE_BEGIN: "DEFERRED"}).connect()
    outer = connection.begin()
    saved = app.state.sessions, app.state.read_sessions
    isolated: sessionmaker[Session] = sessionmaker(
        connection,
        class_=RequestSession,
        expire_on_commit=False,
        autoflush=False,
        join_transaction_mode="create_savepoint",
    )
    app.state.sessions = app.state.read_sessions = isolated
    try:
        yield TestClient(app, raise_server_exceptions=False)
    finally:
        app.state.sessions, app.state.read_sessions = saved
        outer.rollback()
        connection.close()
