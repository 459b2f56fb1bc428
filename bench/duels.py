"""Ranked duels at scale: matching among 10,000 waiting duels, and the rating board at a
million rated players, each against a one-row read of the same run, on SQLite and on
PostgreSQL (a scratch database; skipped, saying so, when none answers).

For each database the production server (one worker) serves the bench app
(``bench/_app.py``) on a freshly migrated database. Through the API (untimed): a player
"me", the players who will ask for duels (one each: a matched duel leaves its player a
game to finish, and the next request of theirs would be refused), and one game for the
one-row read. Then, in SQL by SQLAlchemy Core (one ``INSERT ... SELECT`` over a recursive
series per table, the same statement on both databases): a million players ``p1``... and
their ratings in ``tripeaks.standard`` (1,600 distinct ratings from 700 to 2,300,
triangular, so about 600 players share a rating in the middle; a tenth provisional), the
ratings of the API's players (the askers spread from 900 to 2,100, "me" at 1,500) and the
counts by rating made from them (``rating_counts``: a rank is one plus the counts above).
"me" follows 100 of the loaded players (every ``players / 100``-th: ratings from the whole
board). The first 10,000 loaded players (``--duels``) each host a waiting duel of the
pool, rows as ``DuelService.open`` writes them: the duel (its ``match_rating`` its host's
rating, opened 0 to 719 minutes ago so that their ranges have widened from 100 to the
most, 1,000); its challenge of kind ``duel`` (the same id, a deal of ``numbered_deal``
with a fresh salt and its commitment, the deal's key, its window, one entry of two taken);
the host's entry in it. Not written: the hosts' games (the claim reads none), so
``host_game_id`` is empty. Every duel is a person's that takes no bots.

Timed, in interleaved rounds from one client: ``get_game`` (the one-row read),
``create_game`` (a write that starts a game, for scale), ``request_duel`` by an asker whose
rating is in range (the match path: the nearest waiting duel claimed, the asker's entry
and game started in its challenge; no solver search: the answer must say ``matched``),
and ``get_rating_board``: the first page (20), a page half-way down (its cursor made from
the row at ``players / 2``), ``around=me`` (10 either side) and ``among=following``.
Figures are the median and the 90th percentile, and each as a multiple of the one-row
read's.

A request that finds no duel to take draws a deal with the solver (a search of up to
DIFFICULTY_BUDGET_MS) before opening one: that is not timed here. What such a request
pays for the lookup that came back empty is timed apart, in this process on its own
session: ``DuelRepository.nearest_waiting`` for an asker in range (the match's lookup),
for one rated beyond every duel's range (an empty range of the waiting duels' index), and
for a bot (which takes bots' duels and people's that take bots: here none), whose
lookup reads every waiting duel within the widest range (1,000) of its rating and takes
none; each against ``DuelRepository.rating`` (one row by primary key) in the same rounds.

Before timing, the bench checks its answers (untimed): the board's first page and the page
half-way down, their ranks against a count of the players rated higher; ``around=me``
holds "me" with such a rank; ``among=following`` holds "me" and the 100 followed.

Goals (issue 49's for the boards, against a one-row read of the same run): the first page
<= 1.5, ``around=me`` and ``among=following`` <= 2.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import (
    BigInteger,
    Engine,
    Float,
    String,
    Table,
    cast,
    create_engine,
    delete,
    func,
    insert,
    literal,
    select,
    text,
)
from sqlalchemy.ext.asyncio import AsyncSession, create_async_engine
from sqlalchemy.sql.elements import ColumnElement

from app import engine
from app.challenges.models import Challenge, ChallengeEntry, ChallengeKind
from app.duels import ratings
from app.duels.models import Duel, DuelStatus, Rating, RatingCount
from app.duels.pools import Preset, pool_of, pool_rules
from app.duels.repository import DuelRepository, minute_of
from app.engine import GameStatus
from app.engine.equivalence import game_key
from app.kit.database import async_url
from app.kit.ids import new_id
from app.kit.models import PlayerKind
from app.kit.paging import encode_cursor
from app.players.models import Follow, Player
from app.settings import Settings
from bench.http.figures import percentile
from bench.http.servers import bench_server, postgres_database_or_none

LAYOUT = "tripeaks"
POOL = pool_of(LAYOUT, Preset.STANDARD)
PLAYERS = 1_000_000
DUELS = 10_000
FOLLOWED = 100
DEALS = 50  # distinct deals among the waiting duels (each with its own salt)
# Issue 49's goals for the boards, against a one-row read of the same run.
FIRST_PAGE_GOAL = 1.5
AROUND_GOAL = 2.0
FOLLOWING_GOAL = 2.0
ONE_ROW = "get_game (one row)"
MATCHED = "request_duel (matched)"
FIRST_PAGE = "board: first page (20)"
AROUND = "board: around=me (10 either side)"
FOLLOWING = f"board: among=following (first 20 of {FOLLOWED + 1})"
KEY_ROW = "rating (one row by key)"

PLAYERS_T: Table = Player.__table__  # type: ignore[assignment]
RATINGS_T: Table = Rating.__table__  # type: ignore[assignment]
COUNTS_T: Table = RatingCount.__table__  # type: ignore[assignment]
DUELS_T: Table = Duel.__table__  # type: ignore[assignment]
CHALLENGES_T: Table = Challenge.__table__  # type: ignore[assignment]
ENTRIES_T: Table = ChallengeEntry.__table__  # type: ignore[assignment]
FOLLOWS_T: Table = Follow.__table__  # type: ignore[assignment]


@dataclass(frozen=True)
class Sizes:
    players: int
    duels: int
    rounds: int
    per_round: int

    @property
    def askers(self) -> int:
        return self.rounds * self.per_round


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m bench duels",
        description="Ranked duels: request_duel among waiting duels and the rating board at a"
        " million players, against a one-row read, on SQLite and PostgreSQL.",
        epilog="environment: BENCH_POSTGRES_URL, the admin URL of the scratch databases (else"
        " TEST_POSTGRES_URL, else postgres@127.0.0.1:5432)",
        allow_abbrev=False,
    )
    p.add_argument("--quick", action="store_true", help="100,000 players, fewer rounds")
    p.add_argument("--players", type=int, help=f"rated players loaded (default {PLAYERS:,})")
    p.add_argument("--duels", type=int, help=f"waiting duels (default {DUELS:,})")
    p.add_argument("--rounds", type=int, help="interleaved rounds (default 10)")
    p.add_argument("--per-round", type=int, help="requests of each call a round (default 10)")
    p.add_argument("--sqlite-only", action="store_true", help="skip PostgreSQL")
    p.add_argument("--postgres-only", action="store_true", help="skip SQLite")
    return p


def sizes_of(options: argparse.Namespace) -> Sizes:
    players = options.players or (100_000 if options.quick else PLAYERS)
    duels = options.duels or DUELS
    if not FOLLOWED <= duels <= players:
        raise SystemExit(f"--duels {duels}: from {FOLLOWED} to --players ({players})")
    return Sizes(
        players=players,
        duels=duels,
        rounds=options.rounds or (4 if options.quick else 10),
        per_round=options.per_round or 10,
    )


def rating_of(i: Any) -> Any:
    """Loaded player ``i``'s rating, in Python or as a column expression (the same sum):
    700 to 2,300, triangular (the sum of two spreads of 0 to 800)."""
    return 700 + (i * 7919) % 801 + (i * 104729) % 801


def asker_rating(j: int) -> int:
    """The ``j``-th asker's rating: spread from 900 to 2,099, where the duels are dense."""
    return 900 + (j * 613) % 1200


