"""The servers ``python -m bench http`` measures: this checkout's or another's
(``--baseline``, ``--current``), each on its own scratch database, and their CPU time."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.fixtures.postgres import (
    PostgresUnavailableError,
    admin_url,
    scratch_postgres_database,
)
from tests.fixtures.servers import (
    ROOMY_RATE_LIMITS,
    free_port,
    serve_command,
    served_on,
    server_process,
)

ROOT = Path(__file__).resolve().parents[2]


def migrate(database_url: str) -> None:
    from alembic import command

    from app.ops.migrations import alembic_config

    cfg = alembic_config(database_url)
    cfg.attributes["configure_logger"] = False  # keep alembic's INFO lines out of the figures
    command.upgrade(cfg, "head")


def _process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (Linux)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        todo.extend(int(c) for c in children)
    return found


def _proc_cpu_seconds(pid: int) -> float | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid: int) -> float | None:
    """The user + system CPU time of ``pid`` and its descendants (a server and its
    workers) from /proc, in 10 ms ticks; None once ``pid`` is gone."""
    seconds = [_proc_cpu_seconds(p) for p in _process_tree(pid)]
    return sum(s for s in seconds if s is not None) if seconds[0] is not None else None


# An old checkout's server (uvicorn's ``run`` with its app named by a string) serving
# the app factory of its argument instead: ``Checkout.serve_command``.
OLD_SERVE = """\
import sys
import uvicorn
from app.ops import serve
run = uvicorn.run
uvicorn.run = lambda _app, **options: run(sys.argv[1], **options)
sys.exit(serve.main())
"""


@dataclass(frozen=True)
class Checkout:
    """A checkout of this repository whose own code a server runs (``--baseline``): its
    root (the server's working directory, so ``bench._app`` and ``app`` are its own) and
    the Python of its virtual environment."""

    name: str  # "baseline" or "new"
    root: Path
    python: Path  # not resolved: a venv's python is a symlink out of the venv

    @staticmethod
    def at(name: str, option: str, directory: str) -> Checkout:
        root = Path(directory).resolve()
        python = root / ".venv" / "bin" / "python"
        for needed in (root / "bench" / "_app.py", root / "alembic.ini", python):
            if not needed.exists():
                raise SystemExit(
                    f"{option} {directory}: no {needed} (a checkout, after make setup)"
                )
        return Checkout(name, root, python)

    @staticmethod
    def this(name: str) -> Checkout:
        """This checkout, served by the Python running the bench."""
        return Checkout(name, ROOT, Path(sys.executable))

    def env(self, database_url: str) -> dict[str, str]:
        """The server's (and its migration's) environment: nothing that would put another
        checkout's code on its path."""
        drop = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")
        env = {k: v for k, v in os.environ.items() if k not in drop}
        venv = self.python.parent.parent
        if (venv / "pyvenv.cfg").exists():
            env["VIRTUAL_ENV"] = str(venv)
            env["PATH"] = os.pathsep.join([str(venv / "bin"), env.get("PATH", "")])
        return {**env, **ROOMY_RATE_LIMITS, "DATABASE_URL": database_url, "LOG_LEVEL": "warning"}

    def migrate(self, database_url: str) -> None:
        """``alembic upgrade head`` of this checkout, in it, on ``database_url``."""
        alembic = self.python.parent / "alembic"
        command = [str(alembic)] if alembic.exists() else [str(self.python), "-m", "alembic"]
        command += ["upgrade", "head"]
        done = subprocess.run(
            command, cwd=self.root, env=self.env(database_url), capture_output=True, text=True
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"{self.name}: {' '.join(command)} (in {self.root}) failed:"
                f" {(done.stdout + done.stderr)[-2000:]}"
            )

    def serve_command(self, factory: str) -> list[str]:
        """The checkout's own production server serving ``factory``. A checkout whose
        server takes no factory (it serves ``app.main:create_app`` alone, as 22ca695's
        uvicorn did) is started by its own ``app.ops.serve.main`` with ``uvicorn.run``
        handed ``factory`` in place of that app: every other option is its own."""
        serve = (self.root / "app" / "ops" / "serve.py").read_text()
        if "def main(argv" in serve:
            return [str(self.python), "-m", "app.ops.serve", factory]
        return [str(self.python), "-c", OLD_SERVE, factory]

    def describe(self) -> str:
        """Where it is and which commit, and whether its work tree has changes."""

        def git(*args: str) -> str:
            done = subprocess.run(
                ["git", "-C", str(self.root), *args], capture_output=True, text=True
            )
            return done.stdout.strip() if done.returncode == 0 else ""

        commit = git("rev-parse", "--short", "HEAD") or "not a git checkout"
        changed = git("status", "--porcelain", "--untracked-files=no")
        return (
            f"{self.name}: {self.root} at {commit}{' + uncommitted changes' if changed else ''}"
            f" (served by {self.python})"
        )


@dataclass
class Server:
    base: str
    pid: int
    workers: int = 1
    checkout: Checkout | None = None  # None: this checkout, set up as without --baseline

    def cpu_seconds(self) -> float | None:
        """The server's user + system CPU time so far, else None: one worker's from the
        process itself (to the nanosecond), several workers' summed from /proc (Linux,
        10 ms ticks)."""
        if self.pid < 0:
            return None
        if self.workers == 1:
            return float(httpx.get(f"{self.base}/bench/cpu", timeout=30).json()["seconds"])
        return tree_cpu_seconds(self.pid)


@contextmanager
def bench_server(
    database_url: str, workers: int = 1, checkout: Checkout | None = None
) -> Iterator[Server]:
    """The production server (``workers`` workers) serving the bench app on
    ``database_url``: this checkout's, migrated in this process; or ``checkout``'s (one that
    serves an app factory it is given: ``python -m app.ops.serve FACTORY``), run by its own
    Python in its own directory and migrated by its own alembic."""
    port = free_port()
    command = serve_command("bench._app:create_bench_app")
    if checkout is None:
        migrate(database_url)
        # The bench's clients come from one address: no rate limit may shape its figures.
        env = {**os.environ, **ROOMY_RATE_LIMITS, "DATABASE_URL": database_url}
        env["LOG_LEVEL"] = "warning"
    else:
        checkout.migrate(database_url)
        env = checkout.env(database_url)
        command = checkout.serve_command("bench._app:create_bench_app")
    env.update(served_on(port, workers))
    wrapper = os.environ.get("BENCH_SERVER_WRAPPER")  # e.g. "py-spy record -o x.svg --"
    if wrapper:
        command = [*wrapper.split(), *command]
    with server_process(command, port, env, checkout.root if checkout else ROOT) as proc:
        # Under a wrapper the server is the wrapper's child: CPU figures are then off.
        pid = proc.pid if not wrapper else -1
        yield Server(f"http://127.0.0.1:{port}", pid, workers, checkout)


@contextmanager
def postgres_database_or_none() -> Iterator[str | None]:
    """A fresh PostgreSQL database dropped afterwards, or None (said why) if unreachable."""
    admin = os.environ.get("BENCH_POSTGRES_URL") or admin_url()
    try:
        with scratch_postgres_database(admin, "tripeaks_bench") as url:
            yield url
    except PostgresUnavailableError as e:
        print(f"\n{e}: skipped")
        yield None
