"""Health and readiness: /readyz says 503 with the reason when the database is not
migrated or cannot be reached, and the game endpoints then answer 503 problems."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from tests.fixtures.servers import free_port


def _client(database_url: str) -> Iterator[TestClient]:
    # No scheduled job: the readiness of a database, not its rows, is tested here.
    with TestClient(create_app(Settings(database_url=database_url, scheduled_jobs=False))) as c:
        yield c


@pytest.fixture
def unmigrated(empty_database_url: str) -> Iterator[TestClient]:
    yield from _client(empty_database_url)


@pytest.fixture(params=["sqlite", "postgresql"])
def unreachable(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TestClient]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path}"  # a directory: SQLite cannot open it
    else:
        url = f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/tripeaks"  # no server
    yield from _client(url)


def test_healthz_answers_whatever_the_database(unreachable: TestClient) -> None:
    r = unreachable.get("/healthz")
    assert r.status_code == 200
    assert r.json() == {"status": "ok"}


def test_readyz_is_503_on_an_unmigrated_database(unmigrated: TestClient) -> None:
    r = unmigrated.get("/readyz")
    assert r.status_code == 503
    body = r.json()
    assert body["status"] == "unavailable"
    assert body["reason"].startswith("migrations at none, head is ")
    assert body["revision"] is None


def test_game_requests_get_a_503_problem_before_the_migrations_have_run(
    unmigrated: TestClient,
) -> None:
    """A replica that serves before the schema is there (MIGRATE_ON_START still running,
    or not set) answers as for a database that is away, on both backends: not a 500."""
    auth = {"Authorization": "Bearer t"}
    for r in (
        unmigrated.post("/v1/games", json={}),
        unmigrated.get("/v1/games/abc", headers=auth),
        unmigrated.post("/v1/games/abc/moves", json={"move": "draw"}, headers=auth),
    ):
        assert r.status_code == 503, r.text
        assert r.headers["content-type"] == "application/problem+json"
        assert r.json()["type"] == "/problems/unavailable"


def test_readyz_is_503_on_an_unreachable_database(unreachable: TestClient) -> None:
    r = unreachable.get("/readyz")
    assert r.status_code == 503
    body = r.json()
    assert body["status"] == "unavailable"
    assert body["reason"].startswith("database unreachable: OperationalError")


def test_game_requests_get_a_503_problem_when_the_database_is_unreachable(
    unreachable: TestClient,
) -> None:
    for r in (
        unreachable.post("/v1/games", json={}),
        unreachable.get("/v1/games/abc", headers={"Authorization": "Bearer t"}),
        unreachable.post(
            "/v1/games/abc/moves", json={"move": "draw"}, headers={"Authorization": "Bearer t"}
        ),
    ):
        assert r.status_code == 503, r.text
        assert r.headers["content-type"] == "application/problem+json"
        assert r.headers["retry-after"] == "1"
        assert r.json()["type"] == "/problems/unavailable"
        assert r.headers["x-request-id"]


def test_readyz_is_200_on_a_migrated_database(client: TestClient) -> None:
    r = client.get("/readyz")
    assert r.status_code == 200
    assert r.json()["status"] == "ok"
