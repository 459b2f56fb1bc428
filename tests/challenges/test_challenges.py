"""The daily challenge and its leaderboard through HTTP, on SQLite and PostgreSQL, with the
server's clock set by the test (never by sleeping)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from app.challenges.deals import find_daily_deal
from app.challenges.service import SearchedCandidates
from app.engine import commitment, parse_deal
from tests.fixtures.clock import NOON
from tests.fixtures.deals import verify_commitment
from tests.fixtures.games import new_game, new_player
from tests.fixtures.servers import live_server

DAY = "2030-06-15"


def start(client: TestClient, layout: str, auth: dict[str, str]) -> Any:
    return client.post(f"/v1/challenges/{DAY}.{layout}/games", headers=auth)


def attempt(
    client: TestClient, layout: str, **player: Any
) -> tuple[dict[str, Any], dict[str, str], dict[str, Any]]:
    """A new player's attempt at the day's challenge: the player, the key's header, the game."""
    who, auth = new_player(client, **player)
    r = start(client, layout, auth)
    assert r.status_code == 201, r.text
    return who, auth, r.json()


def finish(client: TestClient, game: dict[str, Any], auth: dict[str, str], draws: int) -> None:
    for _ in range(draws):
        assert client.post(f"/v1/games/{game['id']}/draw", headers=auth).status_code == 200
    assert client.post(f"/v1/games/{game['id']}/concede", headers=auth).status_code == 200


def test_the_days_challenge_shows_its_commitment_and_nothing_more(
    client: TestClient, set_clock: Callable[[datetime], None]
) -> None:
    r = client.get("/v1/challenges/daily?layout=golf")
    assert r.status_code == 200, r.text
    c = r.json()
    assert c["id"] == f"{DAY}.golf" and c["date"] == DAY and c["status"] == "open"
    assert c["opens_at"].startswith(DAY) and c["closes_at"].startswith("2030-06-16")
    assert c["rules"]["undo"] is False and c["rules"]["scoring"] == "cards_left"
    assert c["reveal"] is None and c["best_score"] is None and c["entries"] == 0
    assert client.get("/v1/challenges/daily?layout=golf").json() == c  # stored: the same
    assert client.get(f"/v1/challenges/daily?layout=golf&day={DAY}").json() == c
    later = client.get("/v1/challenges/daily?layout=golf&day=2030-06-16")
    assert later.status_code == 409 and later.json()["type"] == "/problems/challenge-not-open"
    assert client.get("/v1/challenges/daily?layout=klondike").status_code == 422
    assert client.get("/v1/challenges/daily?day=yesterday").status_code == 422
    # `date`, the parameter's first name, is still taken (not in the spec).
    assert client.get(f"/v1/challenges/daily?layout=golf&date={DAY}").json() == c
    assert client.get("/v1/challenges/daily?date=yesterday").status_code == 422
    both = client.get(f"/v1/challenges/daily?layout=golf&day={DAY}&date=2030-06-16")
    assert both.status_code == 422 and both.json()["errors"][0]["loc"] == ["query", "day"]


def test_an_attempt_keeps_its_deal_secret_until_the_day_is_over(
    client: TestClient, set_clock: Callable[[datetime], None]
) -> None:
    challenge = client.get("/v1/challenges/daily?layout=tripeaks").json()
    _, auth, game = attempt(client, "tripeaks")
    assert game["commitment"] == challenge["commitment"]
    assert game["challenge"]["id"] == challenge["id"] and game["challenge"]["ranked"] is True
    assert game["deal_number"] is None and game["player_id"] is not None
    url = f"/v1/games/{game['id']}"
    hint = client.get(f"{url}/hint", headers=auth)
    assert hint.status_code == 409 and hint.json()["type"] == "/problems/ranked-game"
    ended = client.post(f"{url}/concede", headers=auth).json()
    assert ended["status"] == "conceded" and ended["reveal"] is None  # the day is not over
    analysis = client.get(f"{url}/analysis", headers=auth)
    assert analysis.status_code == 409 and analysis.json()["type"] == "/problems/ranked-game"
    assert client.get("/v1/challenges/daily?layout=tripeaks").json()["entries"] == 1

    set_clock(datetime(2030, 6, 16, 0, 0, tzinfo=UTC))  # the day is over
    revealed = client.get(url, headers=auth).json()["reveal"]
    assert revealed is not None
    closed = client.get(f"/v1/challenges/daily?layout=tripeaks&day={DAY}").json()
    assert closed["status"] == "closed"
    assert (
        closed["reveal"]["deal"] == revealed["deal"]
        and closed["reveal"]["salt"] == revealed["salt"]
    )
    assert verify_commitment(
        closed["commitment"], closed["reveal"]["deal"], closed["reveal"]["salt"]
    )
    deal = parse_deal(closed["reveal"]["deal"])
    assert commitment(deal, closed["reveal"]["salt"]) == challenge["commitment"]
    assert closed["best_score_searched"] is True and closed["best_score"] is not None
    assert closed["best_score_exact"] is True
    assert closed["best_score_bound"] == closed["best_score"]
    assert client.get(f"{url}/analysis", headers=auth).status_code == 200


