"""The HTTP figures: the game endpoints against a bare endpoint of the same server.

For each database (a SQLite temp file; a fresh PostgreSQL database on 127.0.0.1:5432,
dropped after, or skipped when unreachable) a real uvicorn process (one worker) serves
``bench._app:create_bench_app``: the real app plus bare routes. Clients are threads in
this process, each with its own keep-alive httpx connection, each sending a fixed number
of requests.

Only ratios mean anything on a shared machine, so the phases run in several short rounds
(bare, bare async, bare + SELECT 1, create_game, make_move, list_legal_moves, then again)
and each figure is set against the bare sync route of the same run. Two costs are given:
by wall-clock throughput with four clients, and by the server process's CPU time per
request (from /proc; it leaves out PostgreSQL's own processes), which other load on the
machine disturbs much less: wall-clock ratios swing widely when other processes compete
for the cores, the CPU ratios hardly. A one-worker server's CPU time is its own count
(``/bench/cpu``, to the nanosecond); /proc counts 10 ms ticks. Each table is run with one
client (sequential: the cost of a request alone) and with four (throughput); PostgreSQL
then once more with two workers (``WORKERS=2``, the production shape on two cores) and
eight clients: moves per second per core, against the bare route of the same run.

Measured: make_move's parameters and dependencies on a route that does nothing else;
create_game; make_move with a legal-move object posted back unchanged (a play
when one is legal, else a draw), at moves 1 to ``moves_per_game`` of fresh games;
list_legal_moves on those games; and the cost of one draw at move 60 against one at move
1, in interleaved pairs from a single client.

Goals: a move costs no more than 3 bare requests by time and 4 by server CPU; move 60 no
more than 1.5 x move 1.

``python -m bench http --quick`` runs fewer requests; ``--sqlite-only`` skips PostgreSQL.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tests.fixtures.postgres import PostgresUnavailableError, scratch_postgres_database
from tests.fixtures.servers import (
    ROOMY_RATE_LIMITS,
    free_port,
    server_process,
    uvicorn_command,
)

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"

CLIENTS = 4  # the loaded figures; the unloaded ones use one client
TIME_GOAL = 3.0  # a move costs at most this many bare requests by time...
CPU_GOAL = 4.0  # ... and this many by the server's CPU
SCALE_WORKERS = 2  # PostgreSQL again, with this many workers
SCALE_CLIENTS = 8  # and this many clients
DEPTH_GOAL = 1.5  # move 60 costs at most this many times move 1
DEEP_MOVE = 60
# Classic tripeaks has 23 stock cards: with two redeals, draws alone reach move 71.
DEEP_RULES = {"redeals": 2}

Record = Callable[[float], None]
Worker = Callable[[httpx.Client, int, Record], None]


@dataclass(frozen=True)
class Sizes:
    rounds: int
    bare: int  # requests per client per round, for each bare route
    games: int  # games created per client per round
    moves_per_game: int  # make_move requests on each created game
    reads: int  # list_legal_moves requests per client per round
    pairs: int  # move 1 / move 60 pairs

    @staticmethod
    def for_argv(argv: Sequence[str]) -> Sizes:
        if "--quick" in argv:
            return Sizes(rounds=2, bare=30, games=4, moves_per_game=4, reads=16, pairs=10)
        # Five rounds of 48 moves a client: with three of 32, the median round of one
        # client swung by half a bare request from run to run on the same code.
        return Sizes(rounds=5, bare=80, games=12, moves_per_game=4, reads=48, pairs=20)


# -- figures ---------------------------------------------------------------------------
def percentile(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


@dataclass
class Phase:
    """One load phase: its requests' latencies, wall time and the server's CPU time."""

    latencies: list[float]
    seconds: float
    cpu: float | None


@dataclass
class Figure:
    label: str
    phases: list[Phase] = field(default_factory=list)

    @property
    def requests(self) -> int:
        return sum(len(p.latencies) for p in self.phases)

    @property
    def rps(self) -> float:
        return self.requests / sum(p.seconds for p in self.phases)

    @property
    def cpu_ms(self) -> float | None:
        """Server CPU milliseconds per request."""
        if any(p.cpu is None for p in self.phases):
            return None
        return 1000 * sum(p.cpu or 0.0 for p in self.phases) / self.requests

    def _all(self) -> list[float]:
        return [x for p in self.phases for x in p.latencies]

    @property
    def p50(self) -> float:
        return percentile(self._all(), 50)

    @property
    def p99(self) -> float:
        return percentile(self._all(), 99)

    def round_costs(self, bare: Figure) -> list[float]:
        """Per round: this phase's time per request over the bare phase's of that round."""
        return [
            (p.seconds / len(p.latencies)) / (b.seconds / len(b.latencies))
            for p, b in zip(self.phases, bare.phases, strict=True)
        ]


@dataclass
class DepthFigure:
    pairs: int
    first: list[float] = field(default_factory=list)  # the draw at move 1
    deep: list[float] = field(default_factory=list)  # the draw at move DEEP_MOVE
    read_first: list[float] = field(default_factory=list)  # list_legal_moves at version 0
    read_deep: list[float] = field(default_factory=list)  # ... at version DEEP_MOVE - 1


# -- servers and databases -------------------------------------------------------------
def migrate(database_url: str) -> None:
    from alembic import command

    from app.ops.migrations import alembic_config

    cfg = alembic_config(database_url)
    cfg.attributes["configure_logger"] = False  # keep alembic's INFO lines out of the figures
    command.upgrade(cfg, "head")


def _process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (Linux)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        todo.extend(int(c) for c in children)
    return found


def _proc_cpu_seconds(pid: int) -> float | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Server:
    base: str
    pid: int
    workers: int = 1

    def cpu_seconds(self) -> float | None:
        """The server's user + system CPU time so far, else None: one worker's from the
        process itself (to the nanosecond), several workers' summed from /proc (Linux,
        10 ms ticks)."""
        if self.pid < 0:
            return None
        if self.workers == 1:
            return float(httpx.get(f"{self.base}/bench/cpu", timeout=30).json()["seconds"])
        seconds = [_proc_cpu_seconds(pid) for pid in _process_tree(self.pid)]
        return sum(s for s in seconds if s is not None) if seconds[0] is not None else None


@contextmanager
def bench_server(database_url: str, workers: int = 1) -> Iterator[Server]:
    """A uvicorn process (``workers`` workers) serving the bench app on ``database_url``."""
    migrate(database_url)
    port = free_port()
    # The bench's clients come from one address: no rate limit may shape its figures.
    env = {**os.environ, **ROOMY_RATE_LIMITS, "DATABASE_URL": database_url, "LOG_LEVEL": "warning"}
    command = [
        *uvicorn_command("bench._app:create_bench_app", port),
        "--workers",
        str(workers),
        "--no-access-log",
    ]
    wrapper = os.environ.get("BENCH_SERVER_WRAPPER")  # e.g. "py-spy record -o x.svg --"
    if wrapper:
        command = [*wrapper.split(), *command]
    with server_process(command, port, env) as proc:
        # Under a wrapper the server is the wrapper's child: CPU figures are then off.
        yield Server(f"http://127.0.0.1:{port}", proc.pid if not wrapper else -1, workers)


@contextmanager
def new_postgres_database() -> Iterator[str | None]:
    """A fresh PostgreSQL database dropped afterwards, or None (said why) if unreachable."""
    admin = (
        os.environ.get("BENCH_POSTGRES_URL") or os.environ.get("TEST_POSTGRES_URL") or DEFAULT_PG
    )
    try:
        with scratch_postgres_database(admin, "tripeaks_bench") as url:
            yield url
    except PostgresUnavailableError as e:
        print(f"\n{e}: skipped")
        yield None


# -- clients ---------------------------------------------------------------------------
@dataclass
class Game:
    id: str
    token: str
    legal: list[dict[str, Any]]

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


def _checked(response: httpx.Response, status: int = 200) -> dict[str, Any]:
    if response.status_code != status:
        raise RuntimeError(
            f"{response.request.method} {response.request.url.path}: "
            f"{response.status_code} {response.text[:300]}"
        )
    body: dict[str, Any] = response.json()
    return body


def create_game(client: httpx.Client, body: dict[str, Any] | None = None) -> Game:
    data = _checked(client.post("/v1/games", json=body or {}), 201)
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
            _checked(client.get("/healthz"))  # open the connection before the clock starts
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
            _checked(timed(client, record, "GET", url))

    return worker


def _signature(n: int) -> Worker:
    def worker(client: httpx.Client, _i: int, record: Record) -> None:
        body = {"move": "draw", "kind": "draw"}
        headers = {"Authorization": "Bearer not-checked"}
        for _ in range(n):
            url = "/bench/signature/g"
            _checked(timed(client, record, "POST", url, json=body, headers=headers))

    return worker


# -- the measurements ------------------------------------------------------------------
LABELS = {
    "bare": "bare GET (sync def)",
    "bare_async": "bare GET (async def)",
    "db": "bare GET + SELECT 1 (sync)",
    "signature": "make_move's signature alone",
    "create": "create_game",
    "move": "make_move (play or draw)",
    "read": "list_legal_moves",
}


Figures = dict[int, dict[str, Figure]]  # by the number of clients, then by route


def measure_workers(url: str, sizes: Sizes) -> dict[str, Figure]:
    """SCALE_CLIENTS clients on a server of SCALE_WORKERS workers: every route's phases."""
    by_route = {key: Figure(label) for key, label in LABELS.items()}
    with bench_server(url, workers=SCALE_WORKERS) as server:
        warm_up(server, SCALE_CLIENTS)
        for _ in range(sizes.rounds):
            measure_round(server, sizes, by_route, SCALE_CLIENTS)
    return by_route


