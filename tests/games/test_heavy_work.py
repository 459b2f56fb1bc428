"""Heavy work (solver searches) is held apart from the rest: it holds no transaction, lock
or pooled connection; each worker runs a bounded number at once and refuses one more at
once; an analysis runs once a game; a hint's budget is fixed; a game's history is capped
and its cost does not grow with it."""

from __future__ import annotations

import asyncio
import multiprocessing
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from app.kit.errors import ServiceUnavailableProblem
from app.kit.workload import SolverPool, get_solver
from app.main import create_app
from app.settings import Settings
from tests.conftest import portal_of
from tests.fixtures.deals import chain_deal
from tests.fixtures.games import new_game_id
from tests.fixtures.servers import live_server
from tests.ops.servers import metric_value

PATIENT_S = 120.0  # a search's budget, far above what it needs: no clock is under test


@contextmanager
def every_slot_taken(app: FastAPI) -> Iterator[None]:
    """The app's solver slots all held, as by searches in flight: the shared ones and the
    hints' own (the day's challenges keep theirs)."""
    limiter: SolverPool = app.state.solver
    with ExitStack() as stack:
        for _ in range(limiter.slots):
            stack.enter_context(limiter.slot("test"))
        stack.enter_context(limiter.slot("hint"))
        yield


def finished_game(client: TestClient | httpx.Client, **body: object) -> tuple[str, dict[str, str]]:
    gid, auth = new_game_id(client, **body)
    assert client.post(f"/v1/games/{gid}/concede", headers=auth).status_code == 200
    return gid, auth


@pytest.mark.slow
def test_a_search_holds_no_transaction_lock_or_connection(database_url: str) -> None:
    """Three analyses search (six_peaks: the best score runs the whole budget) on a server
    whose pool has three connections in all; meanwhile another player reads, moves and the
    server reports ready, and each of those is answered while all three searches still
    run. (Before: on SQLite a search held the write lock, on PostgreSQL a connection.)"""
    env = {
        "DB_POOL_SIZE": "1",  # and twice that on bursts: three connections
        "SOLVER_CONCURRENCY": "3",
        "ANALYSIS_BUDGET_MS": "8000",
    }
    with live_server(database_url, **env) as base, httpx.Client(base_url=base, timeout=60) as c:
        # Deals whose search runs the whole budget (docs/research/best-score.md: far from exact).
        searched = [finished_game(c, layout="six_peaks", deal_number=n) for n in (1, 2, 3)]
        victim, auth = new_game_id(c, deal_number=7)
        done: list[int] = []
        lock = threading.Lock()

        def analyse(gid: str, headers: dict[str, str], address: str) -> None:
            # Three players of three addresses (one address has one search at a time).
            forwarded = {**headers, "X-Forwarded-For": address}
            with httpx.Client(base_url=base, timeout=60) as own:
                r = own.get(f"/v1/games/{gid}/analysis", headers=forwarded)
            with lock:
                done.append(r.status_code)

        threads = [
            threading.Thread(target=analyse, args=(*game, f"203.0.113.{n}"))
            for n, game in enumerate(searched)
        ]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 30
        # In progress: the three analyses and this request for /metrics.
        while metric_value(c.get("/metrics").text, "tripeaks_http_requests_in_progress") < 4:
            assert time.monotonic() < deadline, "the analyses never started"
            time.sleep(0.05)
        answers = [
            c.get(f"/v1/games/{victim}", headers=auth).status_code,
            c.post(f"/v1/games/{victim}/draw", headers=auth).status_code,
            c.get("/readyz").status_code,
        ]
        with lock:
            still_searching = 3 - len(done)
        for t in threads:
            t.join()
    assert answers == [200, 200, 200]
    assert still_searching == 3, "the other player waited for the searches to end"
    assert done == [200, 200, 200]


