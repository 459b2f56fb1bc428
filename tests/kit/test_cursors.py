"""A cursor is the client's to send back, and anyone's to forge: every paged list reads it
into typed values before any query, and answers a forged one 422, never a 500 (on
PostgreSQL an integer past 32 bits, a naive time or a NUL reached the database and failed
there). A cursor the server gave pages every list to its end, whatever the ids it names
hold (a daily's and an event's hold a dot)."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine import LAYOUTS
from tests.challenges.test_set_challenges import draw_then_concede, enter, set_challenge
from tests.events.test_events import FRIDAY, SECRET, TOKEN, WEEK, Server, iso
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
    # A challenge's id is a daily's, a random one, or an event's edition's or round's.
    "mine": [
        '["2026-12-01T00:00:00+00:00","2026-13-01.golf"]',
        '["2026-12-01T00:00:00+00:00","2026-12-01.nolayout"]',
        '["2026-12-01T00:00:00+00:00","ev.1.2.3"]',
        '["2026-12-01T00:00:00+00:00","ev.1\\u0000"]',
        '["2026-12-01T00:00:00","2026-12-01.golf"]',
        f'["2026-12-01T00:00:00+00:00","{"a" * 65}"]',
    ],
}


def _cursor(raw: str) -> str:
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _lists(client: TestClient) -> dict[str, tuple[str, dict[str, str]]]:
    """Each paged list, and the credential that reads it."""
    game_id, auth = new_game_id(client)
    _, key = new_player(client)
    return {
        "moves": (f"/v1/games/{game_id}/moves", auth),
        "board": (BOARD, {}),
        "games": ("/v1/players/me/games", key),
        "mine": ("/v1/players/me/challenges", key),
    }


@pytest.mark.parametrize(
    ("route", "raw"), [(route, raw) for route in FORGED for raw in FORGED[route]]
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


def every_item(client: TestClient, url: str, key: str, headers: dict[str, str]) -> list[Any]:
    """The list at ``url``, read a page of one at a time: each page's ``Link`` followed as
    given, its cursor the page's ``next`` unchanged; the items of every page, which are
    the list's as one page reads them."""
    whole = client.get(url, params={"limit": 100}, headers=headers)
    assert whole.status_code == 200, (url, whole.text)
    assert whole.json()["next"] is None, url
    items: list[Any] = []
    r = client.get(url, params={"limit": 1}, headers=headers)
    while True:
        assert r.status_code == 200, (url, r.text)
        page = r.json()
        assert len(page[key]) == 1, (url, page)
        items += page[key]
        if page["next"] is None:
            assert "Link" not in r.headers, url
            break
        link = re.fullmatch(r'<([^>]+)>; rel="next"', r.headers["Link"])
        assert link is not None, r.headers["Link"]
        assert dict(parse_qsl(urlsplit(link.group(1)).query))["cursor"] == page["next"]
        r = client.get(link.group(1), headers=headers)
    assert items == whole.json()[key], url
    return items


def test_the_cursors_the_server_gives_page_a_game_s_and_a_player_s_lists(
    client: TestClient,
) -> None:
    game_id, auth = new_game_id(client)
    for _ in range(3):
        assert client.post(f"/v1/games/{game_id}/draw", headers=auth).status_code == 200
    moves = every_item(client, f"/v1/games/{game_id}/moves", "moves", auth)
    assert [m["seq"] for m in moves] == [1, 2, 3]

    _, key = new_player(client)
    for _ in range(3):
        assert client.post("/v1/games", json={}, headers=key).status_code == 201
        followed, _ = new_player(client)
        r = client.put(f"/v1/players/me/following/{followed['id']}", headers=key)
        assert r.status_code in (200, 201, 204), r.text
    assert len(every_item(client, "/v1/players/me/games", "games", key)) == 3
    assert len(every_item(client, "/v1/players/me/following", "following", key)) == 3


def test_the_cursors_the_server_gives_page_the_challenges_lists(
    client: TestClient, set_clock: Callable[[datetime], None]
) -> None:
    """A daily's id holds a dot, which a game's or a player's id does not: a cursor naming
    one (list_my_challenges, newest first, reaches the dailies after what was set) was
    refused as "not a cursor this server gave"."""
    _, host = new_player(client)
    made = set_challenge(client, host, winnable_only=False)["id"]
    dailies = [
        client.get(f"/v1/challenges/daily?layout={layout}").json()["id"] for layout in LAYOUTS
    ]
    players = [host, *(new_player(client)[1] for _ in range(2))]
    for draws, auth in enumerate(players):
        draw_then_concede(client, enter(client, dailies[0], auth), auth, draws)
    for daily in dailies[1:]:
        enter(client, daily, host)
    mine = every_item(client, "/v1/players/me/challenges", "challenges", host)
    assert {m["challenge"]["id"] for m in mine} == {made, *dailies}
    board = every_item(client, f"/v1/challenges/{dailies[0]}/leaderboard", "entries", {})
    assert len(board) == 3


def test_the_cursors_the_server_gives_page_the_events_lists(
    client_with: Callable[..., TestClient],
) -> None:
    """An edition's and a round's ids ("<event>.<edition>", "<event>.<edition>.<round>")
    in list_my_challenges' cursor; the events, an event's editions and an edition's board."""
    server = Server(client_with(operator_token=TOKEN, challenge_secret=SECRET))
    daily = server.create(schedule="daily", join_required=False, ends_at=iso(FRIDAY + WEEK))
    others = [server.create(ends_at=iso(FRIDAY + WEEK)) for _ in range(2)]
    players = [new_player(server.client)[1] for _ in range(3)]
    for day in range(3):
        server.at(FRIDAY + timedelta(days=day, hours=1))
        server.join(daily, players[0])
    for auth in players:
        server.play(server.start(daily, 1, auth), auth, ("concede",))
    events = every_item(server.client, "/v1/events", "events", {})
    assert {daily["id"], *(e["id"] for e in others)} <= {e["id"] for e in events}
    editions = every_item(server.client, f"/v1/events/{daily['id']}/editions", "editions", {})
    assert [e["number"] for e in editions] == [2, 1, 0]
    url = f"/v1/events/{daily['id']}/editions/2/leaderboard"
    assert len(every_item(server.client, url, "entries", {})) == 3
    mine = every_item(server.client, "/v1/players/me/challenges", "challenges", players[0])
    assert {m["challenge"]["id"] for m in mine} == {
        *(f"{daily['id']}.{n}" for n in range(3)),
        f"{daily['id']}.2.1",
    }


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