def measure_database(url: str, sizes: Sizes) -> tuple[Figures, DepthFigure]:
    figures = {n: {key: Figure(label) for key, label in LABELS.items()} for n in (1, CLIENTS)}
    with bench_server(url) as server:
        warm_up(server)
        for _ in range(sizes.rounds):
            for clients, by_route in figures.items():
                measure_round(server, sizes, by_route, clients)
        depth = measure_depth(server, url, sizes.pairs)
    return figures, depth


def measure_round(server: Server, sizes: Sizes, figures: dict[str, Figure], clients: int) -> None:
    """One phase of each kind; create_game makes the games the other phases use."""
    games: list[list[Game]] = [[] for _ in range(clients)]

    def creator(client: httpx.Client, i: int, record: Record) -> None:
        for _ in range(sizes.games):
            response = timed(client, record, "POST", "/v1/games", json={})
            data = _checked(response, 201)
            games[i].append(Game(data["id"], data["token"], data["legal_moves"]))

    # Each client moves only its own games, so no move races another.
    def mover(client: httpx.Client, i: int, record: Record) -> None:
        for _ in range(sizes.moves_per_game):
            for game in games[i]:
                url = f"/v1/games/{game.id}/moves"
                response = timed(
                    client, record, "POST", url, json=next_move(game), headers=game.headers
                )
                game.legal = _checked(response)["legal_moves"]

    def reader(client: httpx.Client, i: int, record: Record) -> None:
        for k in range(sizes.reads):
            game = games[i][k % len(games[i])]
            url = f"/v1/games/{game.id}/legal-moves"
            _checked(timed(client, record, "GET", url, headers=game.headers))

    phases: list[tuple[str, Worker]] = [
        ("bare", _getter("/bench/bare", sizes.bare)),
        ("bare_async", _getter("/bench/bare-async", sizes.bare)),
        ("db", _getter("/bench/db", sizes.bare)),
        ("signature", _signature(sizes.bare)),
        ("create", creator),
        ("move", mover),
        ("read", reader),
    ]
    for key, worker in phases:
        figures[key].phases.append(load(server, worker, clients))


