"""Deals and helpers shared by the API, database and client tests."""

from __future__ import annotations

import hashlib
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from app.engine.cards import RANKS as RANKS_ORDER

ROOT = Path(__file__).resolve().parents[1]

# The order in which a tripeaks table can be cleared bottom row first.
TRIPEAKS_CLEAR_ORDER = [*range(18, 28), *range(9, 18), *range(3, 9), 0, 1, 2]


def chain_deal() -> list[str]:
    """A tripeaks deal won by playing TRIPEAKS_CLEAR_ORDER in one streak (wrap on): the
    waste is an Ace, then the cards climb 2, 3, ... K, A, 2, ... one rank at a time."""
    pool = {rank: [f"{rank}{s}" for s in "cdhs"] for rank in RANKS_ORDER}
    waste = pool["A"].pop()
    tableau: dict[int, str] = {}
    for i, position in enumerate(TRIPEAKS_CLEAR_ORDER):
        rank = RANKS_ORDER[(i + 1) % 13]
        tableau[position] = pool[rank].pop()
    rest = [c for cards in pool.values() for c in cards]
    return [tableau[p] for p in range(28)] + [waste] + rest


def losing_deal() -> list[str]:
    """A tripeaks deal where no card can ever be played: the bottom row is J, Q and K,
    the waste and every stock card are 2 to 9 and not next to any of them... and
    nothing above the bottom row ever turns up."""
    high = [f"{r}{s}" for r in "JQK" for s in "cdhs"]  # 12 cards
    low = [f"{r}{s}" for r in "3456789" for s in "cdhs"]  # 28 cards; none fits J/Q/K
    rest = [f"{r}{s}" for r in "A2T" for s in "cdhs"]  # 12 cards: A, 2 and T fit some
    bottom = high[:10]
    upper = rest + high[10:] + low[:4]  # 18 face-down cards
    waste_and_stock = low[4:]  # 24 cards: waste 3-9 ranks only
    return upper + bottom + waste_and_stock


def verify_commitment(commitment: str, deal: list[str], salt: str) -> bool:
    text = f"tripeaks-deal-v1:{salt}:{' '.join(deal)}"
    return hashlib.sha256(text.encode()).hexdigest() == commitment


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def uvicorn_command(factory: str, port: int) -> list[str]:
    return [
        sys.executable, "-m", "uvicorn", "--factory", factory,
        "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
    ]  # fmt: skip


def wait_healthy(
    base: str, proc: subprocess.Popen[bytes], timeout: float, output: Callable[[], str]
) -> None:
    """Wait until ``base``/healthz answers 200; if the process ends or ``timeout`` seconds
    pass first, fail with the end of its ``output()``."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"server did not start: {output()}")
        time.sleep(0.1)


@contextmanager
def server_process(
    command: list[str], port: int, env: dict[str, str]
) -> Iterator[subprocess.Popen[bytes]]:
    """Start ``command`` (a server on 127.0.0.1:``port``), wait until /healthz answers,
    and stop it afterwards; its stderr is shown if it fails to start."""
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log)
        base = f"http://127.0.0.1:{port}"

        def output() -> str:
            log.seek(0)
            return log.read().decode(errors="replace")[-2000:]

        try:
            wait_healthy(base, proc, 30, output)
            yield proc
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@contextmanager
def live_server(database_url: str, **env: str) -> Iterator[str]:
    """A real uvicorn server process on 127.0.0.1 serving ``database_url``."""
    port = free_port()
    environment = {**os.environ, "DATABASE_URL": database_url, "LOG_LEVEL": "warning", **env}
    with server_process(uvicorn_command("app.main:create_app", port), port, environment):
        yield f"http://127.0.0.1:{port}"


class PostgresUnavailableError(Exception):
    """No PostgreSQL server answered at the admin URL."""


@contextmanager
def scratch_postgres_database(admin_url: str, prefix: str) -> Iterator[str]:
    """A new, empty PostgreSQL database, dropped afterwards; PostgresUnavailableError
    (saying where) when no server answers."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    admin = make_url(admin_url)
    engine = create_engine(admin, isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": 3})
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception as e:
        engine.dispose()
        where = admin.render_as_string(hide_password=True)
        raise PostgresUnavailableError(f"PostgreSQL unreachable at {where}: {e}") from None
    name = f"{prefix}_{os.getpid()}_{secrets.token_hex(4)}"
    with engine.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield admin.set(database=name).render_as_string(hide_password=False)
    finally:
        with engine.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        engine.dispose()
