"""Players through HTTP, on SQLite and PostgreSQL: accounts by key, their games, their
statistics."""

from __future__ import annotations

import threading
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from tests.fixtures.deals import TRIPEAKS_CLEAR_ORDER, chain_deal, losing_deal
from tests.fixtures.games import lose, new_game, new_player, win
from tests.fixtures.servers import live_server


def test_create_player_answers_201_with_its_key_once(client: TestClient) -> None:
    r = client.post("/v1/players", json={"name": "  Ａｄａ  ", "kind": "bot"})
    assert r.status_code == 201
    player = r.json()
    assert player["name"] == "Ada"  # trimmed, NFKC: full-width letters are letters
    assert player["kind"] == "bot"
    assert r.headers["Location"] == f"/v1/players/{player['id']}"
    assert r.headers["Cache-Control"] == "no-store"
    assert player["key"].startswith(f"tpk.{player['id']}.")
    auth = {"Authorization": f"Bearer {player['key']}"}
    me = client.get("/v1/players/me", headers=auth).json()
    assert me["id"] == player["id"] and "key" not in me
    assert me["stats"]["overall"]["played"] == 0
    anonymous = client.post("/v1/players", json={}).json()
    assert anonymous["name"] is None and anonymous["kind"] == "human"


@pytest.mark.parametrize(
    "name",
    [
        *("", "   ", "x" * 33, "a\u0000b", "a\nb", "zero\u200bwidth", "rtl\u202eoverride"),
        "\ufeffbom",
        "\u0410dmin",  # a Cyrillic A passing for a Latin one
        "p\u0430ypal",  # a Cyrillic a inside Latin
        "\u3164",  # a Hangul filler: a letter to Unicode, blank on screen
        "\u2800 \u2800",  # blank Braille patterns
        "a" + "\u0301" * 30,  # thirty accents stacked on one letter
    ],
)
def test_a_bad_name_is_refused(client: TestClient, name: str) -> None:
    r = client.post("/v1/players", json={"name": name})
    assert r.status_code == 422, name
    assert r.json()["type"] == "/problems/validation"


@pytest.mark.parametrize(
    "name",
    [
        "\u0410\u0434\u0430",
        "\u0395\u03bb\u03ad\u03bd\u03b7",
        "\u5c0f\u9f8d Lee",
        "Nguy\u1ec5n",
        "Zo\u00eb \U0001f3b2",
        "\ud55c\uad6d Kim",
    ],
)
def test_names_in_any_script_and_latin_beside_chinese_japanese_or_korean_are_taken(
    client: TestClient, name: str
) -> None:
    r = client.post("/v1/players", json={"name": name})
    assert r.status_code == 201, r.text
    assert r.json()["name"] == name


def test_names_are_not_unique_and_kind_is_checked(client: TestClient) -> None:
    assert client.post("/v1/players", json={"name": "Same"}).status_code == 201
    assert client.post("/v1/players", json={"name": "Same"}).status_code == 201
    assert client.post("/v1/players", json={"kind": "robot"}).status_code == 422


def test_me_needs_a_working_player_key(client: TestClient) -> None:
    player, auth = new_player(client)
    _, game_auth = new_game(client)
    assert client.get("/v1/players/me").status_code == 401
    r = client.get("/v1/players/me", headers=game_auth)  # a game's token is not a key
    assert r.status_code == 401 and r.json()["type"] == "/problems/player-key-required"
    forged = player["key"][:-4] + "AAAA"
    r = client.get("/v1/players/me", headers={"Authorization": f"Bearer {forged}"})
    assert r.status_code == 403 and r.json()["type"] == "/problems/player-key-refused"
    unknown = "tpk.nosuchplayer." + player["key"].rsplit(".", 1)[1]
    assert (
        client.get("/v1/players/me", headers={"Authorization": f"Bearer {unknown}"}).status_code
        == 403
    )
    assert client.get("/v1/players/me", headers=auth).status_code == 200


