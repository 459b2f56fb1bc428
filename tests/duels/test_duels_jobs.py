"""Ranked duels on the production server (its container entrypoint, outside Docker), on a
fresh SQLite file and a fresh PostgreSQL database, with the server's own scheduling and no
command run by the test: a duel past its expiry expires, and a cheater's win, flagged by
the fair-play measure, becomes a loss with its rating gain taken back.

The cheater knows the deal: the test reads it from the database (what the test of issue
47's cheater learned by throwaway accounts). Its best line is flagged by the engine's
measure for nearly every deal (docs/fairplay.md); the test checks that with the server's
own seed before it plays, and deals again for the rare deal where it is not. The test
waits for the jobs' outcome, not for a time."""

from __future__ import annotations

import time
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, select, update

from app.challenges.models import Challenge
from app.duels.models import Duel
from app.duels.pools import Preset, pool_rules
from app.engine import get_layout, new_game, parse_cards
from app.engine.fairplay import measure
from app.engine.solver import solve_best
from tests.duels.helpers import finish, get_duel, player, ratings_of, request_duel
from tests.ops.servers import entrypoint_server

OUTCOME_TIMEOUT_S = 600  # the jobs' outcome on a loaded machine; never a measured figure
RULES = pool_rules("tripeaks", Preset.STANDARD)
LAYOUT = get_layout("tripeaks")


def deal_of(url: str, duel_id: str) -> str:
    """What the cheater knows: the duel's deal, from the database."""
    engine = create_engine(url)
    with engine.connect() as connection:
        deal = connection.execute(select(Challenge.deal).where(Challenge.id == duel_id)).scalar()
    engine.dispose()
    assert deal is not None
    return str(deal)


def backdate(url: str, duel_id: str, moment: datetime) -> None:
    """A duel as if it had been opened long ago: its expiry passed."""
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(
            update(Duel).where(Duel.id == duel_id).values(decide_at=moment, expires_at=moment)
        )
    engine.dispose()


def play(client: httpx.Client, duel: dict[str, Any], choose: Any) -> dict[str, Any]:
    game = duel["game"]
    auth = {"Authorization": f"Bearer {game['token']}"}
    state: dict[str, Any] = game
    while state["status"] == "in_progress":
        legal = [m["move"] for m in state["legal_moves"]]
        r = client.post(f"/v1/games/{game['id']}/moves", json={"move": choose(legal)}, headers=auth)
        assert r.status_code == 200, r.text
        state = r.json()
    return state


def greedy(legal: list[str]) -> str:
    plays = [m for m in legal if m.startswith("play ")]
    return plays[0] if plays else ("draw" if "draw" in legal else "concede")


def wait_for(what: str, check: Any) -> Any:
    deadline = time.monotonic() + OUTCOME_TIMEOUT_S
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(1)
    raise AssertionError(f"the server's scheduled jobs did not {what}")


@pytest.mark.slow
def test_the_server_s_jobs_expire_a_duel_and_take_back_a_cheater_s_win(
    scratch_url: str, tmp_path: Path
) -> None:
    env = {"SOLVER_NICENESS": "0"}
    with (
        entrypoint_server(scratch_url, tmp_path, **env) as server,
        httpx.Client(base_url=server.base, timeout=60) as client,
    ):
        # A duel nobody takes, past its expiry: the duels' job expires it.
        _, lonely = player(client, "Lonely")
        alone = request_duel(client, lonely, preset="no-wrap")
        finish(client, alone, lonely, 0)
        backdate(scratch_url, alone["id"], datetime.now(UTC) - timedelta(minutes=1))

        # The cheater hosts a duel whose best line the measure flags, and plays it.
        for _ in range(3):
            cheat_id, cheat = player(client, "Clair")
            opened = request_duel(client, cheat)
            deal = parse_cards(deal_of(scratch_url, opened["id"]))
            line = [m for m in solve_best(new_game(deal, RULES, LAYOUT)).line if m != "concede"]
            seed = zlib.crc32(opened["id"].encode())
            if measure(deal, RULES, line, LAYOUT, seed=seed).p_value < 0.001:
                break
            finish(client, opened, cheat, 0)
        else:
            raise AssertionError("no best line among 3 deals shows: see docs/fairplay.md")
        moves = iter(line)
        play(client, opened, lambda legal: next(moves, "concede"))
        honest_id, honest = player(client, "Honor")
        taken = request_duel(client, honest)
        assert taken["id"] == opened["id"]
        play(client, taken, greedy)
        won = get_duel(client, opened["id"], cheat)
        assert won["result"] == "won" and won["you"]["rating_change"] > 0

        def expired() -> bool:
            return bool(get_duel(client, alone["id"], lonely)["status"] == "expired")

        wait_for("expire the lonely duel", expired)

        def flagged() -> dict[str, Any] | None:
            seen = get_duel(client, opened["id"], cheat)
            return seen if seen["you"]["flagged"] else None

        taken_back = wait_for("flag the cheater's result", flagged)
        assert taken_back["result"] == "lost" and taken_back["you"]["rating_change"] == 0
        assert get_duel(client, opened["id"], honest)["result"] == "won"
        assert ratings_of(client, cheat_id)["tripeaks.standard"]["rating"] == 1500
        assert ratings_of(client, honest_id)["tripeaks.standard"]["rating"] == 1500
        server.stop()
