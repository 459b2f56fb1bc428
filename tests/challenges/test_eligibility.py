"""Accounts of the day do not play the day (issue 32): an account made after a challenge
opened enters it only once it is CHALLENGE_ACCOUNT_MIN_HOURS old, and its profile says from
when. Through HTTP on SQLite and PostgreSQL, the clock injected; an account's creation time
is the real one, so each test sets the clock from the account it made."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from fastapi.testclient import TestClient

from tests.fixtures.games import new_player


def at(client: TestClient, moment: datetime) -> None:
    client.app.state.clock = lambda: moment  # type: ignore[attr-defined]


def made(player: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(player["created_at"])


def start_daily(client: TestClient, day: str, auth: dict[str, str]) -> Any:
    return client.post(f"/v1/challenges/{day}.tripeaks/games", headers=auth)


def test_an_account_of_the_day_plays_the_next_day_not_this_one(
    client_with: Callable[..., TestClient],
) -> None:
    client = client_with()
    player, auth = new_player(client)
    created = made(player)
    assert datetime.fromisoformat(player["challenges_from"]) == created + timedelta(hours=24)
    # Its own day: the daily opened at midnight, before the account was made.
    at(client, created)
    day = created.date().isoformat()
    refused = start_daily(client, day, auth)
    assert refused.status_code == 403, refused.text
    problem = refused.json()
    assert problem["type"] == "/problems/account-too-new"
    assert datetime.fromisoformat(problem["eligible_from"]) == created + timedelta(hours=24)
    me = client.get("/v1/players/me", headers=auth).json()
    assert me["challenges_from"] == player["challenges_from"]
    # Refusing changed nothing: no entry, no game.
    board = client.get(f"/v1/challenges/{day}.tripeaks/leaderboard").json()
    assert player["id"] not in [e["player_id"] for e in board["entries"]]
    assert client.get("/v1/players/me/games", headers=auth).json()["games"] == []
    # The next day's daily opens after the account was made: it enters at once.
    next_day = created.date() + timedelta(days=1)
    at(client, datetime.combine(next_day, created.timetz()).replace(hour=0, minute=5))
    entered = start_daily(client, next_day.isoformat(), auth)
    assert entered.status_code == 201, entered.text
    assert entered.json()["challenge"]["id"] == f"{next_day.isoformat()}.tripeaks"


def test_the_minimum_age_admits_an_account_to_a_challenge_that_opened_before_it(
    client_with: Callable[..., TestClient],
) -> None:
    client = client_with(challenge_account_min_hours=2)
    setter, setter_auth = new_player(client)
    at(client, made(setter))
    made_challenge = client.post(
        "/v1/challenges",
        json={"name": "Eligibility", "closes_at": (made(setter) + timedelta(hours=48)).isoformat()},
        headers=setter_auth,
    )
    assert made_challenge.status_code == 201, made_challenge.text
    challenge = made_challenge.json()
    newcomer, auth = new_player(client)
    created = made(newcomer)
    assert datetime.fromisoformat(newcomer["challenges_from"]) == created + timedelta(hours=2)
    at(client, created + timedelta(hours=1))
    refused = client.post(f"/v1/challenges/{challenge['id']}/games", headers=auth)
    assert refused.status_code == 403, refused.text
    assert refused.json()["type"] == "/problems/account-too-new"
    at(client, created + timedelta(hours=2))
    entered = client.post(f"/v1/challenges/{challenge['id']}/games", headers=auth)
    assert entered.status_code == 201, entered.text


def test_a_minimum_age_of_zero_lets_any_account_enter(
    client_with: Callable[..., TestClient],
) -> None:
    client = client_with(challenge_account_min_hours=0)
    player, auth = new_player(client)
    created = made(player)
    assert player["challenges_from"] == player["created_at"]
    at(client, created)
    entered = start_daily(client, created.date().isoformat(), auth)
    assert entered.status_code == 201, entered.text