def test_a_hint_is_served_while_analyses_hold_every_shared_slot(
    client: TestClient, app: FastAPI
) -> None:
    """Hints have a slot of their own: analyses in flight in every shared slot (held here
    as they hold them) leave a hint its answer, where they once made it a 503; another
    analysis meanwhile is refused."""
    playing, auth = new_game_id(client, deal_number=3)
    done, done_auth = finished_game(client, deal_number=4)
    limiter: SolverPool = app.state.solver
    with ExitStack() as stack:
        for _ in range(limiter.slots):
            stack.enter_context(limiter.slot("analysis"))
        assert client.get(f"/v1/games/{playing}/hint", headers=auth).status_code == 200
        refused = client.get(f"/v1/games/{done}/analysis", headers=done_auth)
        assert refused.status_code == 503, refused.text


def test_a_full_solver_refuses_at_once_and_the_rest_is_served(
    client: TestClient, app: FastAPI
) -> None:
    playing, auth = new_game_id(client, deal_number=3)
    done, done_auth = finished_game(client, deal_number=4)
    kept, kept_auth = finished_game(client, deal_number=5)
    assert client.get(f"/v1/games/{kept}/analysis", headers=kept_auth).status_code == 200
    with every_slot_taken(app):
        refused = [
            client.get(f"/v1/games/{playing}/hint", headers=auth),
            client.get(f"/v1/games/{done}/analysis", headers=done_auth),
            client.post("/v1/games", json={"winnable_only": True}),
        ]
        for r in refused:
            assert r.status_code == 503, r.text
            assert r.headers["content-type"] == "application/problem+json"
            assert r.headers["Retry-After"] == "1"
            assert "solver is busy" in r.json()["detail"]
        # No search needed: served as ever, the kept analysis included.
        assert client.get(f"/v1/games/{playing}", headers=auth).status_code == 200
        assert client.post(f"/v1/games/{playing}/draw", headers=auth).status_code == 200
        assert client.get(f"/v1/games/{kept}/analysis", headers=kept_auth).status_code == 200
    assert client.get(f"/v1/games/{playing}/hint", headers=auth).status_code == 200


def test_an_analysis_is_computed_once_and_kept(client: TestClient, app: FastAPI) -> None:
    gid, auth = finished_game(client, deal_number=11)
    first = client.get(f"/v1/games/{gid}/analysis", headers=auth)
    assert first.status_code == 200
    with every_slot_taken(app):  # a second search would be refused: none is made
        again = client.get(f"/v1/games/{gid}/analysis", headers=auth)
    assert again.status_code == 200
    assert again.json() == first.json()


def test_samples_never_raise_a_hints_budget(client_with: Callable[..., TestClient]) -> None:
    """With the smallest budget, 64 samples of golf deal 1 are not all solved: the budget
    holds (before, asking for samples switched to the solver's 3 s budget). Unseeded, the
    hint says how many it solved; seeded, it answers only whole (a hint of fewer samples
    could differ from the next), so it is a 503 to retry."""
    client = client_with(hint_budget_ms=10)
    gid, auth = new_game_id(client, layout="golf", deal_number=1)
    r = client.get(f"/v1/games/{gid}/hint?samples=64", headers=auth)
    assert r.status_code == 200, r.text
    assert 1 <= r.json()["samples"] < 64
    r = client.get(f"/v1/games/{gid}/hint?samples=64&seed=1", headers=auth)
    assert r.status_code == 503, r.text
    assert "only whole" in r.json()["detail"] and r.headers["Retry-After"] == "1"


def test_a_seeded_hint_of_a_set_number_of_samples_is_the_same_every_time(
    client_with: Callable[..., TestClient],
) -> None:
    client = client_with(hint_budget_ms=10000)
    gid, auth = new_game_id(client, layout="golf", deal_number=1)
    answers = [client.get(f"/v1/games/{gid}/hint?samples=6&seed=7", headers=auth) for _ in range(3)]
    assert [r.status_code for r in answers] == [200] * 3, answers[0].text
    assert answers[0].json()["samples"] == 6
    assert answers[1].json() == answers[0].json() == answers[2].json()