def test_rename_and_the_public_profile(client: TestClient) -> None:
    player, auth = new_player(client, name="Before")
    r = client.patch("/v1/players/me", json={"name": " After "}, headers=auth)
    assert r.status_code == 200 and r.json()["name"] == "After"
    assert client.patch("/v1/players/me", json={"name": ""}, headers=auth).status_code == 422
    profile = client.get(f"/v1/players/{player['id']}").json()  # no credential needed
    assert profile["name"] == "After" and "key" not in profile
    assert client.get("/v1/players/nosuchplayer").status_code == 404


def test_a_rotated_key_stops_working_at_once(client: TestClient) -> None:
    _, auth = new_player(client)
    mine = client.post("/v1/games", json={}, headers=auth).json()
    r = client.post("/v1/players/me/key", headers=auth)
    assert r.status_code == 200 and r.headers["Cache-Control"] == "no-store"
    new_auth = {"Authorization": f"Bearer {r.json()['key']}"}
    assert client.get("/v1/players/me", headers=auth).status_code == 403
    assert client.get(f"/v1/games/{mine['id']}", headers=auth).status_code == 403
    assert client.get("/v1/players/me", headers=new_auth).status_code == 200
    assert client.get(f"/v1/games/{mine['id']}", headers=new_auth).status_code == 200


def test_a_players_game_answers_to_the_key_and_to_its_token(client: TestClient) -> None:
    _, auth = new_player(client)
    _, other = new_player(client)
    game = client.post("/v1/games", json={"deal_number": 4}, headers=auth).json()
    url = f"/v1/games/{game['id']}"
    token = {"Authorization": f"Bearer {game['token']}"}
    assert client.get(url, headers=auth).status_code == 200
    assert client.get(url, headers=token).status_code == 200
    assert client.post(f"{url}/draw", headers=auth).status_code == 200
    r = client.get(url, headers=other)  # another player's key
    assert r.status_code == 403
    anonymous, anonymous_auth = new_game(client)
    assert client.get(f"/v1/games/{anonymous['id']}", headers=auth).status_code == 403
    assert client.get(f"/v1/games/{anonymous['id']}", headers=anonymous_auth).status_code == 200


def test_creating_a_game_with_a_bad_key_is_refused(client: TestClient) -> None:
    _, game_auth = new_game(client)
    assert client.post("/v1/games", json={}, headers=game_auth).status_code == 401
    bad = {"Authorization": "Bearer tpk.nobody.secret"}
    assert client.post("/v1/games", json={}, headers=bad).status_code == 403


def test_list_my_games_pages_newest_first_and_filters(client: TestClient) -> None:
    _, auth = new_player(client)
    made = [
        client.post("/v1/games", json={"layout": layout}, headers=auth).json()["id"]
        for layout in ("tripeaks", "golf", "tripeaks", "six_peaks", "tripeaks")
    ]
    new_game(client)  # anonymous: never listed
    _, other = new_player(client)
    client.post("/v1/games", json={}, headers=other)  # another player's: never listed
    client.post(f"/v1/games/{made[0]}/concede", headers=auth)
    seen: list[str] = []
    url: str | None = "/v1/players/me/games?limit=2"
    pages = 0
    while url is not None:
        r = client.get(url, headers=auth)
        assert r.status_code == 200, r.text
        page = r.json()
        seen += [g["id"] for g in page["games"]]
        pages += 1
        if page["next"] is None:
            assert "Link" not in r.headers
            url = None
        else:
            link = r.headers["Link"]
            assert link.endswith('; rel="next"') and page["next"] in link
            url = link[1 : link.index(">")]
    assert seen == made[::-1] and pages == 3
    tripeaks = client.get("/v1/players/me/games?layout=tripeaks", headers=auth).json()
    assert [g["id"] for g in tripeaks["games"]] == [made[4], made[2], made[0]]
    conceded = client.get("/v1/players/me/games?status=conceded", headers=auth).json()
    assert [g["id"] for g in conceded["games"]] == [made[0]]
    assert client.get("/v1/players/me/games?cursor=garbage!", headers=auth).status_code == 422
    assert client.get("/v1/players/me/games?status=nope", headers=auth).status_code == 422
    assert client.get("/v1/players/me/games", headers=other).json()["games"][0]["id"] not in made


