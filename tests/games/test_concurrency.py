"""Versions, If-Match, Idempotency-Key, and clients racing on one game through a real
server process (threads), on SQLite and PostgreSQL."""

from __future__ import annotations

import sqlite3
import threading
from collections import Counter
from collections.abc import Iterator

import httpx
import pytest
from fastapi.testclient import TestClient

from app import engine
from tests.fixtures.deals import chain_deal
from tests.fixtures.games import new_game_id, new_player
from tests.fixtures.servers import live_server


def test_if_match_current_applies_and_stale_is_refused(client: TestClient) -> None:
    gid, auth = new_game_id(client, deal=chain_deal())
    url = f"/v1/games/{gid}/play"
    r = client.post(url, json={"position": 18}, headers={**auth, "If-Match": '"v0"'})
    assert r.status_code == 200 and r.headers["ETag"] == '"v1"'
    r = client.post(url, json={"position": 19}, headers={**auth, "If-Match": '"v0"'})
    assert r.status_code == 412
    assert r.json()["current_version"] == 1
    r = client.post(url, json={"position": 19}, headers={**auth, "If-Match": '"v9", "v1"'})
    assert r.status_code == 200
    r = client.post(url, json={"position": 20}, headers={**auth, "If-Match": "*"})
    assert r.status_code == 200 and r.json()["version"] == 3


def test_idempotency_key_returns_the_first_answer_and_applies_once(client: TestClient) -> None:
    gid, auth = new_game_id(client, deal=chain_deal())
    url = f"/v1/games/{gid}/moves"
    headers = {**auth, "Idempotency-Key": "move-1"}
    first = client.post(url, json={"move": "play 18"}, headers=headers)
    assert first.status_code == 200
    client.post(url, json={"move": "play 19"}, headers=auth)  # the game moves on
    again = client.post(url, json={"move": "play 18"}, headers=headers)
    assert again.status_code == 200
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json()["version"] == 1
    assert again.json()["tableau"] == first.json()["tableau"]
    assert again.headers["ETag"] == first.headers["ETag"]
    history = client.get(f"/v1/games/{gid}/moves", headers=auth).json()
    assert [m["move"] for m in history["moves"]] == ["play 18", "play 19"]
    other = client.post(url, json={"move": "draw"}, headers=headers)
    assert other.status_code == 422
    assert other.json()["type"] == "/problems/idempotency-key-reused"
    assert client.get(f"/v1/games/{gid}", headers=auth).json()["version"] == 2


def test_a_retry_of_the_same_move_in_another_form_replays(client: TestClient) -> None:
    """The same move, sent first as a legal-move object and retried as its string, or
    through /play, with one Idempotency-Key: the first answer, replayed, applied once."""
    gid, auth = new_game_id(client, deal=chain_deal())
    headers = {**auth, "Idempotency-Key": "one-move"}
    legal = client.get(f"/v1/games/{gid}/legal-moves", headers=auth).json()["legal_moves"]
    play = next(m for m in legal if m["kind"] == "play")
    first = client.post(f"/v1/games/{gid}/moves", json=play, headers=headers)
    assert first.status_code == 200, first.text
    for url, body in (
        (f"/v1/games/{gid}/moves", {"move": play["move"]}),
        (f"/v1/games/{gid}/moves", {"move": play["move"].upper()}),
        (f"/v1/games/{gid}/play", {"position": play["position"]}),
    ):
        again = client.post(url, json=body, headers=headers)
        assert again.status_code == 200, (url, body, again.text)
        assert again.headers["Idempotent-Replayed"] == "true"
        assert again.json()["version"] == 1
    assert client.get(f"/v1/games/{gid}", headers=auth).json()["version"] == 1
    # The same key on another game is another key.
    gid2, auth2 = new_game_id(client, deal=chain_deal())
    r = client.post(
        f"/v1/games/{gid2}/moves",
        json={"move": "draw"},
        headers={**auth2, "Idempotency-Key": "move-1"},
    )
    assert r.status_code == 200 and "Idempotent-Replayed" not in r.headers


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[str]:
    with live_server(database_url) as base:
        yield base


