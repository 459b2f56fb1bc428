"""A cursor is the client's to send back, and anyone's to forge: every paged list reads it
into typed values before any query, and answers a forged one 422, never a 500 (on
PostgreSQL an integer past 32 bits, a naive time or a NUL reached the database and failed
there). A cursor the server gave still pages."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fixtures.games import new_game_id, new_player

BOARD = "/v1/challenges/2026-12-01.golf/leaderboard"
FORGED = {
    "moves": ['["abc"]', "[null]", "[1e400]", "[NaN]", "[9223372036854775808]", "[-1]", "[true]"],
    "board": [
        '[1,1,"2026-12-01T00:00:00","x"]',  # a naive time
        '[1e400,1,"2026-12-01T00:00:00+00:00","x"]',
        '[9223372036854775808,1,"2026-12-01T00:00:00+00:00","x"]',
        '[2147483648,1,"2026-12-01T00:00:00+00:00","x"]',  # past PostgreSQL's INTEGER
        '[1,1,"2026-12-01T00:00:00+00:00","a\\u0000b"]',  # a NUL
        '[1,1,"0001-01-01T00:00:00+14:00","x"]',  # before year 1 in UTC
        '[1,1,"not a time","x"]',
        "[1,1,1]",
    ],
    "games": [
        '["2026-12-01T00:00:00","x"]',
        '["2026-12-01T00:00:00+00:00","a\\u0000"]',
        '["9999-12-31T23:59:59-14:00","x"]',
        '[1e400,"x"]',
    ],
}


def _cursor(raw: str) -> str:
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _forged(route: str) -> list[tuple[str, str]]:
    return [(route, raw) for raw in FORGED[route]]


def _lists(client: TestClient) -> dict[str, tuple[str, dict[str, str]]]:
    """Each paged list, and the credential that reads it."""
    game_id, auth = new_game_id(client)
    _, key = new_player(client)
    return {
        "moves": (f"/v1/games/{game_id}/moves", auth),
        "board": (BOARD, {}),
        "games": ("/v1/players/me/games", key),
    }


@pytest.mark.parametrize(
    ("route", "raw"), [*_forged("moves"), *_forged("board"), *_forged("games")]
)
def test_a_forged_cursor_is_a_422_on_every_paged_list(
    client: TestClient, route: str, raw: str
) -> None:
    url, headers = _lists(client)[route]
    r = client.get(url, params={"cursor": _cursor(raw)}, headers=headers)
    assert r.status_code == 422, r.text
    problem = r.json()
    assert problem["type"] == "/problems/validation"
    assert problem["errors"][0]["loc"] == ["query", "cursor"]
    assert client.get(url, headers=headers).status_code == 200  # the list itself answers


def test_the_cursors_the_server_gives_still_page(client: TestClient) -> None:
    game_id, auth = new_game_id(client)
    for _ in range(3):
        assert client.post(f"/v1/games/{game_id}/draw", headers=auth).status_code == 200
    first = client.get(f"/v1/games/{game_id}/moves?limit=2", headers=auth).json()
    second = client.get(
        f"/v1/games/{game_id}/moves", params={"limit": 2, "cursor": first["next"]}, headers=auth
    ).json()
    assert [m["seq"] for m in first["moves"] + second["moves"]] == [1, 2, 3]

    _, key = new_player(client)
    for _ in range(3):
        assert client.post("/v1/games", json={}, headers=key).status_code == 201
    page = client.get("/v1/players/me/games?limit=2", headers=key).json()
    rest = client.get(
        "/v1/players/me/games", params={"limit": 2, "cursor": page["next"]}, headers=key
    ).json()
    assert len(page["games"]) == 2 and len(rest["games"]) == 1


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=40)
    | st.datetimes(timezones=st.none() | st.timezones()).map(lambda t: t.isoformat()),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)


def test_any_json_in_a_cursor_is_a_page_or_a_422(client: TestClient) -> None:
    """Fuzzed: the lists' cursors hold JSON arrays of one, two or four values; any array
    of any JSON (times with and without zones among them) answers a page or a 422."""
    lists = _lists(client)

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(route=st.sampled_from(sorted(lists)), place=st.lists(JSON, min_size=1, max_size=4))
    def page_or_422(route: str, place: list[Any]) -> None:
        url, headers = lists[route]
        raw = json.dumps(place)  # NaN and Infinity as Python writes them
        r = client.get(url, params={"cursor": _cursor(raw)}, headers=headers)
        assert r.status_code in (200, 422), (raw, r.text)

    page_or_422()
