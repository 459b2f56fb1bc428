"""Round trips to PostgreSQL, each about the cost of a bare request with four clients: a
move is two, the game's row read and the move's one statement, each committing alone (no
BEGIN, no COMMIT), and a third for a player's key; a game's read is one; the move that
ends a player's game is one transaction with what their statistics record. The trips are
read from libpq's own trace of the server's connections.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event

from tests.fixtures.games import new_game_id, new_player

Trips = Callable[[], list[str]]


@pytest.fixture
def trips(committing_client: TestClient, database_url: str) -> Iterator[Trips]:
    """The round trips the app's connections made since the last call: each one's
    simple query (BEGIN, COMMIT...), or "statement" for a statement sent with parameters
    (parsed, bound and executed, or executed as prepared)."""
    if not database_url.startswith("postgresql"):
        pytest.skip("PostgreSQL's round trips")
    engine = committing_client.app.state.engine  # type: ignore[attr-defined]
    flags = psycopg.pq.Trace.SUPPRESS_TIMESTAMPS | psycopg.pq.Trace.REGRESS_MODE
    with tempfile.TemporaryFile("w+") as trace:

        def on_checkout(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
            dbapi_connection.pgconn.trace(trace.fileno())
            dbapi_connection.pgconn.set_trace_flags(flags)

        def on_checkin(dbapi_connection: Any, _record: Any) -> None:
            if dbapi_connection is not None and not dbapi_connection.closed:
                dbapi_connection.pgconn.untrace()

        def take() -> list[str]:
            trace.flush()
            trace.seek(0)
            lines = trace.read().splitlines()
            trace.seek(0)
            trace.truncate()
            sent: list[str] = []
            kinds: list[str] = []  # the messages of a statement, up to its Sync
            for fields in (line.split("\t") for line in lines if line.startswith("F\t")):
                if fields[2] == "Query":
                    sent.append(fields[3].strip().strip('"'))
                elif fields[2] == "Sync":
                    # psycopg prepares a statement it has run often, once, in a trip of
                    # its own (a Parse alone): not a cost of any one request.
                    if "Execute" in kinds:
                        sent.append("statement")
                    kinds = []
                else:
                    kinds.append(fields[2])
            return sent

        event.listen(engine, "checkout", on_checkout)
        event.listen(engine, "checkin", on_checkin)
        try:
            yield take
        finally:
            event.remove(engine, "checkout", on_checkout)
            event.remove(engine, "checkin", on_checkin)


def test_a_move_is_two_round_trips_without_a_transaction(
    committing_client: TestClient, trips: Trips
) -> None:
    client = committing_client
    game_id, auth = new_game_id(client)
    for path, body in [("draw", None), ("moves", {"move": "draw"}), ("draw", None)]:
        trips()
        r = client.post(f"/v1/games/{game_id}/{path}", headers=auth, json=body)
        assert r.status_code == 200, r.text
        assert trips() == ["statement", "statement"]  # the row read; the move's write
    assert client.get(f"/v1/games/{game_id}", headers=auth).json()["version"] == 3


def _players_game(client: TestClient, name: str) -> tuple[str, dict[str, str]]:
    """A new player's game: its id, and the player's key as headers."""
    _, key = new_player(client, name=name)
    return client.post("/v1/games", json={}, headers=key).json()["id"], key


def test_a_move_made_with_a_player_s_key_reads_it_in_a_third_round_trip(
    committing_client: TestClient, trips: Trips
) -> None:
    client = committing_client
    game_id, key = _players_game(client, "three trips")
    trips()
    assert client.post(f"/v1/games/{game_id}/draw", headers=key).status_code == 200
    assert trips() == ["statement", "statement", "statement"]  # the game, the key, the move


def test_a_game_is_read_in_one_round_trip(committing_client: TestClient, trips: Trips) -> None:
    client = committing_client
    game_id, auth = new_game_id(client)
    for path in ("", "/legal-moves", "/score"):
        trips()
        r = client.get(f"/v1/games/{game_id}{path}", headers=auth)
        assert r.status_code == 200, r.text
        assert trips() == ["statement"]  # the row: no BEGIN READ ONLY, no COMMIT


def test_a_refused_move_is_its_read_alone(committing_client: TestClient, trips: Trips) -> None:
    client = committing_client
    game_id, auth = new_game_id(client)
    trips()
    stale = {**auth, "If-Match": '"v7"'}
    assert client.post(f"/v1/games/{game_id}/draw", headers=stale).status_code == 412
    illegal = {"move": "play 0"}  # face down
    assert client.post(f"/v1/games/{game_id}/moves", headers=auth, json=illegal).status_code == 400
    assert trips() == ["statement", "statement"]


def test_the_move_that_ends_a_player_s_game_is_one_transaction_with_their_statistics(
    committing_client: TestClient, trips: Trips
) -> None:
    client = committing_client
    game_id, key = _players_game(client, "rounds")
    trips()
    assert client.post(f"/v1/games/{game_id}/concede", headers=key).status_code == 200
    sent = trips()
    # The read (the game's row, the player's key) commits alone; then one transaction.
    begin = next(i for i, trip in enumerate(sent) if trip.startswith("BEGIN"))
    assert all(trip == "statement" for trip in sent[:begin])
    assert sent[-1] == "COMMIT" and sent[begin + 1 : -1].count("statement") >= 2
    stats = client.get("/v1/players/me", headers=key).json()["stats"]["overall"]
    assert (stats["played"], stats["conceded"]) == (1, 1)


def test_a_game_is_created_in_one_round_trip(committing_client: TestClient, trips: Trips) -> None:
    trips()
    r = committing_client.post("/v1/games", json={"deal_number": 7})
    assert r.status_code == 201, r.text
    assert trips() == ["statement"]  # the game's row, inserted
    game = committing_client.get(
        r.headers["location"], headers={"Authorization": f"Bearer {r.json()['token']}"}
    )
    assert game.status_code == 200 and game.json()["version"] == 0
