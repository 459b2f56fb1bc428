"""The committed OpenAPI spec is the app's, with the contract's operation ids and errors."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.openapi import SPEC_PATH, current_spec, render
from app.players.schemas import NAME_LENGTH

OPERATIONS = {
    "create_game",
    "get_game",
    "list_legal_moves",
    "make_move",
    "play_card",
    "draw_card",
    "concede_game",
    "get_score",
    "list_moves",
    "list_layouts",
    "get_layout",
}


def test_committed_spec_matches_the_app() -> None:
    assert SPEC_PATH.read_text(encoding="utf-8") == render(current_spec()), (
        "openapi/openapi.json is stale: run `make openapi` and commit it"
    )


def test_operation_ids_and_problem_responses_are_declared() -> None:
    spec = json.loads(SPEC_PATH.read_text(encoding="utf-8"))
    seen = {}
    for path, item in spec["paths"].items():
        for method, op in item.items():
            seen[op["operationId"]] = (path, method, op)
    assert seen.keys() >= OPERATIONS
    for name in OPERATIONS - {"list_layouts"}:
        _, _, op = seen[name]
        problems = [
            code
            for code, resp in op["responses"].items()
            if "application/problem+json" in resp.get("content", {})
        ]
        assert "422" in problems or (name == "get_layout" and "404" in problems), name
    for name in ("make_move", "play_card", "draw_card", "concede_game"):
        codes = set(seen[name][2]["responses"])
        assert {"200", "400", "401", "403", "404", "409", "412", "422"} <= codes, name
    assert "HTTPValidationError" not in spec["components"]["schemas"]


def test_the_spec_says_what_the_server_does_at_its_edges(client: TestClient) -> None:
    """HEAD wherever GET, Vary: Origin on every answer with CORS on (as the tests' app
    has it), the names' real bound, and the characters a caller's X-Request-ID may hold:
    said in the spec, done by the server."""
    spec = json.loads(SPEC_PATH.read_text())
    said = spec["info"]["description"]
    assert "HEAD" in said and "Vary: Origin" in said
    assert client.head("/v1/layouts").status_code == 200
    for url in ("/v1/layouts", "/v1/nothing"):
        assert "Origin" in client.get(url).headers["vary"]
    names = [
        schema["properties"]["name"]
        for schema in spec["components"]["schemas"].values()
        if schema.get("title") in ("PlayerCreate", "PlayerUpdate")
    ]
    assert names and all(
        ("maxLength" in n and n["maxLength"] == NAME_LENGTH)
        or any(o.get("maxLength") == NAME_LENGTH for o in n.get("anyOf", []))
        for n in names
    ), names
    assert client.post("/v1/players", json={"name": "x" * (NAME_LENGTH + 1)}).status_code == 422
    r = client.get("/v1/layouts", headers={"X-Request-ID": "trace:abc-1.2_3"})
    assert r.headers["x-request-id"] == "trace:abc-1.2_3"
    described = spec["paths"]["/v1/layouts"]["get"]["responses"]["200"]["headers"]
    assert ". _ : -" in described["X-Request-ID"]["description"]


def _url(path: str, operation: dict[str, Any]) -> str:
    """``path`` with a value of each path parameter's type (an id that names nothing)."""
    for parameter in operation.get("parameters", []):
        if parameter["in"] == "path":
            value = "0" if parameter["schema"].get("type") == "integer" else "A" * 22
            path = path.replace("{" + parameter["name"] + "}", value)
    return path


@pytest.mark.parametrize("cors", [False, True], ids=["cors-off", "cors-on"])
def test_vary_is_sent_with_cors_alone_and_declared_wherever_it_is_sent(
    client_with: Callable[..., TestClient], cors: bool
) -> None:
    """Every operation of the committed spec, called once from a browser's origin: its
    answer carries Vary: Origin when CORS is on and no Vary when it is off, and the
    response the spec declares for the answer's status names every header of the two an
    independent validator looked for (Vary, X-Request-ID)."""
    origin = "https://client.example"
    client = client_with(cors_origins=[origin] if cors else [])
    spec = json.loads(SPEC_PATH.read_text(encoding="utf-8"))
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            r = client.request(method.upper(), _url(path, operation), headers={"Origin": origin})
            declared = operation["responses"].get(str(r.status_code))
            assert declared is not None, (method, path, r.status_code, r.text)
            headers = declared.get("headers", {})
            assert {"Vary", "X-Request-ID"} <= headers.keys(), (method, path, r.status_code)
            vary = r.headers.get_list("vary")
            assert vary == (["Origin"] if cors else []), (method, path, vary)
    # A preflight from an origin not allowed is refused alike, CORS on or off.
    preflight = {"Origin": "https://other.example", "Access-Control-Request-Method": "GET"}
    r = client.options("/v1/layouts", headers=preflight)
    assert r.status_code == 400 and r.json()["type"] == "/problems/cors-refused", r.text
