"""A cancelled event's round that never opened, through HTTP on SQLite and PostgreSQL: it
closed at the cancellation with an empty window (as a challenge its creator closes before
it opens), and every route says so the same way, at any time after."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.events.test_events import FRIDAY, OPERATOR, SECRET, TOKEN, Server, iso
from tests.fixtures.games import new_player


@pytest.fixture
def server(client_with: Callable[..., TestClient]) -> Iterator[Server]:
    yield Server(client_with(operator_token=TOKEN, challenge_secret=SECRET))


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_a_round_that_never_opened_is_closed_on_every_route(server: Server) -> None:
    event = server.create(
        rounds=3,
        round_opening="one_per_day",
        join_required=False,
        ends_at=iso(FRIDAY + timedelta(days=3)),
    )
    _, auth = new_player(server.client)
    server.at(FRIDAY + timedelta(hours=1))
    server.start(event, 1, auth)  # the edition is made: rounds 2 and 3 open on later days
    cancelled_at = FRIDAY + timedelta(hours=2)
    server.at(cancelled_at)
    r = server.client.post(f"/v1/operator/events/{event['id']}/cancel", headers=OPERATOR)
    assert r.status_code == 200, r.text
    first, second = f"{event['id']}.0.1", f"{event['id']}.0.2"
    # Soon after, and on the day the round would have opened.
    for now in (cancelled_at + timedelta(hours=1), FRIDAY + timedelta(days=1, hours=1)):
        server.at(now)
        read: Any = server.client.get(f"/v1/challenges/{second}").json()
        assert read["status"] == "closed" and read["reveal"] is not None, read
        assert _moment(read["opens_at"]) == _moment(read["closes_at"]) == cancelled_at
        board = server.client.get(f"/v1/challenges/{second}/leaderboard")
        assert board.status_code == 200, board.text
        assert board.json()["ranked"] == 0 and board.json()["entries"] == []
        practice = server.client.post(f"/v1/challenges/{second}/practice", headers=auth)
        assert practice.status_code == 201, practice.text
        attempt = server.start(event, 2, auth, expect=409)
        assert attempt["type"] == "/problems/event-cancelled", attempt
        assert server.join(event, auth, expect=409)["type"] == "/problems/event-cancelled"
        edition = server.client.get(f"/v1/events/{event['id']}/editions/0").json()
        assert edition["state"] == "closed"
        rounds = {r["challenge_id"]: r for r in edition["rounds"]}
        assert rounds[second]["opens_at"] == read["opens_at"]
        assert rounds[second]["closes_at"] == read["closes_at"]
        assert rounds[second]["reveal"] == read["reveal"]
    # The round that had opened keeps its opening.
    opened = server.client.get(f"/v1/challenges/{first}").json()
    assert opened["status"] == "closed" and _moment(opened["opens_at"]) == FRIDAY
    assert _moment(opened["closes_at"]) == cancelled_at
