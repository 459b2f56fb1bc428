"""The committed OpenAPI spec is the app's, with the contract's operation ids and errors."""

from __future__ import annotations

import json

from app.openapi import SPEC_PATH, current_spec, render

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
