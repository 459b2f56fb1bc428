"""An event's edition board at 100,000 entrants and 7 rounds, on PostgreSQL, against a bare
request: the second part of ``python -m bench leaderboard``, on its database and server.

Through the API: an operator's event (7 rounds, all open at once, cohorts of 100, one
edition from an hour ago to six days on), its edition 0 (its rounds' deals searched, its
board made), and one real player who joins it first (number 1, cohort 0). Then, in SQL,
100,000 more entrants (``--quick``: 10,000), numbers 2 on in join order, so that the real
player's cohort is full (they and 99 loaded ones): each played rounds 1 to k (k from 1 to
7 by their number), each round a score from -80 to 220 and 30 to 70 moves (random, seeded),
as rows of the rounds' own boards, and their totals (the sums, the last finish) as rows of
the edition's board with the counts of both; then the real player plays round 1 through
the API (plays while there is one, else draws, 12 moves, then concedes), and the server
makes their total. One client times, in interleaved rounds with the bare sync route, the
edition board's first page, ``around=me`` for the real player, and ``cohort=mine`` (the
first 20 of their cohort of 100). Figures are medians, and multiples of the bare request
of the same rounds.

How a total is kept: on the entrant's row of the edition's board (``challenge_entries``
of the challenge whose id is the edition's), in the transaction of the move that ends one
of their rounds' games (``app.events.service.total_round_result``, a ``GameEnded``
listener after the round's own result is entered): the row is locked, their rounds' best
results are read by primary key (at most 31 lookups), summed (a round not played counts
as the worst: 0 points, or under cards_left every tableau card), and the board's counts
(``leaderboard_scores``, ``leaderboard_buckets``) moved from the old total to the new. A
read never sums over rounds: the edition's board is read as a challenge's, a range of its
index after a cursor, ranks from the counts; ``cohort=mine`` looks its cohort up by
``ix_challenge_entries_cohort`` (at most a cohort's size of rows), ranks them among
themselves by a window, and gives the page's rows their global ranks from the counts.

Before the timing, the bench checks (untimed): the real player's total against their
game's end (the score and moves the server answered); the board's counts against a count
of its entries; the first page against a window ``rank()`` over the whole board in SQL;
``around=me`` (the player and 10 either side, ranks as the window's); and every page of
``cohort=mine`` (by its cursors): the real player's cohort and nobody else, in board
order, each rank one plus the results strictly better among them, each global rank the
window's.

Goals: ``around=me`` and ``cohort=mine`` each <= 2 one-row reads (get_game, same run).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import create_engine, text

from bench.http.load import Game, checked, next_move

ENTRANTS = 100_000
ROUNDS = 7
COHORT = 100
# Issue 49's goals, against a one-row read of the same run (get_game).
GOAL = 2.0
ONE_ROW = "get_game (one row)"
PLAYED_MOVES = 12  # the real player's round: this many moves, then a concession
# The bench server's: the operator's routes, and deals derived from a known secret.
OPERATOR_TOKEN = "bench-operator-token-0123456789-abcdefgh"
SERVER_ENV = {
    "OPERATOR_TOKEN": OPERATOR_TOKEN,
    "CHALLENGE_SECRET": "bench-challenge-secret-0123456789-abcdefgh",
}
BARE = "bare GET (sync def)"
FIRST = "first page (20)"
AROUND = "around=me (10 either side)"
COHORT_PAGE = f"cohort=mine (20 of {COHORT})"


@dataclass
class EventFigures:
    entrants: int  # loaded in SQL, besides the real player
    seconds: float  # the load's
    ranked: int
    totals: int  # distinct totals on the board (rows of leaderboard_scores)
    buckets: int  # distinct totals and move counts (rows of leaderboard_buckets)
    score: int  # the real player's total, as the board shows it
    moves: int
    rank: int
    cohort: int
    times: dict[str, list[float]] = field(default_factory=dict)


def iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def open_edition(c: httpx.Client) -> tuple[str, dict[str, Any]]:
    """An operator's event, through the API, and its edition 0 (made by this first read)."""
    now = datetime.now(UTC)
    body = {
        "name": "bench",
        "rounds": ROUNDS,
        "cohort_size": COHORT,
        "starts_at": iso(now - timedelta(hours=1)),
        "ends_at": iso(now + timedelta(days=6)),
    }
    operator = {"Authorization": f"Bearer {OPERATOR_TOKEN}"}
    event = checked(c.post("/v1/operator/events", json=body, headers=operator), 201)
    edition = checked(c.get(f"/v1/events/{event['id']}/editions/0"))
    assert [r["round"] for r in edition["rounds"]] == list(range(1, ROUNDS + 1)), edition
    return str(event["id"]), edition