def test_one_attempt_a_player_and_only_with_a_key(
    client: TestClient, set_clock: Callable[[datetime], None]
) -> None:
    _, auth, game = attempt(client, "tripeaks")
    again = start(client, "tripeaks", auth)
    assert again.status_code == 409
    assert again.json()["type"] == "/problems/already-entered"
    assert again.json()["game_id"] == game["id"]
    assert client.post(f"/v1/challenges/{DAY}.tripeaks/games").status_code == 401
    _, game_auth = new_game(client)
    assert start(client, "tripeaks", game_auth).status_code == 401
    assert start(client, "golf", auth).status_code == 201  # another layout, another challenge
    assert client.post("/v1/challenges/nope/games", headers=auth).status_code == 404
    assert client.post(f"/v1/challenges/{DAY}.klondike/games", headers=auth).status_code == 404


def test_the_day_boundary(client: TestClient, set_clock: Callable[[datetime], None]) -> None:
    set_clock(datetime(2030, 6, 14, 23, 59, 59, tzinfo=UTC))
    _, auth = new_player(client)
    early = start(client, "tripeaks", auth)
    assert early.status_code == 409 and early.json()["type"] == "/problems/challenge-not-open"
    set_clock(datetime(2030, 6, 15, 0, 0, tzinfo=UTC))  # the day's first second
    assert start(client, "tripeaks", auth).status_code == 201
    set_clock(datetime(2030, 6, 15, 23, 59, 59, tzinfo=UTC))
    _, late_auth, late = attempt(client, "tripeaks")
    set_clock(datetime(2030, 6, 16, 0, 0, tzinfo=UTC))  # over: no new attempt
    _, auth2 = new_player(client)
    closed = start(client, "tripeaks", auth2)
    assert closed.status_code == 409 and closed.json()["type"] == "/problems/challenge-closed"
    # The attempt started in time may be finished, but it is not ranked.
    ended = client.post(f"/v1/games/{late['id']}/concede", headers=late_auth).json()
    assert ended["challenge"]["ranked"] is False and ended["reveal"] is not None
    board = client.get(f"/v1/challenges/{DAY}.tripeaks/leaderboard").json()
    assert board["ranked"] == 0 and board["entries"] == []
    hint_after = client.get(f"/v1/games/{late['id']}/hint", headers=late_auth)
    assert hint_after.status_code == 409 and hint_after.json()["type"] == "/problems/game-over"


