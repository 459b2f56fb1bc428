"""The edges of the HTTP contract, through the production server (it parses the requests):
bodies over the limit whatever their framing, HEAD, refused CORS preflights, JSON with a
key given twice, and redirects that must not echo the Host header."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from app.kit.middleware import MAX_BODY_OBJECTS, MAX_OBJECT_KEYS
from app.ops.migrations import upgrade
from tests.fixtures.games import new_game
from tests.fixtures.servers import ROOT, live_server

pytestmark = pytest.mark.slow

ORIGIN = "https://client.example"
PROBLEM = "application/problem+json"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    url = f"sqlite:///{tmp_path_factory.mktemp('edges') / 'db.sqlite3'}"
    upgrade(url)
    with (
        live_server(url, MAX_BODY_BYTES="2048", CORS_ORIGINS=ORIGIN) as base,
        httpx.Client(base_url=base, timeout=30) as c,
    ):
        yield c


def assert_problem(r: httpx.Response, status: int, slug: str) -> dict[str, object]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == PROBLEM, r.headers
    body: dict[str, object] = r.json()
    assert body["type"] == f"/problems/{slug}" and body["status"] == status
    return body


def chunks(total: int, size: int = 500) -> Iterator[bytes]:
    """A JSON body of ``total`` bytes in pieces: httpx sends it chunked, without a length."""
    body = b'{"layout": "tripeaks", "pad": "' + b"x" * (total - 33) + b'"}'
    assert len(body) == total
    for start in range(0, total, size):
        yield body[start : start + size]


def test_a_chunked_body_over_the_limit_is_a_413(server: httpx.Client) -> None:
    headers = {"Content-Type": "application/json"}
    r = server.post("/v1/games", content=chunks(5000), headers=headers)
    assert r.request.headers.get("transfer-encoding") == "chunked"
    assert_problem(r, 413, "payload-too-large")
    # A chunked body within the limit is read whole and refused for its content only.
    r = server.post("/v1/games", content=chunks(1000), headers=headers)
    assert_problem(r, 422, "validation")  # "pad" is no field of a game
    r = server.post("/v1/games", content=iter([b'{"layout": ', b'"golf"}']), headers=headers)
    assert r.status_code == 201, r.text


def test_head_answers_as_get_without_a_body(server: httpx.Client) -> None:
    game, auth = new_game(server)
    for path, headers in [
        ("/healthz", {}),
        ("/readyz", {}),
        ("/metrics", {}),
        ("/v1/layouts", {}),
        ("/v1/layouts/golf", {}),
        (f"/v1/games/{game['id']}", auth),
        (f"/v1/games/{game['id']}/legal-moves", auth),
        (f"/v1/games/{game['id']}", {}),  # 401 as for GET
        ("/v1/games/nope", auth),  # 404 as for GET
    ]:
        got, head = server.get(path, headers=headers), server.head(path, headers=headers)
        assert head.status_code == got.status_code, (path, head.status_code, got.status_code)
        assert head.content == b"", path
        assert head.headers["content-type"] == got.headers["content-type"], path
        if path != "/metrics":  # its counts move between the two calls
            assert head.headers["content-length"] == got.headers["content-length"], path
        assert head.headers.get("etag") == got.headers.get("etag"), path
    # Where GET is not served, neither is HEAD, and Allow says what is.
    r = server.head("/v1/games")
    assert r.status_code == 405 and r.headers["allow"] == "POST"


def test_a_refused_cors_preflight_is_a_problem(server: httpx.Client) -> None:
    ask = {"Access-Control-Request-Method": "POST"}
    allowed = server.options("/v1/games", headers={"Origin": ORIGIN, **ask})
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == ORIGIN
    # Every method a route answers: following a player is a PUT.
    follow = {"Origin": ORIGIN, "Access-Control-Request-Method": "PUT"}
    put = server.options("/v1/players/me/following/AAAAAAAAAAAAAAAAAAAAAA", headers=follow)
    assert put.status_code == 200 and "PUT" in put.headers["access-control-allow-methods"]
    for headers in (
        {"Origin": "https://elsewhere.example", **ask},
        {"Origin": ORIGIN, "Access-Control-Request-Method": "TRACE"},
        {"Origin": ORIGIN, **ask, "Access-Control-Request-Headers": "X-Secret"},
    ):
        r = server.options("/v1/games", headers=headers)
        body = assert_problem(r, 400, "cors-refused")
        assert str(body["detail"]).startswith("Disallowed CORS ")
        assert (
            "access-control-allow-origin" not in r.headers
            or r.headers["access-control-allow-origin"] == ORIGIN
        )


def test_a_json_key_given_twice_is_refused_at_any_depth(server: httpx.Client) -> None:
    game, auth = new_game(server)
    url = f"/v1/games/{game['id']}"
    headers = {**auth, "Content-Type": "application/json"}
    for path, raw in [
        ("/moves", '{"move": "play 999", "move": "concede"}'),
        ("/moves", '{"move": "concede", "move": "concede"}'),
        ("/play", '{"position": 18, "position": 19}'),
    ]:
        r = server.post(url + path, content=raw, headers=headers)
        body = assert_problem(r, 422, "validation")
        assert "twice" in str(body["detail"]), body
        assert body["errors"] == [
            {"loc": ["body"], "msg": body["errors"][0]["msg"], "type": "json_duplicate_key"}  # type: ignore[index]
        ]
    state = server.get(url, headers=auth).json()
    assert (state["status"], state["version"]) == ("in_progress", 0)  # nothing was applied
    nested = '{"rules": {"wrap": true, "redeals": 1, "wrap": false}}'
    r = server.post("/v1/games", content=nested, headers={"Content-Type": "application/json"})
    assert_problem(r, 422, "validation")
    deep = '{"rules": {"wrap": true}, "deal_number": 5, "x": [{"a": 1, "a": 2}]}'
    r = server.post("/v1/games", content=deep, headers={"Content-Type": "application/json"})
    assert_problem(r, 422, "validation")
    assert "'a'" in str(r.json()["detail"])
    # The same keys in different objects are no duplicate.
    fine = '{"rules": {"wrap": true}, "layout": "tripeaks", "deal_number": 3}'
    r = server.post("/v1/games", content=fine, headers={"Content-Type": "application/json"})
    assert r.status_code == 201, r.text


def test_redirects_do_not_echo_the_host_header(server: httpx.Client) -> None:
    for path, to in [("/web", "/web/"), ("/v1/games/", "/v1/games"), ("/healthz/", "/healthz")]:
        r = server.get(path, headers={"Host": "evil.example"}, follow_redirects=False)
        assert r.status_code in (301, 302, 307, 308), (path, r.status_code)
        assert r.headers["location"] == to, (path, r.headers["location"])
    r = server.get("/v1/layouts/?x=1", headers={"Host": "evil.example"}, follow_redirects=False)
    assert r.headers["location"] == "/v1/layouts?x=1"


def test_an_object_of_more_keys_than_the_api_has_is_refused_in_one_error(
    server: httpx.Client,
) -> None:
    """Unknown keys by the hundred in a move's body (by the thousand under the default
    body limit; this server's is 2 KB): one short 422, not an error a key (six thousand
    made a half-megabyte answer, and cost a tenth of a second of the event loop), and no
    move applied."""
    game, auth = new_game(server)
    url = f"/v1/games/{game['id']}"
    flood = {f"k{i}": i for i in range(150)} | {"move": "draw"}
    r = server.post(f"{url}/moves", json=flood, headers=auth)
    body = assert_problem(r, 422, "validation")
    errors = body["errors"]
    assert isinstance(errors, list)
    assert [e["type"] for e in errors] == ["json_too_many_keys"]
    assert len(r.content) < 1000
    assert server.get(url, headers=auth).json()["version"] == 0
    # As many keys as the limit, in an object the route ignores: past this check.
    fine = {f"k{i}": i for i in range(MAX_OBJECT_KEYS)}
    r = server.post("/v1/games", json={"rules": fine})
    assert [e["type"] for e in r.json()["errors"]][:1] == ["extra_forbidden"]


def test_no_object_of_the_api_has_as_many_keys_as_the_limit() -> None:
    """The limit refuses no body the API would take: every object schema of the spec has
    fewer properties."""
    spec = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    schemas = spec["components"]["schemas"]
    widest = max(len(s.get("properties", {})) for s in schemas.values())
    assert widest < MAX_OBJECT_KEYS, widest


def objects_in(schema: dict[str, Any], schemas: dict[str, Any]) -> float:
    """The most JSON objects a value of ``schema`` may hold, itself included."""
    if "$ref" in schema:
        return objects_in(schemas[schema["$ref"].rsplit("/", 1)[1]], schemas)
    choices = schema.get("anyOf") or schema.get("oneOf")
    if choices:
        return max(objects_in(choice, schemas) for choice in choices)
    if schema.get("type") == "array":
        each = objects_in(schema.get("items", {}), schemas)
        return each * schema["maxItems"] if "maxItems" in schema else each * math.inf
    properties = schema.get("properties", {})
    if schema.get("type") == "object" or properties:
        return 1 + sum(objects_in(p, schemas) for p in properties.values())
    return 0


def test_no_body_of_the_api_holds_as_many_objects_as_the_limit() -> None:
    """The limit on a body's objects refuses no body the API would take: every request
    body of the spec holds fewer."""
    spec = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    bodies = [
        operation["requestBody"]["content"]["application/json"]["schema"]
        for item in spec["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and "requestBody" in operation
    ]
    most = max(objects_in(body, spec["components"]["schemas"]) for body in bodies)
    assert 1 < most < MAX_BODY_OBJECTS, most


def test_a_422_lists_at_most_twenty_errors_and_counts_the_rest(server: httpx.Client) -> None:
    r = server.post("/v1/games", json={"deal": list(range(60))})
    body = assert_problem(r, 422, "validation")
    errors = body["errors"]
    assert isinstance(errors, list) and len(errors) == 20
    assert isinstance(body["more_errors"], int) and body["more_errors"] >= 40


def test_every_file_of_the_web_client_carries_the_pages_security_headers(
    server: httpx.Client,
) -> None:
    """The page is served at / and, as a file, at /web/index.html: both with its CSP and
    nosniff, and so are its scripts and styles."""
    page = server.get("/")
    assert page.status_code == 200
    csp = page.headers["content-security-policy"]
    for path in ("/web/index.html", "/web/js/main.js"):
        r = server.get(path)
        assert r.status_code == 200, path
        assert r.headers["content-security-policy"] == csp, path
        assert r.headers["x-content-type-options"] == "nosniff", path
    assert server.get("/web/index.html").text == page.text