def warm_up(server: Server, clients: int | None = None) -> None:
    """Touch every route (imports, first queries, pools, threads) before timing."""

    def worker(client: httpx.Client, _i: int, _record: Record) -> None:
        game = create_game(client)
        for _ in range(10):
            for url in ("/bench/bare", "/bench/bare-async", "/bench/db"):
                _checked(client.get(url))
            _checked(client.post("/bench/signature/g", json={"move": "draw"}, headers=game.headers))
            _checked(client.get(f"/v1/games/{game.id}/legal-moves", headers=game.headers))
        for _ in range(5):
            url = f"/v1/games/{game.id}/moves"
            response = client.post(url, json=next_move(game), headers=game.headers)
            game.legal = _checked(response)["legal_moves"]

    load(server, worker, clients)


def advance(database_url: str, games: Sequence[Game], moves: int) -> None:
    """Bring each game to ``moves`` moves (draws, and redeals when the stock is out).

    Untimed setup, done in this process through the service the server runs (the same
    rows, the same checks) because it is several times quicker than over HTTP.
    """
    from app.games.service import GameService
    from app.kit.database import make_engine, make_sessionmaker
    from app.settings import Settings

    engine = make_engine(Settings(database_url=database_url))
    sessions = make_sessionmaker(engine)
    try:
        for game in games:
            with sessions() as session:
                service = GameService(session)
                row = service.get(game.id)
                assert row is not None
                for _ in range(moves):
                    loaded = service.load(row)
                    kind = "draw" if loaded.state.stock else "redeal"
                    service.move(loaded, kind)
                    session.commit()
    finally:
        engine.dispose()