def load(database_url: str, edition: dict[str, Any], entrants: int, joined: int) -> float:
    """``entrants`` players after the ``joined`` ones, their rounds' results and their
    totals on the edition's board, with the counts of each board, in SQL; the seconds."""
    began = time.perf_counter()
    board = edition["id"]
    ids = [board, *(r["challenge_id"] for r in edition["rounds"])]
    opens = datetime.fromisoformat(edition["opens_at"])
    engine = create_engine(database_url)
    with engine.begin() as conn:
        conn.execute(text("SELECT setseed(0.18)"))
        # Entrant j played rounds 1 to 1 + (3j mod 7): each count of rounds a seventh.
        conn.execute(
            text(
                "CREATE TEMP TABLE bench_rounds ON COMMIT DROP AS "
                "SELECT j, r, (-80 + floor(random() * 301))::int AS s, "
                "(30 + floor(random() * 41))::int AS m, "
                "CAST(:opens AS timestamptz) + random() * interval '55 minutes' AS f "
                "FROM generate_series(1, :n) j, generate_series(1, 1 + (3 * j) % :rounds) r"
            ),
            {"n": entrants, "rounds": ROUNDS, "opens": opens},
        )
        conn.execute(
            text(
                "INSERT INTO players (id, name, kind, created_at) "
                "SELECT 'e' || j, 'entrant ' || j, 'human', now() FROM generate_series(1, :n) j"
            ),
            {"n": entrants},
        )
        conn.execute(
            text(
                "INSERT INTO challenge_entries (challenge_id, player_id, kind, status, score, "
                "moves, rank_score, attempts, started_at, finished_at) "
                "SELECT :board || '.' || r, 'e' || j, 'human', 'lost', s, m, -s, 1, "
                "f - m * interval '5 seconds', f FROM bench_rounds"
            ),
            {"board": board},
        )
        # A total: the rounds' rank scores summed (a round not played: 0 points), their
        # moves summed, the last finish; the score shown is the points.
        conn.execute(
            text(
                "INSERT INTO challenge_entries (challenge_id, player_id, kind, status, score, "
                "moves, rank_score, attempts, number, cohort, started_at, finished_at) "
                "SELECT :board, 'e' || j, 'human', 'in_progress', sum(s), sum(m), -sum(s), 1, "
                ":joined + j, (:joined + j - 1) / :size, :opens, max(f) "
                "FROM bench_rounds GROUP BY j"
            ),
            {"board": board, "joined": joined, "size": COHORT, "opens": opens},
        )
        conn.execute(
            text(
                "UPDATE challenges c SET entries = c.entries + x.n FROM ("
                "SELECT :board || '.' || r AS id, count(*) AS n FROM bench_rounds GROUP BY r "
                "UNION ALL SELECT :board, :n) x WHERE c.id = x.id"
            ),
            {"board": board, "n": entrants},
        )
        for counts, columns in (
            ("leaderboard_buckets", "challenge_id, kind, rank_score, moves"),
            ("leaderboard_scores", "challenge_id, kind, rank_score"),
        ):
            conn.execute(
                text(
                    f"INSERT INTO {counts} ({columns}, entries) "
                    f"SELECT {columns}, count(*) FROM challenge_entries "
                    "WHERE challenge_id = ANY(:ids) AND rank_score IS NOT NULL "
                    f"GROUP BY {columns}"
                ),
                {"ids": ids},
            )
    engine.dispose()
    return time.perf_counter() - began


def vacuum(database_url: str) -> None:
    engine = create_engine(database_url)
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("VACUUM ANALYZE"))
    engine.dispose()


def play_round(c: httpx.Client, event: str, me: dict[str, str]) -> dict[str, Any]:
    """The real player's attempt at round 1, through the API: a play while there is one,
    else a draw, ``PLAYED_MOVES`` moves (fewer if it ends), then a concession unless it
    has ended; the game's last answer."""
    created = checked(c.post(f"/v1/events/{event}/rounds/1/games", headers=me), 201)
    game = Game(created["id"], created["token"], created["legal_moves"])
    answer = created
    for _ in range(PLAYED_MOVES):
        if answer["status"] != "in_progress":
            break
        answer = checked(
            c.post(f"/v1/games/{game.id}/moves", json=next_move(game), headers=game.headers)
        )
        game.legal = answer["legal_moves"]
    if answer["status"] == "in_progress":
        answer = checked(c.post(f"/v1/games/{game.id}/concede", headers=me))
    assert answer["status"] != "in_progress", answer
    return answer


