"""Refusals cost their sender a budget, through HTTP on SQLite and PostgreSQL: a request
refused before its route spent a budget (a body too wide, malformed or holding a key
twice; no such route) spends one of the client's ``refused`` budget, and once that is
spent, every request of the client is a 429 before its body is read; a refusal's answer
stays small whatever the body named.

The budgets are per day (see tests/kit/test_ratelimit.py: a minute's boundary may fall
inside a test)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import httpx
import pytest
from fastapi.testclient import TestClient

from tests.fixtures.games import new_game_id
from tests.fixtures.servers import live_server

JSON = {"Content-Type": "application/json"}
# Refused before the move's route: an object of too many keys, a key given twice, no JSON.
WIDE = json.dumps(
    {f"k{i:05d}": 0 for i in range(5500)} | {"move": "draw"}, separators=(",", ":")
).encode()
REFUSED_BODIES = (WIDE, b'{"move": "draw", "move": "concede"}', b'{"move": ')


class Watched:
    """A request body that says whether the server read any of it."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.consumed = False

    def __iter__(self) -> Iterator[bytes]:
        self.consumed = True
        yield self.body


def test_refusals_spend_the_clients_budget_then_a_429_comes_before_the_body(
    client_with: Callable[..., TestClient],
) -> None:
    client = client_with(rate_limit_refused="3/day")
    game_id, auth = new_game_id(client, deal_number=5)
    moves = f"/v1/games/{game_id}/moves"
    headers = {**auth, **JSON}
    refused = [client.post(moves, content=body, headers=headers) for body in REFUSED_BODIES]
    assert [r.status_code for r in refused] == [422, 422, 422]

    # The budget is spent: a good move now is a 429 before anything of it is read.
    body = Watched(b'{"move": "draw"}')
    r = client.post(moves, content=body, headers=headers)
    assert r.status_code == 429, r.text
    assert r.headers["content-type"] == "application/problem+json"
    problem = r.json()
    assert problem["type"] == "/problems/rate-limited" and problem["budget"] == "refused"
    assert 1 <= int(r.headers["Retry-After"]) <= 86400
    assert r.headers["RateLimit-Policy"] == '"refused";q=3;w=86400'
    assert r.headers["RateLimit"].startswith('"refused";r=0;t=')
    assert not body.consumed and r.headers["Connection"] == "close"
    # Every request of the client is refused so, reads too; the probes are not.
    assert client.get(f"/v1/games/{game_id}", headers=auth).status_code == 429
    assert client.get("/healthz").status_code == 200

    # Another client is served, and its own refusals after its route spent a budget (a
    # move the move's schema refuses) spend nothing of its refused budget.
    other_id, other_auth = new_game_id(client, deal_number=6)
    other_moves = f"/v1/games/{other_id}/moves"
    bodies = [{"move": ""}] * 4 + [{"move": "draw"}]
    statuses = [client.post(other_moves, json=b, headers=other_auth).status_code for b in bodies]
    assert statuses == [422, 422, 422, 422, 200]


def test_refusals_without_a_credential_spend_the_address_budget(
    client_with: Callable[..., TestClient],
) -> None:
    """No such route, no credential where one is needed: refused before any budget, each
    spends the address's refused budget; a credential verified here keeps its own."""
    client = client_with(rate_limit_refused="3/day")
    game_id, auth = new_game_id(client, deal_number=7)
    refused = [
        client.get("/v1/no-such-route"),
        client.get("/v1/players/me"),
        client.post("/v1/games", content=b'{"layout": ', headers=JSON),
    ]
    assert [r.status_code for r in refused] == [404, 401, 422]
    r = client.post("/v1/games", json={})
    assert r.status_code == 429 and r.json()["budget"] == "refused"
    assert client.get(f"/v1/games/{game_id}", headers=auth).status_code == 200


def test_a_refusal_says_little_of_what_the_body_named(
    client_with: Callable[..., TestClient],
) -> None:
    """A 422's answer is bounded whatever the body names: each name it says (an unknown
    key's in ``loc``, a key given twice) is cut short, so the answer cannot grow with the
    body it refuses (they once came back whole, twice each)."""
    client = client_with()
    game_id, auth = new_game_id(client, deal_number=8)
    moves = f"/v1/games/{game_id}/moves"
    long_keys = {f"{i:02d}" + "x" * 3000: 0 for i in range(20)} | {"move": "draw"}
    r = client.post(moves, json=long_keys, headers=auth)
    assert r.status_code == 422
    errors = r.json()["errors"]
    assert [e["type"] for e in errors] == ["extra_forbidden"] * 20
    assert all(len(part) <= 64 for e in errors for part in e["loc"])
    assert len(r.content) < 4096, len(r.content)
    twice = b'{"' + b"y" * 10_000 + b'": 1, "' + b"y" * 10_000 + b'": 2}'
    r = client.post(moves, content=twice, headers={**auth, **JSON})
    assert r.status_code == 422 and r.json()["errors"][0]["type"] == "json_duplicate_key"
    assert len(r.content) < 1024, len(r.content)
    assert client.get(f"/v1/games/{game_id}", headers=auth).json()["version"] == 0


def test_a_body_of_many_objects_is_one_refusal(client_with: Callable[..., TestClient]) -> None:
    """Many small objects cost the check a call each: past the most any body holds, the
    body is refused in one error and the rest of it is not parsed."""
    client = client_with()
    # 20,000 empty objects in 60,001 bytes, under MAX_BODY_BYTES (written out: how a client
    # library spaces its JSON would decide whether it is).
    body = b"[" + b",".join([b"{}"] * 20_000) + b"]"
    r = client.post("/v1/games", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 422
    assert [e["type"] for e in r.json()["errors"]] == ["json_too_many_objects"]
    assert len(r.content) < 1024


@pytest.mark.slow
def test_a_barred_client_waits_for_its_429_and_nobody_else_does(database_url: str) -> None:
    """A client barred for its refusals gets each 429 after ``REFUSED_DELAY_MS``, the
    others are answered meanwhile: a flood that ignores Retry-After sends no more than a
    request a connection each wait (``python -m bench abuse``, the flood phases). The
    delay is set long here and the barred client's patience short: its 429 cannot come
    before (on any machine), and another client's game does."""
    env = {"RATE_LIMIT_REFUSED": "1/day", "REFUSED_DELAY_MS": "10000"}
    with (
        live_server(database_url, **env) as base,
        httpx.Client(base_url=base, timeout=60) as barred,
        httpx.Client(
            base_url=base, timeout=60, transport=httpx.HTTPTransport(local_address="127.0.0.2")
        ) as other,
    ):
        r = barred.post("/v1/nowhere", content=b"{}", headers=JSON)
        assert r.status_code == 404  # the one refusal its budget allows
        with pytest.raises(httpx.ReadTimeout):
            barred.get("/v1/layouts", timeout=1)
        assert other.post("/v1/games", json={}).status_code == 201
