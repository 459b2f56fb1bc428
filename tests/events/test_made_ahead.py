"""What opens soon is made before anyone needs it, and no request waits on a search for it
(issue 48, finding 5), on SQLite and PostgreSQL:

- the servers' scheduled job makes an edition within the hour before it opens: it stays
  out of sight until then (409 event-not-open, not listed), and at its opening it is
  served as made; changing or cancelling the event before then drops it (a change makes
  it again, of the event as it is);
- an edition nobody made ahead, joined by many at once as it opens, is searched once for
  all of them in a process: the full ones hear 409 challenge-full, nobody 503;
- so is a new day's daily asked for by many at once.

The job's own run is ``prepare`` (``app.ops.purge``), called here as the job calls it; the
live servers run with the scheduled jobs off, as the test fixtures do, but for the test
of the job itself."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from app.kit.database import make_database
from app.kit.workload import SolverPool
from app.main import SEARCH_MODULES
from app.ops.migrations import upgrade
from app.ops.purge import prepare
from app.settings import Settings
from tests.events.test_events import OPERATOR, SECRET, TOKEN, iso
from tests.fixtures.games import new_player
from tests.fixtures.servers import live_server


def prepared(settings: Settings, now: datetime) -> list[str]:
    """The scheduled job's run at ``now``: what opens soon, made."""

    async def run() -> list[str]:
        database = make_database(settings)
        solver = SolverPool(1, preload=SEARCH_MODULES, niceness=0)
        try:
            return await prepare(database, settings, solver, now)
        finally:
            solver.close()
            await database.dispose()

    return asyncio.run(run())


def at(client: TestClient, moment: datetime) -> None:
    client.app.state.clock = lambda: moment  # type: ignore[attr-defined]


def test_an_edition_is_made_within_the_hour_before_it_opens_and_hidden_until_then(
    client_with: Callable[..., TestClient], settings: Settings
) -> None:
    client = client_with(operator_token=TOKEN, challenge_secret=SECRET)
    job = settings.model_copy(update={"challenge_secret": SECRET})
    start = datetime(2046, 2, 6, tzinfo=UTC)
    at(client, start - timedelta(hours=3))
    body = {
        "name": "Made ahead",
        "starts_at": iso(start),
        "ends_at": iso(start + timedelta(days=1)),
    }
    event = client.post("/v1/operator/events", json=body, headers=OPERATOR).json()
    edition = f"{event['id']}.0"
    # Three hours ahead: not yet; within the hour: made.
    assert edition not in prepared(job, start - timedelta(hours=3))
    assert edition in prepared(job, start - timedelta(minutes=50))
    assert edition not in prepared(job, start - timedelta(minutes=49))  # made once

    # Out of sight until it opens: as if not made.
    at(client, start - timedelta(minutes=10))
    r = client.get(f"/v1/events/{event['id']}/editions/0")
    assert r.status_code == 409 and r.json()["type"] == "/problems/event-not-open"
    assert client.get(f"/v1/events/{event['id']}/editions").json()["editions"] == []
    _, auth = new_player(client)
    r = client.post(f"/v1/events/{event['id']}/join", headers=auth)
    assert r.status_code == 409 and r.json()["type"] == "/problems/event-not-open"
    r = client.get(f"/v1/events/{event['id']}/editions/0/leaderboard")
    assert r.status_code == 409 and r.json()["type"] == "/problems/event-not-open"

    # Open: served as made (its commitments are those made ahead).
    at(client, start + timedelta(minutes=1))
    r = client.post(f"/v1/events/{event['id']}/join", headers=auth)
    assert r.status_code == 200, r.text
    shown = client.get(f"/v1/events/{event['id']}/editions/0").json()
    assert shown["state"] == "open"
    listed = client.get(f"/v1/events/{event['id']}/editions").json()["editions"]
    assert [e["id"] for e in listed] == [edition]
    assert listed[0]["rounds"] == shown["rounds"]