@dataclass(frozen=True)
class Row:
    """A result on the edition's board, as SQL ranks it: a window over the whole board."""

    player_id: str
    score: int
    rank_score: int
    moves: int
    cohort: int
    rank: int


def established(database_url: str, player_id: str) -> None:
    """The account made a month ago, as the loaded entrants' are: its results rank on the
    board itself rather than apart with new accounts' (issue 47's provisional results)."""
    engine = create_engine(database_url)
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE players SET created_at = created_at - interval '30 days' WHERE id = :p"),
            {"p": player_id},
        )
    engine.dispose()


def board_in_sql(database_url: str, board: str) -> list[Row]:
    """The whole board in its order, each with its ``rank()``: the slow way, to check the
    answers against."""
    engine = create_engine(database_url)
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT player_id, score, rank_score, moves, cohort, "
                "rank() OVER (ORDER BY rank_score, moves) AS g FROM challenge_entries "
                "WHERE challenge_id = :b AND kind = 'human' AND rank_score IS NOT NULL "
                "ORDER BY rank_score, moves, finished_at, player_id"
            ),
            {"b": board},
        ).all()
        # The counts the server ranks by, against a count of the entries.
        for counts, columns in (
            ("leaderboard_scores", "rank_score"),
            ("leaderboard_buckets", "rank_score, moves"),
        ):
            kept = conn.execute(
                text(
                    f"SELECT {columns}, entries FROM {counts} WHERE challenge_id = :b "
                    f"AND kind = 'human' AND entries > 0 ORDER BY {columns}"
                ),
                {"b": board},
            ).all()
            counted = conn.execute(
                text(
                    f"SELECT {columns}, count(*) FROM challenge_entries WHERE challenge_id = :b "
                    f"AND kind = 'human' AND rank_score IS NOT NULL GROUP BY {columns} "
                    f"ORDER BY {columns}"
                ),
                {"b": board},
            ).all()
            assert [tuple(r) for r in kept] == [tuple(r) for r in counted], counts
    engine.dispose()
    return [Row(r.player_id, r.score, r.rank_score, r.moves, r.cohort, int(r.g)) for r in rows]


def count_rows(database_url: str, board: str) -> tuple[int, int]:
    """The board's distinct totals and its distinct totals and move counts."""
    engine = create_engine(database_url)
    with engine.connect() as conn:
        scores, buckets = (
            conn.scalar(text(f"SELECT count(*) FROM {t} WHERE challenge_id = :b"), {"b": board})
            for t in ("leaderboard_scores", "leaderboard_buckets")
        )
    engine.dispose()
    return int(scores or 0), int(buckets or 0)


def check(
    c: httpx.Client, url: str, me_id: str, me: dict[str, str], rows: list[Row]
) -> tuple[Row, int]:
    """The three answers against ``rows`` (untimed): the first page; ``around=me``; every
    page of ``cohort=mine``. The real player's row and their position on the board."""
    first = checked(c.get(url))
    assert first["ranked"] == len(rows), (first["ranked"], len(rows))
    got = [(e["player_id"], e["score"], e["rank"], e["global_rank"]) for e in first["entries"]]
    assert got == [(r.player_id, r.score, r.rank, r.rank) for r in rows[:20]], got

    at = next(k for k, r in enumerate(rows) if r.player_id == me_id)
    around = checked(c.get(url, params={"around": "me", "limit": 10}, headers=me))
    assert around["ranked"] == len(rows)
    seen = [(e["player_id"], e["rank"], e["global_rank"]) for e in around["entries"]]
    near = rows[max(0, at - 10) : at + 11]
    assert seen == [(r.player_id, r.rank, r.rank) for r in near], (seen, near)

    mine = rows[at].cohort
    cohort = [r for r in rows if r.cohort == mine]
    assert len(cohort) == COHORT, len(cohort)  # their cohort is full, all ranked
    entries: list[dict[str, Any]] = []
    params: dict[str, Any] = {"cohort": "mine", "limit": 20}
    while True:
        page = checked(c.get(url, params=params, headers=me))
        assert page["ranked"] == COHORT, page["ranked"]
        entries += page["entries"]
        if page["next"] is None:
            break
        params["cursor"] = page["next"]
    assert [e["player_id"] for e in entries] == [r.player_id for r in cohort]
    for e, r in zip(entries, cohort, strict=True):
        better = sum((o.rank_score, o.moves) < (r.rank_score, r.moves) for o in cohort)
        assert (e["rank"], e["global_rank"]) == (1 + better, r.rank), (e, r)
    return rows[at], at


