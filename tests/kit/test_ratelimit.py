"""Rate limits through HTTP: per client and per budget, shared through Redis, failing open.

The budgets here are per day: the sliding-window counters weigh the window before, so two
requests that straddle the boundary of a short window may both pass (a minute's boundary
came between two hints once in a while and the test failed); a day's boundary almost
never falls inside a test."""

from __future__ import annotations

import os
import secrets
import threading
from collections.abc import Callable, Iterator

import httpx
import pytest
import redis
from fastapi.testclient import TestClient

from app.kit.ratelimit import DRAFT
from tests.fixtures.games import new_game_id, new_player
from tests.fixtures.servers import live_server
from tests.ops.servers import metric_value

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    """The machine's Redis (``TEST_REDIS_URL``); skipped when none answers, failed in CI."""
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except redis.RedisError as e:
        if os.environ.get("CI"):
            pytest.fail(f"CI must test the rate limits on Redis: {REDIS_URL}: {e}")
        pytest.skip(f"no Redis at {REDIS_URL}: {e}")
    yield REDIS_URL


def test_a_client_over_its_move_budget_gets_429_and_nothing_changes(
    client_with: Callable[..., TestClient],
) -> None:
    client = client_with(rate_limit_move="3/day")
    gid, auth = new_game_id(client, deal_number=5)
    for remaining in (2, 1, 0):
        r = client.post(f"/v1/games/{gid}/draw", headers=auth)
        assert r.status_code == 200
        assert r.headers["RateLimit-Policy"] == '"move";q=3;w=86400'
        assert r.headers["RateLimit"].startswith(f'"move";r={remaining};t=')
    r = client.post(f"/v1/games/{gid}/draw", headers=auth)
    assert r.status_code == 429
    assert r.headers["content-type"] == "application/problem+json"
    problem = r.json()
    assert problem["type"] == "/problems/rate-limited" and problem["budget"] == "move"
    assert 1 <= int(r.headers["Retry-After"]) <= 86400
    assert r.headers["RateLimit"].startswith('"move";r=0;t=')
    # Nothing was applied; reads have a budget of their own; another game another client.
    state = client.get(f"/v1/games/{gid}", headers=auth)
    assert state.status_code == 200 and state.json()["version"] == 3
    assert state.headers["RateLimit-Policy"].startswith('"read";')
    other, other_auth = new_game_id(client, deal_number=6)
    assert client.post(f"/v1/games/{other}/draw", headers=other_auth).status_code == 200


def test_game_creation_is_limited_by_address(client_with: Callable[..., TestClient]) -> None:
    client = client_with(rate_limit_create="2/day")
    assert [client.post("/v1/games", json={}).status_code for _ in range(3)] == [201, 201, 429]


def test_the_solver_budget_covers_hints_and_analyses(
    client_with: Callable[..., TestClient],
) -> None:
    client = client_with(rate_limit_solver="1/day")
    gid, auth = new_game_id(client, deal_number=8)
    assert client.get(f"/v1/games/{gid}/hint", headers=auth).status_code == 200
    assert client.get(f"/v1/games/{gid}/hint", headers=auth).status_code == 429
    client.post(f"/v1/games/{gid}/concede", headers=auth)
    assert client.get(f"/v1/games/{gid}/analysis", headers=auth).status_code == 429


def test_without_limits_no_headers(client_with: Callable[..., TestClient]) -> None:
    client = client_with(rate_limits_enabled=False, rate_limit_create="1/minute")
    answers = [client.post("/v1/games", json={}) for _ in range(3)]
    assert [r.status_code for r in answers] == [201, 201, 201]
    assert "RateLimit" not in answers[0].headers


@pytest.mark.slow
def test_replicas_share_one_budget_through_redis(sqlite_url: str, redis_url: str) -> None:
    """Two servers on one Redis: a client's moves count once, whichever server serves. The
    token's first request on the server that did not make it counts on the address (that
    server has not yet seen it open anything); the four after it on the token's budget,
    whichever server serves them, and the fifth of those is refused."""
    from app.ops.migrations import upgrade

    upgrade(sqlite_url)
    env = {
        "RATE_LIMIT_STORAGE_URL": redis_url,
        "RATE_LIMIT_KEY_PREFIX": f"test-{secrets.token_hex(6)}",
        "RATE_LIMIT_MOVE": "4/day",
    }
    with (
        live_server(sqlite_url, **env) as a,
        live_server(sqlite_url, **env) as b,
        httpx.Client(base_url=a) as ca,
        httpx.Client(base_url=b) as cb,
    ):
        gid, auth = new_game_id(ca, deal_number=9)
        codes = [
            c.post(f"/v1/games/{gid}/draw", headers=auth).status_code
            for c in (ca, cb, ca, cb, ca, cb)
        ]
    assert codes == [200, 200, 200, 200, 200, 429]


def test_an_unreachable_redis_fails_open(client_with: Callable[..., TestClient]) -> None:
    """Nothing listens on port 1: every request is served, without limits, and the
    metrics count the failures."""
    client = client_with(rate_limit_storage_url="redis://127.0.0.1:1/0", rate_limit_move="1/minute")
    gid, auth = new_game_id(client, deal_number=10)
    answers = [client.post(f"/v1/games/{gid}/draw", headers=auth) for _ in range(3)]
    assert [r.status_code for r in answers] == [200, 200, 200]
    assert all("RateLimit" not in r.headers for r in answers)
    assert metric_value(client.get("/metrics").text, "tripeaks_rate_limit_errors_total") >= 1


