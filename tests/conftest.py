"""Fixtures shared by the API and database tests: a migrated database on SQLite and on
PostgreSQL, and an HTTP client on an app bound to it.

PostgreSQL: ``TEST_POSTGRES_URL`` (default: the machine's server on 127.0.0.1:5432, user
postgres). A fresh database is created for the run and dropped after it. Where none can
be reached the PostgreSQL tests are skipped, saying so; under CI (``CI`` set) they fail
instead, since CI must test PostgreSQL.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.ops.migrations import upgrade
from app.settings import Settings
from tests.support import PostgresUnavailableError, scratch_postgres_database

DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
BACKENDS = ("sqlite", "postgresql")


def _admin_url() -> str:
    return os.environ.get("TEST_POSTGRES_URL", DEFAULT_PG)


@contextmanager
def new_postgres_database() -> Iterator[str]:
    """A new, empty PostgreSQL database, dropped afterwards (skipped locally, failed in
    CI, when no server answers)."""
    try:
        with scratch_postgres_database(_admin_url(), "tripeaks_test") as url:
            yield url
    except PostgresUnavailableError as e:
        if os.environ.get("CI"):
            pytest.fail(f"CI must test PostgreSQL: {e}")
        pytest.skip(str(e))


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
    # A generous solver budget: the machine running the tests may be loaded.
    return Settings(
        database_url=database_url,
        cors_origins=["https://client.example"],
        solver_budget_ms=30000,
    )


@pytest.fixture(scope="session")
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        yield c
