"""The operator's routes spend a rate-limit budget before the token is compared, through
HTTP on SQLite and PostgreSQL: wrong tokens meet a 429 as any request does, and the
operator, once verified, keeps a budget of its own."""

from __future__ import annotations

import secrets
from collections.abc import Callable

from fastapi.testclient import TestClient

from tests.events.test_events import FRIDAY, OPERATOR, TOKEN, WEEK, iso


def _wrong() -> dict[str, str]:
    return {"Authorization": f"Bearer {secrets.token_urlsafe(32)}"}


def test_wrong_operator_tokens_spend_the_address_s_budget(
    client_with: Callable[..., TestClient],
) -> None:
    client = client_with(
        operator_token=TOKEN,
        rate_limit_create="3/day",
        rate_limit_move="2/day",
        rate_limit_read="2/day",
    )
    body = {"name": "Weekend league", "starts_at": iso(FRIDAY), "ends_at": iso(FRIDAY + WEEK)}
    made = client.post("/v1/operator/events", json=body, headers=OPERATOR)
    assert made.status_code == 201, made.text  # the address's first: the token is verified
    event = f"/v1/operator/events/{made.json()['id']}"
    refused = [client.post("/v1/operator/events", json=body, headers=_wrong()) for _ in range(3)]
    assert [r.status_code for r in refused] == [403, 403, 429]
    assert refused[0].json()["type"] == "/problems/operator-token-refused"
    r = refused[-1]
    assert r.headers["content-type"] == "application/problem+json"
    assert r.json()["type"] == "/problems/rate-limited" and r.json()["budget"] == "create"
    assert 1 <= int(r.headers["Retry-After"]) <= 86400
    assert r.headers["RateLimit-Policy"] == '"create";q=3;w=86400'
    assert r.headers["RateLimit"].startswith('"create";r=0;t=')
    # Every operator route, each on its own budget.
    for method, url, budget in (
        ("PATCH", event, "move"),
        ("POST", f"{event}/cancel", "move"),
        ("GET", f"{event}/changes", "read"),
    ):
        codes = []
        for _ in range(3):
            r = client.request(
                method, url, json={"name": "x"} if method == "PATCH" else None, headers=_wrong()
            )
            codes.append(r.status_code)
        assert codes[-1] == 429 and r.json()["budget"] == budget, (url, codes)
        assert set(codes[:-1]) <= {403, 429}, (url, codes)
    # The operator spends its own budget: the address's spent stops none of its calls.
    assert client.post("/v1/operator/events", json=body, headers=OPERATOR).status_code == 201
    changes = client.get(f"{event}/changes", headers=OPERATOR)
    assert changes.status_code == 200 and changes.json()["changes"][0]["action"] == "created"
    assert changes.headers["RateLimit"].startswith('"read";r=1;')
