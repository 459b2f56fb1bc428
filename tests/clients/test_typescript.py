"""A TypeScript client made from the committed spec plays whole games on a real server.

openapi-typescript turns openapi/openapi.json into types (clients/ts/src/generated, not
committed), tsc type-checks clients/ts/src/play.ts against them (strict), and node runs it
with openapi-fetch against a server process on 127.0.0.1: it wins a game, loses one, and
gets typed problems for an illegal move, a wrong token and a move after the end, and
polls a game with its ETag (304); then two new players play a whole ranked duel. The
frontend guide (docs/guides/frontend.md) quotes it. The npm packages are pinned by
clients/ts/package-lock.json and installed by `make node-setup` (`npm ci`), which the test
targets run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from clients import generate
from tests.fixtures.deals import TRIPEAKS_CLEAR_ORDER, chain_deal, losing_deal
from tests.fixtures.servers import ROOT

pytestmark = pytest.mark.slow

TS_DIR = ROOT / "clients" / "ts"
BIN = TS_DIR / "node_modules" / ".bin"


def _run(*args: str, timeout: float = 180) -> str:
    result = subprocess.run(
        args, cwd=TS_DIR, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert result.returncode == 0, f"{' '.join(args)}:\n{result.stdout}\n{result.stderr}"
    return result.stdout


@pytest.fixture(scope="module")
def compiled() -> Path:
    """clients/ts built: types generated from the spec, then play.ts type-checked by tsc."""
    node = shutil.which("node")
    if node is None or not (BIN / "tsc").exists():
        reason = "Node.js and clients/ts/node_modules are needed: run `make node-setup`"
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the TypeScript client: {reason}")
        pytest.skip(reason)
    version = _run(node, "--version").strip()
    major = re.match(r"v(\d+)", version)
    assert major is not None and int(major.group(1)) >= 20, version
    shutil.rmtree(TS_DIR / "dist", ignore_errors=True)
    shutil.rmtree(TS_DIR / "src" / "generated", ignore_errors=True)
    generate.openapi_typescript(TS_DIR / "src" / "generated")
    _run(str(BIN / "tsc"), "-p", "tsconfig.json")
    script = TS_DIR / "dist" / "play.js"
    assert script.exists()
    return script


@pytest.fixture
def base_url(duel_server: str) -> str:
    """A live server on a database of the test's own (tests/clients/conftest.py): the
    duel's matching and its board see the test's players alone."""
    return duel_server


def test_a_typescript_client_plays_whole_games(compiled: Path, base_url: str) -> None:
    plan = {
        "win": {"deal": chain_deal(), "order": TRIPEAKS_CLEAR_ORDER},
        "lose": {"deal": losing_deal()},
    }
    out = _run("node", str(compiled), base_url, json.dumps(plan), timeout=120)
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    assert "tripeaks" in result["layouts"]
    assert result["won"] == {
        "status": "won",
        "moves": len(TRIPEAKS_CLEAR_ORDER),
        "score": result["won"]["score"],
        "revealed": True,
    }
    assert result["won"]["score"] > 0
    assert result["lost"] == {"status": "lost", "moves": 23, "score": -5 * 23, "revealed": True}
    problems = result["problems"]
    assert problems["typed"] is True
    assert problems["poll"] == {"status": 304, "unchanged": True}
    assert problems["illegal"] == {
        "status": 400,
        "type": "/problems/illegal-move",
        "move": "play 0",
    }
    assert problems["illegal_content_type"] == "application/problem+json"
    assert problems["forbidden"] == {"status": 403, "type": "/problems/forbidden"}
    assert problems["conceded"] == "conceded"
    assert problems["game_over"] == {"status": 409, "type": "/problems/game-over"}
    # A ranked duel: the host opens it, is refused a second meanwhile, plays two draws
    # and concedes; the challenger, matched to it, draws once and concedes: a better score.
    duel = result["duel"]
    assert duel["opened"] == {"status": "waiting", "role": "host", "committed": True}
    assert duel["refused"] == {
        "status": 409,
        "type": "/problems/duel-game-in-progress",
        "typed": True,
        "names_the_game": True,
    }
    assert duel["matched"] == {
        "same_duel": True,
        "status": "matched",
        "role": "challenger",
        "same_deal": True,
    }
    change = duel["challenger"]["rating_change"]
    assert change > 0
    assert duel["host"] == {
        "status": "finished",
        "result": "lost",
        "own_score": True,
        "rating_change": -change,
        "opponent_change": change,
    }
    assert duel["challenger"] == {
        "status": "finished",
        "result": "won",
        "own_score": True,
        "rating_change": change,
        "opponent_change": -change,
    }
    assert duel["board"] == {
        "rated": 2,
        "entries": [[1, "ts challenger", 1500 + change], [2, "ts host", 1500 - change]],
    }
