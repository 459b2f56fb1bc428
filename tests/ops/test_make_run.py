"""``make run`` on a fresh clone, as a newcomer runs it: the runtime dependencies alone
(none of the dev group), the SQLite file migrated, and the production server
(``python -m app.ops.serve``) serving, with every setting in force: a 20 kB header is a
431 problem, as behind the image; and its scheduled jobs taking their turns (the purge,
what opens soon), with nothing else to set up.

Needs git, make and PyPI (the clone installs its own virtual environment)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import time
from pathlib import Path

import httpx
import pytest

from tests.fixtures.servers import ROOT, free_port, wait_healthy

pytestmark = pytest.mark.slow


def turns_taken(database: Path) -> set[str]:
    """The scheduled jobs that have taken a turn in the SQLite file."""
    with contextlib.closing(sqlite3.connect(database)) as connection:
        rows = connection.execute(
            "SELECT name FROM scheduled_jobs WHERE last_started_at IS NOT NULL"
        )
        return {name for (name,) in rows}


def test_make_run_on_a_fresh_clone_is_the_production_server_with_runtime_dependencies() -> None:
    if shutil.which("git") is None or shutil.which("make") is None:
        pytest.skip("needs git and make")
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: nothing to clone")
    with tempfile.TemporaryDirectory(prefix="tripeaks-clone-") as tmp:
        clone = Path(tmp) / "tripeaks"
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
        port = free_port()
        env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
        env.update(PORT=str(port), LOG_LEVEL="warning")
        env.pop("DATABASE_URL", None)
        with tempfile.TemporaryFile() as log:
            make = subprocess.Popen(
                ["make", "run"], cwd=clone, env=env, stdout=log, stderr=log, start_new_session=True
            )
            try:
                base = f"http://127.0.0.1:{port}"

                def output() -> str:
                    log.seek(0)
                    return log.read().decode()[-3000:]

                # A pip install from PyPI first, on a machine that may be busy.
                wait_healthy(base, make, 600, output)
                r = httpx.get(f"{base}/v1/layouts", headers={"X-Padding": "x" * 20_000})
                assert r.status_code == 431, r.text
                assert r.headers["content-type"] == "application/problem+json"
                assert httpx.get(f"{base}/v1/layouts").status_code == 200
                # The scheduled jobs take their first turns as the server starts.
                database = clone / "var" / "tripeaks.sqlite3"
                deadline = time.monotonic() + 120
                while turns_taken(database) != {"duels", "prepare", "purge"}:
                    assert time.monotonic() < deadline, output()
                    time.sleep(0.5)
            finally:
                os.killpg(make.pid, signal.SIGTERM)
                make.wait(timeout=60)
        python = clone / ".venv" / "bin" / "python"
        for dev_only in ("pytest", "mypy", "schemathesis"):
            found = subprocess.run(
                [str(python), "-c", f"import {dev_only}"], capture_output=True, check=False
            )
            assert found.returncode != 0, f"{dev_only} is installed by make run"
        assert (clone / "var" / "tripeaks.sqlite3").is_file()
