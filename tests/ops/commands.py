"""The ``python -m app.ops.*`` commands run as a deployment runs them, for the ops tests:
a process of its own, only ``DATABASE_URL`` set, every other setting at its default."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from tests.fixtures.servers import ROOT

# A command may run a search in a niced process (production's SOLVER_NICENESS) on a
# loaded machine: room for it, never a wait on its speed.
TIMEOUT_S = 600


def production_env(database_url: str, **env: str) -> dict[str, str]:
    """A command's environment as a deployment gives it: the database and nothing else of
    ours (the test process's settings are not passed on)."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "DATABASE_URL": database_url, **env}


def run_command(
    module: str, database_url: str, *args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        env=production_env(database_url, **env),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


def log_records(stderr: str) -> list[dict[str, Any]]:
    """The JSON log lines (LOG_FORMAT's default) a command wrote."""
    return [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]


def logged(stderr: str, message: str) -> dict[str, Any]:
    """The one log line of ``message``."""
    records = [r for r in log_records(stderr) if r["message"] == message]
    assert len(records) == 1, stderr
    return records[0]
