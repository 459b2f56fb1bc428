"""The fair-play measure as a deployment runs it: the time from a result to its measure.

``python -m bench fairplay --scheduled`` starts the compose stack's servers as
deploy/compose.yaml does (two replicas, each the image's entrypoint with the file's
settings: ``WORKERS=2``, PostgreSQL, Redis when one answers; every other setting at its
default, the search processes niced), outside Docker, on a fresh PostgreSQL database.
Then, through them (round robin), on today's daily:

- ``--players N`` honest new accounts (made today: provisional), half playing greedily,
  half with the hint from their view alone (8 samples a decision);
- ``--cheaters C`` stockpiled accounts (made two days before: established, on the board
  at once) playing the deal's best line;

four clients at a time, as fast as they go, so the results come in a burst. It then
reads the boards every two seconds, nothing else running but the servers' own scheduled
jobs, until every result is measured (or ``--timeout``, an hour by default), and prints
the time from each result's end to its measure (p50, p90, the longest), the cheaters
flagged and how long their results stood on the board, and the share of honest
provisional results that took their place on the board within an hour.

The bench knows the servers' secret (``CHALLENGE_SECRET``), so it derives the day's deal
as they do: the cheaters' line, and the state the hint reads its view from.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import yaml
from sqlalchemy import create_engine, update

from app.challenges.deals import daily_rules, find_daily_deal
from app.engine import Deal, GameState, apply, get_layout, new_game
from app.engine.bots import STRATEGIES, HintSettings
from app.engine.solver import solve_best
from app.engine.view import player_view
from app.players.models import Player
from bench.http.servers import migrate, postgres_database_or_none
from tests.ops.servers import entrypoint_server

ROOT = Path(__file__).resolve().parents[1]
SECRET = "scheduled-bench-secret-0123456789abcdefghij"
REPLICAS = 2
CLIENTS = 4
HOUR = 3600.0


@dataclass
class Result:
    player: str
    kind: str  # greedy, hint, cheater
    ended: float = 0.0  # the bench's clock when its last move was answered
    measured_at: datetime | None = None
    finished_at: datetime | None = None
    status: str = "pending"
    side: str = ""  # where it stood when measured: board, provisional, flagged


def compose_environment() -> dict[str, str]:
    """The servers' settings in deploy/compose.yaml that hold outside Docker."""
    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    env = dict(compose["x-server"]["environment"])
    # The database, Redis and the tokens are the bench's own, below.
    for name in ("DATABASE_URL", "RATE_LIMIT_STORAGE_URL", "METRICS_TOKEN", "OPERATOR_TOKEN"):
        env.pop(name, None)
    return {k: str(v) for k, v in env.items()}


def redis_url() -> str:
    """Redis as the stack's replicas share it, or each its own budgets when none answers."""
    import redis

    try:
        redis.Redis.from_url("redis://127.0.0.1:6379/3").ping()
    except redis.RedisError:
        return "memory://"
    return "redis://127.0.0.1:6379/3"


@contextmanager
def stack(database_url: str) -> Iterator[list[str]]:
    env = {
        **compose_environment(),
        "RATE_LIMIT_STORAGE_URL": redis_url(),
        "CHALLENGE_SECRET": SECRET,
        "LOG_LEVEL": "warning",
    }
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as servers:
        bases = []
        for replica in range(REPLICAS):
            where = Path(tmp) / f"server-{replica + 1}"
            where.mkdir()
            server = servers.enter_context(entrypoint_server(database_url, where, **env))
            bases.append(server.base)
        yield bases


def made_at(database_url: str, player_id: str, moment: datetime) -> None:
    engine = create_engine(database_url)
    with engine.begin() as connection:
        connection.execute(update(Player).where(Player.id == player_id).values(created_at=moment))
    engine.dispose()


class Table:
    """The mirror of the day's deal, from which a player's view is read (as a frontend
    reads it from the state)."""

    def __init__(self, deal: Deal) -> None:
        self.deal = deal
        self.hint = STRATEGIES["hint"](
            daily_rules("tripeaks"), get_layout("tripeaks"), HintSettings(samples=8, seconds=None)
        )

    def start(self) -> GameState:
        return new_game(self.deal, daily_rules("tripeaks"), get_layout("tripeaks"))


def play(
    client: httpx.Client, database_url: str, day: str, kind: str, table: Table, line: list[str]
) -> Result:
    r = client.post("/v1/players", json={"name": f"{kind}-{time.monotonic_ns() % 10**6}"})
    r.raise_for_status()
    player = r.json()
    if kind == "cheater":
        made_at(database_url, player["id"], datetime.now(UTC) - timedelta(days=2))
    key = {"Authorization": f"Bearer {player['key']}"}
    r = client.post(f"/v1/challenges/{day}.tripeaks/games", headers=key)
    r.raise_for_status()
    state = r.json()
    auth = {"Authorization": f"Bearer {state['token']}"}
    mirror, moves = table.start(), iter(line)
    while state["status"] == "in_progress":
        legal = [m["move"] for m in state["legal_moves"]]
        if kind == "cheater":
            move = next(moves, "concede")
        elif kind == "hint":
            move = table.hint(player_view(mirror), 0).move
        else:
            move = next((m for m in legal if m.startswith("play ")), "draw")
            move = move if move in legal else "concede"
        r = client.post(f"/v1/games/{state['id']}/moves", json={"move": move}, headers=auth)
        r.raise_for_status()
        state = r.json()
        mirror = apply(mirror, move)
    return Result(player["id"], kind, ended=time.monotonic())