@pytest.mark.slow
@pytest.mark.parametrize("trusted", [True, False])
def test_forwarded_addresses_count_only_from_trusted_proxies(
    sqlite_url: str, trusted: bool
) -> None:
    from app.ops.migrations import upgrade

    upgrade(sqlite_url)
    env = {
        "RATE_LIMIT_CREATE": "1/day",
        "FORWARDED_ALLOW_IPS": "127.0.0.1" if trusted else "10.9.9.9",
    }
    with live_server(sqlite_url, **env) as base, httpx.Client(base_url=base) as c:
        codes = [
            c.post("/v1/games", json={}, headers={"X-Forwarded-For": f"203.0.113.{n}"}).status_code
            for n in (1, 2, 3)
        ]
    # Behind a trusted proxy each forwarded address is a client; otherwise the header is
    # ignored and the three requests come from one address.
    assert codes == ([201, 201, 201] if trusted else [201, 429, 429])


def test_the_spec_declares_429_and_the_headers_on_every_v1_route(
    client: TestClient,
) -> None:
    spec = client.get("/openapi.json").json()
    for path, item in spec["paths"].items():
        if not path.startswith("/v1/"):
            continue
        for method, operation in item.items():
            responses = operation["responses"]
            assert "429" in responses, (method, path)
            assert {"RateLimit", "RateLimit-Policy", "Retry-After"} <= set(
                responses["429"]["headers"]
            )
            ok = next(v for k, v in responses.items() if k.startswith("2"))
            assert {"RateLimit", "RateLimit-Policy"} <= set(ok["headers"]), (method, path)
            assert DRAFT in ok["headers"]["RateLimit"]["description"]


def test_the_memory_storage_counts_without_a_thread_a_request(
    client_with: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The in-process budgets start no thread per request (limits' own memory storage
    starts a timer thread on nearly every hit), and still refuse past their quota."""
    client = client_with(rate_limit_read="3/minute")
    game_id, auth = new_game_id(client)
    started: list[threading.Thread] = []
    start = threading.Thread.start

    def counted(thread: threading.Thread) -> None:
        started.append(thread)
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", counted)
    statuses = [client.get(f"/v1/games/{game_id}", headers=auth).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    timers = [t for t in started if isinstance(t, threading.Timer)]
    assert not timers, timers


def _made_up() -> dict[str, str]:
    return {"Authorization": f"Bearer {secrets.token_urlsafe(24)}"}


def test_made_up_bearers_buy_no_fresh_budget(client_with: Callable[..., TestClient]) -> None:
    """A bearer nobody verified is no client: a new made-up one on each request spends the
    address's budget, and gets its 429 at the documented count, creating players (which
    count by address whatever the request carries) or knocking at a game."""
    client = client_with(rate_limit_create="3/day", rate_limit_read="4/day")
    created = [client.post("/v1/players", json={}, headers=_made_up()) for _ in range(4)]
    assert [r.status_code for r in created] == [201, 201, 201, 429]
    game_id, _ = new_game_id(client_with(rate_limit_create="100/day"))
    knocks = [client.get(f"/v1/games/{game_id}", headers=_made_up()) for _ in range(5)]
    assert [r.status_code for r in knocks[:4]] == [403] * 4  # the bearer opens nothing
    assert knocks[4].status_code == 429


def test_each_verified_client_has_its_own_budget_behind_one_address(
    client_with: Callable[..., TestClient],
) -> None:
    """Players behind one address (a carrier's NAT) each spend their own budget from their
    first request, their keys made by this server; none of them the address's."""
    client = client_with(rate_limit_read="3/day", rate_limit_create="10/day")
    keys = [new_player(client)[1] for _ in range(3)]
    for key in keys:
        statuses = [client.get("/v1/players/me", headers=key).status_code for _ in range(4)]
        assert statuses == [200, 200, 200, 429]
    assert client.get("/v1/layouts").status_code == 200  # the address's own budget is whole


def test_a_key_this_process_did_not_make_counts_as_itself_once_it_opened_something(
    client_with: Callable[..., TestClient],
) -> None:
    """A key made elsewhere (another worker, before a restart): its first request spends
    the address's budget, and from its check on, its own."""
    maker = client_with(rate_limit_create="10/day")
    _, key = new_player(maker)
    client = client_with(rate_limit_read="3/day")
    statuses = [client.get("/v1/players/me", headers=key).status_code for _ in range(5)]
    assert statuses == [200, 200, 200, 200, 429]  # one on the address, three on the key
    assert [client.get("/v1/layouts").status_code for _ in range(3)] == [200, 200, 429]


def test_a_route_that_needs_a_key_says_so_before_any_budget(
    client_with: Callable[..., TestClient],
) -> None:
    """Without a credential, rotate_key (and the other /players/me routes) answer 401, the
    missing key, even when the address's budget is spent: a request refused before any
    work spends none."""
    client = client_with(rate_limit_create="1/day", rate_limit_read="1/day")
    assert client.post("/v1/players", json={}).status_code == 201  # the address's one
    assert client.post("/v1/players", json={}).status_code == 429
    assert client.get("/v1/layouts").status_code == 200
    for method, url in (("POST", "/v1/players/me/key"), ("GET", "/v1/players/me")):
        r = client.request(method, url)
        assert r.status_code == 401, (url, r.text)
