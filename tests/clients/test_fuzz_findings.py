"""What schemathesis found, pinned as plain tests so that it never comes back unnoticed."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient

from app.openapi import SPEC_PATH
from tests.fixtures.deals import chain_deal


def test_allow_names_every_method_of_the_path(client: TestClient) -> None:
    # /moves is served by two routes (GET list_moves, POST make_move): a 405 from either
    # must name both, as the spec does.
    r = client.request("DELETE", "/v1/games/some-game/moves")
    assert r.status_code == 405
    assert r.headers["content-type"] == "application/problem+json"
    assert r.json()["type"] == "/problems/method-not-allowed"
    assert r.headers["Allow"] == "GET, HEAD, POST"
    assert client.put("/v1/games").headers["Allow"] == "POST"
    assert client.post("/v1/layouts/tripeaks").headers["Allow"] == "GET, HEAD"


def test_an_unreadable_body_is_a_validation_problem(client: TestClient) -> None:
    for body in (b"\xff\xfe\x19\xdc", b"{not json"):
        r = client.post("/v1/games", content=body, headers={"Content-Type": "application/json"})
        assert r.status_code == 422, r.text
        assert r.json()["type"] == "/problems/validation"


def test_integers_written_as_whole_floats_are_integers(client: TestClient) -> None:
    # JSON Schema's "integer" admits 3.0; strings and booleans stay refused.
    r = client.post("/v1/games", json={"deal_number": 7.0, "rules": {"redeals": 2.0}})
    assert r.status_code == 201, r.text
    assert r.json()["deal_number"] == 7 and r.json()["rules"]["redeals"] == 2
    game = client.post("/v1/games", json={"deal": chain_deal()}).json()
    auth = {"Authorization": f"Bearer {game['token']}"}
    played = client.post(f"/v1/games/{game['id']}/play", json={"position": 18.0}, headers=auth)
    assert played.status_code == 200, played.text
    for bad in ("18", True, 18.5):
        r = client.post(f"/v1/games/{game['id']}/play", json={"position": bad}, headers=auth)
        assert r.status_code == 422, (bad, r.text)


def test_problems_are_declared_as_problem_json(client: TestClient) -> None:
    spec = json.loads(SPEC_PATH.read_text(encoding="utf-8"))
    for item in spec["paths"].values():
        for operation in item.values():
            for status, response in operation["responses"].items():
                content = response.get("content", {})
                if status.startswith(("4", "5")) and content:
                    assert list(content) == ["application/problem+json"], operation["operationId"]
                    schema = content["application/problem+json"]["schema"]
                    # One problem type's schema, or several told apart by their type.
                    refs = [schema] if "$ref" in schema else schema["oneOf"]
                    types = set()
                    for ref in refs:
                        named = spec["components"]["schemas"][ref["$ref"].rsplit("/", 1)[1]]
                        types.add(named["properties"]["type"]["const"])
                        assert named["properties"]["status"]["type"] == "integer"
                    if len(refs) > 1:
                        mapping = schema["discriminator"]["mapping"]
                        assert schema["discriminator"]["propertyName"] == "type"
                        assert set(mapping) == types
                    for uri in types:
                        assert f"`{uri}`" in response["description"], (status, uri)
    r = client.get("/v1/games/nope", headers={"Authorization": "Bearer x"})
    assert r.headers["content-type"] == "application/problem+json"


def test_links_lead_from_a_created_game_to_every_call_on_it() -> None:
    spec = json.loads(SPEC_PATH.read_text(encoding="utf-8"))
    created = spec["paths"]["/v1/games"]["post"]["responses"]["201"]["links"]
    for name, link in created.items():
        assert link["operationId"] == name
        assert link["parameters"]["path.game_id"] == "$response.body#/id"
        assert link["parameters"]["header.Authorization"] == "Bearer {$response.body#/token}"
    assert created["make_move"]["requestBody"] == "$response.body#/legal_moves/0"
    assert {
        "get_game",
        "list_legal_moves",
        "make_move",
        "play_card",
        "draw_card",
        "concede_game",
        "get_score",
        "list_moves",
    } <= created.keys()
