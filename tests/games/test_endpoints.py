"""The game endpoints through HTTP, on SQLite and PostgreSQL."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app import engine
from tests.fixtures.deals import TRIPEAKS_CLEAR_ORDER, chain_deal, losing_deal, verify_commitment
from tests.fixtures.games import new_game, new_game_id


def test_create_answers_201_with_location_etag_token_and_commitment(client: TestClient) -> None:
    r = client.post("/v1/games", json={})
    assert r.status_code == 201
    game = r.json()
    assert r.headers["Location"] == f"/v1/games/{game['id']}"
    assert r.headers["ETag"] == '"v0"'
    assert len(game["token"]) >= 40
    assert re.fullmatch(r"[0-9a-f]{64}", game["commitment"])
    assert game["reveal"] is None
    assert game["deal_number"] is None  # the server chose it: secret
    assert game["status"] == "in_progress"
    assert game["stock_count"] == 23
    assert [s["face_up"] for s in game["tableau"]] == [False] * 18 + [True] * 10
    assert all(s["card"] is None for s in game["tableau"][:18])
    assert game["rules"]["wrap"] is True and game["rules"]["scoring"] == "classic"
    assert len(game["id"]) >= 20


def test_get_game_needs_its_token_and_never_returns_it(client: TestClient) -> None:
    game, auth = new_game(client)
    url = f"/v1/games/{game['id']}"
    r = client.get(url, headers=auth)
    assert r.status_code == 200
    assert "token" not in r.json()
    assert r.headers["ETag"] == '"v0"'
    assert client.get(url).status_code == 401
    assert client.get(url).headers["WWW-Authenticate"].startswith("Bearer")
    assert client.get(url, headers={"Authorization": "Bearer nope"}).status_code == 403
    assert client.get(url, headers={"Authorization": "Basic abc"}).status_code == 401
    other, _ = new_game(client)
    assert client.get(f"/v1/games/{other['id']}", headers=auth).status_code == 403
    assert client.get("/v1/games/doesnotexist", headers=auth).status_code == 404
    assert client.get("/v1/games/" + "x" * 64, headers=auth).status_code == 404


def test_chosen_deal_number_is_public_and_matches_the_engine(client: TestClient) -> None:
    game, _ = new_game(client, deal_number=12345)
    assert game["deal_number"] == 12345
    deal = engine.numbered_deal(12345)
    bottom = [s["card"] for s in game["tableau"][18:]]
    assert bottom == [c.code for c in deal[18:28]]
    assert game["waste_top"] == deal[28].code


def test_a_won_game_by_play_card_scores_and_reveals_its_deal(client: TestClient) -> None:
    deal = chain_deal()
    game, auth = new_game(client, deal=deal)
    assert game["deal_number"] is None
    for i, position in enumerate(TRIPEAKS_CLEAR_ORDER):
        r = client.post(f"/v1/games/{game['id']}/play", json={"position": position}, headers=auth)
        assert r.status_code == 200, r.text
        assert r.headers["ETag"] == f'"v{i + 1}"'
    state = r.json()
    assert state["status"] == "won"
    assert state["score"]["total"] == sum(range(1, 29)) + 15 + 15 + 30
    assert state["score"]["longest_streak"] == 28
    assert state["legal_moves"] == []
    reveal = state["reveal"]
    assert reveal["deal"] == deal
    assert verify_commitment(game["commitment"], reveal["deal"], reveal["salt"])
    score = client.get(f"/v1/games/{game['id']}/score", headers=auth).json()
    assert score["score"] == state["score"] and score["status"] == "won"
    history = client.get(f"/v1/games/{game['id']}/moves", headers=auth).json()
    assert [m["move"] for m in history["moves"]] == [f"play {p}" for p in TRIPEAKS_CLEAR_ORDER]
    assert history["total"] == 28
    page = client.get(f"/v1/games/{game['id']}/moves?offset=5&limit=2", headers=auth).json()
    assert [m["seq"] for m in page["moves"]] == [6, 7]


def test_a_lost_game_ends_at_the_last_draw_and_refuses_further_moves(client: TestClient) -> None:
    game, auth = new_game(client, deal=losing_deal())
    url = f"/v1/games/{game['id']}"
    for _ in range(23):
        r = client.post(f"{url}/draw", headers=auth)
        assert r.status_code == 200, r.text
    state = r.json()
    assert state["status"] == "lost"
    assert state["stock_count"] == 0
    assert state["score"]["total"] == -5 * 23
    assert state["reveal"] is not None
    r = client.post(f"{url}/draw", headers=auth)
    assert r.status_code == 409
    assert r.json()["type"] == "/problems/game-over"
    assert client.get(url, headers=auth).json()["version"] == 23


def test_a_bot_posts_legal_moves_back_unchanged_until_the_end(client: TestClient) -> None:
    game, auth = new_game(client, deal_number=7)
    url = f"/v1/games/{game['id']}"
    moves_made = []
    for _ in range(200):
        legal = client.get(f"{url}/legal-moves", headers=auth).json()
        if legal["status"] != "in_progress":
            break
        choice = next(m for m in legal["legal_moves"] if m["kind"] != "concede")
        r = client.post(f"{url}/moves", json=choice, headers=auth)
        assert r.status_code == 200, r.text
        moves_made.append(choice["move"])
    final = client.get(url, headers=auth).json()
    assert final["status"] in ("won", "lost")
    expected = engine.replay(engine.numbered_deal(7), engine.Rules.for_layout(), moves_made)
    view = engine.player_view(expected)
    assert final["tableau"] == view["tableau"]
    assert final["score"] == view["score"]
    assert final["version"] == len(moves_made)


def test_concede_ends_the_game_and_the_score_stands(client: TestClient) -> None:
    game, auth = new_game(client, deal=chain_deal())
    url = f"/v1/games/{game['id']}"
    client.post(f"{url}/play", json={"position": 18}, headers=auth)
    r = client.post(f"{url}/concede", headers=auth)
    assert r.status_code == 200
    assert r.json()["status"] == "conceded"
    assert r.json()["score"]["total"] == 1
    assert r.json()["reveal"]["deal"] == chain_deal()


def test_rule_options_and_layouts_at_creation(client: TestClient) -> None:
    golf, _ = new_game(client, layout="golf")
    assert golf["rules"]["wrap"] is False and golf["rules"]["scoring"] == "cards_left"
    assert len(golf["tableau"]) == 35 and golf["stock_count"] == 16
    six, _ = new_game(client, layout="six_peaks", rules={"jokers": 2, "free_start": True})
    assert len(six["tableau"]) == 56 and six["stock_count"] == 106 - 56
    assert six["waste_top"] is None
    open_game, _ = new_game(client, rules={"open_peaks": True})
    assert all(s["card"] is not None for s in open_game["tableau"])


def test_undo_where_the_rules_allow_it(client: TestClient) -> None:
    game, auth = new_game(client, deal=chain_deal(), rules={"undo": True})
    url = f"/v1/games/{game['id']}"
    played = client.post(f"{url}/play", json={"position": 18}, headers=auth).json()
    assert played["can_undo"] is True
    undone = client.post(f"{url}/moves", json={"move": "undo"}, headers=auth).json()
    assert undone["tableau"] == game["tableau"]
    assert undone["version"] == 2
    assert undone["score"]["total"] == 0
    plain, auth2 = new_game(client, deal=chain_deal())
    r = client.post(f"/v1/games/{plain['id']}/moves", json={"move": "undo"}, headers=auth2)
    assert r.status_code == 400
    assert "undo" in r.json()["detail"]


def test_health_and_readiness(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["revision"] is not None


def test_cors_allows_the_configured_origin_and_exposes_headers(client: TestClient) -> None:
    r = client.options(
        "/v1/games",
        headers={
            "Origin": "https://client.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, if-match, idempotency-key",
        },
    )
    assert r.status_code == 200
    assert r.headers["access-control-allow-origin"] == "https://client.example"
    allowed = r.headers["access-control-allow-headers"].lower()
    for h in ("authorization", "if-match", "idempotency-key"):
        assert h in allowed
    r = client.post("/v1/games", json={}, headers={"Origin": "https://client.example"})
    exposed = r.headers["access-control-expose-headers"].lower()
    assert "etag" in exposed and "location" in exposed
    r = client.post("/v1/games", json={}, headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in r.headers


def test_a_legal_move_object_that_disagrees_with_its_move_is_a_422_legal_or_not(
    client: TestClient,
) -> None:
    """A kind or position that disagrees with the move is a 422 naming the field, in words
    a person reads, whether or not the move itself is legal; nothing is applied."""
    gid, auth = new_game_id(client, deal=chain_deal())
    url = f"/v1/games/{gid}/moves"
    for body, field in (
        ({"move": "play 18", "kind": "draw"}, "kind"),  # play 18 is legal here
        ({"move": "play 0", "kind": "draw"}, "kind"),  # play 0 is not (covered)
        ({"move": "draw", "kind": "play", "position": 3}, "kind"),
        ({"move": "play 0", "position": 18}, "position"),
    ):
        r = client.post(url, json=body, headers=auth)
        assert r.status_code == 422, (body, r.text)
        problem = r.json()
        assert problem["type"] == "/problems/validation"
        assert problem["errors"][0]["loc"] == ["body", field]
        assert "<" not in problem["detail"], problem["detail"]  # no enum's repr
    assert client.get(f"/v1/games/{gid}", headers=auth).json()["version"] == 0


def test_a_deal_with_a_doubled_card_says_so_and_not_a_count_that_is_right(
    client: TestClient,
) -> None:
    deal = chain_deal()
    deal[1] = deal[0]
    r = client.post("/v1/games", json={"deal": deal})
    assert r.status_code == 422
    detail = r.json()["detail"]
    assert "2 times" in detail and "missing" in detail
    assert "cards, not" not in detail
