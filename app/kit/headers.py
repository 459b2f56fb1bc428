"""The response headers of the contract, as OpenAPI header objects, and the entity tags.

Each route declares the headers it sends (``responses={200: {"headers": ...}}``), so that
generated clients expose them; ``X-Request-ID``, which every answer carries, and ``Vary``,
which every answer carries while CORS is on, are added to every response by
``declare_on_every_response``.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import FastAPI

Headers = dict[str, dict[str, Any]]

ETAG: Headers = {
    "ETag": {
        "description": 'The game\'s version as a strong entity tag, "v<version>" (get_game '
        "and a move's answer add \".r\" once the ended game shows its deal: a challenge's or "
        "a duel's deal shows once it closes, with no new version): send it back as If-Match "
        "to refuse a stale move (412), or as If-None-Match to poll (304)",
        "schema": {"type": "string", "example": '"v12"'},
    }
}
LOCATION: Headers = {
    "Location": {
        "description": "Where the new resource is (a path on this server)",
        "schema": {"type": "string", "example": "/v1/games/abc123"},
    }
}
IDEMPOTENT_REPLAYED: Headers = {
    "Idempotent-Replayed": {
        "description": "true when this answer is the first answer to the same "
        "Idempotency-Key, given again (nothing was applied twice); absent otherwise",
        "schema": {"type": "string", "enum": ["true"]},
    }
}
NO_STORE: Headers = {
    "Cache-Control": {
        "description": "no-store: the answer carries a secret (a game's token or a "
        "player's key) that no cache may keep",
        "schema": {"type": "string", "enum": ["no-store"]},
    }
}
REVALIDATE: Headers = {
    "Cache-Control": {
        "description": "private, no-cache: a cache may keep the answer for its own user "
        "only, and must ask again (with If-None-Match) before using it",
        "schema": {"type": "string", "enum": ["private, no-cache"]},
    }
}
REQUEST_ID: Headers = {
    "X-Request-ID": {
        "description": "The request's id in the server's logs: the caller's X-Request-ID "
        "when it sent a plain one (1-128 of A-Z a-z 0-9 . _ : -), else a new one",
        "schema": {"type": "string", "example": "7f3c2a9e1b4d4e6f"},
    }
}
VARY_ORIGIN: Headers = {
    "Vary": {
        "description": "Origin, while the server allows CORS (CORS_ORIGINS): the answer's "
        "CORS headers depend on the caller's origin, so a shared cache keeps one answer per "
        "origin; absent without CORS",
        "schema": {"type": "string", "example": "Origin"},
    }
}

# An If-Match or If-None-Match value (RFC 9110 §8.8.3, §13.1): "*" or entity tags, each
# "..." or W/"...", separated by commas.
ENTITY_TAGS = r'^\s*(\*|(W/)?"[\x21\x23-\x7e]*"(\s*,\s*(W/)?"[\x21\x23-\x7e]*")*)\s*$'
_TAG = re.compile(r'(W/)?"([\x21\x23-\x7e]*)"')


def etag(version: int, revealed: bool = False) -> str:
    """The strong entity tag of a game at ``version``; ``revealed``: of its state with
    the deal revealed (a challenge's or a duel's ended game shows its deal later than its
    last move, with no new version: its answer changed all the same)."""
    return f'"v{version}.r"' if revealed else f'"v{version}"'


def _tags(header: str) -> list[tuple[bool, str]]:
    return [(m.group(1) is not None, m.group(2)) for m in _TAG.finditer(header)]


def if_match(header: str, version: int) -> bool:
    """Whether If-Match ``header`` holds for a game at ``version``: ``*``, or the strong
    comparison (RFC 9110 §13.1.1: a weak tag never matches)."""
    if header.strip() == "*":
        return True
    current = (etag(version)[1:-1], etag(version, revealed=True)[1:-1])
    return any(not weak and tag in current for weak, tag in _tags(header))


def if_none_match(header: str, version: int, revealed: bool = False) -> bool:
    """Whether If-None-Match ``header`` names the game at ``version`` (so that a GET is
    answered 304): ``*``, or the weak comparison (RFC 9110 §13.1.2: W/ is ignored)."""
    if header.strip() == "*":
        return True
    current = etag(version, revealed)[1:-1]
    return any(tag == current for _, tag in _tags(header))


def declare_on_every_response(spec: dict[str, Any], headers: Headers) -> dict[str, Any]:
    """Every response of every operation may carry ``headers``."""
    for item in spec.get("paths", {}).values():
        for operation in item.values():
            if not isinstance(operation, dict):
                continue
            for response in operation.get("responses", {}).values():
                response.setdefault("headers", {}).update(headers)
    return spec


def optional_parameters_not_null(spec: dict[str, Any]) -> dict[str, Any]:
    """An optional query or header parameter is absent, never null: its schema is the
    value's alone (FastAPI writes ``anyOf: [X, null]`` for ``X | None = None``, which
    reads as if the literal ``null`` were a value to send)."""
    for item in spec.get("paths", {}).values():
        for operation in item.values():
            if not isinstance(operation, dict):
                continue
            for parameter in operation.get("parameters", []):
                schema = parameter.get("schema", {})
                options = schema.get("anyOf")
                if parameter.get("required") or not isinstance(options, list):
                    continue
                kept = [o for o in options if o != {"type": "null"}]
                if len(kept) == 1 and len(kept) < len(options):
                    del schema["anyOf"]
                    schema.update(kept[0])
    return spec


def install_spec_headers(app: FastAPI) -> None:
    """The app's OpenAPI with X-Request-ID and Vary declared and optional parameters not
    null. Vary is declared whatever the settings, as a header an answer may carry: the
    spec is one document for every deployment, with CORS or without."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        spec = declare_on_every_response(generate(), {**REQUEST_ID, **VARY_ORIGIN})
        return optional_parameters_not_null(spec)

    app.openapi = openapi  # type: ignore[method-assign]
