"""Stateless servers: two server processes on one database play one game in turns."""

from __future__ import annotations

import httpx
import pytest

from app import engine
from tests.fixtures.servers import live_server

pytestmark = pytest.mark.slow


def test_two_servers_play_one_game_alternating(database_url: str) -> None:
    with live_server(database_url) as a, live_server(database_url) as b:
        clients = [httpx.Client(base_url=a, timeout=30), httpx.Client(base_url=b, timeout=30)]
        try:
            created = clients[0].post("/v1/games", json={"deal_number": 424242}).json()
            auth = {"Authorization": f"Bearer {created['token']}"}
            url = f"/v1/games/{created['id']}"
            moves: list[str] = []
            turn = 1
            while True:
                c = clients[turn % 2]
                state = c.get(url, headers=auth).json()
                assert state["version"] == len(moves)
                if state["status"] != "in_progress":
                    break
                move = next(m for m in state["legal_moves"] if m["kind"] != "concede")
                r = clients[(turn + 1) % 2].post(
                    f"{url}/moves", json=move, headers={**auth, "If-Match": f'"v{len(moves)}"'}
                )
                assert r.status_code == 200, r.text
                moves.append(move["move"])
                turn += 1
            assert state["status"] in ("won", "lost")
            expected = engine.replay(engine.numbered_deal(424242), engine.Rules.for_layout(), moves)
            assert state["score"] == expected.score.to_dict()
            assert state["status"] == expected.outcome.value
        finally:
            for c in clients:
                c.close()
