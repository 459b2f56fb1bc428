"""The leaderboard at a million entries, on PostgreSQL, against a bare request.

A fresh PostgreSQL database (skipped, saying so, when none answers) gets today's tripeaks
challenge through the API, then a million ranked results bulk-loaded in SQL (a million
players, scores spread over 200 values and move counts over 60, so about 12,000
score-and-moves buckets), and one real player, through the API, whose result is near the
bottom. One uvicorn worker serves the bench app; one client times, in interleaved rounds,
the bare sync route, the board's first page, a page half-way down (its cursor made from
the 500,000th result), and ``around=me`` for that player. Figures are medians, and
multiples of the bare request in the same run.

How a rank is found: not by counting the rows ahead. ``leaderboard_scores`` holds how
many results have each score (200 rows here) and ``leaderboard_buckets`` how many have
each score and move count; a rank is one plus the results of the better scores plus those
of the same score in fewer moves, and a page's rows are a range of the board's index after
a keyset cursor. So a call reads at most a few hundred small rows of counts, and the
page's rows, however long the board.

Goals: first page <= 2 bare requests; around=me <= 5.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime

import httpx
from sqlalchemy import create_engine, text

from bench.http import Server, migrate, new_postgres_database
from tests.fixtures.servers import ROOMY_RATE_LIMITS, free_port, server_process, uvicorn_command

ENTRIES = 1_000_000
FIRST_PAGE_GOAL = 2.0
AROUND_GOAL = 5.0


@contextmanager
def bench_server(database_url: str) -> Iterator[Server]:
    port = free_port()
    env = {**os.environ, **ROOMY_RATE_LIMITS, "DATABASE_URL": database_url, "LOG_LEVEL": "warning"}
    command = [*uvicorn_command("bench._app:create_bench_app", port), "--workers", "1"]
    with server_process(command, port, env) as proc:
        yield Server(f"http://127.0.0.1:{port}", proc.pid)


def load(database_url: str, challenge_id: str, entries: int) -> float:
    """A million players and their ranked results, in SQL; the seconds it took."""
    began = time.perf_counter()
    engine = create_engine(database_url)
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO players (id, name, kind, created_at) "
                "SELECT 'p' || i, 'player ' || i, 'human', now() FROM generate_series(1, :n) i"
            ),
            {"n": entries},
        )
        conn.execute(
            text(
                "INSERT INTO challenge_entries (challenge_id, player_id, kind, status, score, "
                "moves, rank_score, started_at, finished_at) "
                "SELECT :c, 'p' || i, 'human', 'lost', s, m, -s, now(), "
                "now() + i * interval '1 millisecond' "
                "FROM (SELECT i, (150 - (i * 7919) % 200)::int AS s, "
                "(30 + (i * 104729) % 60)::int AS m "
                "FROM generate_series(1::bigint, :n) i) x"
            ),
            {"c": challenge_id, "n": entries},
        )
        conn.execute(
            text(
                "INSERT INTO leaderboard_buckets (challenge_id, kind, rank_score, moves, entries) "
                "SELECT challenge_id, kind, rank_score, moves, count(*) FROM challenge_entries "
                "WHERE challenge_id = :c GROUP BY challenge_id, kind, rank_score, moves"
            ),
            {"c": challenge_id},
        )
        conn.execute(
            text(
                "INSERT INTO leaderboard_scores (challenge_id, kind, rank_score, entries) "
                "SELECT challenge_id, kind, rank_score, count(*) FROM challenge_entries "
                "WHERE challenge_id = :c GROUP BY challenge_id, kind, rank_score"
            ),
            {"c": challenge_id},
        )
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("VACUUM ANALYZE"))
    engine.dispose()
    return time.perf_counter() - began


def place_near_the_bottom(database_url: str, challenge_id: str, player_id: str) -> None:
    """The real player's ranked result: the second-worst score, the most moves."""
    engine = create_engine(database_url)
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO challenge_entries (challenge_id, player_id, kind, status, score, "
                "moves, rank_score, started_at, finished_at) "
                "VALUES (:c, :p, 'human', 'lost', -48, 89, 48, now(), :t)"
            ),
            {"c": challenge_id, "p": player_id, "t": datetime.now(UTC)},
        )
        for table, key, values in (
            ("leaderboard_buckets", "rank_score, moves", "48, 89"),
            ("leaderboard_scores", "rank_score", "48"),
        ):
            conn.execute(
                text(
                    f"INSERT INTO {table} VALUES (:c, 'human', {values}, 1) "
                    f"ON CONFLICT (challenge_id, kind, {key}) "
                    f"DO UPDATE SET entries = {table}.entries + 1"
                ),
                {"c": challenge_id},
            )
    engine.dispose()