def read_boards(client: httpx.Client, challenge: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """Every result of the humans' board, by player: its side and its entry."""
    seen: dict[str, tuple[str, dict[str, Any]]] = {}
    for side, query in (("board", {}), ("provisional", {"fair_play": "provisional"})):
        cursor = None
        while True:
            params = {**query, "limit": "100", **({"cursor": cursor} if cursor else {})}
            page = client.get(f"/v1/challenges/{challenge}/leaderboard", params=params).json()
            seen.update({e["player_id"]: (side, e) for e in page["entries"]})
            cursor = page["next"]
            if cursor is None:
                break
    flagged = client.get(
        f"/v1/challenges/{challenge}/leaderboard", params={"fair_play": "flagged", "limit": "100"}
    ).json()
    seen.update({e["player_id"]: ("flagged", e) for e in flagged["entries"]})
    return seen


def run(argv: list[str]) -> None:
    p = argparse.ArgumentParser(prog="python -m bench fairplay --scheduled")
    p.add_argument("--players", type=int, default=30)
    p.add_argument("--cheaters", type=int, default=3)
    p.add_argument("--timeout", type=float, default=HOUR)
    args, _ = p.parse_known_args([a for a in argv if a not in ("fairplay", "--scheduled")])
    day = datetime.now(UTC).date().isoformat()
    challenge = f"{day}.tripeaks"
    deal, _ = find_daily_deal(SECRET.encode(), day, "tripeaks", 120)
    assert deal is not None, "the day's deal was not found in time"
    table = Table(deal)
    line = [m for m in solve_best(table.start()).line if m != "concede"]
    kinds = ["cheater"] * args.cheaters + [
        "greedy" if i % 2 else "hint" for i in range(args.players)
    ]
    with postgres_database_or_none() as url:
        if url is None:
            return
        migrate(url)
        with stack(url) as bases:
            clients = [httpx.Client(base_url=b, timeout=120) for b in bases]
            turn = itertools.count()
            lock = threading.Lock()

            def one(kind: str) -> Result:
                with lock:
                    client = clients[next(turn) % len(clients)]
                return play(client, url, day, kind, table, line)

            started = time.monotonic()
            with ThreadPoolExecutor(CLIENTS) as pool:
                results = list(pool.map(one, kinds))
            played = time.monotonic() - started
            by_player = {r.player: r for r in results}
            deadline = time.monotonic() + args.timeout
            while time.monotonic() < deadline:
                for player, (side, entry) in read_boards(clients[0], challenge).items():
                    result = by_player.get(player)
                    status = entry["fair_play"]["status"]
                    if result is None or status == "pending" or result.measured_at is not None:
                        continue
                    result.status, result.side = status, side
                    result.measured_at = datetime.fromisoformat(entry["fair_play"]["measured_at"])
                    result.finished_at = datetime.fromisoformat(entry["finished_at"])
                if all(r.measured_at is not None for r in results):
                    break
                time.sleep(2)
            for c in clients:
                c.close()
    report(results, played, args)


def waited(result: Result) -> float:
    """Seconds from the result's end to its measure."""
    assert result.measured_at is not None and result.finished_at is not None
    return (result.measured_at - result.finished_at).total_seconds()


def report(results: list[Result], played: float, args: argparse.Namespace) -> None:
    measured = [r for r in results if r.measured_at is not None]
    waits = sorted(waited(r) for r in measured)
    print(
        f"{len(results)} results on today's daily through {REPLICAS} replicas of the compose "
        f"stack's settings (WORKERS=2 each), played in {played:.0f} s by {CLIENTS} clients; "
        f"{len(measured)} measured within {args.timeout:.0f} s"
    )
    if waits:
        p90 = waits[min(len(waits) - 1, int(0.9 * len(waits)))]
        print(
            f"  from a result's end to its measure: p50 {statistics.median(waits):.0f} s, "
            f"p90 {p90:.0f} s, longest {waits[-1]:.0f} s"
        )
    cheaters = [r for r in results if r.kind == "cheater"]
    flagged = [r for r in cheaters if r.status == "flagged"]
    print(
        f"  cheaters (the best line, stockpiled accounts): {len(flagged)} of {len(cheaters)} "
        f"flagged, off the board after at most {max(map(waited, flagged), default=0):.0f} s"
    )
    honest = [r for r in results if r.kind != "cheater"]
    placed = [r for r in honest if r.status == "ok" and r.side == "board" and waited(r) <= HOUR]
    wrongly = sum(r.status == "flagged" for r in honest)
    share = 100 * len(placed) / max(1, len(honest))
    print(
        f"  honest provisional results on the board within an hour: {len(placed)} of "
        f"{len(honest)} ({share:.0f}%); flagged: {wrongly}"
    )
