"""Replicas: two server processes on one PostgreSQL database, many games, clients that
alternate between them on every request and race moves on the same game from several
threads. No move is lost or applied twice; every game's move log replays to its stored
state (through the API, with the deal revealed at the end, and in the database)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import httpx
import pytest

from app import engine
from tests.fixtures.postgres import new_postgres_database
from tests.ops.play import Record, check_stored_games, play_games
from tests.ops.servers import entrypoint_server, metric_value

pytestmark = pytest.mark.slow

GAMES = 6
RACERS = 3  # threads playing each game at once


def test_two_replicas_race_moves_without_losing_or_doubling_any(tmp_path: Path) -> None:
    with (
        new_postgres_database() as url,
        entrypoint_server(url, tmp_path, MIGRATE_ON_START="true") as a,
        entrypoint_server(url, tmp_path) as b,
    ):
        bases = [a.base, b.base]
        record = Record()
        games: dict[str, str] = {}
        for i in range(GAMES):
            r = httpx.post(f"{bases[i % 2]}/v1/games", json={}, timeout=30)
            assert r.status_code == 201
            games[r.json()["id"]] = r.json()["token"]
        record.games |= set(games)

        until = time.monotonic() + 120
        threads = [
            threading.Thread(
                target=play_games,
                args=(bases[::-1] if n % 2 else bases, record),
                # One racer in three sends no If-Match: the version check alone decides.
                kwargs={"until": until, "game_id": gid, "token": tok, "if_match": n != 2},
            )
            for gid, tok in games.items()
            for n in range(RACERS)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=180)
        assert not record.bad, record.bad[:5]
        assert not record.duplicates, record.duplicates[:5]
        assert record.statuses[503] == 0 and 500 not in record.statuses

        for gid, token in games.items():
            auth = {"Authorization": f"Bearer {token}"}
            state = httpx.get(f"{a.base}/v1/games/{gid}", headers=auth, timeout=30).json()
            assert state["status"] != "in_progress", "a game did not end in time"
            moves = httpx.get(f"{b.base}/v1/games/{gid}/moves", headers=auth, timeout=30).json()
            log = [m["move"] for m in moves["moves"]]
            # Every version some client saw applied is in the log, and nothing else is.
            applied = {v: m for (g, v), m in record.applied.items() if g == gid}
            assert sorted(applied) == list(range(1, len(log) + 1)), gid
            assert all(log[v - 1] == m for v, m in applied.items()), gid
            # The log replays, on the deal revealed at the end, to the stored state.
            deal = engine.parse_deal(state["reveal"]["deal"])
            replayed = engine.replay(deal, engine.Rules.from_dict(state["rules"]), log)
            assert state["version"] == replayed.moves_made == len(log)
            assert state["status"] == replayed.outcome.value
            assert state["score"] == replayed.score.to_dict()
        assert check_stored_games(url, record) == GAMES

        # Each refused racer was counted as a conflict by the replica that refused it.
        conflicts = sum(
            metric_value(httpx.get(f"{base}/metrics", timeout=30).text, "tripeaks_conflicts_total")
            for base in bases
        )
        assert conflicts == record.conflicts > 0
        print(
            f"\nreplicas: {GAMES} games, {len(record.applied)} moves, "
            f"answers {dict(record.statuses)}, {record.conflicts} conflicts"
        )