# -- loading, in SQL ------------------------------------------------------------------------
def series(count: int) -> Any:
    """The numbers 1 to ``count``, a recursive CTE (PostgreSQL and SQLite alike)."""
    n = select(literal(1, BigInteger).label("i")).cte("n", recursive=True)
    return n.union_all(select(n.c.i + 1).where(n.c.i < count))


def load_players(db: Engine, count: int, now: datetime) -> None:
    """``count`` players and their ratings in the pool, one statement a table."""
    n = series(count)
    i: ColumnElement[int] = n.c.i
    pid = literal("p", String) + cast(i, String)
    rating = rating_of(i)
    games = i % 100  # a tenth under RATING_PROVISIONAL_GAMES (10)
    with db.begin() as conn:
        conn.execute(
            insert(PLAYERS_T).from_select(
                ["id", "name", "kind", "created_at"],
                select(
                    pid,
                    literal("player ", String) + cast(i, String),
                    literal("human"),
                    literal(now),
                ),
            )
        )
        conn.execute(
            insert(RATINGS_T).from_select(
                [
                    "player_id",
                    "pool",
                    "kind",
                    "mu",
                    "sigma",
                    "rating",
                    "games",
                    "wins",
                    "losses",
                    "draws",
                    "updated_at",
                ],
                select(
                    pid,
                    literal(POOL),
                    literal("human"),
                    cast(rating, Float) + 0.25,
                    cast(60 + i % 200, Float),
                    rating,
                    games,
                    games // 2,
                    games - games // 2,
                    literal(0),
                    literal(now),
                ),
            )
        )