def test_a_game_holds_at_most_max_moves_then_can_only_be_conceded(
    client_with: Callable[..., TestClient],
) -> None:
    client = client_with(max_moves_per_game=100)
    gid, auth = new_game_id(client, deal=chain_deal(), rules={"undo": True})
    for _ in range(50):
        assert client.post(f"/v1/games/{gid}/draw", headers=auth).status_code == 200
        assert client.post(f"/v1/games/{gid}/moves", json={"move": "undo"}, headers=auth)
    state = client.get(f"/v1/games/{gid}", headers=auth).json()
    assert state["version"] == 100 and state["stock_count"] == 23
    r = client.post(f"/v1/games/{gid}/draw", headers=auth)
    assert r.status_code == 409
    assert r.json()["type"] == "/problems/move-limit" and r.json()["limit"] == 100
    assert client.get(f"/v1/games/{gid}", headers=auth).json()["version"] == 100
    conceded = client.post(f"/v1/games/{gid}/concede", headers=auth)
    assert conceded.status_code == 200 and conceded.json()["status"] == "conceded"


def wait_for(release: threading.Event) -> str:
    """A search that lasts until the test releases it (run in a search process)."""
    release.wait()
    return "released"


class Forwarded:
    """The app behind a trusted proxy: a request comes from the address its
    X-Forwarded-For names (uvicorn's proxy headers do this in a server)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            forwarded = Headers(scope=scope).get("x-forwarded-for")
            if forwarded is not None:
                scope = {**scope, "client": (forwarded, 1)}
        await self.app(scope, receive, send)


ATTACKER = {"X-Forwarded-For": "203.0.113.6"}
VICTIM = {"X-Forwarded-For": "203.0.113.7"}


@pytest.mark.slow
def test_the_search_slots_are_shared_between_addresses(settings: Settings) -> None:
    """Six accounts of one address ask for hints at once: their searches (made as the hint
    route makes them, each lasting until the test releases it) get one slot between them,
    the others a 503 at once, so another address's hint is answered, where the six once
    held every slot a hint could use (its own and the shared ones) and it was refused; a
    seventh account of the first address is refused meanwhile, and served once the
    searches have answered."""
    app = create_app(settings)
    with (
        TestClient(Forwarded(app), raise_server_exceptions=False) as client,
        multiprocessing.Manager() as manager,
    ):
        portal = portal_of(client)
        keys = []
        for _ in range(7):
            r = client.post("/v1/players", json={"kind": "bot"}, headers=ATTACKER)
            assert r.status_code == 201, r.text
            keys.append(r.json()["key"])
        release = manager.Event()

        async def search_of(key: str) -> asyncio.Task[str]:
            """An account's hint search under way: its slot taken, or refused."""
            scope = {
                "type": "http",
                "app": app,
                "client": (ATTACKER["X-Forwarded-For"], 1),
                "headers": [(b"authorization", f"Bearer {key}".encode())],
                "state": {},
            }
            solver = await get_solver(Request(scope))
            task = asyncio.ensure_future(solver.run("hint", PATIENT_S, wait_for, release))
            await asyncio.sleep(0)  # its first step: a slot taken, or a 503
            return task

        searches = [portal.call(search_of, key) for key in keys[:6]]
        game, auth = new_game_id(client, deal_number=3)
        hint = client.get(f"/v1/games/{game}/hint", headers={**auth, **VICTIM})
        assert hint.status_code == 200, hint.text
        in_flight = [task for task in searches if not task.done()]
        assert len(in_flight) == 1
        for task in searches:
            if task.done():
                assert isinstance(task.exception(), ServiceUnavailableProblem)
        seventh = {"Authorization": f"Bearer {keys[6]}", **ATTACKER}
        r = client.post("/v1/games", json={"deal_number": 4}, headers=seventh)
        assert r.status_code == 201, r.text
        refused = client.get(f"/v1/games/{r.json()['id']}/hint", headers=seventh)
        assert refused.status_code == 503 and refused.headers["Retry-After"] == "1"
        assert "from this address" in refused.json()["detail"]
        release.set()

        async def answers() -> list[str]:
            return [await task for task in in_flight]

        assert portal.call(answers) == ["released"]
        served_now = client.get(f"/v1/games/{r.json()['id']}/hint", headers=seventh)
        assert served_now.status_code == 200, served_now.text
