"""Schemathesis hooks for the fuzz test (loaded by `st run` through SCHEMATHESIS_HOOKS).

Every call on a game needs that game's own player token, which only create_game's answer
carries. The spec's links hand it from create_game to the next call; for the calls after
that, this remembers each token by game id and sends it with any later call on that game.
"""

from __future__ import annotations

from typing import Any

import schemathesis

TOKENS: dict[str, str] = {}


def _operation_id(case: Any) -> str | None:
    value = case.operation.definition.raw.get("operationId")
    return value if isinstance(value, str) else None


@schemathesis.hook
def before_call(context: Any, case: Any, kwargs: dict[str, Any]) -> None:
    """winnable_only asks the solver to search deals, within its own time budget and
    tested on its own: the fuzzer keeps it off so that its run stays short."""
    body = case.body
    if (
        _operation_id(case) == "create_game"
        and isinstance(body, dict)
        and body.get("winnable_only")
    ):
        body["winnable_only"] = False


@schemathesis.hook
def after_call(context: Any, case: Any, response: Any) -> None:
    if _operation_id(case) != "create_game":
        return
    if response.status_code != 201:
        return
    body = response.json()
    TOKENS[body["id"]] = body["token"]


@schemathesis.auth(refresh_interval=None)
class GameToken:
    """The player token of the game named in the path, when this run created it."""

    def get(self, case: Any, context: Any) -> str | None:
        game_id = (case.path_parameters or {}).get("game_id")
        return TOKENS.get(game_id) if isinstance(game_id, str) else None

    def set(self, case: Any, data: str, context: Any) -> None:
        case.headers = case.headers or {}
        case.headers["Authorization"] = f"Bearer {data}"
