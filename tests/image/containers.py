"""Containers of the image for the image tests: started as ops start them, waited for,
and removed (with their anonymous volumes) afterwards, also when a test fails."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx

from tests.fixtures.deals import verify_commitment
from tests.fixtures.servers import ROOMY_RATE_LIMITS, free_port
from tests.image.engine import Docker

START_TIMEOUT_S = 120.0  # a busy 2-core machine can take long to start workers
LABEL = "tripeaks-image-test"


# Every container's /metrics needs this token (the image serves none without one).
METRICS_TOKEN = "image-scrape-0123456789abcdef"
SCRAPE = {"Authorization": f"Bearer {METRICS_TOKEN}"}


@dataclass
class Container:
    docker: Docker
    name: str
    base: str  # where its server answers, from the host

    def logs(self) -> str:
        result = self.docker.run("logs", self.name, check=False)
        return result.stdout + result.stderr

    def inspect(self) -> dict[str, Any]:
        return self.docker.inspect(self.name)[0]

    def state(self) -> dict[str, Any]:
        state: dict[str, Any] = self.inspect()["State"]
        return state

    def wait_until(self, what: str, done: Any, timeout: float = START_TIMEOUT_S) -> None:
        """Poll ``done()`` until true; fail with the container's log after ``timeout``."""
        deadline = time.monotonic() + timeout
        while not done():
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name}: {what} not within {timeout} s:\n{self.logs()}")
            time.sleep(0.2)


def unique_name(prefix: str = "tripeaks-test") -> str:
    return f"{prefix}-{secrets.token_hex(4)}"


def env_args(env: dict[str, str]) -> list[str]:
    return [arg for k, v in env.items() for arg in ("--env", f"{k}={v}")]


@contextmanager
def container(
    docker: Docker,
    image: str,
    *,
    env: dict[str, str] | None = None,
    options: Sequence[str] = (),
    host_network: bool = False,
    command: Sequence[str] = (),
    wait: bool = True,
) -> Iterator[Container]:
    """``docker run -d`` of ``image``, until ``/healthz`` answers (unless not ``wait``);
    removed with its volumes afterwards.

    On the host network its server listens on a free port of 127.0.0.1; otherwise port
    8000 is published on a port of 127.0.0.1 that Docker picks. Rate limits are out of the
    way unless ``env`` sets them (every test client comes from one address), and the
    solver's searches run at the requests' priority (SOLVER_NICENESS=0, as the tests'
    servers outside the image: on a loaded machine the lowest priority gets no CPU, and a
    hint the test waits for would be a flaky test)."""
    name = unique_name()
    environment = {
        **ROOMY_RATE_LIMITS,
        "METRICS_TOKEN": METRICS_TOKEN,
        "SOLVER_NICENESS": "0",
        **(env or {}),
    }
    network: list[str] = []
    if host_network:
        port = free_port()
        environment.update(HOST="127.0.0.1", PORT=str(port))
        network = ["--network", "host"]
    else:
        network = ["--publish", "127.0.0.1::8000"]
    run = ["run", "--detach", "--name", name, "--label", LABEL, *network, *options]
    docker.run(*run, *env_args(environment), image, *command)
    try:
        if host_network:
            base = f"http://127.0.0.1:{port}"
        else:
            published = docker.out("port", name, "8000/tcp").splitlines()[0]
            base = f"http://{published}"
        box = Container(docker, name, base)
        if wait:
            box.wait_until("/healthz", lambda: _answers(box), START_TIMEOUT_S)
        yield box
    finally:
        docker.run("rm", "--force", "--volumes", name, check=False)


def _answers(box: Container) -> bool:
    try:
        if httpx.get(f"{box.base}/healthz", timeout=2).status_code == 200:
            return True
    except httpx.TransportError:
        pass
    if not box.state()["Running"]:
        raise AssertionError(f"{box.name} exited:\n{box.logs()}")
    return False


@dataclass
class PlayedGame:
    id: str
    token: str
    moves: int
    final: dict[str, Any]
    hint: dict[str, Any]


