"""Schemathesis, every phase and every check, against a real server: it finds nothing.

`st run` reads the committed spec and throws requests at a server process on 127.0.0.1:
the spec's examples, then the coverage phase (boundary and invalid values for every
parameter, undeclared methods), then random fuzzing, then stateful sequences that follow
the spec's links from a created game to its moves. It must find no server error, no
answer that breaks the schema, no undocumented status code, no missing Allow header...
The configuration (tests/clients/schemathesis.toml) bounds the number of examples and
says which rule-of-the-game refusals a schema-valid request may get; the hooks
(tests/clients/schemathesis_hooks.py) carry each game's token to the calls on it.

FUZZ_SEED picks another seed (the default one keeps CI repeatable).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from app.engine import LAYOUTS
from app.openapi import SPEC_PATH
from app.ops.migrations import upgrade
from tests.fixtures.servers import ROOT, live_server

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "schemathesis.toml"
HOOKS = "tests.clients.schemathesis_hooks"
DEFAULT_SEED = "20261129"


def _st() -> str:
    found = shutil.which("st", path=str(Path(sys.executable).parent))
    if found is None:  # pragma: no cover - the dev group installs it
        pytest.fail("schemathesis is not installed: run `make setup`")
    return found


def test_schemathesis_finds_nothing(tmp_path: Path) -> None:
    database_url = f"sqlite:///{tmp_path / 'fuzz.sqlite3'}"
    upgrade(database_url)
    seed = os.environ.get("FUZZ_SEED", DEFAULT_SEED)
    # Today's challenges are derived first, with the usual budget: a day's deal is searched
    # once, by the first request of the day, and the small budget below (or a loaded
    # machine) may not find it within one request (a 503 that the retry after it mends).
    with live_server(database_url) as warm_url:
        for layout in LAYOUTS:
            r = httpx.get(f"{warm_url}/v1/challenges/daily", params={"layout": layout}, timeout=60)
            assert r.status_code == 200, r.text
    # Small solver budgets keep the fuzzing of hints and analyses quick.
    # An analysis (of a six peaks game, say) within 2 s, well inside the request timeout.
    with live_server(
        database_url,
        HINT_BUDGET_MS="50",
        SOLVER_BUDGET_MS="300",
        ANALYSIS_BUDGET_MS="2000",
        # A deal's difficulty (an analysis's, a tier's draw) within 2 s too: a 503 at worst.
        DIFFICULTY_BUDGET_MS="2000",
        # The operator routes are there (answering 401 and 403 to the fuzzer's requests).
        OPERATOR_TOKEN="fuzzing-operator-token-0123456789abcdef",
    ) as base_url:
        result = subprocess.run(
            [
                _st(),
                "--no-color",
                "--config-file",
                str(CONFIG),
                "run",
                str(SPEC_PATH),
                "--url",
                base_url,
                "--checks",
                "all",
                "--phases",
                "examples,coverage,fuzzing,stateful",
                "--seed",
                seed,
                # One worker: the server has the machine's other core.
                "--workers",
                "1",
                "--request-timeout",
                "10",
                "--report",
                "junit",
                "--report-junit-path",
                str(tmp_path / "schemathesis-junit.xml"),
            ],
            cwd=ROOT,
            env={**os.environ, "SCHEMATHESIS_HOOKS": HOOKS},
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    output = result.stdout + result.stderr
    print(output)  # shown by pytest when the test fails, and under -s
    assert result.returncode == 0, f"schemathesis (seed {seed}) found something:\n{output}"
    for phase in ("Examples", "Coverage", "Fuzzing", "Stateful"):
        assert re.search(rf"✅\s+{phase}\b", output), f"{phase} did not pass:\n{output}"
    # The stateful phase really followed the spec's links into games.
    links = re.search(r"API Links:\s+(\d+) covered", output)
    assert links is not None and int(links.group(1)) >= 10, output
