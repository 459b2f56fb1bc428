"""The load ``python -m bench http`` puts on its servers: client threads, each with its own
keep-alive connection, in phases of one kind of request, and the depth pairs."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import httpx

from bench.http.figures import (
    CLIENTS,
    DEEP_MOVE,
    DEEP_RULES,
    LABELS,
    SCALE_CLIENTS,
    SCALE_WORKERS,
    DepthFigure,
    Figure,
    Figures,
    Phase,
    Sizes,
)
from bench.http.servers import Checkout, Server, bench_server

Record = Callable[[float], None]
Worker = Callable[[httpx.Client, int, Record], None]


@dataclass
class Game:
    id: str
    token: str
    legal: list[dict[str, Any]]

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


def checked(response: httpx.Response, status: int = 200) -> dict[str, Any]:
    """The answer's body, or an error saying what answered instead of ``status``."""
    if response.status_code != status:
        raise RuntimeError(
            f"{response.request.method} {response.request.url.path}: "
            f"{response.status_code} {response.text[:300]}"
        )
    body: dict[str, Any] = response.json()
    return body


def create_game(client: httpx.Client, body: dict[str, Any] | None = None) -> Game:
    data = checked(client.post("/v1/games", json=body or {}), 201)
    return Game(data["id"], data["token"], data["legal_moves"])


def next_move(game: Game) -> dict[str, Any]:
    """The legal-move object a simple player posts back: a play if any, else a draw."""
    for kind in ("play", "draw"):
        for m in game.legal:
            if m["kind"] == kind:
                return m
    raise RuntimeError(f"game {game.id} has no play or draw left: {game.legal}")


def timed(client: httpx.Client, record: Record, method: str, url: str, **kw: Any) -> httpx.Response:
    t0 = time.perf_counter()
    response = client.request(method, url, **kw)
    record(time.perf_counter() - t0)
    return response


