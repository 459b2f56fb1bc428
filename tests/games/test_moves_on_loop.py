"""A move on PostgreSQL's event loop (``app.games.access.move_on_loop``): a served app
reads and writes a plain move without a trip through the threadpool, and answers every
move, plain or not, exactly as a writing session does; what it leaves to the session
(a key, an Idempotency-Key, a move refused, the move that ends a game) is answered there.
Races met on the loop after the move is sent answer as the session's do: 409 for a move
number taken or a game changed outside the server, 404 for a game deleted meanwhile.

The app here is served by a TestClient entered as a context (its lifespan opens the
loop's pool, and its requests run on that loop). Other tests' clients send each request
from a loop of its own, so their moves go through sessions.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from prometheus_client import REGISTRY
from sqlalchemy.engine import make_url

from app.kit.database import LOOP_APPLICATION
from app.main import create_app
from app.settings import Settings
from tests.fixtures.games import new_game, new_player

# What is particular to one game (its id, token, salted commitment, times), not to its
# state; and the headers that say so.
VOLATILE = {"id", "game_id", "token", "commitment", "salt", "created_at", "updated_at", "ended_at"}
HEADERS = ("etag", "content-type", "idempotent-replayed")


@pytest.fixture(scope="module")
def served(settings: Settings) -> Iterator[tuple[FastAPI, TestClient]]:
    if not settings.database_url.startswith("postgresql"):
        pytest.skip("PostgreSQL's moves on the event loop")
    app = create_app(settings)
    with TestClient(app, raise_server_exceptions=False) as client:
        assert app.state.loop_statements is not None
        yield app, client
    app.state.solver.close()
    app.state.engine.dispose()


def _on_loop() -> float:
    return REGISTRY.get_sample_value("tripeaks_moves_on_loop_total") or 0.0


def _answer(r: Any) -> tuple[int, dict[str, Any], dict[str, str | None]]:
    body = r.json()
    if isinstance(body, dict):
        body = {k: v for k, v in body.items() if k not in VOLATILE and k != "instance"}
        if isinstance(body.get("reveal"), dict):  # the deal, and the game's own salt
            body["reveal"] = {k: v for k, v in body["reveal"].items() if k != "salt"}
        if "detail" in body and isinstance(body["detail"], str):
            body["detail"] = body["detail"].replace(r.request.url.path.split("/")[3], "ID")
    return r.status_code, body, {h: r.headers.get(h) for h in HEADERS}


class Paths:
    """The same requests on the loop and in sessions (the loop's pool set aside)."""

    def __init__(self, app: FastAPI, client: TestClient) -> None:
        self.app, self.client = app, client

    def both(
        self, request: Callable[[TestClient, bool], Any]
    ) -> tuple[tuple[int, dict[str, Any], dict[str, str | None]], float]:
        """``request(client, on_loop)`` made with the loop's pool, then without it: their
        answers (which must agree), and how many moves the first wrote on the loop."""
        before = _on_loop()
        looped = _answer(request(self.client, True))
        written = _on_loop() - before
        saved = self.app.state.loop_statements
        self.app.state.loop_statements = None
        try:
            sessioned = _answer(request(self.client, False))
        finally:
            self.app.state.loop_statements = saved
        assert looped == sessioned, (looped, sessioned)
        return looped, written


@pytest.fixture
def paths(served: tuple[FastAPI, TestClient]) -> Paths:
    return Paths(*served)


def test_plain_moves_are_written_on_the_loop_and_answer_as_in_a_session(paths: Paths) -> None:
    rules = {"undo": True, "redeals": 1}
    for seed in (5, 17):
        games: dict[bool, tuple[str, dict[str, str]]] = {}
        for on_loop in (True, False):
            game, auth = new_game(paths.client, deal_number=seed, rules=rules)
            games[on_loop] = (f"/v1/games/{game['id']}", auth)
        rng = random.Random(seed)
        state: dict[str, Any] = {"status": "in_progress", "legal_moves": game["legal_moves"]}
        on_loop_moves = plain_moves = 0
        while state["status"] == "in_progress" and plain_moves < 300:
            move = rng.choice([m for m in state["legal_moves"] if m["kind"] != "concede"])

            def request(c: TestClient, on_loop: bool, move: Any = move, games: Any = games) -> Any:
                url, auth = games[on_loop]
                return c.post(f"{url}/moves", json=move, headers=auth)

            (status, state, _), written = paths.both(request)
            assert status == 200, state
            on_loop_moves += int(written)
            plain_moves += state["status"] == "in_progress"
        # Every move but the one that ended the game was written on the loop.
        assert on_loop_moves == plain_moves > 10


def test_what_the_loop_leaves_to_a_session_answers_the_same(paths: Paths) -> None:
    c = paths.client
    pairs: dict[bool, tuple[str, dict[str, str]]] = {}
    for on_loop in (True, False):
        game, auth = new_game(c, deal_number=3)
        pairs[on_loop] = (f"/v1/games/{game['id']}", auth)

    def post(
        path: str, body: Any = None, token: str | None = None, **headers: str
    ) -> Callable[[TestClient, bool], Any]:
        def request(client: TestClient, on_loop: bool) -> Any:
            url, auth = pairs[on_loop]
            if token is not None:
                auth = {"Authorization": f"Bearer {token}"}
            return client.post(f"{url}{path}", json=body, headers={**auth, **headers})

        return request

    def expect(request: Callable[[TestClient, bool], Any], status: int) -> dict[str, Any]:
        (got, body, _), written = paths.both(request)
        assert got == status, body
        assert written == 0 or status == 200
        return body

    for bad_token in ("nope", "x" * 43):
        expect(post("/draw", token=bad_token), 403)
    body = expect(
        lambda c, _: c.post(
            "/v1/games/" + "A" * 22 + "/draw", headers={"Authorization": "Bearer x"}
        ),
        404,
    )
    body = expect(
        lambda c, _: c.post("/v1/games/not%20an%20id/draw", headers={"Authorization": "Bearer x"}),
        404,
    )
    body = expect(post("/draw", **{"If-Match": '"v7"'}), 412)
    assert body["current_version"] == 0
    body = expect(post("/moves", {"move": "play 0"}), 400)
    assert body["type"] == "/problems/illegal-move"
    body = expect(post("/moves", {"move": "fly away"}), 422)
    body = expect(post("/moves", {"move": "draw", "kind": "play"}), 422)
    expect(post("/draw", **{"If-Match": '"v0"'}), 200)
    # An Idempotency-Key: the session's, first and again.
    first = expect(post("/draw", **{"Idempotency-Key": "k-1"}), 200)
    again = expect(post("/draw", **{"Idempotency-Key": "k-1"}), 200)
    assert first == again and first["version"] == 2
    expect(post("/concede"), 200)
    body = expect(post("/draw"), 409)
    assert body["type"] == "/problems/game-over"


def test_a_player_s_key_moves_the_player_s_game_through_a_session(paths: Paths) -> None:
    _, key = new_player(paths.client, name="looper")
    r = paths.client.post("/v1/games", json={"deal_number": 9}, headers=key)
    assert r.status_code == 201, r.text
    url = f"/v1/games/{r.json()['id']}"
    before = _on_loop()
    moved = paths.client.post(f"{url}/draw", headers=key)
    assert moved.status_code == 200, moved.text
    assert moved.json()["version"] == 1 and _on_loop() == before


# -- races met after the move is sent: another connection holds what the move's write needs
def _dsn(settings: Settings) -> str:
    return (
        make_url(settings.database_url)
        .set(drivername="postgresql")
        .render_as_string(hide_password=False)
    )


def _race(
    paths: Paths, settings: Settings, meanwhile: Callable[[psycopg.Connection[Any], str], None]
) -> Any:
    """A plain move sent on the loop while another transaction holds what its write
    needs; ``meanwhile(connection, game_id)`` runs in that transaction, which commits once
    the move waits on it (on a connection of the loop's pool). The move's answer."""
    game, auth = new_game(paths.client, deal_number=11)
    answers: list[Any] = []
    with psycopg.connect(_dsn(settings)) as other:
        meanwhile(other, game["id"])
        mover = threading.Thread(
            target=lambda: answers.append(
                paths.client.post(f"/v1/games/{game['id']}/draw", headers=auth)
            )
        )
        mover.start()
        deadline = time.monotonic() + 30
        with psycopg.connect(_dsn(settings), autocommit=True) as monitor:
            while not monitor.execute(
                "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                " AND query LIKE 'WITH inserted%%' AND application_name = %s",
                (LOOP_APPLICATION,),
            ).fetchone():
                assert time.monotonic() < deadline, "the move never waited"
                time.sleep(0.02)
        other.commit()
        mover.join(timeout=30)
    return answers[0]


def test_a_move_number_taken_while_the_move_waited_is_a_409(
    paths: Paths, settings: Settings
) -> None:
    def another_move(c: psycopg.Connection[Any], game_id: str) -> None:
        c.execute(
            "INSERT INTO moves (game_id, seq, move, created_at) VALUES (%s, 1, 'draw', now())",
            (game_id,),
        )
        c.execute("UPDATE games SET version = 1, line = 'draw' WHERE id = %s", (game_id,))

    before = _on_loop()
    r = _race(paths, settings, another_move)
    assert r.status_code == 409, r.text
    assert r.json()["detail"] == "another move was applied to this game first; reload it"
    assert _on_loop() == before


def test_a_game_changed_outside_the_server_while_the_move_waited_is_a_409_and_keeps_nothing(
    paths: Paths, settings: Settings
) -> None:
    def changed(c: psycopg.Connection[Any], game_id: str) -> None:
        c.execute("UPDATE games SET version = 7 WHERE id = %s", (game_id,))

    r = _race(paths, settings, changed)
    assert r.status_code == 409, r.text
    assert r.json()["detail"] == "the stored game changed under this move; reload it"
    game_id = r.request.url.path.split("/")[3]
    with psycopg.connect(_dsn(settings)) as c:
        assert c.execute(
            "SELECT count(*) FROM moves WHERE game_id = %s", (game_id,)
        ).fetchone() == (0,)


def test_a_game_deleted_while_the_move_waited_is_a_404(paths: Paths, settings: Settings) -> None:
    def deleted(c: psycopg.Connection[Any], game_id: str) -> None:
        c.execute("DELETE FROM games WHERE id = %s", (game_id,))

    r = _race(paths, settings, deleted)
    assert r.status_code == 404, r.text
    assert r.json()["detail"].endswith("it was deleted")
