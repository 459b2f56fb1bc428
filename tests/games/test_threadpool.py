"""Trips through the threadpool (each about a third of a bare request's cost): a route on
a game makes one, its database work (loading, authorising, applying, committing) all
done in it; a refused move too, its rollback included."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio.to_thread
import pytest
from fastapi.testclient import TestClient

from tests.fixtures.games import new_game_id


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


def test_a_game_s_routes_make_one_trip_each(client: TestClient, trips: list[str]) -> None:
    game_id, auth = new_game_id(client)
    game = f"/v1/games/{game_id}"
    calls = [
        ("POST", "/v1/games", {}, {}, 201),
        ("POST", f"{game}/draw", auth, None, 200),
        ("POST", f"{game}/moves", auth, {"move": "draw"}, 200),
        ("POST", f"{game}/moves", auth, {"move": "play 0"}, 400),  # face down: illegal
        ("POST", f"{game}/draw", {**auth, "If-Match": '"v0"'}, None, 412),
        ("GET", game, auth, None, 200),
        ("GET", f"{game}/legal-moves", auth, None, 200),
        ("GET", f"{game}/moves", auth, None, 200),
        ("GET", f"{game}/score", auth, None, 200),
    ]
    for method, path, headers, body, status in calls:
        trips.clear()
        r = client.request(method, path, headers=headers, json=body)
        assert r.status_code == status, r.text
        assert len(trips) == 1, (method, path, trips)
    assert client.get(game, headers=auth).json()["version"] == 2
