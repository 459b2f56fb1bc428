"""No request's work goes through the threadpool: every route is ``async def`` and its
database work is awaited on the event loop (``app.kit.database``), so that a burst of
requests is not queued behind the threadpool's forty threads, nor each one taxed a
thread hop. Counted where Starlette and FastAPI send sync work: anyio's
``to_thread.run_sync``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio.to_thread
import pytest
from fastapi.testclient import TestClient

from tests.fixtures.games import new_game_id, new_player


@pytest.fixture
def trips(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The functions sent to the threadpool from now on, by name."""
    sent: list[str] = []
    run_sync = anyio.to_thread.run_sync

    async def counted(function: Any, *args: Any, **kwargs: Any) -> Any:
        sent.append(getattr(function, "__name__", repr(function)))
        return await run_sync(function, *args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counted)
    yield sent


def test_no_route_makes_a_trip_through_the_threadpool(client: TestClient, trips: list[str]) -> None:
    player, key = new_player(client, name="Ada")
    game_id, auth = new_game_id(client)
    game = f"/v1/games/{game_id}"
    calls = [
        ("POST", "/v1/games", {}, {}, 201),
        ("POST", "/v1/games", key, {"layout": "golf"}, 201),
        ("POST", f"{game}/draw", auth, None, 200),
        ("POST", f"{game}/moves", auth, {"move": "draw"}, 200),
        ("POST", f"{game}/moves", auth, {"move": "play 0"}, 400),  # face down: illegal
        ("POST", f"{game}/draw", {**auth, "If-Match": '"v0"'}, None, 412),
        ("GET", game, auth, None, 200),
        ("GET", f"{game}/legal-moves", auth, None, 200),
        ("GET", f"{game}/moves", auth, None, 200),
        ("GET", f"{game}/score", auth, None, 200),
        ("GET", f"{game}/hint", auth, None, 200),
        ("POST", f"{game}/concede", auth, None, 200),
        ("GET", f"{game}/analysis", auth, None, 200),
        ("GET", "/v1/layouts", {}, None, 200),
        ("GET", "/v1/players/me", key, None, 200),
        ("PATCH", "/v1/players/me", key, {"name": "Ada L."}, 200),
        ("GET", "/v1/players/me/games", key, None, 200),
        ("GET", f"/v1/players/{player['id']}", {}, None, 200),
        ("GET", "/v1/challenges/daily", {}, None, 200),
        ("GET", "/healthz", {}, None, 200),
        ("GET", "/readyz", {}, None, 200),
        ("GET", "/metrics", {}, None, 200),
    ]
    for method, path, headers, body, status in calls:
        trips.clear()
        r = client.request(method, path, headers=headers, json=body)
        assert r.status_code == status, (path, r.text)
        assert trips == [], (method, path, trips)
    assert client.get(game, headers=auth).json()["version"] == 3