def add_ratings(db: Engine, rated: dict[str, int], now: datetime) -> None:
    """The API's players' ratings (not provisional), by ``executemany``."""
    rows = [
        {
            "player_id": player_id,
            "pool": POOL,
            "kind": PlayerKind.HUMAN,
            "mu": float(value),
            "sigma": 90.0,
            "rating": value,
            "games": 20,
            "wins": 10,
            "losses": 10,
            "draws": 0,
            "updated_at": now,
        }
        for player_id, value in rated.items()
    ]
    with db.begin() as conn:
        conn.execute(insert(RATINGS_T), rows)


def count_ratings(db: Engine) -> None:
    """``rating_counts`` from the ratings: how many players have each value."""
    r = RATINGS_T.c
    with db.begin() as conn:
        conn.execute(delete(COUNTS_T))
        conn.execute(
            insert(COUNTS_T).from_select(
                ["pool", "kind", "rating", "players"],
                select(r.pool, r.kind, r.rating, func.count()).group_by(r.pool, r.kind, r.rating),
            )
        )


def follow(db: Engine, follower_id: str, players: int, now: datetime) -> list[str]:
    """``follower_id`` follows ``FOLLOWED`` loaded players, every ``players / FOLLOWED``-th
    (their ratings from the whole board); their ids."""
    step = players // FOLLOWED
    followed = [f"p{k * step}" for k in range(1, FOLLOWED + 1)]
    rows = [{"follower_id": follower_id, "followed_id": f, "created_at": now} for f in followed]
    with db.begin() as conn:
        conn.execute(insert(FOLLOWS_T), rows)
    return followed


