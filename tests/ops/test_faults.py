"""Faults: the database drops the server's connections mid-load (pg_terminate_backend).
The requests that fail get a 503 problem, never a 500; the server recovers by itself; no
game is left half-written."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import httpx
import psycopg
import pytest
from sqlalchemy.engine import make_url

from tests.fixtures.postgres import new_postgres_database
from tests.ops.play import Record, check_stored_games, play_games
from tests.ops.servers import Server, entrypoint_server

pytestmark = pytest.mark.slow


def _dsn(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def terminate_server_connections(url: str, only_waiting: bool = False) -> int:
    """pg_terminate_backend on every other connection to the test's database."""
    database = make_url(url).database
    query = (
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
        "WHERE datname = %s AND pid <> pg_backend_pid()"
    )
    if only_waiting:
        query += " AND wait_event_type = 'Lock'"
    with psycopg.connect(_dsn(url), autocommit=True) as conn:
        row = conn.execute(query, (database,)).fetchone()
    return int(row[0]) if row else 0


@pytest.fixture(scope="module")
def pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Server]]:
    tmp = tmp_path_factory.mktemp("faults")
    with (
        new_postgres_database() as url,
        entrypoint_server(url, tmp, MIGRATE_ON_START="true", WORKERS="2", DB_POOL_SIZE="3") as s,
    ):
        yield url, s
        s.stop()


def test_a_connection_killed_mid_transaction_is_a_503_and_nothing_is_written(
    pg_server: tuple[str, Server],
) -> None:
    url, server = pg_server
    c = httpx.Client(base_url=server.base, timeout=60)
    created = c.post("/v1/games", json={}).json()
    game, auth = f"/v1/games/{created['id']}", {"Authorization": f"Bearer {created['token']}"}
    answers: list[httpx.Response] = []
    with psycopg.connect(_dsn(url)) as lock:
        # Hold the game's row: the move reads it, then waits to update it, mid-statement
        # (its one write, which commits alone when it returns).
        lock.execute("SELECT id FROM games WHERE id = %s FOR UPDATE", (created["id"],))
        mover = threading.Thread(
            target=lambda: answers.append(c.post(f"{game}/draw", headers=auth))
        )
        mover.start()
        killed, deadline = 0, time.monotonic() + 30
        while killed == 0:
            assert time.monotonic() < deadline, "the move never waited on the lock"
            time.sleep(0.1)
            killed = terminate_server_connections(url, only_waiting=True)
        mover.join(timeout=60)
        lock.rollback()
    r = answers[0]
    assert r.status_code == 503, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert r.json()["type"] == "/problems/unavailable"
    assert r.headers["retry-after"] == "1"
    # Nothing of the failed move was written, and the server serves on.
    assert c.get(game, headers=auth).json()["version"] == 0
    assert c.post(f"{game}/draw", headers=auth).status_code == 200
    assert c.get(game, headers=auth).json()["version"] == 1
    c.close()


def test_connections_killed_under_load_give_503s_not_500s_and_the_server_recovers(
    pg_server: tuple[str, Server],
) -> None:
    url, server = pg_server
    record = Record()
    until = time.monotonic() + 8
    players = [
        threading.Thread(target=play_games, args=([server.base], record), kwargs={"until": until})
        for _ in range(6)
    ]
    for p in players:
        p.start()
    killed = 0
    for _ in range(6):
        time.sleep(1.0)
        killed += terminate_server_connections(url)
    for p in players:
        p.join(timeout=120)
    assert killed > 0
    assert not record.bad, record.bad[:5]
    assert 500 not in record.statuses
    assert record.statuses[200] > 50, record.statuses

    # It recovers by itself: ready again, and a new game plays through.
    deadline = time.monotonic() + 20
    while httpx.get(f"{server.base}/readyz", timeout=10).status_code != 200:
        assert time.monotonic() < deadline, "not ready again after the kills"
        time.sleep(0.2)
    after = Record()
    play_games([server.base], after, until=time.monotonic() + 60, max_games=2)
    assert not after.bad and after.unavailable == 0, (after.bad[:5], after.statuses)
    assert len(after.games) == 2 and after.applied

    # No game is half-written: each stored log replays to its stored summary.
    assert check_stored_games(url, record) >= len(record.games)
    errors = [line for line in server.log().splitlines() if '"level": "error"' in line]
    assert not errors, errors[:3]
    print(
        f"\nfaults: {killed} connections killed, answers {dict(record.statuses)}, "
        f"{len(record.games)} games, {len(record.applied)} moves acknowledged"
    )


