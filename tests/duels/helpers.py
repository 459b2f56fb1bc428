"""Helpers of the duel tests: players, duels and their games through HTTP, and the
scheduled job run at a moment the test sets."""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import Any

import httpx
from fastapi.testclient import TestClient

from app.duels.service import run_duels
from tests.conftest import portal_of
from tests.fixtures.games import new_player

Client = TestClient | httpx.Client


def player(client: Client, name: str, kind: str = "human") -> tuple[str, dict[str, str]]:
    made, auth = new_player(client, name=name, kind=kind)
    return str(made["id"]), auth


def request_duel(
    client: Client, auth: dict[str, str], expect: int = 201, **body: Any
) -> dict[str, Any]:
    r = client.post("/v1/duels", json=body, headers=auth)
    assert r.status_code == expect, r.text
    answer: dict[str, Any] = r.json()
    return answer


def finish(
    client: Client, duel: dict[str, Any], auth: dict[str, str], draws: int
) -> dict[str, Any]:
    """End the player's game of the duel: ``draws`` draws (each costs points under the
    classic scoring), then concede."""
    game_id = duel["game_id"]
    for _ in range(draws):
        r = client.post(f"/v1/games/{game_id}/draw", headers=auth)
        assert r.status_code == 200, r.text
    r = client.post(f"/v1/games/{game_id}/concede", headers=auth)
    assert r.status_code == 200, r.text
    state: dict[str, Any] = r.json()
    return state


def get_duel(client: Client, duel_id: str, auth: dict[str, str]) -> dict[str, Any]:
    r = client.get(f"/v1/duels/{duel_id}", headers=auth)
    assert r.status_code == 200, r.text
    answer: dict[str, Any] = r.json()
    return answer


def ratings_of(client: Client, player_id: str) -> dict[str, dict[str, Any]]:
    r = client.get(f"/v1/players/{player_id}/ratings")
    assert r.status_code == 200, r.text
    return {rating["pool"]: rating for rating in r.json()["ratings"]}


def run_job(client: TestClient, now: datetime) -> int:
    """The scheduled duels job at ``now``, on the app's database (the test's)."""
    app = client.app
    job = partial(
        run_duels,
        app.state.database,  # type: ignore[attr-defined]
        app.state.settings,  # type: ignore[attr-defined]
        now,
    )
    changed: int = portal_of(client).call(job)
    return changed