def load_duels(db: Engine, count: int, now: datetime, settings: Settings) -> None:
    """``count`` waiting duels, hosted by the loaded players 1 to ``count``, as
    ``DuelService.open`` writes them: the challenge of kind duel that holds the deal,
    the host's entry in it, and the duel."""
    rules = pool_rules(LAYOUT, Preset.STANDARD)
    layout = engine.get_layout(LAYOUT)
    deals = [engine.numbered_deal(k) for k in range(1, DEALS + 1)]
    keys = [game_key(deal, rules, layout) for deal in deals]
    texts = [engine.format_deal(deal) for deal in deals]
    challenges, entries, duels = [], [], []
    for i in range(1, count + 1):
        waited = i % 720
        opened = now - timedelta(minutes=waited)
        expires = opened + timedelta(hours=settings.duel_match_hours)
        rating = rating_of(i)
        deal = deals[i % DEALS]
        salt = new_id() + new_id()
        commitment = engine.commitment(deal, salt)
        duel_id = new_id()
        tier = ratings.tier_for(rating)
        challenges.append(
            {
                "id": duel_id,
                "kind": ChallengeKind.DUEL,
                "day": None,
                "layout": LAYOUT,
                "rules": rules.to_dict(),
                "deal": texts[i % DEALS],
                "deal_key": keys[i % DEALS],
                "salt": salt,
                "commitment": commitment,
                "entries": 1,
                "opens_at": opened,
                "closes_at": expires + timedelta(hours=settings.duel_play_hours),
                "attempts": 1,
                "max_entries": 2,
                "winnable_only": True,
                "tier": tier,
                "difficulty": None,
                "difficulty_at": None,
                "best_score_exact": False,
                "created_at": opened,
            }
        )
        entries.append(
            {
                "challenge_id": duel_id,
                "player_id": f"p{i}",
                "kind": PlayerKind.HUMAN,
                "status": GameStatus.IN_PROGRESS,
                "attempts": 1,
                "started_at": opened,
                "provisional": False,
            }
        )
        duels.append(
            {
                "id": duel_id,
                "pool": POOL,
                "challenge_id": duel_id,
                "commitment": commitment,
                "tier": tier.value,
                "status": DuelStatus.WAITING,
                "host_kind": PlayerKind.HUMAN,
                "mixed": False,
                "match_rating": rating,
                "host_id": f"p{i}",
                "host_game_id": None,
                "host_provisional": i % 100 < settings.rating_provisional_games,
                "challenger_provisional": False,
                "created_at": opened,
                "opened_minute": minute_of(opened),
                "decide_at": expires,
                "expires_at": expires,
                "host_due_at": opened + timedelta(hours=settings.duel_play_hours),
                "host_forfeit": False,
                "challenger_forfeit": False,
                "host_flagged": False,
                "challenger_flagged": False,
                "settled": False,
            }
        )
    with db.begin() as conn:
        conn.execute(insert(CHALLENGES_T), challenges)
        conn.execute(insert(ENTRIES_T), entries)
        conn.execute(insert(DUELS_T), duels)


def analyze(db: Engine) -> None:
    """Fresh statistics, as autovacuum would leave them on PostgreSQL; SQLite keeps none
    unless asked (``ANALYZE``), and a deployment's file has none: left without."""
    if db.dialect.name != "postgresql":
        return
    with db.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("VACUUM ANALYZE"))


def board_place(db: Engine, position: int) -> tuple[int, str]:
    """The board's row at ``position`` (from 0), in its order."""
    r = RATINGS_T.c
    q = (
        select(r.rating, r.player_id)
        .where(r.pool == POOL, r.kind == "human")
        .order_by(r.rating.desc(), r.player_id.desc())
        .offset(position)
        .limit(1)
    )
    with db.connect() as conn:
        row = conn.execute(q).one()
    return int(row.rating), str(row.player_id)


def rank_of(db: Engine, rating: int) -> int:
    """One plus the players rated higher, counted: the slow way, to check against."""
    r = RATINGS_T.c
    q = select(func.count()).where(r.pool == POOL, r.kind == "human", r.rating > rating)
    with db.connect() as conn:
        return 1 + int(conn.execute(q).scalar_one())


# -- the checks -----------------------------------------------------------------------------
def check_page(db: Engine, page: dict[str, Any]) -> None:
    entries = page["entries"]
    assert entries, page
    keys = [(e["rating"], e["player_id"]) for e in entries]
    assert keys == sorted(keys, reverse=True), keys
    for rating in {e["rating"] for e in entries}:
        want = rank_of(db, rating)
        got = {e["rank"] for e in entries if e["rating"] == rating}
        assert got == {want}, (rating, got, want)


def check_board(
    db: Engine,
    c: httpx.Client,
    board: str,
    cursor: str,
    me: dict[str, str],
    my_id: str,
    followed: list[str],
    rated: int,
) -> None:
    first = c.get(board).json()
    assert first["rated"] == rated, (first["rated"], rated)
    assert len(first["entries"]) == 20 and first["next"], first
    check_page(db, first)
    check_page(db, c.get(board, params={"cursor": cursor}).json())
    around = c.get(board, params={"around": "me", "limit": 10}, headers=me).json()
    mine = [e for e in around["entries"] if e["player_id"] == my_id]
    assert len(mine) == 1 and len(around["entries"]) == 21, around
    assert mine[0]["rank"] == rank_of(db, mine[0]["rating"]), mine
    # The group, page by page (the first page of 20 is what is timed).
    ids: list[str] = []
    params: dict[str, Any] = {"among": "following", "limit": 30}
    while True:
        among = c.get(board, params=params, headers=me).json()
        ids += [e["player_id"] for e in among["entries"]]
        assert [e["rank"] for e in among["entries"]] == sorted(
            e["rank"] for e in among["entries"]
        ), among
        if not among["next"]:
            break
        params["cursor"] = among["next"]
    assert sorted(ids) == sorted([my_id, *followed]), ids