# -- connections the database closes: one failed request each at most, then served ---------
def _backends(url: str) -> int:
    """The server's connections to the test's database (all but this query's)."""
    database = make_url(url).database
    query = "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()"
    with psycopg.connect(_dsn(url), autocommit=True) as conn:
        row = conn.execute(query, (database,)).fetchone()
    return int(row[0]) if row else 0


def _round(c: httpx.Client, game: str, auth: dict[str, str], n: int) -> list[int]:
    """``n`` requests of the usual kinds (a read, a draw, a new game), their statuses: a
    draw may be refused (400, 409) once the stock is out, but it reached the database."""
    statuses = []
    for i in range(n):
        if i % 3 == 0:
            r = c.get(game, headers=auth)
        elif i % 3 == 1:
            r = c.post(f"{game}/draw", headers=auth)
        else:
            r = c.post("/v1/games", json={})
        assert r.status_code != 500, r.text
        statuses.append(503 if r.status_code == 503 else 200)
    return statuses


def test_connections_the_database_closes_cost_at_most_one_failed_request_each() -> None:
    """The database ends the server's idle connections: terminated backends, then an
    idle_session_timeout. Each closed connection costs at most one failed request (a
    503), and the pools never stay broken: the requests after it are all served. (Before:
    a second pool of the moves' answered every plain move 503, indefinitely.)"""
    with new_postgres_database() as url:
        from app.ops.migrations import upgrade
        from tests.fixtures.servers import live_server

        upgrade(url)
        with (
            live_server(url, DB_POOL_SIZE="2", DB_TIMEOUT_S="5") as base,
            httpx.Client(base_url=base, timeout=60) as c,
        ):
            created = c.post("/v1/games", json={}).json()
            game = f"/v1/games/{created['id']}"
            auth = {"Authorization": f"Bearer {created['token']}"}
            assert set(_round(c, game, auth, 12)) == {200}  # the pools are filled
            for _ in range(3):
                killed = terminate_server_connections(url)
                assert killed > 0
                statuses = _round(c, game, auth, 30)
                assert statuses.count(503) <= killed, statuses
                assert set(statuses[-12:]) == {200}, statuses
            # The database closes whatever is idle for a second, from now on.
            database = make_url(url).database
            with psycopg.connect(_dsn(url), autocommit=True) as admin:
                admin.execute(f'ALTER DATABASE "{database}" SET idle_session_timeout = 1000')
            terminate_server_connections(url)  # new connections take the setting
            _round(c, game, auth, 6)
            for _ in range(3):
                held = _backends(url)
                deadline = time.monotonic() + 30
                while _backends(url) > 0:  # the server's idle connections are closed
                    assert time.monotonic() < deadline, "idle_session_timeout closed none"
                    time.sleep(0.2)
                statuses = _round(c, game, auth, 30)
                assert statuses.count(503) <= held, statuses
                assert set(statuses[-12:]) == {200}, statuses
            assert c.get("/readyz").status_code == 200


def test_a_database_out_of_reach_fails_readiness_and_the_server_recovers() -> None:
    """Between the server and PostgreSQL, a proxy drops every connection and refuses new
    ones for a while (a failover, a restarting proxy): requests get 503s and /readyz
    fails, since no request can reach the database; once it answers again, readiness
    comes back and every request after the first few is served."""
    from app.ops.migrations import upgrade
    from tests.fixtures.proxy import freezable_database
    from tests.fixtures.servers import live_server

    with new_postgres_database() as url:
        upgrade(url)
        with (
            freezable_database(url) as (proxy, proxied_url),
            live_server(proxied_url, DB_POOL_SIZE="2", DB_TIMEOUT_S="3") as base,
            httpx.Client(base_url=base, timeout=60) as c,
        ):
            created = c.post("/v1/games", json={}).json()
            game = f"/v1/games/{created['id']}"
            auth = {"Authorization": f"Bearer {created['token']}"}
            assert set(_round(c, game, auth, 12)) == {200}
            proxy.drop_and_refuse()
            try:
                assert set(_round(c, game, auth, 9)) == {503}
                assert c.get("/readyz").status_code == 503
                assert c.get("/healthz").status_code == 200  # the process itself answers
            finally:
                proxy.accept_again()
            deadline = time.monotonic() + 30
            while c.get("/readyz").status_code != 200:
                assert time.monotonic() < deadline, "not ready again"
                time.sleep(0.2)
            statuses = _round(c, game, auth, 30)
            assert statuses.count(503) <= 4, statuses  # at most the pools' connections
            assert set(statuses[-12:]) == {200}, statuses