def play_whole_game(bases: Sequence[str], max_moves: int = 400) -> PlayedGame:
    """Create a game and play it to its end through ``bases``: the first legal move that is
    not a concession, every time, with its version in If-Match; a hint before the first
    move (the solver's process pool). With several bases, the moves go to each in turn,
    and each move is read from one and posted to the next. Every answer must be a
    success; at the end the deal is revealed and matches the commitment."""
    clients = [httpx.Client(base_url=b, timeout=60) for b in bases]

    def at(i: int) -> httpx.Client:
        return clients[i % len(clients)]

    try:
        r = at(0).post("/v1/games", json={})
        assert r.status_code == 201, r.text
        created = r.json()
        game = f"/v1/games/{created['id']}"
        auth = {"Authorization": f"Bearer {created['token']}"}
        # The first search of a fresh server starts its search processes: on a loaded
        # machine that may outlast the hint's wait, a 503 with Retry-After, which a client
        # honours (as the web client does) and then finds the processes started.
        for _ in range(3):
            r = at(1).get(f"{game}/hint", headers=auth)
            if r.status_code != 503:
                break
            time.sleep(float(r.headers["Retry-After"]))
        assert r.status_code == 200, r.text
        hint = r.json()
        moves = 0
        while True:
            r = at(moves + 1).get(f"{game}/legal-moves", headers=auth)
            assert r.status_code == 200, r.text
            state = r.json()
            if state["status"] != "in_progress":
                break
            assert moves < max_moves, "the game did not end"
            move = next(m for m in state["legal_moves"] if m["kind"] != "concede")
            headers = {**auth, "If-Match": f'"v{state["version"]}"'}
            r = at(moves).post(f"{game}/moves", json=move, headers=headers)
            assert r.status_code == 200, r.text
            moves += 1
        final = at(moves).get(game, headers=auth).json()
        assert final["version"] == moves
        reveal = final["reveal"]
        assert verify_commitment(created["commitment"], reveal["deal"], reveal["salt"])
        return PlayedGame(created["id"], created["token"], moves, final, hint)
    finally:
        for c in clients:
            c.close()


# A ranked result's measure by the server's own scheduling, on a loaded machine: the
# longest the image tests wait for it (never a measured figure).
MEASURE_TIMEOUT_S = 600.0


@dataclass
class RankedResult:
    challenge: str
    player: str
    key: dict[str, str]


def play_ranked_daily(base: str) -> RankedResult:
    """A new player's attempt at today's daily, played to its end (the first card that
    fits, else a draw): a ranked result, due to be measured."""
    with httpx.Client(base_url=base, timeout=60) as client:
        r = client.post("/v1/players", json={"name": "Scheduled"})
        assert r.status_code == 201, r.text
        player = r.json()
        key = {"Authorization": f"Bearer {player['key']}"}
        r = client.get("/v1/challenges/daily")
        assert r.status_code == 200, r.text
        challenge = r.json()["id"]
        r = client.post(f"/v1/challenges/{challenge}/games", headers=key)
        assert r.status_code == 201, r.text
        state = r.json()
        auth = {"Authorization": f"Bearer {state['token']}"}
        while state["status"] == "in_progress":
            legal = [m["move"] for m in state["legal_moves"]]
            move = next((m for m in legal if m.startswith("play ")), "draw")
            move = move if move in legal else "concede"
            r = client.post(f"/v1/games/{state['id']}/moves", json={"move": move}, headers=auth)
            assert r.status_code == 200, r.text
            state = r.json()
    return RankedResult(challenge, player["id"], key)


def measured(base: str, result: RankedResult) -> str:
    """The result's fair-play status, as its player reads it."""
    r = httpx.get(f"{base}/v1/players/me/challenges", headers=result.key, timeout=30)
    assert r.status_code == 200, r.text
    [entry] = [
        c["entry"] for c in r.json()["challenges"] if c["challenge"]["id"] == result.challenge
    ]
    status: str = entry["fair_play"]["status"]
    return status