def _line(stats: dict[str, Any], layout: str) -> dict[str, Any]:
    return next(x for x in stats["by_layout"] if x["layout"] == layout)


def test_statistics_after_won_lost_and_conceded_games(client: TestClient) -> None:
    player, auth = new_player(client)
    results = []
    for ending in ("win", "win", "lose", "win", "concede"):
        if ending == "win":
            g = client.post("/v1/games", json={"deal": chain_deal()}, headers=auth).json()
            results.append(win(client, g["id"], auth)["score"]["total"])
        elif ending == "lose":
            g = client.post("/v1/games", json={"deal": losing_deal()}, headers=auth).json()
            results.append(lose(client, g["id"], auth)["score"]["total"])
        else:
            g = client.post("/v1/games", json={"layout": "golf"}, headers=auth).json()
            client.post(f"/v1/games/{g['id']}/concede", headers=auth)
    client.post("/v1/games", json={}, headers=auth)  # unfinished: not counted
    stats = client.get("/v1/players/me", headers=auth).json()["stats"]
    overall = stats["overall"]
    assert (overall["played"], overall["won"], overall["lost"], overall["conceded"]) == (5, 3, 1, 1)
    assert overall["win_rate"] == 0.6
    assert (overall["current_run"], overall["longest_run"]) == (0, 2)
    assert overall["best_score"] is None  # classic and cards_left points do not mix
    tripeaks = _line(stats, "tripeaks")
    assert (tripeaks["played"], tripeaks["won"], tripeaks["scoring"]) == (4, 3, "classic")
    assert tripeaks["best_score"] == max(results)
    assert tripeaks["mean_score"] == round(sum(results) / 4, 2)
    assert (tripeaks["current_run"], tripeaks["longest_run"]) == (1, 2)
    golf = _line(stats, "golf")
    assert (golf["played"], golf["conceded"], golf["scoring"], golf["best_score"]) == (
        1,
        1,
        "cards_left",
        35,
    )
    public = client.get(f"/v1/players/{player['id']}").json()["stats"]
    assert public == stats


def test_a_deleted_player_is_erased_and_their_games_stay_anonymous(client: TestClient) -> None:
    player, auth = new_player(client, name="Gone")
    game = client.post("/v1/games", json={"deal_number": 5}, headers=auth).json()
    assert client.delete("/v1/players/me", headers=auth).status_code == 204
    assert client.get("/v1/players/me", headers=auth).status_code == 403
    assert client.get(f"/v1/players/{player['id']}").status_code == 404
    assert client.get(f"/v1/games/{game['id']}", headers=auth).status_code == 403
    token = {"Authorization": f"Bearer {game['token']}"}
    assert client.get(f"/v1/games/{game['id']}", headers=token).status_code == 200


@pytest.mark.slow
def test_two_games_ending_at_the_same_moment_both_count(database_url: str) -> None:
    """Eight of a player's games, each one play from winning, won at once from eight
    threads: every win counts, and the run is eight long."""
    with live_server(database_url) as base, httpx.Client(base_url=base, timeout=60) as c:
        _, auth = new_player(c)
        games = []
        for _ in range(8):
            g = c.post("/v1/games", json={"deal": chain_deal()}, headers=auth).json()
            for position in TRIPEAKS_CLEAR_ORDER[:-1]:
                c.post(f"/v1/games/{g['id']}/play", json={"position": position}, headers=auth)
            games.append(g["id"])
        start = threading.Barrier(len(games))
        codes: list[int] = []

        def finish(game_id: str) -> None:
            with httpx.Client(base_url=base, timeout=60) as own:
                own.get("/healthz")
                start.wait()
                r = own.post(f"/v1/games/{game_id}/play", json={"position": 2}, headers=auth)
                codes.append(r.status_code)

        threads = [threading.Thread(target=finish, args=(g,)) for g in games]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        stats = c.get("/v1/players/me", headers=auth).json()["stats"]["overall"]
    assert codes == [200] * 8
    assert (stats["played"], stats["won"], stats["current_run"], stats["longest_run"]) == (
        8,
        8,
        8,
        8,
    )
