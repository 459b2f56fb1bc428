"""Bad input gets a clear RFC 9457 problem and changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.fixtures.deals import chain_deal

PROBLEM = "application/problem+json"


@pytest.fixture
def game(client: TestClient) -> dict[str, Any]:
    r = client.post("/v1/games", json={"deal": chain_deal()})
    g: dict[str, Any] = r.json()
    g["auth"] = {"Authorization": f"Bearer {g['token']}"}
    g["url"] = f"/v1/games/{g['id']}"
    return g


def assert_problem(r: Any, status: int, slug: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == PROBLEM
    body: dict[str, Any] = r.json()
    assert body["type"] == f"/problems/{slug}"
    assert body["status"] == status
    assert body["title"] and body["detail"]
    return body


def assert_unchanged(client: TestClient, game: dict[str, Any]) -> None:
    now = client.get(game["url"], headers=game["auth"]).json()
    assert now["version"] == 0
    assert now["tableau"] == game["tableau"]
    assert now["waste"] == game["waste"]


@pytest.mark.parametrize(
    ("body", "slug"),
    [
        ({"move": "play 3"}, "illegal-move"),  # covered
        ({"move": "play 99"}, "illegal-move"),  # no such position
        ({"move": "play 19"}, "illegal-move"),  # does not fit the waste
        ({"move": "redeal"}, "illegal-move"),
        ({"move": "dance"}, "validation"),
        ({"move": ""}, "validation"),
        ({"move": "x" * 100}, "validation"),
        ({"move": 5}, "validation"),
        ({"move": "play 18", "extra": 1}, "validation"),
        ({"move": "play 18", "kind": "draw"}, "validation"),
        ({"move": "play 18", "position": 19}, "validation"),
        ({"move": "play 18", "card": "Kd"}, "validation"),
        ({"move": "play 18", "card": "zz"}, "validation"),
        ({"move": "draw", "card": "2c"}, "validation"),
        ({}, "validation"),
        ([], "validation"),
        (None, "validation"),
    ],
)
def test_bad_moves_are_refused_and_change_nothing(
    client: TestClient, game: dict[str, Any], body: Any, slug: str
) -> None:
    r = client.post(f"{game['url']}/moves", json=body, headers=game["auth"])
    assert_problem(r, 400 if slug == "illegal-move" else 422, slug)
    assert_unchanged(client, game)


def test_illegal_move_names_the_move_and_why(client: TestClient, game: dict[str, Any]) -> None:
    r = client.post(f"{game['url']}/moves", json={"move": "play 3"}, headers=game["auth"])
    body = assert_problem(r, 400, "illegal-move")
    assert body["move"] == "play 3"
    assert "covered" in body["reason"]


def test_malformed_json_and_wrong_content(client: TestClient, game: dict[str, Any]) -> None:
    url, auth = f"{game['url']}/moves", game["auth"]
    for content in (b"{", b"not json", b'{"move": "draw"', b"\xff\xfe"):
        r = client.post(url, content=content, headers={**auth, "Content-Type": "application/json"})
        assert_problem(r, 422, "validation")
    r = client.post(url, content=b"move=draw", headers={**auth, "Content-Type": "text/plain"})
    assert r.status_code in (415, 422)
    assert r.headers["content-type"] == PROBLEM
    assert_unchanged(client, game)


def test_oversized_bodies_get_413(client: TestClient, game: dict[str, Any]) -> None:
    big = b'{"move": "' + b"x" * 100_000 + b'"}'
    r = client.post(
        f"{game['url']}/moves",
        content=big,
        headers={**game["auth"], "Content-Type": "application/json"},
    )
    assert_problem(r, 413, "payload-too-large")
    r = client.post("/v1/games", content=big, headers={"Content-Type": "application/json"})
    assert_problem(r, 413, "payload-too-large")
    assert_unchanged(client, game)


def test_play_card_validation(client: TestClient, game: dict[str, Any]) -> None:
    url, auth = f"{game['url']}/play", game["auth"]
    assert_problem(client.post(url, json={"position": -1}, headers=auth), 422, "validation")
    assert_problem(client.post(url, json={"position": "18"}, headers=auth), 422, "validation")
    assert_problem(client.post(url, json={"position": 3}, headers=auth), 400, "illegal-move")
    assert_problem(
        client.post(url, json={"position": 18, "card": "Kd"}, headers=auth), 422, "validation"
    )
    assert_unchanged(client, game)


@pytest.mark.parametrize(
    "body",
    [
        {"layout": "hexagon"},
        {"layout": "Trí"},
        {"rules": {"jokers": 3}},
        {"rules": {"jokers": "1"}},
        {"rules": {"wrap": "yes"}},
        {"rules": {"wrap": 1}},
        {"rules": {"king_stops": True}},  # needs wrap false
        {"rules": {"scoring": "msc", "draw_penalty": 3}},
        {"rules": {"bogus": True}},
        {"deal_number": -1},
        {"deal_number": 2**53},
        {"deal_number": 1.5},
        {"deal_number": 1, "deal": chain_deal()},
        {"deal": chain_deal()[:-1]},
        {"deal": [*chain_deal()[:-1], "Ac"]},  # doubled Ac, missing the last card
        {"deal": [*chain_deal()[:-1], "Xx"]},
        {"deal": chain_deal(), "winnable_only": True},
        {"unknown": 1},
    ],
)
def test_bad_creations_are_refused(client: TestClient, body: dict[str, Any]) -> None:
    r = client.post("/v1/games", json=body)
    problem = assert_problem(r, 422, "validation")
    if "rules" in body and isinstance(body["rules"], dict) and "king_stops" in body["rules"]:
        assert problem["option"] == "king_stops"


@pytest.mark.parametrize(
    ("rules", "option"),
    [
        ({"wrap": "true"}, "wrap"),  # a string for a boolean
        ({"undo": 1}, "undo"),
        ({"jokers": 3}, "jokers"),  # out of bounds
        ({"redeals": -1}, "redeals"),
        ({"wrapp": True}, "wrapp"),  # no such option
    ],
)
def test_a_refused_rule_option_is_named_whatever_refused_it(
    client: TestClient, rules: dict[str, Any], option: str
) -> None:
    """Its type, its bounds or its name: the 422 names the option, as a refused
    combination does (docs/rules.md)."""
    problem = assert_problem(client.post("/v1/games", json={"rules": rules}), 422, "validation")
    assert problem["option"] == option


def test_unknown_routes_and_methods_are_problems(client: TestClient) -> None:
    assert_problem(client.get("/v1/nothing"), 404, "not-found")
    assert_problem(client.delete("/v1/games"), 405, "method-not-allowed")
    assert_problem(client.get("/v1/games/abc/legal-moves"), 401, "unauthorized")


def test_bad_headers(client: TestClient, game: dict[str, Any]) -> None:
    url, auth = f"{game['url']}/draw", game["auth"]
    r = client.post(url, headers={**auth, "Idempotency-Key": "k" * 200})
    assert_problem(r, 422, "validation")
    r = client.post(url, headers={**auth, "If-Match": '"v7"'})
    assert_problem(r, 412, "precondition-failed")
    assert_unchanged(client, game)
