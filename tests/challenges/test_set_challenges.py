"""Challenges players set, their attempts, practice of a closed challenge's deal and
list_my_challenges, through HTTP on SQLite and PostgreSQL, with the server's clock set by
the test (never by sleeping)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from app.engine import commitment, parse_deal
from tests.fixtures.clock import NOON
from tests.fixtures.games import new_player
from tests.fixtures.servers import live_server

HOUR = timedelta(hours=1)


def iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def set_challenge(
    client: TestClient, auth: dict[str, str], expect: int = 201, **body: Any
) -> dict[str, Any]:
    body.setdefault("name", "Friday race")
    body.setdefault("closes_at", iso(NOON + 2 * HOUR))
    r = client.post("/v1/challenges", json=body, headers=auth)
    assert r.status_code == expect, r.text
    answer: dict[str, Any] = r.json()
    return answer


def enter(client: TestClient, challenge_id: str, auth: dict[str, str]) -> dict[str, Any]:
    r = client.post(f"/v1/challenges/{challenge_id}/games", headers=auth)
    assert r.status_code == 201, r.text
    game: dict[str, Any] = r.json()
    return game


def draw_then_concede(
    client: TestClient, game: dict[str, Any], auth: dict[str, str], draws: int
) -> dict[str, Any]:
    for _ in range(draws):
        assert client.post(f"/v1/games/{game['id']}/draw", headers=auth).status_code == 200
    r = client.post(f"/v1/games/{game['id']}/concede", headers=auth)
    assert r.status_code == 200, r.text
    state: dict[str, Any] = r.json()
    return state


def board(client: TestClient, challenge_id: str, query: str = "", **headers: str) -> Any:
    r = client.get(f"/v1/challenges/{challenge_id}/leaderboard{query}", headers=headers)
    assert r.status_code == 200, r.text
    return r.json()


def test_a_set_challenge_is_drawn_by_the_server_and_kept_from_its_creator(
    client: TestClient, set_clock: Callable[[datetime], None]
) -> None:
    _, auth = new_player(client, name="host")
    made = client.post(
        "/v1/challenges",
        json={"name": "Friday race", "closes_at": iso(NOON + 2 * HOUR), "layout": "golf"},
        headers=auth,
    )
    assert made.status_code == 201, made.text
    c = made.json()
    assert made.headers["Location"] == f"/v1/challenges/{c['id']}"
    assert c["kind"] == "set" and c["name"] == "Friday race" and c["date"] is None
    assert c["status"] == "open" and c["reveal"] is None and c["entries"] == 0
    assert c["rules"]["layout"] == "golf" and c["rules"]["scoring"] == "cards_left"
    assert c["attempts"] == 1 and c["max_entries"] == 1000 and c["winnable_only"] is True
    assert len(c["id"]) >= 22 and c["invite_code"] and len(c["invite_code"]) == 11
    # The creator reads what anyone reads: the commitment, not the deal.
    assert client.get(f"/v1/challenges/{c['id']}", headers=auth).json() == c
    game = enter(client, c["id"], auth)  # the creator may enter, as blind as anyone
    assert game["commitment"] == c["commitment"] and game["reveal"] is None
    assert game["challenge"]["id"] == c["id"] and game["deal_number"] is None
    assert all(s["card"] is None for s in game["tableau"] if not s["face_up"])
    hint = client.get(f"/v1/games/{game['id']}/hint", headers=auth)
    assert hint.status_code == 409 and hint.json()["type"] == "/problems/ranked-game"
    ended = draw_then_concede(client, game, auth, 0)
    assert ended["reveal"] is None  # the challenge is open: the deal stays secret
    # The invite code finds it, however it is typed.
    code = c["invite_code"]
    for typed in (code, code.lower(), code.replace("-", ""), code.replace("0", "o")):
        assert client.get(f"/v1/challenges/invites/{typed}").json()["id"] == c["id"]
    assert client.get("/v1/challenges/invites/AAAAA-AAAAU").status_code == 404
    assert client.get("/v1/challenges/not-an-id!").status_code == 404
    assert client.get("/v1/challenges/AAAAAAAAAAAAAAAAAAAAAA").status_code == 404

    set_clock(NOON + 2 * HOUR)  # closed: revealed, and it matches the commitment
    closed = client.get(f"/v1/challenges/{c['id']}").json()
    assert closed["status"] == "closed" and closed["reveal"] is not None
    deal = parse_deal(closed["reveal"]["deal"])
    assert commitment(deal, closed["reveal"]["salt"]) == c["commitment"]
    assert closed["best_score_searched"] is True
    assert client.get(f"/v1/games/{game['id']}", headers=auth).json()["reveal"] is not None


def test_the_window_s_edges(client: TestClient, set_clock: Callable[[datetime], None]) -> None:
    _, auth = new_player(client)

    def refused(field: str, **body: Any) -> None:
        problem = set_challenge(client, auth, expect=422, **body)
        assert problem["errors"][0]["loc"] == ["body", field], problem

    refused("closes_at", closes_at=iso(NOON + HOUR - timedelta(seconds=1)))
    refused("closes_at", closes_at=iso(NOON + timedelta(days=14, seconds=1)))
    refused("opens_at", opens_at=iso(NOON + timedelta(days=14, seconds=1)))
    refused("closes_at", opens_at=iso(NOON + 3 * HOUR), closes_at=iso(NOON + 3 * HOUR))
    refused("closes_at", closes_at="2030-06-15T14:00:00")  # no offset: no moment
    assert set_challenge(client, auth, expect=422, attempts=4)["errors"][0]["loc"] == [
        "body",
        "attempts",
    ]
    # An hour and fourteen days are both allowed; a past opens_at means now.
    shortest = set_challenge(client, auth, closes_at=iso(NOON + HOUR))
    assert shortest["opens_at"] == iso(NOON) and shortest["closes_at"] == iso(NOON + HOUR)
    set_challenge(client, auth, closes_at=iso(NOON + timedelta(days=14)))
    past = set_challenge(client, auth, opens_at=iso(NOON - HOUR), closes_at=iso(NOON + HOUR))
    assert past["opens_at"] == iso(NOON)

    later = set_challenge(
        client, auth, opens_at=iso(NOON + 3 * HOUR), closes_at=iso(NOON + 5 * HOUR)
    )
    assert later["status"] == "upcoming"
    url = f"/v1/challenges/{later['id']}"
    r = client.post(f"{url}/games", headers=auth)
    assert r.status_code == 409 and r.json()["type"] == "/problems/challenge-not-open"
    assert client.get(f"{url}/leaderboard").status_code == 409
    set_clock(NOON + 3 * HOUR)  # its first second
    assert enter(client, later["id"], auth)["challenge"]["ranked"] is True
    set_clock(NOON + 5 * HOUR - timedelta(microseconds=1))  # its last moment
    _, other = new_player(client)
    enter(client, later["id"], other)
    set_clock(NOON + 5 * HOUR)  # closed
    _, late = new_player(client)
    r = client.post(f"{url}/games", headers=late)
    assert r.status_code == 409 and r.json()["type"] == "/problems/challenge-closed"


def test_attempts_one_at_a_time_and_the_best_counts(
    client: TestClient, set_clock: Callable[[datetime], None]
) -> None:
    """Golf counts cards left, fewer first, draws free: conceding at once leaves 35 cards
    in 1 move; a draw first, 35 in 2 moves (worse: more moves)."""
    _, host = new_player(client)
    c = set_challenge(client, host, layout="golf", attempts=2, winnable_only=False)
    _, auth = new_player(client, name="ann")
    first = enter(client, c["id"], auth)
    r = client.post(f"/v1/challenges/{c['id']}/games", headers=auth)
    assert r.status_code == 409 and r.json()["game_id"] == first["id"]  # one at a time
    draw_then_concede(client, first, auth, 1)  # 35 cards in 2 moves
    mine = board(client, c["id"])["entries"]
    assert [(e["name"], e["score"], e["moves"]) for e in mine] == [("ann", 35, 2)]
    set_clock(NOON + timedelta(minutes=5))
    second = enter(client, c["id"], auth)
    assert second["id"] != first["id"]
    draw_then_concede(client, second, auth, 0)  # 35 in 1 move: better
    top = board(client, c["id"])
    assert top["ranked"] == 1
    assert [(e["score"], e["moves"], e["rank"]) for e in top["entries"]] == [(35, 1, 1)]
    r = client.post(f"/v1/challenges/{c['id']}/games", headers=auth)
    assert r.status_code == 409 and r.json()["type"] == "/problems/already-entered"
    assert client.get(f"/v1/challenges/{c['id']}").json()["entries"] == 1

    # A worse attempt does not replace the best: a third player's two tries.
    c3 = set_challenge(client, host, layout="golf", attempts=3, winnable_only=False)
    _, bea = new_player(client, name="bea")
    draw_then_concede(client, enter(client, c3["id"], bea), bea, 0)  # 1 move
    draw_then_concede(client, enter(client, c3["id"], bea), bea, 2)  # 3 moves
    entries = board(client, c3["id"])["entries"]
    assert [(e["name"], e["moves"]) for e in entries] == [("bea", 1)]
    listed = client.get("/v1/players/me/challenges", headers=bea).json()["challenges"]
    assert listed[0]["challenge"]["id"] == c3["id"] and listed[0]["created"] is False
    assert listed[0]["entry"]["attempts"] == 2 and listed[0]["entry"]["moves"] == 1


def test_bounds_on_entrants_and_open_challenges(
    client_with: Callable[..., TestClient],
) -> None:
    client = client_with(challenge_max_entries=2, challenge_open_per_player=2)
    _, host = new_player(client)
    entrants = [new_player(client)[1] for _ in range(3)]  # made before the challenge opens
    closes = iso(datetime.now(UTC) + 2 * HOUR)
    c = set_challenge(client, host, closes_at=closes, winnable_only=False)
    set_challenge(client, host, closes_at=closes, winnable_only=False)
    third = set_challenge(client, host, expect=409, closes_at=closes, winnable_only=False)
    assert third["type"] == "/problems/too-many-open-challenges" and third["limit"] == 2
    for auth in entrants[:2]:
        enter(client, c["id"], auth)
    r = client.post(f"/v1/challenges/{c['id']}/games", headers=entrants[2])
    assert r.status_code == 409 and r.json()["type"] == "/problems/challenge-full"
    assert client.get(f"/v1/challenges/{c['id']}").json()["entries"] == 2
    # Closing one makes room for another.
    assert client.post(f"/v1/challenges/{c['id']}/close", headers=host).status_code == 200
    set_challenge(client, host, closes_at=closes, winnable_only=False)


def test_the_creator_closes_early_or_deletes_before_anyone_entered(
    client: TestClient, set_clock: Callable[[datetime], None]
) -> None:
    _, host = new_player(client)
    _, guest = new_player(client)
    c = set_challenge(client, host)
    url = f"/v1/challenges/{c['id']}"
    r = client.delete(url, headers=guest)
    assert r.status_code == 403 and r.json()["type"] == "/problems/not-challenge-creator"
    assert client.post(f"{url}/close", headers=guest).status_code == 403
    assert client.delete(url).status_code == 401
    daily = client.get("/v1/challenges/daily").json()["id"]
    assert client.post(f"/v1/challenges/{daily}/close", headers=host).status_code == 403
    game = enter(client, c["id"], guest)
    r = client.delete(url, headers=host)
    assert r.status_code == 409 and r.json()["type"] == "/problems/challenge-entered"

    set_clock(NOON + timedelta(minutes=30))
    closed = client.post(f"{url}/close", headers=host).json()
    assert closed["status"] == "closed" and closed["reveal"] is not None
    assert closed["closes_at"] == iso(NOON + timedelta(minutes=30))
    # The attempt in progress goes on, unranked; its deal is no longer secret.
    ended = draw_then_concede(client, game, guest, 0)
    assert ended["challenge"]["ranked"] is False and ended["reveal"] is not None
    assert board(client, c["id"])["ranked"] == 0
    again = client.post(f"{url}/close", headers=host).json()
    assert again["closes_at"] == closed["closes_at"]  # closing a closed one changes nothing

    empty = set_challenge(client, host)
    assert client.delete(f"/v1/challenges/{empty['id']}", headers=host).status_code == 204
    assert client.get(f"/v1/challenges/{empty['id']}").status_code == 404
    mine = client.get("/v1/players/me/challenges", headers=host).json()["challenges"]
    assert [m["challenge"]["id"] for m in mine] == [c["id"]] and mine[0]["created"] is True


def test_practice_is_refused_while_open_and_leaves_the_board_alone(
    client: TestClient, set_clock: Callable[[datetime], None]
) -> None:
    _, host = new_player(client)
    c = set_challenge(client, host, layout="golf", winnable_only=False)
    url = f"/v1/challenges/{c['id']}"
    for name, draws in (("ann", 0), ("bob", 1), ("cy", 2)):
        _, auth = new_player(client, name=name)
        draw_then_concede(client, enter(client, c["id"], auth), auth, draws)
    r = client.post(f"{url}/practice")
    assert r.status_code == 409 and r.json()["type"] == "/problems/challenge-still-open"
    assert r.json()["closes_at"].startswith("2030-06-15T14:00")
    before = board(client, c["id"])

    set_clock(NOON + 2 * HOUR)
    r = client.post(f"{url}/practice")  # anonymous
    assert r.status_code == 201, r.text
    practice = r.json()
    auth = {"Authorization": f"Bearer {practice['token']}"}
    assert practice["challenge"] is None and practice["commitment"] == c["commitment"]
    assert practice["practice"] == {"challenge_id": c["id"], "rank": None, "ranked": None}
    assert client.get(f"/v1/games/{practice['id']}/hint", headers=auth).status_code == 200
    ended = draw_then_concede(client, practice, auth, 1)  # 35 in 2 moves: bob's place
    assert ended["practice"] == {"challenge_id": c["id"], "rank": 2, "ranked": 3}
    assert client.get(f"/v1/games/{practice['id']}", headers=auth).json()["practice"]["rank"] == 2
    assert client.get(f"/v1/games/{practice['id']}/analysis", headers=auth).status_code == 200
    assert board(client, c["id"]) == before
    assert client.get(url).json()["entries"] == 3

    # With a player key, the game is the player's; nothing of it touches their entries.
    who, key = new_player(client, name="dee")
    mine = client.post(f"{url}/practice", headers=key)
    assert mine.status_code == 201 and mine.json()["player_id"] == who["id"]
    assert client.get("/v1/players/me/challenges", headers=key).json()["challenges"] == []
    bad = client.post(f"{url}/practice", headers={"Authorization": "Bearer tpk.x.y"})
    assert bad.status_code == 403
    assert client.post("/v1/challenges/AAAAAAAAAAAAAAAAAAAAAA/practice").status_code == 404


def test_a_closed_daily_is_practised_too(
    client: TestClient, set_clock: Callable[[datetime], None]
) -> None:
    daily = client.get("/v1/challenges/daily?layout=golf").json()
    _, auth = new_player(client)
    draw_then_concede(client, enter(client, daily["id"], auth), auth, 0)
    assert client.post(f"/v1/challenges/{daily['id']}/practice").status_code == 409
    set_clock(NOON + timedelta(days=1))
    r = client.post(f"/v1/challenges/{daily['id']}/practice", headers=auth)
    assert r.status_code == 201, r.text
    ended = draw_then_concede(client, r.json(), auth, 0)
    assert ended["practice"]["rank"] == 1 and ended["practice"]["ranked"] == 1
    me = client.get("/v1/players/me", headers=auth).json()
    assert me["daily"][0]["played_streak"] == 1  # the ranked attempt alone
    assert client.get(f"/v1/challenges/{daily['id']}/leaderboard").json()["ranked"] == 1


def test_list_my_challenges_pages_newest_first(
    client: TestClient, set_clock: Callable[[datetime], None]
) -> None:
    _, host = new_player(client)
    made = []
    for minute in range(3):
        set_clock(NOON + timedelta(minutes=minute))
        made.append(set_challenge(client, host, winnable_only=False)["id"])
    daily = client.get("/v1/challenges/daily").json()["id"]
    enter(client, daily, host)
    first = client.get("/v1/players/me/challenges?limit=2", headers=host)
    page = first.json()
    ids = [m["challenge"]["id"] for m in page["challenges"]]
    assert ids == [made[2], made[1]] and page["next"] and "Link" in first.headers
    rest = client.get(f"/v1/players/me/challenges?limit=2&cursor={page['next']}", headers=host)
    tail = [m["challenge"]["id"] for m in rest.json()["challenges"]]
    assert set(tail) == {made[0], daily} and rest.json()["next"] is None
    entered = next(m for m in rest.json()["challenges"] if m["challenge"]["id"] == daily)
    assert entered["created"] is False and entered["entry"]["attempts"] == 1
    assert client.get("/v1/players/me/challenges").status_code == 401
    bad = client.get("/v1/players/me/challenges?cursor=eHh4", headers=host)
    assert bad.status_code == 422


@pytest.mark.slow
def test_entrants_racing_for_the_last_place_get_one_place(database_url: str) -> None:
    """Four players start their first attempt at once at a challenge with one place
    left: one gets it, three are told it is full, and it counts one more entrant."""
    with (
        live_server(database_url, CHALLENGE_MAX_ENTRIES="2") as base,
        httpx.Client(base_url=base, timeout=60) as c,
    ):
        _, host = new_player(c)
        keys = [new_player(c)[1] for _ in range(4)]  # made before the challenge opens
        closes = iso(datetime.now(UTC) + 2 * HOUR)
        made = c.post(
            "/v1/challenges",
            json={"name": "race", "closes_at": closes, "winnable_only": False},
            headers=host,
        )
        challenge = made.json()["id"]
        assert c.post(f"/v1/challenges/{challenge}/games", headers=host).status_code == 201
        start_line = threading.Barrier(4)
        outcomes: list[str] = []

        def go(auth: dict[str, str]) -> None:
            with httpx.Client(base_url=base, timeout=60) as own:
                own.get("/healthz")
                start_line.wait()
                r = own.post(f"/v1/challenges/{challenge}/games", headers=auth)
                outcomes.append("201" if r.status_code == 201 else r.json()["type"])

        threads = [threading.Thread(target=go, args=(k,)) for k in keys]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        entries = c.get(f"/v1/challenges/{challenge}").json()["entries"]
    assert sorted(outcomes) == ["/problems/challenge-full"] * 3 + ["201"]
    assert entries == 2


def test_a_closed_six_peaks_challenge_reveals_the_best_line_found_and_its_bound(
    client_with: Callable[..., TestClient],
) -> None:
    """A closed six peaks challenge shows the best score of the lines found, the bound
    no line passes, and whether the two meet (exact). Its deal is drawn at random, and
    six peaks' search finishes within the budget on some deals only (docs/research/best-score.md):
    either answer is right, but never a bound below the line, nor "exact" with a gap.
    Before the close, nothing."""
    client = client_with(analysis_budget_ms=3000)
    moment = [NOON]
    client.app.state.clock = lambda: moment[0]  # type: ignore[attr-defined]
    _, auth = new_player(client, name="host")
    c = set_challenge(client, auth, layout="six_peaks")
    assert c["best_score"] is None and c["best_score_bound"] is None
    assert c["best_score_exact"] is False and c["best_score_searched"] is False
    moment[0] = NOON + 2 * HOUR
    closed = client.get(f"/v1/challenges/{c['id']}").json()
    assert closed["status"] == "closed" and closed["best_score_searched"] is True
    assert closed["best_score_exact"] is (closed["best_score"] == closed["best_score_bound"])
    # the bound the search proved: at most every card in one streak and every peak
    assert 0 < closed["best_score"] <= closed["best_score_bound"] <= 56 * 57 // 2 + 5 * 15 + 30
    assert client.get(f"/v1/challenges/{c['id']}").json() == closed  # kept
