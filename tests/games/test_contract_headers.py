"""The contract's headers through HTTP: entity tags and conditional requests, caching,
list_moves' pages, and every header an answer carries declared in the OpenAPI."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from httpx2 import Response

from app.openapi import SPEC_PATH
from tests.fixtures.deals import chain_deal, losing_deal
from tests.fixtures.games import lose, new_game, new_player

SPEC = json.loads(SPEC_PATH.read_text(encoding="utf-8"))


def test_a_move_needs_the_strong_tag_a_weak_one_never_matches(client: TestClient) -> None:
    game, auth = new_game(client, deal=chain_deal())
    url = f"/v1/games/{game['id']}/draw"
    weak = client.post(url, headers={**auth, "If-Match": 'W/"v0"'})
    assert weak.status_code == 412, weak.text
    assert weak.json()["current_version"] == 0
    listed = client.post(url, headers={**auth, "If-Match": '"v7", "v0"'})
    assert listed.status_code == 200 and listed.headers["ETag"] == '"v1"'
    assert client.post(url, headers={**auth, "If-Match": "*"}).headers["ETag"] == '"v2"'


@pytest.mark.parametrize("value", ["null", "v0", '"v0', "W/v0", '"v0",,'])
def test_an_if_match_that_is_no_entity_tag_is_refused_and_changes_nothing(
    client: TestClient, value: str
) -> None:
    game, auth = new_game(client)
    r = client.post(f"/v1/games/{game['id']}/draw", headers={**auth, "If-Match": value})
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["loc"] == ["header", "if-match"]
    assert client.get(f"/v1/games/{game['id']}", headers=auth).json()["version"] == 0


@pytest.mark.parametrize("path", ["", "/legal-moves", "/score"])
def test_a_poll_with_if_none_match_gets_304_until_the_game_moves(
    client: TestClient, path: str
) -> None:
    game, auth = new_game(client)
    url = f"/v1/games/{game['id']}{path}"
    first = client.get(url, headers=auth)
    assert first.headers["ETag"] == '"v0"'
    assert first.headers["Cache-Control"] == "private, no-cache"
    for tag in ('"v0"', 'W/"v0"', '"v9", "v0"', "*"):
        same = client.get(url, headers={**auth, "If-None-Match": tag})
        assert same.status_code == 304, (tag, same.text)
        assert same.content == b""
        assert same.headers["ETag"] == '"v0"'
        assert same.headers["Cache-Control"] == "private, no-cache"
    client.post(f"/v1/games/{game['id']}/draw", headers=auth)
    moved = client.get(url, headers={**auth, "If-None-Match": '"v0"'})
    assert moved.status_code == 200 and moved.headers["ETag"] == '"v1"'
    assert moved.json()["version"] == 1
    # A poll is still authorised first: no 304 for a wrong token.
    assert client.get(url, headers={"If-None-Match": '"v1"'}).status_code == 401


def test_answers_with_a_secret_are_never_stored(client: TestClient) -> None:
    created = client.post("/v1/games", json={})
    assert created.headers["Cache-Control"] == "no-store"
    player = client.post("/v1/players", json={"name": "Ada"})
    assert player.headers["Cache-Control"] == "no-store"
    rotated = client.post(
        "/v1/players/me/key", headers={"Authorization": f"Bearer {player.json()['key']}"}
    )
    assert rotated.status_code == 200 and rotated.headers["Cache-Control"] == "no-store"


def test_the_history_pages_by_cursor_and_link(client: TestClient) -> None:
    game, auth = new_game(client, deal=chain_deal())
    url = f"/v1/games/{game['id']}"
    for _ in range(7):
        assert client.post(f"{url}/draw", headers=auth).status_code == 200
    seen: list[int] = []
    page = client.get(f"{url}/moves?limit=3", headers=auth)
    pages = 1
    while True:
        assert page.status_code == 200, page.text
        body = page.json()
        assert body["total"] == 7 and page.headers["ETag"] == '"v7"'
        seen += [m["seq"] for m in body["moves"]]
        if body["next"] is None:
            assert "Link" not in page.headers
            break
        link = re.fullmatch(r'<([^>]+)>; rel="next"', page.headers["Link"])
        assert link is not None and f"cursor={body['next']}" in link.group(1)
        page = client.get(link.group(1), headers=auth)
        pages += 1
    assert seen == list(range(1, 8)) and pages == 3
    by_offset = client.get(f"{url}/moves?offset=5&limit=3", headers=auth).json()
    assert [m["seq"] for m in by_offset["moves"]] == [6, 7] and by_offset["next"] is None
    assert len(client.get(f"{url}/moves", headers=auth).json()["moves"]) == 7  # limit 100
    bad = client.get(f"{url}/moves?cursor=nonsense", headers=auth)
    assert bad.status_code == 422 and bad.json()["errors"][0]["loc"] == ["query", "cursor"]


def test_every_422_has_one_shape(client: TestClient) -> None:
    bodies = [
        client.post("/v1/games", json={"layout": "klondike"}).json(),
        client.post("/v1/games", json={"rules": {"king_stops": True}}).json(),
        client.post("/v1/games", json={"deal_number": 3, "winnable_only": True}).json(),
    ]
    game, auth = new_game(client)
    bodies.append(
        client.post(f"/v1/games/{game['id']}/moves", json={"move": "jump"}, headers=auth).json()
    )
    for body in bodies:
        assert body["type"] == "/problems/validation", body
        assert body["errors"], body
        for error in body["errors"]:
            assert set(error) == {"loc", "msg", "type"}, error
            assert all(isinstance(p, str) for p in error["loc"])
    assert bodies[1]["option"] == "king_stops"
    assert bodies[1]["errors"][0]["loc"] == ["body", "rules", "king_stops"]
    assert bodies[2]["errors"][0]["loc"] == ["body", "winnable_only"]


# -- every header sent is declared ----------------------------------------------------------
# The headers of the contract (others, such as content-length or date, are HTTP's own).
CONTRACT_HEADERS = {
    "etag",
    "location",
    "idempotent-replayed",
    "cache-control",
    "link",
    "ratelimit",
    "ratelimit-policy",
    "retry-after",
    "x-request-id",
    "www-authenticate",
}


def _operation(method: str, path: str) -> dict[str, Any]:
    for template, item in SPEC["paths"].items():
        pattern = "^" + re.sub(r"\{[^/]+\}", "[^/]+", template) + "$"
        if re.match(pattern, path) and method.lower() in item:
            operation: dict[str, Any] = item[method.lower()]
            return operation
    raise AssertionError(f"no operation for {method} {path}")


def _check_declared(r: Response) -> None:
    operation = _operation(r.request.method, r.request.url.path)
    response = operation["responses"].get(str(r.status_code))
    assert response is not None, (operation["operationId"], r.status_code)
    declared = {name.lower() for name in response.get("headers", {})}
    sent = {name.lower() for name in r.headers} & CONTRACT_HEADERS
    assert sent <= declared, (operation["operationId"], r.status_code, sent - declared)


def test_every_contract_header_an_answer_carries_is_declared(client: TestClient) -> None:
    answers: list[Response] = []

    def call(method: str, url: str, **kw: Any) -> Response:
        r = client.request(method, url, **kw)
        answers.append(r)
        return r

    player, by_key = new_player(client)
    game = call("POST", "/v1/games", json={"deal": chain_deal()}, headers=by_key).json()
    auth = {"Authorization": f"Bearer {game['token']}"}
    url = f"/v1/games/{game['id']}"
    call("GET", url, headers=auth)
    call("GET", url, headers={**auth, "If-None-Match": '"v0"'})
    call("GET", f"{url}/legal-moves", headers=auth)
    call("GET", f"{url}/score", headers=auth)
    call("GET", f"{url}/hint?samples=2&seed=1", headers=auth)
    call("POST", f"{url}/draw", headers={**auth, "Idempotency-Key": "k1"})
    call("POST", f"{url}/draw", headers={**auth, "Idempotency-Key": "k1"})  # replayed
    call("POST", f"{url}/draw", headers={**auth, "If-Match": '"v0"'})  # 412
    call("POST", f"{url}/play", json={"position": 0}, headers=auth)  # 400
    call("POST", f"{url}/moves", json={"move": "play 27"}, headers=auth)
    call("GET", f"{url}/moves?limit=1", headers=auth)
    call("GET", f"{url}/analysis", headers=auth)  # 409: in progress
    call("GET", url)  # 401
    call("GET", url, headers={"Authorization": "Bearer wrong"})  # 403
    call("GET", "/v1/games/nope", headers=auth)  # 404
    other, other_auth = new_game(client, deal=losing_deal())
    lose(client, other["id"], other_auth)
    call("GET", f"/v1/games/{other['id']}/analysis", headers=other_auth)
    call("POST", f"/v1/games/{other['id']}/draw", headers=other_auth)  # 409 game over
    call("GET", "/v1/players/me", headers=by_key)
    call("GET", "/v1/players/me/games?limit=1", headers=by_key)
    call("GET", f"/v1/players/{player['id']}")
    call("POST", "/v1/players", json={"name": "Bo"})
    call("GET", "/v1/layouts")
    call("GET", "/v1/layouts/golf")
    call("GET", "/v1/challenges/daily", headers=by_key)
    assert {r.status_code for r in answers} >= {200, 201, 304, 400, 401, 403, 404, 409, 412}
    for r in answers:
        _check_declared(r)


def test_the_spec_declares_x_request_id_on_every_answer() -> None:
    for item in SPEC["paths"].values():
        for operation in item.values():
            for status, response in operation["responses"].items():
                assert "X-Request-ID" in response.get("headers", {}), (
                    operation["operationId"],
                    status,
                )


def test_optional_parameters_are_never_null_in_the_spec() -> None:
    for item in SPEC["paths"].values():
        for operation in item.values():
            for parameter in operation.get("parameters", []):
                text = json.dumps(parameter["schema"])
                assert '"null"' not in text, (operation["operationId"], parameter["name"])