# -- the lookups on their own session -------------------------------------------------------
@dataclass
class Lookups:
    times: dict[str, list[float]] = field(default_factory=dict)


async def time_lookups(url: str, settings: Settings, rounds: int, per_round: int) -> Lookups:
    """``nearest_waiting`` as a request would call it, for an asker who finds a duel and
    for two who find none, against one rating read by key, on one session."""
    widening = (settings.duel_range_start, settings.duel_range_per_minute, settings.duel_range_max)
    db = create_async_engine(async_url(url))
    now = datetime.now(UTC)

    def nearest(rating: int, kind: PlayerKind) -> Callable[[DuelRepository], Any]:
        return lambda repo: repo.nearest_waiting(
            POOL, rating, "nobody", kind, kind is PlayerKind.BOT, now, widening, []
        )

    calls: dict[str, Callable[[DuelRepository], Any]] = {
        KEY_ROW: lambda repo: repo.rating("p1", POOL),
        "nearest_waiting: a match (rating 1,500)": nearest(1500, PlayerKind.HUMAN),
        "nearest_waiting: none, out of range (rating 4,000)": nearest(4000, PlayerKind.HUMAN),
        "nearest_waiting: none, a bot (rating 1,500)": nearest(1500, PlayerKind.BOT),
    }
    out = Lookups({name: [] for name in calls})
    try:
        async with AsyncSession(db) as session:
            repo = DuelRepository(session)
            found = await calls["nearest_waiting: a match (rating 1,500)"](repo)
            assert found, "no waiting duel found for a rating of 1,500"
            for name in list(calls)[2:]:
                assert await calls[name](repo) == [], name
            for _ in range(rounds):
                for name, call in calls.items():
                    for _ in range(per_round):
                        t0 = time.perf_counter()
                        await call(repo)
                        out.times[name].append(time.perf_counter() - t0)
                await session.rollback()  # no snapshot held between rounds
    finally:
        await db.dispose()
    return out


# -- one database ---------------------------------------------------------------------------
@dataclass
class Measured:
    database: str
    sizes: Sizes
    loaded_s: float
    times: dict[str, list[float]]
    lookups: Lookups