def measure_depth(server: Server, database_url: str, pairs: int) -> DepthFigure:
    """One draw at move 1 against one at move DEEP_MOVE, in interleaved pairs, one client.

    ``pairs`` fresh games (DEEP_RULES) and ``pairs`` games brought to DEEP_MOVE - 1 moves.
    Each pair times both draws back to back, alternating which goes first, so drift in
    the machine's speed hits both alike. Reads (list_legal_moves) at both depths first.
    """
    figure = DepthFigure(pairs)
    with httpx.Client(base_url=server.base, timeout=60) as client:
        fresh = [create_game(client, {"rules": DEEP_RULES}) for _ in range(pairs)]
        deep = [create_game(client, {"rules": DEEP_RULES}) for _ in range(pairs)]
        advance(database_url, deep, DEEP_MOVE - 1)
        for r in range(3):
            for k, (a, b) in enumerate(zip(fresh, deep, strict=True)):
                order = [(a, figure.read_first), (b, figure.read_deep)]
                for game, out in order if (k + r) % 2 == 0 else order[::-1]:
                    url = f"/v1/games/{game.id}/legal-moves"
                    _checked(timed(client, out.append, "GET", url, headers=game.headers))
        for k, (a, b) in enumerate(zip(fresh, deep, strict=True)):
            draws = [(a, figure.first, 1), (b, figure.deep, DEEP_MOVE)]
            for game, out, expected in draws if k % 2 == 0 else draws[::-1]:
                url = f"/v1/games/{game.id}/draw"
                data = _checked(timed(client, out.append, "POST", url, headers=game.headers))
                if data["version"] != expected:
                    raise RuntimeError(f"expected move {expected}, got {data['version']}")
    return figure


# -- the report ------------------------------------------------------------------------
def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f}"


def _ratio(x: float | None, y: float | None) -> str:
    return f"{x / y:.2f}x" if x is not None and y else "-"


def _table(by_route: dict[str, Figure]) -> None:
    bare = by_route["bare"]
    print(
        f"  {'endpoint':28} {'requests':>8} {'req/s':>6} {'p50 ms':>7} {'p99 ms':>7}"
        f" {'x bare':>7} {'p50 x':>7} {'cpu ms':>7} {'cpu x':>7}"
    )
    for key in LABELS:
        f = by_route[key]
        cost = statistics.median(f.round_costs(bare))
        cpu = f"{f.cpu_ms:7.2f}" if f.cpu_ms is not None else f"{'-':>7}"
        print(
            f"  {f.label:28} {f.requests:8d} {f.rps:6.0f} {_ms(f.p50):>7} {_ms(f.p99):>7}"
            f" {cost:6.2f}x {_ratio(f.p50, bare.p50):>7} {cpu}"
            f" {_ratio(f.cpu_ms, bare.cpu_ms):>7}"
        )


def _move_goal(by_route: dict[str, Figure]) -> str:
    """A move against the goals: by server CPU, by time (median over rounds) and by p50."""
    bare, move = by_route["bare"], by_route["move"]
    cost = statistics.median(move.round_costs(bare))
    cpu_cost = move.cpu_ms / bare.cpu_ms if move.cpu_ms is not None and bare.cpu_ms else None
    measures = [
        ("server CPU", cpu_cost, CPU_GOAL),
        ("time", cost, TIME_GOAL),
        ("p50", move.p50 / bare.p50, TIME_GOAL),
    ]
    return ", ".join(
        f"{m} {r:.2f}x {'met' if r <= goal else 'MISSED'}"
        for m, r, goal in measures
        if r is not None
    )