def _board(
    client: TestClient, query: str = "", auth: dict[str, str] | None = None
) -> dict[str, Any]:
    r = client.get(f"/v1/challenges/{DAY}.golf/leaderboard{query}", headers=auth or {})
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def test_the_leaderboard_ranks_ties_pages_and_finds_me(
    client: TestClient, set_clock: Callable[[datetime], None]
) -> None:
    """Golf counts cards left (fewer is better; draws cost nothing): conceding at once
    leaves 35 cards in 1 move, a draw first in 2 moves. Ties share a rank; the earlier
    finish comes first among them."""
    players: dict[str, tuple[dict[str, Any], dict[str, str]]] = {}
    for name, draws, minute in (("ann", 0, 1), ("bob", 0, 2), ("cy", 1, 3), ("di", 2, 4)):
        set_clock(NOON + timedelta(minutes=minute))
        who, auth, game = attempt(client, "golf", name=name)
        finish(client, game, auth, draws)
        players[name] = (who, auth)
    set_clock(NOON + timedelta(minutes=5))
    _, robot_auth, robot_game = attempt(client, "golf", name="robo", kind="bot")
    finish(client, robot_game, robot_auth, 0)
    attempt(client, "golf", name="eve")  # not ended: not on the board

    board = _board(client)
    assert board["kind"] == "human" and board["ranked"] == 4
    assert [(e["name"], e["rank"], e["score"], e["moves"]) for e in board["entries"]] == [
        ("ann", 1, 35, 1),
        ("bob", 1, 35, 1),
        ("cy", 3, 35, 2),
        ("di", 4, 35, 3),
    ]
    bots = _board(client, "?kind=bot")
    assert [(e["name"], e["rank"]) for e in bots["entries"]] == [("robo", 1)]

    first = client.get(f"/v1/challenges/{DAY}.golf/leaderboard?limit=2")
    page = first.json()
    assert [e["name"] for e in page["entries"]] == ["ann", "bob"] and page["next"]
    link = first.headers["Link"]
    second = client.get(link[1 : link.index(">")]).json()
    assert [(e["name"], e["rank"]) for e in second["entries"]] == [("cy", 3), ("di", 4)]
    assert second["next"] is None

    def around(name: str) -> list[tuple[str, int]]:
        got = _board(client, "?around=me&limit=1", players[name][1])
        return [(e["name"], e["rank"]) for e in got["entries"]]

    assert around("ann") == [("ann", 1), ("bob", 1)]  # the top
    assert around("cy") == [("bob", 1), ("cy", 3), ("di", 4)]  # the middle
    assert around("di") == [("cy", 3), ("di", 4)]  # the bottom
    _, no_result = new_player(client)
    r = client.get(f"/v1/challenges/{DAY}.golf/leaderboard?around=me", headers=no_result)
    assert r.status_code == 404 and r.json()["type"] == "/problems/no-ranked-result"
    assert client.get(f"/v1/challenges/{DAY}.golf/leaderboard?around=me").status_code == 401
    assert client.get(f"/v1/challenges/{DAY}.golf/leaderboard?cursor=xx").status_code == 422

    # A deleted player keeps their place, as a deleted player.
    assert client.delete("/v1/players/me", headers=players["bob"][1]).status_code == 204
    bob = _board(client)["entries"][1]
    assert (bob["rank"], bob["name"], bob["deleted"]) == (1, None, True)


@pytest.mark.slow
def test_two_racing_attempts_of_one_player_make_one_entry(database_url: str) -> None:
    with (
        live_server(database_url) as base,
        httpx.Client(base_url=base, timeout=60) as c,
    ):
        today = c.get("/v1/challenges/daily").json()["id"]
        _, auth = new_player(c)
        start_line = threading.Barrier(4)
        codes: list[int] = []

        def go() -> None:
            with httpx.Client(base_url=base, timeout=60) as own:
                own.get("/healthz")
                start_line.wait()
                codes.append(own.post(f"/v1/challenges/{today}/games", headers=auth).status_code)

        threads = [threading.Thread(target=go) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        entries = c.get("/v1/challenges/daily").json()["entries"]
        mine = c.get("/v1/players/me/games", headers=auth).json()["games"]
    assert sorted(codes) == [201, 409, 409, 409]
    assert entries >= 1 and len(mine) == 1


# -- the derivation, cut short by its time -------------------------------------------------
def _first_winnable_after_a_loser(secret: bytes) -> tuple[str, int]:
    """A day whose deal is not its first candidate (the first was not proved winnable)."""
    for n in range(1, 60):
        day = f"2026-12-{n % 28 + 1:02d}" if n < 29 else f"2027-01-{n - 28:02d}"
        deal, k = find_daily_deal(secret, day, "tripeaks", 60)
        if deal is not None and k > 0:
            return day, k
    raise AssertionError("every day's first candidate was winnable")


def test_a_derivation_cut_short_goes_on_where_it_stopped_and_finds_the_same_deal() -> None:
    secret = b"resume" * 6
    day, k = _first_winnable_after_a_loser(secret)
    deal, found = find_daily_deal(secret, day, "tripeaks", 60)
    assert found == k
    assert find_daily_deal(secret, day, "tripeaks", 0) == (None, 0)  # no time: none tried
    for first in range(k + 1):  # from any candidate up to its own: the same deal
        assert find_daily_deal(secret, day, "tripeaks", 60, first) == (deal, k)


def test_the_search_s_progress_is_kept_per_day_and_layout_and_only_forward() -> None:
    searched = SearchedCandidates()
    searched.note("2026-12-01", "tripeaks", 3)
    searched.note("2026-12-01", "tripeaks", 2)  # a slower racer: the furthest stands
    searched.note("2026-12-01", "golf", 1)
    assert searched.reached("2026-12-01", "tripeaks") == 3
    assert searched.reached("2026-12-01", "golf") == 1
    searched.note("2026-12-02", "tripeaks", 5)  # a new day: the past ones are dropped
    assert searched.reached("2026-12-01", "tripeaks") == 0
    assert searched.reached("2026-12-02", "tripeaks") == 5
