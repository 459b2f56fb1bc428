"""The ``python -m app.ops.*`` commands, run as production runs them: each in a process of
its own, with production's defaults (only ``DATABASE_URL`` set), on a migrated scratch
database of each kind holding what makes it do real work; its exit code, its log line and
its effect on the rows checked.

The tests of the measures themselves call them inside pytest, where every model is
imported; a command imports only what its modules pull in, and a foreign key to a table
none of them imported fails its first write. So each command here also starts in a fresh
interpreter, and must have the whole metadata, as the server has. The purge's run is in
tests/ops/test_purge.py, the server's in test_entrypoint.py and test_make_run.py.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, select, text

from app.challenges.models import ChallengeEntry, FairPlay
from app.main import create_app
from app.ops.migrations import head_revision, upgrade
from app.settings import Settings
from tests.fixtures.games import new_player
from tests.fixtures.postgres import new_postgres_database
from tests.fixtures.servers import ROOT
from tests.ops.commands import TIMEOUT_S, log_records, logged, production_env, run_command


def commands() -> list[str]:
    """Every module of app/ops with a ``main``: a command, covered here when it is added."""
    found = []
    for path in sorted((ROOT / "app" / "ops").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(node, ast.FunctionDef) and node.name == "main" for node in tree.body):
            found.append(f"app.ops.{path.stem}")
    return found


COMMANDS = commands()


def test_every_command_is_found() -> None:
    assert {
        f"app.ops.{name}" for name in ("check", "fairplay", "migrate", "purge", "serve")
    } <= set(COMMANDS)


# Imports one module in a fresh interpreter, then configures the mappers and resolves
# every foreign key, as a command's first query and write do: its tables, and the keys
# that point to a table nobody imported.
METADATA_OF = """
import importlib, json, sys
importlib.import_module(sys.argv[1])
from sqlalchemy.orm import configure_mappers
from app.kit.models import Base
configure_mappers()
unresolved = []
for table in Base.metadata.tables.values():
    for key in table.foreign_keys:
        try:
            key.column
        except Exception as e:
            unresolved.append(str(e))
