"""The ``client`` fixture isolates tests: what one test writes, the next never sees.

The two tests run in this order (pytest keeps a module's order): the first makes a game
through ``client`` and notes its id; the second looks for that row from a connection of
its own and must not find it, since the first test's transaction was rolled back.
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.games.models import Game
from tests.conftest import portal_of
from tests.fixtures.games import new_game_id

made: dict[str, str] = {}


def test_a_game_made_in_one_test(client: TestClient, app: FastAPI, database_url: str) -> None:
    game_id, auth = new_game_id(client)
    assert client.get(f"/v1/games/{game_id}", headers=auth).status_code == 200
    made[database_url] = game_id


def test_is_gone_in_the_next(
    committing_client: TestClient, app: FastAPI, database_url: str
) -> None:
    game_id = made.pop(database_url)

    async def count() -> int:
        async with app.state.database.read_sessions() as session:
            query = select(func.count()).select_from(Game).where(Game.id == game_id)
            return int(await session.scalar(query) or 0)

    assert portal_of(committing_client).call(count) == 0