def load(server: Server, worker: Worker, clients: int | None = None) -> Phase:
    """Run ``worker(client, index, record)`` in ``clients`` threads started together,
    each with its own keep-alive connection; ``record(seconds)`` notes one timed request."""
    clients = clients or CLIENTS
    latencies: list[list[float]] = [[] for _ in range(clients)]
    errors: list[BaseException] = []
    ready, go = threading.Barrier(clients + 1), threading.Barrier(clients + 1)

    def thread(i: int) -> None:
        with httpx.Client(base_url=server.base, timeout=60) as client:
            checked(client.get("/healthz"))  # open the connection before the clock starts
            ready.wait()
            go.wait()
            try:
                worker(client, i, latencies[i].append)
            except BaseException as e:
                errors.append(e)

    threads = [threading.Thread(target=thread, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    ready.wait()
    cpu0 = server.cpu_seconds()  # the clients wait, connected and idle
    go.wait()
    start = time.perf_counter()
    for t in threads:
        t.join()
    seconds = time.perf_counter() - start
    cpu1 = server.cpu_seconds()
    if errors:
        raise errors[0]
    cpu = cpu1 - cpu0 if cpu0 is not None and cpu1 is not None else None
    return Phase([x for per in latencies for x in per], seconds, cpu)


def _getter(url: str, n: int) -> Worker:
    def worker(client: httpx.Client, _i: int, record: Record) -> None:
        for _ in range(n):
            checked(timed(client, record, "GET", url))

    return worker


def _signature(n: int) -> Worker:
    def worker(client: httpx.Client, _i: int, record: Record) -> None:
        body = {"move": "draw", "kind": "draw"}
        headers = {"Authorization": "Bearer not-checked"}
        for _ in range(n):
            url = "/bench/signature/g"
            checked(timed(client, record, "POST", url, json=body, headers=headers))

    return worker


# What a server is measured on: its database and whose code (None: this checkout's).
Side = tuple[str, Checkout | None]


def measure_workers(sides: Sequence[Side], sizes: Sizes) -> list[dict[str, Figure]]:
    """SCALE_CLIENTS clients on a server of SCALE_WORKERS workers: every route's phases;
    with several sides, their servers up at once and their phases interleaved."""
    figures = [{key: Figure(label) for key, label in LABELS.items()} for _ in sides]
    with ExitStack() as stack:
        servers = [
            stack.enter_context(bench_server(url, SCALE_WORKERS, checkout))
            for url, checkout in sides
        ]
        for server in servers:
            warm_up(server, SCALE_CLIENTS)
        for r in range(sizes.rounds):
            measure_round(servers, sizes, figures, SCALE_CLIENTS, r)
    return figures


def measure_database(sides: Sequence[Side], sizes: Sizes) -> list[tuple[Figures, DepthFigure]]:
    """Each side's tables (one worker; one client, then CLIENTS) and depth figure; with
    several sides, their servers up at once and their phases interleaved."""
    figures = [
        {n: {key: Figure(label) for key, label in LABELS.items()} for n in (1, CLIENTS)}
        for _ in sides
    ]
    with ExitStack() as stack:
        servers = [stack.enter_context(bench_server(url, 1, checkout)) for url, checkout in sides]
        for server in servers:
            warm_up(server)
        for r in range(sizes.rounds):
            for clients in (1, CLIENTS):
                measure_round(servers, sizes, [f[clients] for f in figures], clients, r)
        depths = [measure_depth(server, sizes.pairs) for server in servers]
    return list(zip(figures, depths, strict=True))


def measure_round(
    servers: Sequence[Server],
    sizes: Sizes,
    figures: Sequence[dict[str, Figure]],
    clients: int,
    round_index: int = 0,
) -> None:
    """One phase of each kind on each server (``figures[k]`` is ``servers[k]``'s): each
    kind on every server before the next kind, the servers' order turning round from one
    kind to the next and from one round to the next."""
    plans = [round_phases(sizes, clients) for _ in servers]
    for k, (key, _) in enumerate(plans[0]):
        order = list(range(len(servers)))
        if (k + round_index) % 2:
            order.reverse()
        for s in order:
            figures[s][key].phases.append(load(servers[s], plans[s][k][1], clients))


def round_phases(sizes: Sizes, clients: int) -> list[tuple[str, Worker]]:
    """One round's phases, in order, for one server: create_game makes the games the
    phases after it use."""
    games: list[list[Game]] = [[] for _ in range(clients)]

    def creator(client: httpx.Client, i: int, record: Record) -> None:
        for _ in range(sizes.games):
            response = timed(client, record, "POST", "/v1/games", json={})
            data = checked(response, 201)
            games[i].append(Game(data["id"], data["token"], data["legal_moves"]))

    # Each client moves only its own games, so no move races another.
    def mover(client: httpx.Client, i: int, record: Record) -> None:
        for _ in range(sizes.moves_per_game):
            for game in games[i]:
                url = f"/v1/games/{game.id}/moves"
                response = timed(
                    client, record, "POST", url, json=next_move(game), headers=game.headers
                )
                game.legal = checked(response)["legal_moves"]

    def reader(client: httpx.Client, i: int, record: Record) -> None:
        for k in range(sizes.reads):
            game = games[i][k % len(games[i])]
            url = f"/v1/games/{game.id}/legal-moves"
            checked(timed(client, record, "GET", url, headers=game.headers))

    def getter(client: httpx.Client, i: int, record: Record) -> None:
        for k in range(sizes.reads):
            game = games[i][k % len(games[i])]
            checked(timed(client, record, "GET", f"/v1/games/{game.id}", headers=game.headers))

    return [
        ("bare", _getter("/bench/bare", sizes.bare)),
        ("bare_async", _getter("/bench/bare-async", sizes.bare)),
        ("db", _getter("/bench/db", sizes.bare)),
        ("signature", _signature(sizes.bare)),
        ("create", creator),
        ("move", mover),
        ("read", reader),
        ("get", getter),
    ]


def warm_up(server: Server, clients: int | None = None) -> None:
    """Touch every route (imports, first queries, pools, threads) before timing."""

    def worker(client: httpx.Client, _i: int, _record: Record) -> None:
        game = create_game(client)
        for _ in range(10):
            for url in ("/bench/bare", "/bench/bare-async", "/bench/db"):
                checked(client.get(url))
            checked(client.post("/bench/signature/g", json={"move": "draw"}, headers=game.headers))
            checked(client.get(f"/v1/games/{game.id}/legal-moves", headers=game.headers))
            checked(client.get(f"/v1/games/{game.id}", headers=game.headers))
        for _ in range(5):
            url = f"/v1/games/{game.id}/moves"
            response = client.post(url, json=next_move(game), headers=game.headers)
            game.legal = checked(response)["legal_moves"]

    load(server, worker, clients)


def advance(client: httpx.Client, games: Sequence[Game], moves: int) -> None:
    """Bring each game to ``moves`` moves (draws, and redeals when the stock is out).

    Untimed setup, through make_move: the server's own code, whichever checkout it is
    (``--baseline``), where this process's service could be another version's.
    """
    for game in games:
        for _ in range(moves):
            move = next(
                (m for kind in ("draw", "redeal") for m in game.legal if m["kind"] == kind), None
            )
            if move is None:
                raise RuntimeError(f"game {game.id} has no draw or redeal left: {game.legal}")
            url = f"/v1/games/{game.id}/moves"
            game.legal = checked(client.post(url, json=move, headers=game.headers))["legal_moves"]


def measure_depth(server: Server, pairs: int) -> DepthFigure:
    """One draw at move 1 against one at move DEEP_MOVE, in interleaved pairs, one client.

    ``pairs`` fresh games (DEEP_RULES) and ``pairs`` games brought to DEEP_MOVE - 1 moves.
    Each pair times both draws back to back, alternating which goes first, so drift in
    the machine's speed hits both alike. Reads (list_legal_moves) at both depths first.
    """
    figure = DepthFigure(pairs)
    with httpx.Client(base_url=server.base, timeout=60) as client:
        fresh = [create_game(client, {"rules": DEEP_RULES}) for _ in range(pairs)]
        deep = [create_game(client, {"rules": DEEP_RULES}) for _ in range(pairs)]
        advance(client, deep, DEEP_MOVE - 1)
        for r in range(3):
            for k, (a, b) in enumerate(zip(fresh, deep, strict=True)):
                order = [(a, figure.read_first), (b, figure.read_deep)]
                for game, out in order if (k + r) % 2 == 0 else order[::-1]:
                    url = f"/v1/games/{game.id}/legal-moves"
                    checked(timed(client, out.append, "GET", url, headers=game.headers))
        for k, (a, b) in enumerate(zip(fresh, deep, strict=True)):
            draws = [(a, figure.first, 1), (b, figure.deep, DEEP_MOVE)]
            for game, out, expected in draws if k % 2 == 0 else draws[::-1]:
                url = f"/v1/games/{game.id}/draw"
                data = checked(timed(client, out.append, "POST", url, headers=game.headers))
                if data["version"] != expected:
                    raise RuntimeError(f"expected move {expected}, got {data['version']}")
    return figure
