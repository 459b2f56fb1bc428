"""Game ids that cannot exist: every endpoint on a game answers 404 for them, whatever the
token, before any query. PostgreSQL refuses a NUL byte in a text parameter (DataError),
so such an id once got a 500 there while SQLite answered 404; both are tested, through a
real server, since the bytes go through the HTTP parser's percent-decoding first."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import httpx
import pytest

from app.openapi import SPEC_PATH
from tests.fixtures.games import new_game_id
from tests.fixtures.servers import live_server

pytestmark = pytest.mark.slow

READS = ("", "/legal-moves", "/score", "/moves", "/hint", "/analysis")
MOVES = {"/moves": {"move": "draw"}, "/play": {"position": 18}, "/draw": None, "/concede": None}

# Percent-encoded as a client sends them; the server decodes them into the path parameter.
IMPOSSIBLE_IDS = (
    "x%00y",  # NUL: PostgreSQL cannot even compare it with a text column
    "x%0Ay",  # a line break
    "%FF%FE",  # not UTF-8: decoded to U+FFFD
    "x%20y",  # a space
    "caf%C3%A9",  # not in token_urlsafe's alphabet
    "a.b",
    "x" * 33,  # longer than any id the server makes
)


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[httpx.Client]:
    with live_server(database_url) as base, httpx.Client(base_url=base, timeout=30) as c:
        yield c


def test_an_id_that_cannot_exist_is_a_404_on_every_game_endpoint(server: httpx.Client) -> None:
    _, auth = new_game_id(server)  # a real token: it opens nothing under another id
    for token in (auth, {"Authorization": "Bearer anything"}):
        for game_id in IMPOSSIBLE_IDS:
            answers = [server.get(f"/v1/games/{game_id}{path}", headers=token) for path in READS]
            answers += [
                server.post(f"/v1/games/{game_id}{path}", json=body, headers=token)
                for path, body in MOVES.items()
            ]
            for r in answers:
                where = f"{r.request.method} {r.request.url.raw_path!r}"
                assert r.status_code == 404, (where, r.text)
                assert r.headers["content-type"] == "application/problem+json", where
                assert r.json()["type"] == "/problems/not-found", where


def test_a_well_formed_id_of_no_game_is_a_404_and_a_real_one_opens(server: httpx.Client) -> None:
    game_id, auth = new_game_id(server)
    assert server.get(f"/v1/games/{game_id}", headers=auth).status_code == 200
    missing = ("A" if game_id[0] != "A" else "B") + game_id[1:]
    r = server.get(f"/v1/games/{missing}", headers=auth)
    assert r.status_code == 404 and r.json()["type"] == "/problems/not-found"


def test_no_path_parameter_of_the_api_takes_a_nul_to_the_database(server: httpx.Client) -> None:
    """Every templated path of the spec (and the web client's files), each parameter a NUL
    byte: refused as a miss or as invalid, never a server error."""
    spec = json.loads(SPEC_PATH.read_text(encoding="utf-8"))
    calls = [("GET", "/web/x%00y")]
    for template, item in spec["paths"].items():
        if "{" in template:
            path = re.sub(r"\{[^}]+\}", "x%00y", template)
            calls += [(method.upper(), path) for method in item]
    assert len(calls) > len(READS) + len(MOVES)
    for method, path in calls:
        r = server.request(method, path, headers={"Authorization": "Bearer anything"}, json={})
        assert r.status_code in (404, 422), (method, path, r.status_code, r.text)
        assert r.headers["content-type"] == "application/problem+json", (method, path)