@pytest.mark.slow
def test_racing_clients_apply_each_version_exactly_once(server: str) -> None:
    """Eight threads race moves, each with If-Match of the version it read. Every version
    is applied once; losers get 409 or 412; nothing gets a 500; the log replays."""
    with httpx.Client(base_url=server, timeout=30) as c:
        gid, auth = new_game_id(c, deal_number=99)
    statuses: Counter[int] = Counter()
    applied: list[int] = []
    lock = threading.Lock()

    def racer(n: int) -> None:
        with httpx.Client(base_url=server, timeout=60) as c:
            for _ in range(15):
                state = c.get(f"/v1/games/{gid}", headers=auth).json()
                if state["status"] != "in_progress":
                    return
                move = next(m for m in state["legal_moves"] if m["kind"] != "concede")
                headers = {**auth, "If-Match": f'"v{state["version"]}"'}
                r = c.post(f"/v1/games/{gid}/moves", json=move, headers=headers)
                with lock:
                    statuses[r.status_code] += 1
                    if r.status_code == 200:
                        applied.append(r.json()["version"])

    threads = [threading.Thread(target=racer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert set(statuses) <= {200, 409, 412}, statuses
    assert statuses[200] >= 1
    assert sorted(applied) == list(range(1, len(applied) + 1))  # each version once
    with httpx.Client(base_url=server, timeout=30) as c:
        final = c.get(f"/v1/games/{gid}", headers=auth).json()
        history = c.get(f"/v1/games/{gid}/moves", headers=auth).json()
    assert final["version"] == len(applied) == history["total"]
    moves = [m["move"] for m in history["moves"]]
    replayed = engine.replay(engine.numbered_deal(99), engine.Rules.for_layout(), moves)
    assert engine.player_view(replayed)["tableau"] == final["tableau"]
    assert replayed.moves_made == final["version"]


@pytest.mark.slow
def test_racing_first_uses_of_one_idempotency_key_all_get_the_first_answer(server: str) -> None:
    """Eight tries of one move with one Idempotency-Key, released together on a game that
    has never seen the key: one applies it, every other gets that answer replayed (on
    PostgreSQL the losers' inserts wait for the winner, then meet the unique
    constraint), and the move is applied once."""
    with httpx.Client(base_url=server, timeout=30) as c:
        gid, auth = new_game_id(c, deal=chain_deal())
    results: list[httpx.Response] = []
    lock = threading.Lock()
    start = threading.Barrier(8)

    def retry() -> None:
        with httpx.Client(base_url=server, timeout=60) as c:
            c.get("/healthz")  # connected before the start
            start.wait()
            r = c.post(
                f"/v1/games/{gid}/play",
                json={"position": 18},
                headers={**auth, "Idempotency-Key": "same"},
            )
            with lock:
                results.append(r)

    threads = [threading.Thread(target=retry) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r.status_code for r in results] == [200] * 8, [r.text for r in results]
    fresh = [r for r in results if "Idempotent-Replayed" not in r.headers]
    assert len(fresh) == 1
    first = fresh[0].json()
    for r in results:
        assert r.json()["version"] == 1
        assert r.json()["tableau"] == first["tableau"]
        assert r.headers["ETag"] == '"v1"'
    with httpx.Client(base_url=server, timeout=30) as c:
        assert c.get(f"/v1/games/{gid}", headers=auth).json()["version"] == 1
        assert c.get(f"/v1/games/{gid}/moves", headers=auth).json()["total"] == 1


def test_reads_take_no_write_lock_on_sqlite(sqlite_url: str, committing_client: TestClient) -> None:
    client = committing_client
    """While another connection holds SQLite's write lock, a game can still be read (a
    reading request begins a deferred transaction); a move waits for the lock."""
    if not str(client.app.state.settings.database_url).startswith("sqlite"):  # type: ignore[attr-defined]
        pytest.skip("SQLite's write lock")
    gid, auth = new_game_id(client, deal=chain_deal())
    writer = sqlite3.connect(sqlite_url.removeprefix("sqlite:///"), isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")
        for path in ("", "/legal-moves", "/score", "/moves"):
            assert client.get(f"/v1/games/{gid}{path}", headers=auth).status_code == 200
    finally:
        writer.execute("ROLLBACK")
        writer.close()


@pytest.mark.slow
def test_a_player_deleting_their_account_while_their_games_end_never_deadlocks(
    server: str,
) -> None:
    """A player's games end (concede) while the same player deletes the account, released
    together, twenty times: both lock the player's games and statistics (the ending move
    to count the result, the deletion to unlink the games and erase the statistics), in
    the same order, so that no transaction waits for the other in a circle (on PostgreSQL
    a deadlock is aborted: a 503). Each ending answers 200, or 403 once the key is gone."""
    statuses: Counter[str] = Counter()
    lock = threading.Lock()
    for _ in range(20):
        with httpx.Client(base_url=server, timeout=30) as c:
            _, key = new_player(c)
            made = [c.post("/v1/games", json={"deal": chain_deal()}, headers=key) for _ in range(3)]
            assert [r.status_code for r in made] == [201] * 3
            games = [r.json()["id"] for r in made]
        start = threading.Barrier(len(games) + 1)

        def call(
            method: str, url: str, kind: str, start: threading.Barrier, key: dict[str, str]
        ) -> None:
            with httpx.Client(base_url=server, timeout=60) as c:
                c.get("/healthz")  # connected before the start
                start.wait()
                r = c.request(method, url, headers=key)
            with lock:
                statuses[f"{kind} {r.status_code}"] += 1

        threads = [
            threading.Thread(target=call, args=("DELETE", "/v1/players/me", "delete", start, key)),
            *(
                threading.Thread(
                    target=call, args=("POST", f"/v1/games/{g}/concede", "end", start, key)
                )
                for g in games
            ),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert set(statuses) <= {"delete 204", "end 200", "end 403"}, statuses
    assert statuses["delete 204"] == 20