def measure(database: str, url: str, sizes: Sizes) -> Measured:
    settings = Settings(database_url=url)
    with bench_server(url) as server, httpx.Client(base_url=server.base, timeout=120) as c:
        now = datetime.now(UTC)
        me_key = c.post("/v1/players", json={"name": "me"}).json()
        askers = [
            c.post("/v1/players", json={"name": f"asker {j}"}).json() for j in range(sizes.askers)
        ]
        game = c.post("/v1/games", json={}).json()
        began = time.perf_counter()
        db = create_engine(url)
        try:
            load_players(db, sizes.players, now)
            rated = {me_key["id"]: 1500}
            rated |= {a["id"]: asker_rating(j) for j, a in enumerate(askers)}
            add_ratings(db, rated, now)
            count_ratings(db)
            followed = follow(db, me_key["id"], sizes.players, now)
            load_duels(db, sizes.duels, now, settings)
            analyze(db)
            loaded_s = time.perf_counter() - began
            middle = sizes.players // 2
            cursor = encode_cursor(list(board_place(db, middle)))
            me = {"Authorization": f"Bearer {me_key['key']}"}
            board = f"/v1/ratings/{POOL}"
            check_board(
                db, c, board, cursor, me, me_key["id"], followed, len(rated) + sizes.players
            )
        finally:
            db.dispose()
        token = {"Authorization": f"Bearer {game['token']}"}
        waiting = iter(askers)

        def request_duel() -> httpx.Response:
            asker = next(waiting)
            r = c.post("/v1/duels", json={}, headers={"Authorization": f"Bearer {asker['key']}"})
            assert r.status_code == 201, (r.status_code, r.text[:300])
            body = r.json()
            # The match path, not an opened duel (which would have drawn with the solver).
            assert (body["status"], body["role"]) == ("matched", "challenger"), body["status"]
            return r

        calls: dict[str, Callable[[], httpx.Response]] = {
            ONE_ROW: lambda: c.get(f"/v1/games/{game['id']}", headers=token),
            "create_game (a game started)": lambda: c.post("/v1/games", json={}),
            MATCHED: request_duel,
            FIRST_PAGE: lambda: c.get(board),
            f"board: page at {middle:,} (20)": lambda: c.get(board, params={"cursor": cursor}),
            AROUND: lambda: c.get(board, params={"around": "me", "limit": 10}, headers=me),
            FOLLOWING: lambda: c.get(board, params={"among": "following"}, headers=me),
        }
        for name, call in calls.items():  # warm (request_duel warms on its first round)
            if name != MATCHED:
                r = call()
                assert r.status_code in (200, 201), (name, r.status_code, r.text[:200])
        times: dict[str, list[float]] = {name: [] for name in calls}
        for _ in range(sizes.rounds):
            for name, call in calls.items():
                for _ in range(sizes.per_round):
                    t0 = time.perf_counter()
                    r = call()
                    times[name].append(time.perf_counter() - t0)
                    assert r.status_code in (200, 201), (name, r.status_code, r.text[:200])
    lookups = asyncio.run(time_lookups(url, settings, sizes.rounds, sizes.per_round))
    return Measured(database, sizes, loaded_s, times, lookups)


# -- the report -----------------------------------------------------------------------------
def _table(times: dict[str, list[float]], yardstick: str, label: str) -> None:
    one50 = statistics.median(times[yardstick])
    one90 = percentile(times[yardstick], 90)
    print(f"  {label:<52} {'p50 ms':>7} {'p90 ms':>7} {'p50 x':>6} {'p90 x':>6}")
    for name, values in times.items():
        p50, p90 = statistics.median(values), percentile(values, 90)
        print(
            f"  {name:<52} {1000 * p50:>7.2f} {1000 * p90:>7.2f}"
            f" {p50 / one50:>5.2f}x {p90 / one90:>5.2f}x"
        )


def report(m: Measured) -> None:
    s = m.sizes
    print(
        f"\n### {m.database}: {s.players:,} rated players loaded, {s.duels:,} waiting duels"
        f" (loaded in {m.loaded_s:.0f} s); {s.rounds} rounds of {s.per_round} a call"
    )
    print("HTTP, one client; 'x': over the one-row read's p50 (p90) of the same rounds")
    _table(m.times, ONE_ROW, "call")
    one_row = statistics.median(m.times[ONE_ROW])
    for label, name, goal in (
        ("first page", FIRST_PAGE, FIRST_PAGE_GOAL),
        ("around=me", AROUND, AROUND_GOAL),
        ("among=following", FOLLOWING, FOLLOWING_GOAL),
    ):
        ratio = statistics.median(m.times[name]) / one_row
        print(
            f"goal: {label} <= {goal:g}x a one-row read: {ratio:.2f}x"
            f" {'met' if ratio <= goal else 'MISSED'}"
        )
    print("The matching lookup on its own session (no HTTP); 'x': over the read by key's")
    _table(m.lookups.times, KEY_ROW, "statement(s)")


def run(argv: Sequence[str]) -> None:
    options, _ = parser().parse_known_args(argv)
    sizes = sizes_of(options)
    began = time.perf_counter()
    if not options.postgres_only:
        with tempfile.TemporaryDirectory(prefix="tripeaks-bench-") as tmp:
            report(measure("SQLite", f"sqlite:///{Path(tmp) / 'duels.sqlite3'}", sizes))
    if not options.sqlite_only:
        with postgres_database_or_none() as url:
            if url is not None:
                report(measure("PostgreSQL", url, sizes))
    print(f"(duels bench took {time.perf_counter() - began:.0f} s)")
