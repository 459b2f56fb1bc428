"""Following players, and the board among the players one follows, through HTTP on
SQLite and PostgreSQL (the server's clock set by the test)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from fastapi.testclient import TestClient

from tests.fixtures.clock import NOON
from tests.fixtures.games import new_player

BOARD = "/v1/challenges/2030-06-15.golf/leaderboard"


def play_golf_daily(client: TestClient, auth: dict[str, str], draws: int) -> None:
    """Today's golf daily, drawn ``draws`` times then conceded: 35 cards left in
    ``draws + 1`` moves (golf counts cards left; fewer moves rank first among equals)."""
    r = client.post("/v1/challenges/2030-06-15.golf/games", headers=auth)
    assert r.status_code == 201, r.text
    game = r.json()["id"]
    for _ in range(draws):
        assert client.post(f"/v1/games/{game}/draw", headers=auth).status_code == 200
    assert client.post(f"/v1/games/{game}/concede", headers=auth).status_code == 200


def among(client: TestClient, auth: dict[str, str], query: str = "") -> Any:
    r = client.get(f"{BOARD}?among=following{query}", headers=auth)
    assert r.status_code == 200, r.text
    return r.json()


def test_follow_unfollow_and_list(client: TestClient) -> None:
    me, auth = new_player(client, name="me")
    others = [new_player(client, name=f"p{i}")[0] for i in range(3)]
    for other in others:
        r = client.put(f"/v1/players/me/following/{other['id']}", headers=auth)
        assert r.status_code == 204, r.text
    again = client.put(f"/v1/players/me/following/{others[0]['id']}", headers=auth)
    assert again.status_code == 204  # following again changes nothing
    page = client.get("/v1/players/me/following?limit=2", headers=auth)
    listed = page.json()
    assert listed["count"] == 3 and len(listed["following"]) == 2 and "Link" in page.headers
    rest = client.get(
        f"/v1/players/me/following?limit=2&cursor={listed['next']}", headers=auth
    ).json()
    seen = [f["player_id"] for f in listed["following"] + rest["following"]]
    assert sorted(seen) == sorted(o["id"] for o in others) and rest["next"] is None
    assert {f["name"] for f in listed["following"]} <= {"p0", "p1", "p2"}

    assert (
        client.delete(f"/v1/players/me/following/{others[1]['id']}", headers=auth).status_code
        == 204
    )
    assert (
        client.delete(f"/v1/players/me/following/{others[1]['id']}", headers=auth).status_code
        == 204
    )
    assert client.get("/v1/players/me/following", headers=auth).json()["count"] == 2

    itself = client.put(f"/v1/players/me/following/{me['id']}", headers=auth)
    assert itself.status_code == 409 and itself.json()["type"] == "/problems/follow-self"
    nobody = client.put("/v1/players/me/following/AAAAAAAAAAAAAAAAAAAAAA", headers=auth)
    assert nobody.status_code == 404
    assert client.put(f"/v1/players/me/following/{others[0]['id']}").status_code == 401
    assert client.get("/v1/players/me/following?cursor=zz", headers=auth).status_code == 422


def test_following_is_bounded(client_with: Callable[..., TestClient]) -> None:
    client = client_with(following_max=2)
    _, auth = new_player(client)
    ids = [new_player(client)[0]["id"] for _ in range(3)]
    for followed in ids[:2]:
        assert client.put(f"/v1/players/me/following/{followed}", headers=auth).status_code == 204
    r = client.put(f"/v1/players/me/following/{ids[2]}", headers=auth)
    assert r.status_code == 409 and r.json()["type"] == "/problems/following-limit"
    assert r.json()["limit"] == 2
    # One already followed is not one more.
    assert client.put(f"/v1/players/me/following/{ids[0]}", headers=auth).status_code == 204
    assert client.delete(f"/v1/players/me/following/{ids[0]}", headers=auth).status_code == 204
    assert client.put(f"/v1/players/me/following/{ids[2]}", headers=auth).status_code == 204


def test_the_board_among_the_players_one_follows_with_ties(
    client: TestClient, set_clock: Callable[[datetime], None]
) -> None:
    """Eight players on the board; ``me`` follows four of them. Among those five, ties share
    a rank as on the whole board, and each shows its rank on the whole board."""
    players: dict[str, dict[str, str]] = {}
    ids: dict[str, str] = {}
    # name, draws (moves - 1), minute of the finish
    results = [
        ("a", 0, 1),
        ("b", 0, 2),  # ties a
        ("c", 1, 3),
        ("me", 1, 4),  # ties c (a later finish)
        ("d", 2, 5),
        ("e", 3, 6),
        ("f", 3, 7),  # ties e
        ("g", 4, 8),
    ]
    for name, draws, minute in results:
        set_clock(NOON + timedelta(minutes=minute))
        who, auth = new_player(client, name=name)
        players[name], ids[name] = auth, who["id"]
        play_golf_daily(client, auth, draws)
    robo, bot = new_player(client, name="robo", kind="bot")
    play_golf_daily(client, bot, 0)  # on the bots' board: never among humans
    me = players["me"]
    for followed in (ids["a"], ids["b"], ids["d"], ids["f"], ids["g"], robo["id"]):
        assert client.put(f"/v1/players/me/following/{followed}", headers=me).status_code == 204
    client.delete(f"/v1/players/me/following/{ids['a']}", headers=me)  # a is left out

    whole = client.get(BOARD).json()
    assert [(e["name"], e["rank"]) for e in whole["entries"]] == [
        ("a", 1),
        ("b", 1),
        ("c", 3),
        ("me", 3),
        ("d", 5),
        ("e", 6),
        ("f", 6),
        ("g", 8),
    ]
    assert all(e["global_rank"] == e["rank"] for e in whole["entries"])
    board = among(client, me)
    assert board["ranked"] == 5
    assert [(e["name"], e["rank"], e["global_rank"]) for e in board["entries"]] == [
        ("b", 1, 1),
        ("me", 2, 3),
        ("d", 3, 5),
        ("f", 4, 6),
        ("g", 5, 8),
    ]
    # Paged by cursor as the whole board is.
    first = among(client, me, "&limit=2")
    assert [e["name"] for e in first["entries"]] == ["b", "me"] and first["next"]
    second = among(client, me, f"&limit=2&cursor={first['next']}")
    assert [e["name"] for e in second["entries"]] == ["d", "f"]
    third = among(client, me, f"&limit=2&cursor={second['next']}")
    assert [e["name"] for e in third["entries"]] == ["g"] and third["next"] is None
    # Ties among the followed share a rank: e joins, tying f.
    client.put(f"/v1/players/me/following/{ids['e']}", headers=me)
    tied = among(client, me)["entries"]
    assert [(e["name"], e["rank"]) for e in tied][-3:] == [("e", 4), ("f", 4), ("g", 6)]

    # One who follows nobody sees themselves; one with no result, the others.
    alone = among(client, players["c"])
    assert [(e["name"], e["rank"], e["global_rank"]) for e in alone["entries"]] == [("c", 1, 3)]
    _, newcomer = new_player(client)
    client.put(f"/v1/players/me/following/{ids['g']}", headers=newcomer)
    assert [e["name"] for e in among(client, newcomer)["entries"]] == ["g"]
    # A player key is needed, and around and among do not go together.
    assert client.get(f"{BOARD}?among=following").status_code == 401
    both = client.get(f"{BOARD}?among=following&around=me", headers=me)
    assert both.status_code == 422


def test_a_deleted_player_s_follows_go_and_their_entry_stays(
    client: TestClient, set_clock: Callable[[datetime], None]
) -> None:
    leaver, leaver_auth = new_player(client, name="leaver")
    stayer, stayer_auth = new_player(client, name="stayer")
    play_golf_daily(client, leaver_auth, 0)
    play_golf_daily(client, stayer_auth, 1)
    client.put(f"/v1/players/me/following/{stayer['id']}", headers=leaver_auth)
    client.put(f"/v1/players/me/following/{leaver['id']}", headers=stayer_auth)
    assert client.delete("/v1/players/me", headers=leaver_auth).status_code == 204

    # The stayer no longer follows the deleted account; its entry stays, as a deleted
    # player's, on the whole board.
    assert client.get("/v1/players/me/following", headers=stayer_auth).json()["count"] == 0
    assert [e["name"] for e in among(client, stayer_auth)["entries"]] == ["stayer"]
    whole = client.get(BOARD).json()["entries"]
    assert [(e["player_id"], e["deleted"], e["rank"]) for e in whole] == [
        (leaver["id"], True, 1),
        (stayer["id"], False, 2),
    ]
    # A deleted player cannot be followed.
    r = client.put(f"/v1/players/me/following/{leaver['id']}", headers=stayer_auth)
    assert r.status_code == 404