def test_a_change_or_a_cancellation_before_it_opens_drops_the_edition_made_ahead(
    client_with: Callable[..., TestClient], settings: Settings
) -> None:
    client = client_with(operator_token=TOKEN, challenge_secret=SECRET)
    job = settings.model_copy(update={"challenge_secret": SECRET})
    start = datetime(2046, 2, 9, tzinfo=UTC)
    at(client, start - timedelta(hours=2))
    body = {"name": "Changed", "starts_at": iso(start), "ends_at": iso(start + timedelta(days=1))}
    event = client.post("/v1/operator/events", json=body, headers=OPERATOR).json()
    edition = f"{event['id']}.0"
    assert edition in prepared(job, start - timedelta(minutes=30))
    at(client, start - timedelta(minutes=20))
    # What makes an edition fair may still change: no edition has opened.
    r = client.patch(f"/v1/operator/events/{event['id']}", json={"rounds": 2}, headers=OPERATOR)
    assert r.status_code == 200, r.text
    assert edition in prepared(job, start - timedelta(minutes=19))  # made again
    at(client, start + timedelta(minutes=1))
    rounds = client.get(f"/v1/events/{event['id']}/editions/0").json()["rounds"]
    assert [r["round"] for r in rounds] == [1, 2]  # of the event as it is

    other = client.post(
        "/v1/operator/events",
        json={**body, "name": "Cancelled", "starts_at": iso(start + timedelta(hours=1))},
        headers=OPERATOR,
    ).json()
    assert f"{other['id']}.0" in prepared(job, start + timedelta(minutes=10))
    r = client.post(f"/v1/operator/events/{other['id']}/cancel", headers=OPERATOR)
    assert r.status_code == 200, r.text
    assert f"{other['id']}.0" not in prepared(job, start + timedelta(minutes=11))
    at(client, start + timedelta(hours=2))
    r = client.get(f"/v1/events/{other['id']}/editions/0")
    assert r.status_code == 404  # never played


def race(base: str, requests: list[Callable[[httpx.Client], httpx.Response]]) -> list[Any]:
    """The requests sent at once, each from a client of its own; their answers."""
    start_line = threading.Barrier(len(requests))
    answers: list[Any] = []

    def go(send: Callable[[httpx.Client], httpx.Response]) -> None:
        with httpx.Client(base_url=base, timeout=120) as own:
            own.get("/healthz")
            start_line.wait()
            r = send(own)
            answers.append((r.status_code, r.json()))

    threads = [threading.Thread(target=go, args=(send,)) for send in requests]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


@pytest.mark.slow
def test_twelve_join_an_edition_nobody_made_and_the_full_ones_hear_it(
    database_url: str,
) -> None:
    """Twelve players join at once an edition of room for three that nobody made yet:
    one search for all of them; three get places, nine 409 challenge-full, none 503."""
    # A generous search budget: a loaded machine's slowness is not what is tested here.
    env = {"OPERATOR_TOKEN": TOKEN, "CHALLENGE_SECRET": SECRET, "SOLVER_BUDGET_MS": "20000"}
    with (
        live_server(database_url, **env) as base,
        httpx.Client(base_url=base, timeout=60) as c,
    ):
        now = datetime.now(UTC)
        body = {
            "name": "rush",
            "max_size": 3,
            "rounds": 3,
            "starts_at": iso(now - timedelta(minutes=1)),
            "ends_at": iso(now + timedelta(hours=1)),
        }
        event = c.post("/v1/operator/events", json=body, headers=OPERATOR).json()
        keys = [new_player(c)[1] for _ in range(12)]
        url = f"/v1/events/{event['id']}/join"
        answers = race(base, [partial(httpx.Client.post, url=url, headers=k) for k in keys])
    statuses = sorted(status for status, _ in answers)
    assert statuses == [200] * 3 + [409] * 9, answers
    assert {a["type"] for s, a in answers if s == 409} == {"/problems/challenge-full"}


@pytest.mark.slow
def test_a_new_day_asked_for_by_sixteen_at_once_answers_every_one(tmp_path: Path) -> None:
    """The first sixteen requests for a day's challenge nobody derived yet (a fresh
    database): one search, sixteen answers of it."""
    url = f"sqlite:///{tmp_path / 'new-day.sqlite3'}"
    upgrade(url)
    with live_server(url, CHALLENGE_SECRET=SECRET, SOLVER_BUDGET_MS="20000") as base:
        path = "/v1/challenges/daily"
        answers = race(base, [partial(httpx.Client.get, url=path)] * 16)
    assert [status for status, _ in answers] == [200] * 16, answers
    assert len({a["commitment"] for _, a in answers}) == 1
