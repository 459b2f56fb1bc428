"""``python -m bench servers``: the production server (Granian, ``python -m app.ops.serve``)
against uvicorn, serving the same app (the bench's: the real app with bare routes) with
one worker on a fresh SQLite database each, side by side in one run.

Issue 48 chose Granian for what it gives against slow clients (a deadline for each request
head, backpressure); issue 49 asks what it costs. Each round sends each server, in turn,
1,000 bare requests (``/bench/bare-async``) and 400 moves of whole games, and reads the
server's CPU time (its process and its children's, from /proc) before and after: the
figures are a request's server CPU, the median of the rounds after the first (a warm-up),
and uvicorn's over Granian's, round by round. uvicorn is in the dev group for this alone.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from app.ops.migrations import upgrade
from bench.http.servers import tree_cpu_seconds
from tests.fixtures.servers import ROOMY_RATE_LIMITS, free_port, served_on, server_process

FACTORY = "bench._app:create_bench_app"
UVICORN = (
    "import sys, uvicorn; from app.ops.check import command_settings; "
    "s = command_settings(); s is None and sys.exit(2); "
    f"uvicorn.run({FACTORY!r}, factory=True, host=s.host, port=s.port, "
    "log_level='warning', access_log=False)"
)
COMMANDS = {
    "granian": [sys.executable, "-m", "app.ops.serve", FACTORY],
    "uvicorn": [sys.executable, "-c", UVICORN],
}


def cpu_seconds(pid: int) -> float:
    """The CPU time of the server ``pid`` and its workers (it runs throughout)."""
    seconds = tree_cpu_seconds(pid)
    assert seconds is not None, f"server {pid} is gone"
    return seconds


@contextmanager
def serving(name: str, directory: Path) -> Iterator[tuple[str, int]]:
    """Server ``name`` on a fresh SQLite database of its own: its base URL and PID."""
    database = f"sqlite:///{directory / name}.sqlite3"
    upgrade(database)
    port = free_port()
    env = {
        **os.environ,
        **served_on(port),
        **ROOMY_RATE_LIMITS,
        "DATABASE_URL": database,
        "LOG_LEVEL": "warning",
        "SCHEDULED_JOBS": "false",
    }
    with server_process(COMMANDS[name], port, env) as process:
        yield f"http://127.0.0.1:{port}", process.pid


def bare(client: httpx.Client, n: int) -> None:
    for _ in range(n):
        client.get("/bench/bare-async").raise_for_status()


def moves(client: httpx.Client, n: int) -> None:
    """``n`` moves of whole games: the first legal move that is not a concession."""
    made = 0
    while made < n:
        state = client.post("/v1/games", json={}).raise_for_status().json()
        auth = {"Authorization": f"Bearer {state['token']}"}
        url = f"/v1/games/{state['id']}/moves"
        while state["status"] == "in_progress" and made < n:
            move = next(m for m in state["legal_moves"] if m["kind"] != "concede")
            state = client.post(url, json=move, headers=auth).raise_for_status().json()
            made += 1


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench servers")
    parser.add_argument("servers", nargs="*", help=argparse.SUPPRESS)
    parser.add_argument("--rounds", type=int, default=6, help="rounds, the first a warm-up")
    parser.add_argument("--bare", type=int, default=1000, help="bare requests a round")
    parser.add_argument("--moves", type=int, default=400, help="moves a round")
    args = parser.parse_args(argv)
    cost: dict[str, dict[str, list[float]]] = {n: {"bare": [], "move": []} for n in COMMANDS}
    with (
        tempfile.TemporaryDirectory() as tmp,
        serving("granian", Path(tmp)) as g,
        serving("uvicorn", Path(tmp)) as u,
    ):
        servers = {"granian": g, "uvicorn": u}
        clients = {name: httpx.Client(base_url=base) for name, (base, _) in servers.items()}
        for round_ in range(args.rounds):
            for kind, work, n in (("bare", bare, args.bare), ("move", moves, args.moves)):
                for name, (_, pid) in servers.items():
                    before = cpu_seconds(pid)
                    work(clients[name], n)
                    if round_:  # the first round warms both up
                        cost[name][kind].append((cpu_seconds(pid) - before) / n * 1000)
        for client in clients.values():
            client.close()
    print("| server CPU a request, ms (median of rounds) | bare | move | move over bare |")
    print("|---|---|---|---|")
    for name in COMMANDS:
        b, m = (statistics.median(cost[name][k]) for k in ("bare", "move"))
        print(f"| {name} | {b:.3f} | {m:.3f} | {m / b:.2f} |")
    for kind in ("bare", "move"):
        ratios = [u / g for u, g in zip(cost["uvicorn"][kind], cost["granian"][kind], strict=True)]
        print(
            f"uvicorn over granian, {kind}: {statistics.median(ratios):.2f}x "
            f"(rounds {min(ratios):.2f}x-{max(ratios):.2f}x)"
        )
