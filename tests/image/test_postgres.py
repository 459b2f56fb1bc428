"""The container on this machine's PostgreSQL (on the host network, as a container beside a
database on its host): MIGRATE_ON_START=true on a fresh database, then a whole game; two
containers as replicas of one database, one game played a request on each in turn, their
rate limits shared through Redis; and ``docker stop`` while a move is in flight: the move
completes and the container exits 0.

The move is made slow honestly, as in tests/ops/test_shutdown.py: the test holds the
game's row (SELECT ... FOR UPDATE), so the move's write waits for it until the test lets
go."""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Iterator

import httpx
import psycopg
import pytest
import redis
from sqlalchemy.engine import make_url

from app.ops.migrations import head_revision
from tests.fixtures.postgres import new_postgres_database
from tests.image.containers import SCRAPE, Container, container, play_whole_game, unique_name
from tests.image.engine import Docker
from tests.ops.play import check_stored_games
from tests.ops.servers import metric_value

pytestmark = pytest.mark.slow

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture
def database() -> Iterator[str]:
    with new_postgres_database() as url:
        yield url


@pytest.fixture
def redis_url() -> str:
    try:
        redis.Redis.from_url(REDIS_URL, socket_timeout=3).ping()
    except redis.RedisError as e:
        if os.environ.get("CI"):
            pytest.fail(f"CI must test the replicas' shared rate limits: Redis: {e}")
        pytest.skip(f"no Redis at {REDIS_URL}: {e}")
    return REDIS_URL


def test_migrate_on_start_on_postgresql_then_a_whole_game(
    docker: Docker, image: str, database: str
) -> None:
    env = {"DATABASE_URL": database, "MIGRATE_ON_START": "true"}
    with container(docker, image, env=env, host_network=True) as box:
        r = httpx.get(f"{box.base}/readyz", timeout=10)
        assert r.status_code == 200 and r.json()["revision"] == head_revision()
        game = play_whole_game([box.base])
        assert game.final["status"] in ("won", "lost")
        assert check_stored_games(database) == 1


def requests_served(box: Container, route: str) -> float:
    text = httpx.get(f"{box.base}/metrics", headers=SCRAPE, timeout=10).text
    return metric_value(text, "tripeaks_http_requests_total", route=route)


def test_two_replicas_play_one_game_in_turn_and_share_their_budgets(
    docker: Docker, image: str, database: str, redis_url: str
) -> None:
    shared = {
        "DATABASE_URL": database,
        "RATE_LIMIT_STORAGE_URL": redis_url,
        "RATE_LIMIT_KEY_PREFIX": unique_name("tripeaks-test"),
        "RATE_LIMIT_CREATE": "3/minute",
    }
    with (
        container(
            docker, image, env={**shared, "MIGRATE_ON_START": "true"}, host_network=True
        ) as a,
        container(docker, image, env=shared, host_network=True) as b,
    ):
        assert "applying the migrations" not in b.logs()
        game = play_whole_game([a.base, b.base])
        assert check_stored_games(database) == 1
        moves = "/v1/games/{game_id}/moves"
        served = [requests_served(a, moves), requests_served(b, moves)]
        assert sum(served) == game.moves and min(served) >= game.moves // 2, served

        # One game made, two more may be: one on each replica; then either refuses, as
        # the three are counted once, in Redis, whichever replica took them.
        for box in (a, b):
            assert httpx.post(f"{box.base}/v1/games", json={}, timeout=30).status_code == 201
        for box in (a, b):
            refused = httpx.post(f"{box.base}/v1/games", json={}, timeout=30)
            assert refused.status_code == 429, refused.text
            assert refused.json()["type"] == "/problems/rate-limited"


def test_docker_stop_lets_a_move_in_flight_finish_and_exits_0(
    docker: Docker, image: str, database: str
) -> None:
    env = {"DATABASE_URL": database, "MIGRATE_ON_START": "true", "SHUTDOWN_TIMEOUT_S": "30"}
    with container(docker, image, env=env, host_network=True) as box:
        created = httpx.post(f"{box.base}/v1/games", json={}, timeout=30).json()
        auth = {"Authorization": f"Bearer {created['token']}", "If-Match": '"v0"'}
        url = f"{box.base}/v1/games/{created['id']}/draw"
        answers: list[httpx.Response] = []
        failures: list[BaseException] = []

        def slow_move() -> None:
            try:
                answers.append(httpx.post(url, headers=auth, timeout=90))
            except BaseException as e:
                failures.append(e)

        dsn = make_url(database).set(drivername="postgresql")
        stop: subprocess.Popen[str] | None = None
        try:
            with psycopg.connect(dsn.render_as_string(hide_password=False)) as held:
                held.execute("SELECT id FROM games WHERE id = %s FOR UPDATE", (created["id"],))
                mover = threading.Thread(target=slow_move)
                mover.start()
                try:
                    box.wait_until("the move in flight", lambda: in_progress(box) >= 1, 30)
                    stop = subprocess.Popen(
                        [docker.binary, "stop", "--time", "60", box.name],
                        env=docker.env(),
                        stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT,
                        text=True,
                    )
                    box.wait_until("SIGTERM", lambda: "Shutting down" in box.logs(), 30)
                    assert box.state()["Running"], "the server quit with a move in flight"
                    assert not answers and not failures
                finally:
                    held.rollback()  # the move goes on
                    mover.join(timeout=90)
            assert stop is not None
            stopped = stop.communicate(timeout=90)[0]
        finally:
            if stop is not None and stop.poll() is None:
                stop.kill()
                stop.communicate()
        assert not failures, failures
        assert len(answers) == 1 and answers[0].status_code == 200, answers[0].text
        assert answers[0].json()["version"] == 1
        assert stop.returncode == 0, stopped
        state = box.state()
        assert state["Running"] is False and state["ExitCode"] == 0, state


def in_progress(box: Container) -> float:
    text = httpx.get(f"{box.base}/metrics", headers=SCRAPE, timeout=10).text
    return metric_value(text, "tripeaks_http_requests_in_progress", method="POST")
