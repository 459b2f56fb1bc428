"""Ranked duels on the production server, on a fresh SQLite file and a fresh PostgreSQL
database: two challengers racing for one waiting duel, one takes it and the other opens
its own (the server's scheduled jobs: test_duels_jobs.py)."""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx
import pytest

from tests.duels.helpers import finish, player, request_duel
from tests.fixtures.servers import live_server


@pytest.mark.slow
def test_two_challengers_at_once_one_takes_the_waiting_duel(scratch_url: str) -> None:
    # A pool a round: each round's loser leaves a duel waiting in its own.
    pools = [("tripeaks", "standard"), ("tripeaks", "no-wrap"), ("golf", "standard")]
    with live_server(scratch_url) as base, httpx.Client(base_url=base, timeout=60) as client:
        for round_, (layout, preset) in enumerate(pools):
            pool: dict[str, Any] = {"layout": layout, "preset": preset}
            _, host = player(client, f"Host {round_}")
            opened = request_duel(client, host, **pool)
            assert opened["role"] == "host"
            finish(client, opened, host, 0)
            racers = [player(client, f"Racer {round_}.{i}")[1] for i in range(2)]
            answers: list[dict[str, Any]] = []
            start = threading.Barrier(2)

            threads = [
                threading.Thread(target=race, args=(base, auth, pool, start, answers))
                for auth in racers
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            took = [a for a in answers if a["id"] == opened["id"]]
            other = [a for a in answers if a["id"] != opened["id"]]
            assert len(took) == 1 and took[0]["role"] == "challenger", answers
            # The other waits with a duel of its own (nobody else is waiting).
            assert len(other) == 1 and other[0]["role"] == "host", answers
            assert other[0]["status"] == "waiting"


def race(
    base: str,
    auth: dict[str, str],
    pool: dict[str, Any],
    start: threading.Barrier,
    answers: list[dict[str, Any]],
) -> None:
    with httpx.Client(base_url=base, timeout=60) as own:
        start.wait()
        answers.append(asked_until_answered(own, auth, pool))


def asked_until_answered(
    client: httpx.Client, auth: dict[str, str], pool: dict[str, Any]
) -> dict[str, Any]:
    """request_duel as a client sends it: a 503 (the racers share an address, and an
    address has one deal search at a time) is sent again after its Retry-After."""
    for _ in range(30):
        r = client.post("/v1/duels", json=pool, headers=auth)
        if r.status_code != 503:
            assert r.status_code == 201, r.text
            answer: dict[str, Any] = r.json()
            return answer
        time.sleep(float(r.headers.get("Retry-After", "1")))
    raise AssertionError("request_duel kept answering 503")
