"""A database that stops answering without going away (its process stopped, its VM
frozen): requests get a 503 problem within DB_TIMEOUT_S instead of hanging as long as
the freeze lasts, and the server recovers by itself when it thaws.

The freeze is a proxy's (tests/fixtures/proxy.py) between the server and PostgreSQL: it
keeps accepting bytes and answers nothing, as a stopped server's kernel does, so TCP
keepalives and tcp_user_timeout see nothing wrong. PostgreSQL itself is never stopped."""

from __future__ import annotations

import threading
import time

import httpx
import pytest

from app.ops.migrations import upgrade
from tests.fixtures.games import new_game_id
from tests.fixtures.postgres import new_postgres_database
from tests.fixtures.proxy import freezable_database
from tests.fixtures.servers import live_server

pytestmark = pytest.mark.slow

DB_TIMEOUT_S = 2
# How long a client waits for any answer: ten times the bound (a request waits on its
# pooled connection, or on a new connection), far less than a freeze lasts.
PATIENCE_S = 10 * DB_TIMEOUT_S


Call = tuple[str, str, dict[str, str], object]


def answers(calls: list[Call], base: str) -> list[object]:
    """Each call made at once from its own thread: its answer, or the error it raised."""
    out: list[object] = [None] * len(calls)

    def call(i: int, method: str, path: str, headers: dict[str, str], body: object) -> None:
        try:
            out[i] = httpx.request(
                method, base + path, headers=headers, json=body, timeout=PATIENCE_S
            )
        except httpx.HTTPError as e:
            out[i] = e

    threads = [threading.Thread(target=call, args=(i, *c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def test_a_frozen_database_gets_503s_and_the_server_recovers_when_it_thaws() -> None:
    with new_postgres_database() as url:
        upgrade(url)
        with (
            freezable_database(url) as (proxy, proxied_url),
            live_server(proxied_url, DB_TIMEOUT_S=str(DB_TIMEOUT_S), DB_POOL_SIZE="2") as base,
            httpx.Client(base_url=base, timeout=PATIENCE_S) as c,
        ):
            game_id, auth = new_game_id(c)
            game = f"/v1/games/{game_id}"
            assert c.get(game, headers=auth).status_code == 200  # connections in the pool
            # And in the pool of the moves on the event loop: the frozen move below waits
            # on its answer there, not on a new connection.
            assert c.post(f"{game}/draw", headers=auth).status_code == 200
            calls: list[Call] = [
                ("GET", game, auth, None),
                ("GET", f"{game}/legal-moves", auth, None),
                ("POST", f"{game}/draw", auth, None),
                ("POST", "/v1/games", {}, {}),
            ]
            proxy.freeze()
            try:
                # The pooled connections are used first (and time out), then new ones are
                # tried (and time out): the second round meets new ones only.
                for round_of_calls in (calls, calls[:1]):
                    for r in answers(round_of_calls, base):
                        assert isinstance(r, httpx.Response), f"no answer while frozen: {r!r}"
                        assert r.status_code == 503, r.text
                        assert r.headers["content-type"] == "application/problem+json"
                        assert r.json()["type"] == "/problems/unavailable"
                        assert r.headers["retry-after"] == "1"
                assert c.get("/readyz").status_code == 503
                assert c.get("/healthz").status_code == 200  # the server itself answers
            finally:
                proxy.thaw()
            deadline = time.monotonic() + 30
            while c.get(game, headers=auth).status_code != 200:
                assert time.monotonic() < deadline, "not serving again after the thaw"
                time.sleep(0.2)
            assert c.get("/readyz").status_code == 200
            drawn = c.post(f"{game}/draw", headers=auth)
            assert drawn.status_code == 200, drawn.text
            assert c.post("/v1/games", json={}).status_code == 201
            # Nothing a 503 answered was applied: the two draws above are the only moves.
            assert drawn.json()["version"] == 2
