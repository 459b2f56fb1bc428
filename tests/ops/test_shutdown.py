"""Graceful shutdown: a request in flight when the server is told to stop (SIGTERM, as a
container runtime sends) completes, and the server then exits 0.

The request is made slow honestly: the test holds the database lock the move needs (on
SQLite the write lock, with BEGIN IMMEDIATE; on PostgreSQL the game's row, with SELECT
... FOR UPDATE), so the move waits inside its transaction until the test lets go."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import httpx
import psycopg
import pytest
from sqlalchemy.engine import make_url

from tests.fixtures.postgres import new_postgres_database
from tests.ops.servers import Server, entrypoint_server, metric_value

pytestmark = pytest.mark.slow


@contextmanager
def sqlite_lock(url: str, _game_id: str) -> Iterator[None]:
    conn = sqlite3.connect(make_url(url).database or "", isolation_level=None, timeout=30)
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        conn.execute("ROLLBACK")
        conn.close()


@contextmanager
def postgres_lock(url: str, game_id: str) -> Iterator[None]:
    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn) as conn:
        conn.execute("SELECT id FROM games WHERE id = %s FOR UPDATE", (game_id,))
        try:
            yield
        finally:
            conn.rollback()


Lock = Callable[[str, str], AbstractContextManager[None]]


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str, Lock]]:
    """(database URL, workers, a way to hold the lock a move needs)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'db.sqlite3'}", "1", sqlite_lock
    else:
        with new_postgres_database() as url:
            yield url, "2", postgres_lock


def in_progress(server: Server) -> float:
    text = httpx.get(f"{server.base}/metrics", timeout=10).text
    return metric_value(text, "tripeaks_http_requests_in_progress", method="POST")


def test_a_request_in_flight_completes_after_sigterm(
    backend: tuple[str, str, Lock], tmp_path: Path
) -> None:
    url, workers, hold_lock = backend
    with entrypoint_server(url, tmp_path, MIGRATE_ON_START="true", WORKERS=workers) as server:
        created = httpx.post(f"{server.base}/v1/games", json={}, timeout=30).json()
        game = f"{server.base}/v1/games/{created['id']}"
        auth = {"Authorization": f"Bearer {created['token']}", "If-Match": '"v0"'}
        answers: list[httpx.Response] = []
        failures: list[BaseException] = []

        def slow_move() -> None:
            try:
                answers.append(httpx.post(f"{game}/draw", headers=auth, timeout=60))
            except BaseException as e:
                failures.append(e)

        with hold_lock(url, created["id"]):
            mover = threading.Thread(target=slow_move)
            mover.start()
            deadline = time.monotonic() + 30
            while in_progress(server) < 1:  # the move has reached the server and waits
                assert time.monotonic() < deadline, "the move never reached the server"
                time.sleep(0.1)
            time.sleep(0.3)
            server.proc.terminate()  # SIGTERM
            time.sleep(1.5)
            assert server.proc.poll() is None, "the server quit with a request in flight"
            assert not answers and not failures
        # The lock is released: the move goes on, answers in full, and the server exits.
        mover.join(timeout=60)
        assert not failures, failures
        assert len(answers) == 1
        r = answers[0]
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["version"] == 1 and body["id"] == created["id"]
        assert server.proc.wait(timeout=60) == 0
        assert '"status": 200' in server.log()