print(json.dumps({"tables": sorted(Base.metadata.tables), "unresolved": unresolved}))
"""


def metadata_of(module: str) -> dict[str, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", METADATA_OF, module],
        cwd=ROOT,
        env=production_env("sqlite://"),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, list[str]] = json.loads(done.stdout)
    return found


@pytest.fixture(scope="module")
def server_tables() -> list[str]:
    served = metadata_of("app.main")
    assert served["unresolved"] == [] and "players" in served["tables"]
    return served["tables"]


@pytest.mark.parametrize("module", COMMANDS)
def test_a_command_has_the_whole_metadata_as_the_server(
    module: str, server_tables: list[str]
) -> None:
    found = metadata_of(module)
    assert found["unresolved"] == []
    assert found["tables"] == server_tables


@pytest.mark.parametrize("module", COMMANDS)
def test_a_bad_setting_exits_2_with_one_line(module: str, tmp_path: Path) -> None:
    database = tmp_path / "never.sqlite3"
    done = run_command(module, f"sqlite:///{database}", LOG_FORMAT="xml")
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("invalid configuration: LOG_FORMAT: "), done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert not database.exists()


def test_check_logs_the_configuration(tmp_path: Path) -> None:
    done = run_command("app.ops.check", f"sqlite:///{tmp_path / 'never.sqlite3'}")
    assert done.returncode == 0, done.stderr
    summary = logged(done.stderr, "configuration ok")
    assert summary["database"] == "sqlite" and summary["workers"] == 1
    assert summary["migrate_on_start"] is False


def test_migrate_takes_a_fresh_database_to_head_and_again(empty_database_url: str) -> None:
    """As the Kubernetes Job runs it, and runs it again when retried: the second time
    finds the database at head and changes nothing."""
    url = empty_database_url
    for _ in range(2):
        done = run_command("app.ops.migrate", url)
        assert done.returncode == 0, done.stderr
        messages = [r["message"] for r in log_records(done.stderr) if r["logger"] == "app.migrate"]
        assert messages == [
            f"applying the migrations up to {head_revision()}",
            "migrations at head",
        ]
        engine = create_engine(url)
        with engine.connect() as conn:
            revision = conn.scalar(text("SELECT version_num FROM alembic_version"))
        engine.dispose()
        assert revision == head_revision()


def closed_result(database_url: str) -> tuple[str, str]:
    """A ranked result made through the API (its requests commit): a player sets a
    challenge, plays it to its end and closes it. The challenge's id, the player's."""
    # The app that makes the data runs no scheduled job: the command under test measures.
    app = create_app(Settings(database_url=database_url, scheduled_jobs=False))
    with TestClient(app) as client:
        player, key = new_player(client, name="Host")
        closes = (datetime.now(UTC) + timedelta(hours=2)).isoformat()
        body = {"name": "Tonight", "closes_at": closes, "winnable_only": False}
        made = client.post("/v1/challenges", json=body, headers=key)
        assert made.status_code == 201, made.text
        challenge = made.json()["id"]
        entered = client.post(f"/v1/challenges/{challenge}/games", headers=key)
        assert entered.status_code == 201, entered.text
        state = entered.json()
        auth = {"Authorization": f"Bearer {state['token']}"}
        # A few decisions (the first card that fits, else a draw) for the measure to
        # weigh, then the end.
        for _ in range(10):
            legal = [m["move"] for m in state["legal_moves"]]
            move = next((m for m in legal if m.startswith("play ")), "draw")
            if move not in legal:
                break
            r = client.post(f"/v1/games/{state['id']}/moves", json={"move": move}, headers=auth)
            assert r.status_code == 200, r.text
            state = r.json()
        if state["status"] == "in_progress":
            r = client.post(f"/v1/games/{state['id']}/concede", headers=auth)
            assert r.status_code == 200, r.text
        closed = client.post(f"/v1/challenges/{challenge}/close", headers=key)
        assert closed.status_code == 200 and closed.json()["status"] == "closed", closed.text
    return challenge, str(player["id"])


def test_migrations_started_at_once_take_turns(tmp_path: Path) -> None:
    """Every server pod migrates as it starts (deploy/kubernetes: an init container): three
    migrations started at once on a fresh PostgreSQL database take turns (an advisory
    lock), and each exits 0 with the database at head."""
    with new_postgres_database() as url:
        env = production_env(url)
        started = [
            subprocess.Popen(
                [sys.executable, "-m", "app.ops.migrate"],
                cwd=ROOT,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(3)
        ]
        outcomes = [(p.wait(timeout=TIMEOUT_S), p.communicate()[1]) for p in started]
        assert [code for code, _ in outcomes] == [0, 0, 0], outcomes
        engine = create_engine(url)
        with engine.connect() as conn:
            revision = conn.scalar(text("SELECT version_num FROM alembic_version"))
        engine.dispose()
        assert revision == head_revision()


@pytest.mark.slow
def test_fairplay_measures_a_closed_challenge_s_result(empty_database_url: str) -> None:
    url = empty_database_url
    upgrade(url)
    challenge, player = closed_result(url)

    done = run_command("app.ops.fairplay", url)
    assert done.returncode == 0, done.stderr
    line = logged(done.stderr, "measured")
    assert (line["ok"], line["flagged"], line["missing"]) == (1, 0, 0)

    engine = create_engine(url)
    with engine.connect() as conn:
        entry = conn.execute(
            select(
                ChallengeEntry.fair_play, ChallengeEntry.fair_play_p, ChallengeEntry.fair_play_at
            ).where(ChallengeEntry.challenge_id == challenge, ChallengeEntry.player_id == player)
        ).one()
    engine.dispose()
    assert entry.fair_play == FairPlay.OK
    assert entry.fair_play_p is not None and entry.fair_play_at is not None
