"""``python -m app.ops.purge``, run as ops run it, on both databases."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from prometheus_client import CollectorRegistry, generate_latest, multiprocess
from sqlalchemy import create_engine, func, select, update

from app.challenges.models import Challenge
from app.engine import LAYOUTS
from app.games.models import Analysis, Game, Move
from app.main import create_app
from app.ops.migrations import upgrade
from app.players.models import Player
from app.settings import Settings
from tests.fixtures.games import new_game_id, new_player
from tests.fixtures.servers import ROOT
from tests.ops.commands import log_records, logged, run_command
from tests.ops.servers import metric_value


def made_by(client: TestClient, games: dict[str, str]) -> None:
    """The games of the test, made through the API, by name."""
    for name in ("old-1", "old-2", "old-3", "fresh"):  # unfinished
        games[name], auth = new_game_id(client, deal_number=1)
        client.post(f"/v1/games/{games[name]}/draw", headers=auth)
    for name in ("ended-long-ago", "ended-lately"):
        games[name], auth = new_game_id(client, deal_number=2)
        client.post(f"/v1/games/{games[name]}/concede", headers=auth)
        assert client.get(f"/v1/games/{games[name]}/analysis", headers=auth).status_code == 200
    # A player's finished game stays in their history, however old.
    _, key = new_player(client)
    players_game = client.post("/v1/games", json={}, headers=key).json()["id"]
    client.post(f"/v1/games/{players_game}/concede", headers=key)
    games["player's, ended long ago"] = players_game
    # A keen player's finished games, three: the cap keeps the newest two.
    keen, keen_key = new_player(client)
    games["keen"] = keen["id"]
    for name in ("keen-1", "keen-2", "keen-3"):
        games[name] = client.post("/v1/games", json={}, headers=keen_key).json()["id"]
        client.post(f"/v1/games/{games[name]}/concede", headers=keen_key)
    # Two attempts at today's challenge: one left unfinished, one ended; the day is then
    # made over (below).
    day = datetime.now(UTC).date().isoformat()
    for name in ("attempt-unfinished", "attempt-ended"):
        who, who_key = new_player(client)
        games[f"{name} player"] = who["id"]
        r = client.post(f"/v1/challenges/{day}.golf/games", headers=who_key)
        assert r.status_code == 201, r.text
        games[name] = r.json()["id"]
    client.post(f"/v1/games/{games['attempt-ended']}/concede", headers=who_key)
    # Two challenges a player set: one closed long ago, one lately (their window is moved
    # below), the old one with an entrant's finished game, which stays, unlinked.
    host, host_key = new_player(client)
    games["host"] = host["id"]
    closes = (datetime.now(UTC) + timedelta(hours=2)).isoformat()
    for name in ("set-long-ago", "set-lately"):
        body = {"name": name, "closes_at": closes, "winnable_only": False}
        r = client.post("/v1/challenges", json=body, headers=host_key)
        assert r.status_code == 201, r.text
        games[name] = r.json()["id"]
    r = client.post(f"/v1/challenges/{games['set-long-ago']}/games", headers=host_key)
    games["set attempt"] = r.json()["id"]
    client.post(f"/v1/games/{games['set attempt']}/concede", headers=host_key)
    # Players: one made long ago who never played, one with a game (made below as old).
    games["idle"] = new_player(client)[0]["id"]


@pytest.mark.slow
def test_the_purge_deletes_what_is_kept_no_longer_in_batches(
    empty_database_url: str, tmp_path: Path
) -> None:
    url = empty_database_url
    upgrade(url)
    # Its players are made today and play today's challenge (the real clock's), derived
    # at the test's priority with room (as the run's settings do: a loaded machine).
    app = create_app(
        Settings(
            database_url=url,
            rate_limits_enabled=False,
            challenge_account_min_hours=0,
            solver_niceness=0,
            solver_budget_ms=20000,
            scheduled_jobs=False,  # the command under test purges
        )
    )
    games: dict[str, str] = {}
    with TestClient(app) as client:
        made_by(client, games)

    now = datetime.now(UTC)
    ages = {"old-1": 31, "old-2": 45, "old-3": 400, "fresh": 29, "ended-long-ago": 91}
    ages["ended-lately"] = 89
    ages["player's, ended long ago"] = 400
    ages.update({"keen-1": 3, "keen-2": 2, "keen-3": 1})
    engine = create_engine(url)
    with engine.begin() as conn:
        for name, days in ages.items():
            conn.execute(
                update(Game).where(Game.id == games[name]).values(updated_at=now - timedelta(days))
            )
        # The challenge's day is over; every player was made long ago.
        over = now - timedelta(hours=1)
        conn.execute(
            update(Game)
            .where(Game.id.in_([games["attempt-unfinished"], games["attempt-ended"]]))
            .values(reveal_after=over)
        )
        conn.execute(update(Player).values(created_at=now - timedelta(days=400)))
        for name, days in (("set-long-ago", 366), ("set-lately", 364)):
            closed = now - timedelta(days=days)
            conn.execute(
                update(Challenge)
                .where(Challenge.id == games[name])
                .values(opens_at=closed - timedelta(hours=1), closes_at=closed)
            )

    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "PURGE_BATCH_SIZE": "2",  # three abandoned games: two batches
        "RETENTION_PLAYER_GAMES": "2",
        "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
        "LOG_FORMAT": "json",
        # The next day's derivations at the test's priority, with room: on a loaded
        # machine a niced search within the default 3 s may get no CPU at all, and is
        # left to the servers (seen in a CI run: golf's was not derived).
        "SOLVER_NICENESS": "0",
        "SOLVER_BUDGET_MS": "20000",
    }
    done = subprocess.run(
        [sys.executable, "-m", "app.ops.purge", "--as-of", now.isoformat()],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    line = next(json.loads(x) for x in done.stderr.splitlines() if '"purged"' in x)
    assert line["deleted"] == {
        "abandoned": 3,
        "finished": 1,
        "closed_challenge": 1,
        "over_cap": 1,
        "closed_set_challenge": 1,
        "idle_player": 2,  # the one who never played, and the one whose game is old
    }
    # The next day's challenges, derived ahead for every layout.
    tomorrow = (now + timedelta(days=1)).date().isoformat()
    expected = [f"{tomorrow}.{layout}" for layout in ("golf", "six_peaks", "tripeaks")]
    assert line["derived"] == expected

    with engine.connect() as conn:
        left = set(conn.scalars(select(Game.id)))
        moves = conn.scalar(select(func.count()).select_from(Move))
        analyses = conn.scalar(select(func.count()).select_from(Analysis))
        players = set(conn.scalars(select(Player.id)))
        day = now.date() + timedelta(days=1)
        stored = set(conn.scalars(select(Challenge.id).where(Challenge.day == day)))
        set_left = set(conn.scalars(select(Challenge.id).where(Challenge.day.is_(None))))
        unlinked = conn.scalar(select(Game.challenge_id).where(Game.id == games["set attempt"]))
    engine.dispose()
    assert set_left == {games["set-lately"]} and unlinked is None
    assert left == {
        games["fresh"],
        games["ended-lately"],
        games["player's, ended long ago"],
        games["keen-2"],
        games["keen-3"],
        games["attempt-ended"],
        games["set attempt"],
    }
    # The idle players went (their game stays, anonymous now, for the next run to expire);
    # the keen one, who played lately, and the entrants stay.
    assert games["idle"] not in players
    assert {games["keen"], games["attempt-unfinished player"]} <= players
    assert moves == 7 and analyses == 1  # what was deleted took its moves and analysis
    assert stored == set(expected)

    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=str(metrics_dir))  # type: ignore[no-untyped-call]
    text = generate_latest(registry).decode()
    assert metric_value(text, "tripeaks_games_purged_total", reason="abandoned") == 3
    assert metric_value(text, "tripeaks_games_purged_total", reason="finished") == 1


@pytest.mark.slow
def test_the_purge_as_the_cronjob_runs_it(empty_database_url: str) -> None:
    """Production's defaults (retention, batches, the derivations' niceness and budget)
    and no ``--as-of``: what is past the default retention goes, the rest stays, and the
    next UTC day's challenges are derived, or each one not derived in time is logged (it
    is left to the servers: how long a niced search takes is the machine's load, not
    the purge's)."""
    url = empty_database_url
    upgrade(url)
    # The app that makes the data runs no scheduled job: the command under test purges.
    with TestClient(create_app(Settings(database_url=url, scheduled_jobs=False))) as client:
        abandoned, auth = new_game_id(client, deal_number=1)
        client.post(f"/v1/games/{abandoned}/draw", headers=auth)
        finished, auth = new_game_id(client, deal_number=2)
        client.post(f"/v1/games/{finished}/concede", headers=auth)
        fresh, _ = new_game_id(client, deal_number=3)
        idle = new_player(client)[0]["id"]
        kept = new_player(client)[0]["id"]
    now = datetime.now(UTC)
    engine = create_engine(url)
    with engine.begin() as conn:
        for game, days in ((abandoned, 31), (finished, 91)):
            conn.execute(
                update(Game).where(Game.id == game).values(updated_at=now - timedelta(days))
            )
        conn.execute(
            update(Player).where(Player.id == idle).values(created_at=now - timedelta(181))
        )

    done = run_command("app.ops.purge", url)
    assert done.returncode == 0, done.stderr
    line = logged(done.stderr, "purged")
    assert line["deleted"] == {
        "abandoned": 1,
        "finished": 1,
        "closed_challenge": 0,
        "over_cap": 0,
        "closed_set_challenge": 0,
        "idle_player": 1,
    }
    tomorrow = (datetime.fromisoformat(line["as_of"]) + timedelta(days=1)).date()
    not_derived = {
        layout
        for layout in LAYOUTS
        for r in log_records(done.stderr)
        if r["message"].startswith(f"the day's {layout} challenge was not derived")
    }
    derivable = sorted(set(LAYOUTS) - not_derived)
    assert line["derived"] == [f"{tomorrow.isoformat()}.{layout}" for layout in derivable]

    with engine.connect() as conn:
        games = set(conn.scalars(select(Game.id)))
        players = set(conn.scalars(select(Player.id)))
        stored = set(conn.scalars(select(Challenge.id).where(Challenge.day == tomorrow)))
    engine.dispose()
    assert games == {fresh} and players == {kept}
    assert stored == set(line["derived"])


def test_an_as_of_without_a_zone_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'x.sqlite3'}"
    naive = run_command("app.ops.purge", url, "--as-of", "2026-01-01T00:00:00")
    assert naive.returncode == 2 and "time zone" in naive.stderr