def deep_cursor(database_url: str, challenge_id: str, position: int) -> str:
    from app.challenges.service import board_cursor

    engine = create_engine(database_url)
    with engine.connect() as conn:
        row = conn.execute(
            text(
                "SELECT rank_score, moves, finished_at, player_id FROM challenge_entries "
                "WHERE challenge_id = :c AND kind = 'human' AND rank_score IS NOT NULL "
                "ORDER BY rank_score, moves, finished_at, player_id OFFSET :k LIMIT 1"
            ),
            {"c": challenge_id, "k": position},
        ).one()
    engine.dispose()
    return board_cursor((row.rank_score, row.moves, row.finished_at, row.player_id))


def run(argv: Sequence[str]) -> None:
    entries = 100_000 if "--quick" in argv else ENTRIES
    rounds = 5 if "--quick" in argv else 10
    per_round = 20
    began = time.perf_counter()
    with new_postgres_database() as url:
        if url is None:
            return
        migrate(url)
        with bench_server(url) as server, httpx.Client(base_url=server.base, timeout=60) as c:
            challenge = c.get("/v1/challenges/daily").json()["id"]
            key = c.post("/v1/players", json={"name": "me"}).json()
            seconds = load(url, challenge, entries)
            place_near_the_bottom(url, challenge, key["id"])
            cursor = deep_cursor(url, challenge, entries // 2)
            me = {"Authorization": f"Bearer {key['key']}"}
            board = f"/v1/challenges/{challenge}/leaderboard"
            calls: dict[str, Callable[[], httpx.Response]] = {
                "bare GET (sync def)": lambda: c.get("/bench/bare"),
                "first page (20)": lambda: c.get(board),
                f"page at {entries // 2:,} (20)": lambda: c.get(board, params={"cursor": cursor}),
                "around=me (10 either side)": lambda: c.get(
                    board, params={"around": "me", "limit": 10}, headers=me
                ),
            }
            times: dict[str, list[float]] = {name: [] for name in calls}
            for name, call in calls.items():  # warm
                r = call()
                assert r.status_code == 200, (name, r.status_code, r.text[:200])
            around = calls["around=me (10 either side)"]().json()
            mine = next(e for e in around["entries"] if e["player_id"] == key["id"])
            for _ in range(rounds):
                for name, call in calls.items():
                    for _ in range(per_round):
                        t0 = time.perf_counter()
                        call()
                        times[name].append(time.perf_counter() - t0)
    bare = statistics.median(times["bare GET (sync def)"])
    print(
        f"PostgreSQL, {entries + 1:,} ranked results in one challenge (loaded in "
        f"{seconds:.0f} s); the real player ranks {mine['rank']:,} of {around['ranked']:,}"
    )
    print(f"  {'call':<28} {'median ms':>10} {'x bare':>7}")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"  {name:<28} {1000 * median:>10.2f} {median / bare:>6.2f}x")
    first = statistics.median(times["first page (20)"]) / bare
    near = statistics.median(times["around=me (10 either side)"]) / bare
    print(
        f"goal: first page <= {FIRST_PAGE_GOAL}x bare: {first:.2f}x "
        f"{'met' if first <= FIRST_PAGE_GOAL else 'MISSED'}"
    )
    print(
        f"goal: around=me <= {AROUND_GOAL}x bare: {near:.2f}x "
        f"{'met' if near <= AROUND_GOAL else 'MISSED'}"
    )
    print(f"(leaderboard bench took {time.perf_counter() - began:.0f} s)")
