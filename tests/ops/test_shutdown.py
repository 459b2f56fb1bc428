"""Graceful shutdown: a request in flight when the server is told to stop (SIGTERM, as a
container runtime sends) completes, and the server then exits 0; a worker that dies is
replaced, and the server still stops with 0.

The request is made slow honestly: the test holds the database lock the move needs (on
SQLite the write lock, with BEGIN IMMEDIATE; on PostgreSQL the game's row, with SELECT
... FOR UPDATE), so the move waits (on SQLite for its transaction, on PostgreSQL in its
write) until the test lets go."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
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


def read_answer(sock: socket.socket) -> tuple[str, dict[str, str], bytes]:
    """The status line, headers and body of one answer on a raw connection (read to EOF:
    an answer at shutdown closes the connection)."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return status, headers, body


def test_a_request_whose_body_stalls_at_sigterm_gets_a_408_and_the_server_exits_0(
    tmp_path: Path,
) -> None:
    """A client that has sent half its body when the server is stopped: the request waits
    for the rest until BODY_TIMEOUT_S, shorter than SHUTDOWN_TIMEOUT_S, and is answered a
    408 problem; the connection closes, the worker ends and the server exits 0, before
    it would kill a worker still busy."""
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    env = {"SHUTDOWN_TIMEOUT_S": "20", "BODY_TIMEOUT_S": "3", "MIGRATE_ON_START": "true"}
    with entrypoint_server(url, tmp_path, **env) as server:
        port = int(server.base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
            sock.sendall(
                b"POST /v1/games HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                b'X-Request-ID: half-a-body\r\nContent-Length: 100\r\n\r\n{"layout": '
            )
            deadline = time.monotonic() + 30
            while in_progress(server) < 1:  # the request has reached the app and waits
                assert time.monotonic() < deadline, "the request never reached the server"
                time.sleep(0.1)
            server.proc.terminate()  # SIGTERM
            status, headers, body = read_answer(sock)
        assert server.proc.wait(timeout=60) == 0
    assert status == "HTTP/1.1 408 Request Timeout", (status, body)
    assert headers["content-type"] == "application/problem+json"
    assert headers["connection"] == "close"
    assert headers["x-request-id"] == "half-a-body"
    problem = json.loads(body)
    assert problem["type"] == "/problems/request-timeout" and problem["status"] == 408
    assert "Killing worker" not in server.log()


def worker_pids(server: Server) -> dict[str, int]:
    """Each worker's latest process, as the server logs them when it spawns one."""
    spawned = re.findall(r"Spawning (worker-\d+) with PID: (\d+)", server.log())
    return {worker: int(pid) for worker, pid in spawned}


def test_a_worker_that_dies_is_replaced_and_the_server_still_exits_0(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    with entrypoint_server(url, tmp_path, MIGRATE_ON_START="true", WORKERS="2") as server:
        first = worker_pids(server)
        assert sorted(first) == ["worker-1", "worker-2"], server.log()[-2000:]
        os.kill(first["worker-1"], signal.SIGKILL)
        deadline = time.monotonic() + 60
        while worker_pids(server)["worker-1"] == first["worker-1"]:
            assert time.monotonic() < deadline, server.log()[-2000:]
            time.sleep(0.2)
        # Both workers serve again: a new connection each time, any of them may answer.
        for _ in range(10):
            assert httpx.get(f"{server.base}/v1/layouts", timeout=30).status_code == 200
        assert server.stop() == 0