def measure(
    c: httpx.Client, database_url: str, entrants: int, rounds: int, per_round: int
) -> EventFigures:
    """The edition made and loaded, the real player's round played, the answers checked,
    then the calls timed."""
    event, edition = open_edition(c)
    key = checked(c.post("/v1/players", json={"name": "entrant"}), 201)
    me = {"Authorization": f"Bearer {key['key']}"}
    # A player of long standing: a new account's result is provisional, ranked apart.
    established(database_url, key["id"])
    place = checked(c.post(f"/v1/events/{event}/join", headers=me))
    assert (place["number"], place["cohort"]) == (1, 0), place
    seconds = load(database_url, edition, entrants, joined=place["number"])
    ended = play_round(c, event, me)
    vacuum(database_url)
    board = edition["id"]
    rows = board_in_sql(database_url, board)
    assert len(rows) == entrants + 1, len(rows)
    mine, _ = check(c, f"/v1/events/{event}/editions/0/leaderboard", key["id"], me, rows)
    # The real player's total is the server's: their one round's score and moves.
    score, moves = ended["score"]["total"], ended["version"]
    assert (mine.score, mine.rank_score, mine.moves) == (score, -score, moves), (mine, ended)
    totals, buckets = count_rows(database_url, board)
    url = f"/v1/events/{event}/editions/0/leaderboard"
    game = checked(c.post("/v1/games", json={}), 201)
    token = {"Authorization": f"Bearer {game['token']}"}
    calls: dict[str, Callable[[], httpx.Response]] = {
        BARE: lambda: c.get("/bench/bare"),
        ONE_ROW: lambda: c.get(f"/v1/games/{game['id']}", headers=token),
        FIRST: lambda: c.get(url),
        AROUND: lambda: c.get(url, params={"around": "me", "limit": 10}, headers=me),
        COHORT_PAGE: lambda: c.get(url, params={"cohort": "mine", "limit": 20}, headers=me),
    }
    figures = EventFigures(
        entrants, seconds, len(rows), totals, buckets, score, moves, mine.rank, mine.cohort
    )
    figures.times = {name: [] for name in calls}
    for name, call in calls.items():  # warm
        r = call()
        assert r.status_code == 200, (name, r.status_code, r.text[:200])
    for _ in range(rounds):
        for name, call in calls.items():
            for _ in range(per_round):
                t0 = time.perf_counter()
                r = call()
                figures.times[name].append(time.perf_counter() - t0)
                assert r.status_code == 200, (name, r.status_code, r.text[:200])
    return figures


def report(f: EventFigures) -> None:
    print(
        f"\nPostgreSQL, an event's edition: {f.ranked:,} entrants ranked by their totals over "
        f"{ROUNDS} rounds ({f.entrants:,} loaded in {f.seconds:.0f} s, with their rounds' "
        f"results), {f.totals:,} distinct totals, {f.buckets:,} totals-and-moves buckets"
    )
    print(
        f"  the real player: number 1, cohort {f.cohort} (of {COHORT}, full); round 1 played "
        f"through the API, total {f.score} in {f.moves} moves kept by the server; ranks "
        f"{f.rank:,} of {f.ranked:,} (answers checked)"
    )
    bare = statistics.median(f.times[BARE])
    one_row = statistics.median(f.times[ONE_ROW])
    print(f"  {'call':<28} {'median ms':>10} {'x bare':>7} {'x one row':>10}")
    for name, values in f.times.items():
        median = statistics.median(values)
        print(
            f"  {name:<28} {1000 * median:>10.2f} {median / bare:>6.2f}x {median / one_row:>9.2f}x"
        )
    for label, name in (("edition around=me", AROUND), ("edition cohort=mine", COHORT_PAGE)):
        ratio = statistics.median(f.times[name]) / one_row
        verdict = "met" if ratio <= GOAL else "MISSED"
        print(f"goal: {label} <= {GOAL:g}x a one-row read: {ratio:.2f}x {verdict}")
