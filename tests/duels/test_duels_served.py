"""Ranked duels on the production server, on a fresh SQLite file and a fresh PostgreSQL
database: two challengers racing for one waiting duel (one takes it, the other opens its
own), and the server's own scheduling (no command run by the test) deciding what a duel
leaves to it: a duel past its expiry expires, and a cheater's win, flagged by the
fair-play measure, becomes a loss with its rating gain taken back.

The cheater knows the deal: the test reads it from the database (what the test of issue
47's cheater learned by throwaway accounts). Its best line is flagged by the engine's
measure for nearly every deal (docs/fairplay.md); the test checks that with the
server's own seed before it plays, and deals again for the rare deal where it is not.
The test waits for the jobs' outcome, not for a time."""

from __future__ import annotations

import threading
import time
import zlib
from collections.abc import Iterator
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
from app.ops.migrations import upgrade
from tests.duels.helpers import finish, get_duel, player, ratings_of, request_duel
from tests.fixtures.postgres import new_postgres_database
from tests.fixtures.servers import live_server
from tests.ops.servers import entrypoint_server

OUTCOME_TIMEOUT_S = 600  # the jobs' outcome on a loaded machine; never a measured figure
RULES = pool_rules("tripeaks", Preset.STANDARD)
LAYOUT = get_layout("tripeaks")


@pytest.fixture(params=["sqlite", "postgresql"])
def scratch_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh database of the test's own, migrated: nobody else's duels to match."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'duels.sqlite3'}"
        upgrade(url)
        yield url
    else:
        with new_postgres_database() as url:
            upgrade(url)
            yield url


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