def report(name: str, figures: Figures, depth: DepthFigure, sizes: Sizes) -> None:
    print(f"\n### {name}: one uvicorn worker, {sizes.rounds} interleaved rounds")
    goal: list[str] = []
    for clients, by_route in figures.items():
        print(
            f"{clients} client{'s' if clients > 1 else ''}"
            f"{' (sequential)' if clients == 1 else ' (threads, each its own connection)'}:"
        )
        _table(by_route)
        goal.append(f"  {clients} client{'s' if clients > 1 else ''}: {_move_goal(by_route)}")
    print(
        f"goal: a move costs <= {TIME_GOAL:g} bare requests by time and <= {CPU_GOAL:g} by"
        " server CPU (the steady measure):"
    )
    print("\n".join(goal))
    first, deep = statistics.median(depth.first), statistics.median(depth.deep)
    rf, rd = statistics.median(depth.read_first), statistics.median(depth.read_deep)
    ratio = deep / first
    mean_ratio = statistics.fmean(depth.deep) / statistics.fmean(depth.first)
    verdict = "met" if ratio <= DEPTH_GOAL else "MISSED"
    print(
        f"goal: move {DEEP_MOVE} costs <= {DEPTH_GOAL:g}x move 1 (one client,"
        f" {depth.pairs} interleaved pairs of games with rules {DEEP_RULES}; medians):"
    )
    print(
        f"  draw at move 1: {_ms(first)} ms, at move {DEEP_MOVE}: {_ms(deep)} ms"
        f" -> {ratio:.2f}x (means {mean_ratio:.2f}x) {verdict}"
    )
    print(
        f"  list_legal_moves at version 0: {_ms(rf)} ms, at version {DEEP_MOVE - 1}:"
        f" {_ms(rd)} ms -> {rd / rf:.2f}x"
    )


def report_workers(name: str, by_route: dict[str, Figure], sizes: Sizes) -> None:
    """The two-worker run: its table, and moves per second per core against the bare
    route of the same run."""
    print(
        f"\n### {name}: {SCALE_WORKERS} uvicorn workers, {SCALE_CLIENTS} clients,"
        f" {sizes.rounds} rounds (server CPU summed over the workers, 10 ms ticks)"
    )
    _table(by_route)
    bare, move = by_route["bare"], by_route["move"]
    cores = os.cpu_count() or 1
    per_cpu_second = 1000 / move.cpu_ms if move.cpu_ms else None
    print(
        f"moves: {move.rps:.0f}/s, {move.rps / cores:.0f}/s per core ({cores} cores);"
        f" bare: {bare.rps:.0f}/s, {bare.rps / cores:.0f}/s per core; a move costs"
        f" {statistics.median(move.round_costs(bare)):.2f}x bare by time,"
        f" {_ratio(move.cpu_ms, bare.cpu_ms)} by server CPU"
        + (f" ({per_cpu_second:.0f} moves per server CPU second)" if per_cpu_second else "")
    )
    print(f"goal: {_move_goal(by_route)}")


def run(argv: list[str]) -> None:
    sizes = Sizes.for_argv(argv)
    started = time.perf_counter()
    print(
        "HTTP, against bare endpoints of the same server in the same run. 'x bare': time"
        " per request over the bare sync route's (median over rounds); 'p50 x': the same"
        " by median latency; 'cpu': the server process's CPU time per request."
    )
    with tempfile.TemporaryDirectory(prefix="tripeaks-bench-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
        report("SQLite", *measure_database(url, sizes), sizes)
    if "--sqlite-only" not in argv:
        with new_postgres_database() as pg:
            if pg is not None:
                report("PostgreSQL", *measure_database(pg, sizes), sizes)
                report_workers("PostgreSQL", measure_workers(pg, sizes), sizes)
    print(f"\n(HTTP bench took {time.perf_counter() - started:.0f} s)")
