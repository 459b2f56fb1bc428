"""The HTTP figures: the game endpoints against a bare endpoint of the same server.

For each database (a SQLite temp file; a fresh PostgreSQL database on 127.0.0.1:5432,
dropped after, or skipped when unreachable) the production server (one worker) serves
``bench._app:create_bench_app``: the real app plus bare routes. Clients are threads in
this process, each with its own keep-alive httpx connection, each sending a fixed number
of requests.

Only ratios mean anything on a shared machine, so the phases run in several short rounds
(bare, bare async, bare + SELECT 1, make_move's signature, create_game, make_move,
list_legal_moves, get_game, then again) and each figure is set against the bare sync
route of the same run. Two costs are given:
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
list_legal_moves and get_game on those games; and the cost of one draw at move 60
against one at move 1, in interleaved pairs from a single client.

Goals: a move costs no more than 3 bare requests by time and 4 by server CPU; move 60 no
more than 1.5 x move 1.

``python -m bench http --quick`` runs fewer requests; ``--sqlite-only`` skips PostgreSQL.

``--baseline DIR`` measures another checkout against this one in the same run, since
only figures taken in the same minutes compare: DIR is a checkout of this repository (say
a git worktree of an older commit) with its own virtual environment in DIR/.venv. Every
server is then started twice, both up at once: the baseline's (DIR/.venv/bin/python,
working directory DIR, so DIR's own ``bench._app:create_bench_app``) and this checkout's
(``sys.executable``, working directory this checkout), each on a fresh database of its
own (its own SQLite file; its own scratch PostgreSQL database) migrated by its own
checkout's ``alembic upgrade head`` (a subprocess in that checkout, DATABASE_URL set).
Each phase of each round runs on one server and then at once on the other, which of the
two goes first alternating from phase to phase and from round to round, so both see the
same load on the machine (the rounds are three times as many and a third as long, so
they take turns more often); the depth pairs run on one server, then on the other. Each
server's tables are printed as without the option (its figures against its own bare
route), then one table setting them side by side: for each figure the baseline's, the
new one's, new/baseline, and that ratio round by round (median, lowest-highest).
``--current DIR`` puts another checkout in place of this one (a harness check: with the
same code on both sides the ratios show the noise).

The games of the depth figure are brought to move 59 over HTTP (untimed), by whichever
code the server runs.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tests.fixtures.postgres import PostgresUnavailableError, scratch_postgres_database
from tests.fixtures.servers import (
    ROOMY_RATE_LIMITS,
    free_port,
    serve_command,
    served_on,
    server_process,
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
    reads: int  # list_legal_moves requests per client per round, and as many get_game
    pairs: int  # move 1 / move 60 pairs

    @staticmethod
    def for_argv(argv: Sequence[str], side_by_side: bool = False) -> Sizes:
        """The sizes; ``side_by_side`` (``--baseline``): about as many requests in three
        times as many rounds, so that the two servers take turns more often (on the same
        code, in one trial, the round-by-round ratios' medians strayed half as far from 1)."""
        if "--quick" in argv:
            if side_by_side:
                return Sizes(rounds=4, bare=15, games=2, moves_per_game=4, reads=8, pairs=10)
            return Sizes(rounds=2, bare=30, games=4, moves_per_game=4, reads=16, pairs=10)
        if side_by_side:
            return Sizes(rounds=15, bare=27, games=4, moves_per_game=4, reads=16, pairs=20)
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

    @property
    def ms(self) -> float:
        """Wall-clock milliseconds per request (with several clients: over the throughput)."""
        return 1000 * sum(p.seconds for p in self.phases) / self.requests

    def round_ms(self) -> list[float | None]:
        """``ms`` of each round alone."""
        return [1000 * p.seconds / len(p.latencies) for p in self.phases]

    def round_cpu_ms(self) -> list[float | None]:
        """``cpu_ms`` of each round alone."""
        return [1000 * p.cpu / len(p.latencies) if p.cpu is not None else None for p in self.phases]

    def round_rps(self) -> list[float | None]:
        """``rps`` of each round alone."""
        return [len(p.latencies) / p.seconds for p in self.phases]

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


# An old checkout's server (uvicorn's ``run`` with its app named by a string) serving
# the app factory of its argument instead: ``Checkout.serve_command``.
OLD_SERVE = """\
import sys
import uvicorn
from app.ops import serve
run = uvicorn.run
uvicorn.run = lambda _app, **options: run(sys.argv[1], **options)
sys.exit(serve.main())
"""


@dataclass(frozen=True)
class Checkout:
    """A checkout of this repository whose own code a server runs (``--baseline``): its
    root (the server's working directory, so ``bench._app`` and ``app`` are its own) and
    the Python of its virtual environment."""

    name: str  # "baseline" or "new"
    root: Path
    python: Path  # not resolved: a venv's python is a symlink out of the venv

    @staticmethod
    def at(name: str, option: str, directory: str) -> Checkout:
        root = Path(directory).resolve()
        python = root / ".venv" / "bin" / "python"
        for needed in (root / "bench" / "_app.py", root / "alembic.ini", python):
            if not needed.exists():
                raise SystemExit(
                    f"{option} {directory}: no {needed} (a checkout, after make setup)"
                )
        return Checkout(name, root, python)

    @staticmethod
    def this(name: str) -> Checkout:
        """This checkout, served by the Python running the bench."""
        return Checkout(name, ROOT, Path(sys.executable))

    def env(self, database_url: str) -> dict[str, str]:
        """The server's (and its migration's) environment: nothing that would put another
        checkout's code on its path."""
        drop = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")
        env = {k: v for k, v in os.environ.items() if k not in drop}
        venv = self.python.parent.parent
        if (venv / "pyvenv.cfg").exists():
            env["VIRTUAL_ENV"] = str(venv)
            env["PATH"] = os.pathsep.join([str(venv / "bin"), env.get("PATH", "")])
        return {**env, **ROOMY_RATE_LIMITS, "DATABASE_URL": database_url, "LOG_LEVEL": "warning"}

    def migrate(self, database_url: str) -> None:
        """``alembic upgrade head`` of this checkout, in it, on ``database_url``."""
        alembic = self.python.parent / "alembic"
        command = [str(alembic)] if alembic.exists() else [str(self.python), "-m", "alembic"]
        command += ["upgrade", "head"]
        done = subprocess.run(
            command, cwd=self.root, env=self.env(database_url), capture_output=True, text=True
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"{self.name}: {' '.join(command)} (in {self.root}) failed:"
                f" {(done.stdout + done.stderr)[-2000:]}"
            )

    def serve_command(self, factory: str) -> list[str]:
        """The checkout's own production server serving ``factory``. A checkout whose
        server takes no factory (it serves ``app.main:create_app`` alone, as 22ca695's
        uvicorn did) is started by its own ``app.ops.serve.main`` with ``uvicorn.run``
        handed ``factory`` in place of that app: every other option is its own."""
        serve = (self.root / "app" / "ops" / "serve.py").read_text()
        if "def main(argv" in serve:
            return [str(self.python), "-m", "app.ops.serve", factory]
        return [str(self.python), "-c", OLD_SERVE, factory]

    def describe(self) -> str:
        """Where it is and which commit, and whether its work tree has changes."""

        def git(*args: str) -> str:
            done = subprocess.run(
                ["git", "-C", str(self.root), *args], capture_output=True, text=True
            )
            return done.stdout.strip() if done.returncode == 0 else ""

        commit = git("rev-parse", "--short", "HEAD") or "not a git checkout"
        changed = git("status", "--porcelain", "--untracked-files=no")
        return (
            f"{self.name}: {self.root} at {commit}{' + uncommitted changes' if changed else ''}"
            f" (served by {self.python})"
        )


@dataclass
class Server:
    base: str
    pid: int
    workers: int = 1
    checkout: Checkout | None = None  # None: this checkout, set up as without --baseline

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
def bench_server(
    database_url: str, workers: int = 1, checkout: Checkout | None = None
) -> Iterator[Server]:
    """The production server (``workers`` workers) serving the bench app on
    ``database_url``: this checkout's, migrated in this process; or ``checkout``'s (one that
    serves an app factory it is given: ``python -m app.ops.serve FACTORY``), run by its own
    Python in its own directory and migrated by its own alembic."""
    port = free_port()
    command = serve_command("bench._app:create_bench_app")
    if checkout is None:
        migrate(database_url)
        # The bench's clients come from one address: no rate limit may shape its figures.
        env = {**os.environ, **ROOMY_RATE_LIMITS, "DATABASE_URL": database_url}
        env["LOG_LEVEL"] = "warning"
    else:
        checkout.migrate(database_url)
        env = checkout.env(database_url)
        command = checkout.serve_command("bench._app:create_bench_app")
    env.update(served_on(port, workers))
    wrapper = os.environ.get("BENCH_SERVER_WRAPPER")  # e.g. "py-spy record -o x.svg --"
    if wrapper:
        command = [*wrapper.split(), *command]
    with server_process(command, port, env, checkout.root if checkout else ROOT) as proc:
        # Under a wrapper the server is the wrapper's child: CPU figures are then off.
        pid = proc.pid if not wrapper else -1
        yield Server(f"http://127.0.0.1:{port}", pid, workers, checkout)


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
    "get": "get_game",
}


Figures = dict[int, dict[str, Figure]]  # by the number of clients, then by route
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

    def getter(client: httpx.Client, i: int, record: Record) -> None:
        for k in range(sizes.reads):
            game = games[i][k % len(games[i])]
            _checked(timed(client, record, "GET", f"/v1/games/{game.id}", headers=game.headers))

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
                _checked(client.get(url))
            _checked(client.post("/bench/signature/g", json={"move": "draw"}, headers=game.headers))
            _checked(client.get(f"/v1/games/{game.id}/legal-moves", headers=game.headers))
            _checked(client.get(f"/v1/games/{game.id}", headers=game.headers))
        for _ in range(5):
            url = f"/v1/games/{game.id}/moves"
            response = client.post(url, json=next_move(game), headers=game.headers)
            game.legal = _checked(response)["legal_moves"]

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
            game.legal = _checked(client.post(url, json=move, headers=game.headers))["legal_moves"]


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
    print(f"\n### {name}: one worker, {sizes.rounds} interleaved rounds")
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
        f"\n### {name}: {SCALE_WORKERS} workers, {SCALE_CLIENTS} clients,"
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


# -- two checkouts in one run (--baseline) ---------------------------------------------
def _option(argv: Sequence[str], name: str) -> str | None:
    """The value of ``name DIR`` or ``name=DIR`` in ``argv``, else None."""
    for k, arg in enumerate(argv):
        if arg == name:
            if k + 1 == len(argv) or argv[k + 1].startswith("-"):
                raise SystemExit(f"{name} needs a directory")
            return argv[k + 1]
        if arg.startswith(f"{name}="):
            return arg.removeprefix(f"{name}=")
    return None


def checkouts_for_argv(argv: Sequence[str]) -> list[Checkout | None]:
    """Whose code the servers run: this checkout's alone (None: as without the options);
    with ``--baseline DIR``, DIR's and then this checkout's (or ``--current DIR``'s)."""
    baseline, current = _option(argv, "--baseline"), _option(argv, "--current")
    new = Checkout.at("new", "--current", current) if current is not None else None
    if baseline is None:
        return [new]
    return [Checkout.at("baseline", "--baseline", baseline), new or Checkout.this("new")]


def _named(database: str, checkout: Checkout | None) -> str:
    return database if checkout is None else f"{database}, {checkout.name}"


@dataclass
class Compared:
    """One database's figures, the baseline's first: what report_comparison sets side by
    side."""

    database: str
    figures: list[Figures]
    depths: list[DepthFigure]
    workers: list[dict[str, Figure]] | None = None


SHORT = {
    "move": "make_move",
    "create": "create_game",
    "read": "list_legal_moves",
    "get": "get_game",
    "bare": "bare GET (sync)",
}


def _number(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.0f}" if abs(x) >= 100 else f"{x:.2f}"


Pair = tuple[float | None, float | None]  # the baseline's figure, the new one's
Rounds = tuple[Sequence[float | None], Sequence[float | None]]  # the same, round by round


def _compare(label: str, figures: Pair, rounds: Rounds = ((), ())) -> None:
    """One row: the baseline's figure, the new one's, new/baseline, and that ratio round
    by round (median, lowest-highest)."""
    (base, new), (base_rounds, new_rounds) = figures, rounds
    paired = [n / b for b, n in zip(base_rounds, new_rounds, strict=True) if b and n is not None]
    spread = (
        f"{statistics.median(paired):5.2f}x {min(paired):5.2f}-{max(paired):.2f}" if paired else ""
    )
    print(f"  {label:36} {_number(base):>9} {_number(new):>9} {_ratio(new, base):>9}  {spread}")


def _over(xs: Sequence[float | None], ys: Sequence[float | None]) -> list[float | None]:
    return [x / y if x is not None and y else None for x, y in zip(xs, ys, strict=True)]


def _compare_routes(base: dict[str, Figure], new: dict[str, Figure]) -> None:
    for key in ("move", "create", "read", "get", "bare"):
        b, n = base[key], new[key]
        _compare(f"{SHORT[key]} ms", (b.ms, n.ms), (b.round_ms(), n.round_ms()))
        rounds = (b.round_cpu_ms(), n.round_cpu_ms())
        _compare(f"{SHORT[key]} server cpu ms", (b.cpu_ms, n.cpu_ms), rounds)
    costs = base["move"].round_costs(base["bare"]), new["move"].round_costs(new["bare"])
    medians = statistics.median(costs[0]), statistics.median(costs[1])
    _compare("make_move x bare, by time", medians, costs)
    cpu = (
        _over([base["move"].cpu_ms], [base["bare"].cpu_ms])[0],
        _over([new["move"].cpu_ms], [new["bare"].cpu_ms])[0],
    )
    cpu_rounds = (
        _over(base["move"].round_cpu_ms(), base["bare"].round_cpu_ms()),
        _over(new["move"].round_cpu_ms(), new["bare"].round_cpu_ms()),
    )
    _compare("make_move x bare, by server cpu", cpu, cpu_rounds)


def _compare_workers(base: dict[str, Figure], new: dict[str, Figure]) -> None:
    (bm, bb), (nm, nb) = (base["move"], base["bare"]), (new["move"], new["bare"])
    _compare("make_move moves/s", (bm.rps, nm.rps), (bm.round_rps(), nm.round_rps()))
    rounds = (bm.round_cpu_ms(), nm.round_cpu_ms())
    _compare("make_move server cpu ms", (bm.cpu_ms, nm.cpu_ms), rounds)
    _compare("bare GET (sync) req/s", (bb.rps, nb.rps), (bb.round_rps(), nb.round_rps()))
    costs = bm.round_costs(bb), nm.round_costs(nb)
    medians = statistics.median(costs[0]), statistics.median(costs[1])
    _compare("make_move x bare, by time", medians, costs)


def report_comparison(checkouts: Sequence[Checkout | None], compared: Sequence[Compared]) -> None:
    """The new server's figures against the baseline's, row by row."""
    print("\n### new against baseline, in the same run (phases interleaved)")
    for checkout in checkouts:
        if checkout is not None:
            print(checkout.describe())
    print(
        "'ms': a phase's wall time over its requests (with several clients: over the"
        " throughput); 'server cpu ms': the server's CPU time per request; 'new/base': the"
        " new figure over the baseline's (under 1: the new is cheaper; for the per-second"
        " figures, faster); 'rounds': that ratio round by round (the two servers' phases of"
        " a round run back to back): median, lowest-highest."
    )
    print(f"  {'':36} {'baseline':>9} {'new':>9} {'new/base':>9}  {'rounds':>6}")
    for c in compared:
        base, new = c.figures
        for clients in (1, CLIENTS):
            print(f"{c.database}, 1 worker, {clients} client{'s' if clients > 1 else ''}:")
            _compare_routes(base[clients], new[clients])
        if c.workers is not None:
            print(f"{c.database}, {SCALE_WORKERS} workers, {SCALE_CLIENTS} clients:")
            _compare_workers(c.workers[0], c.workers[1])
        print(f"{c.database}, depth (one client, medians):")
        depth = [statistics.median(d.deep) / statistics.median(d.first) for d in c.depths]
        _compare(f"draw at move {DEEP_MOVE} x move 1", (depth[0], depth[1]))


def run(argv: list[str]) -> None:
    checkouts = checkouts_for_argv(argv)
    sizes = Sizes.for_argv(argv, side_by_side=len(checkouts) > 1)
    started = time.perf_counter()
    print(
        "HTTP, against bare endpoints of the same server in the same run. 'x bare': time"
        " per request over the bare sync route's (median over rounds); 'p50 x': the same"
        " by median latency; 'cpu': the server process's CPU time per request."
    )
    for checkout in checkouts:
        if checkout is not None:
            print(checkout.describe())
    compared: list[Compared] = []
    with tempfile.TemporaryDirectory(prefix="tripeaks-bench-") as tmp:
        files = [f"bench-{c.name}.sqlite3" if c else "bench.sqlite3" for c in checkouts]
        sides = [(f"sqlite:///{Path(tmp) / f}", c) for f, c in zip(files, checkouts, strict=True)]
        results = measure_database(sides, sizes)
        for checkout, (figures, depth) in zip(checkouts, results, strict=True):
            report(_named("SQLite", checkout), figures, depth, sizes)
        compared.append(Compared("SQLite", [f for f, _ in results], [d for _, d in results]))
    if "--sqlite-only" not in argv:
        with ExitStack() as stack:
            databases: list[str] = []
            for _ in checkouts:  # each server its own fresh database
                pg = stack.enter_context(new_postgres_database())
                if pg is None:
                    break
                databases.append(pg)
            if len(databases) == len(checkouts):
                sides = list(zip(databases, checkouts, strict=True))
                results = measure_database(sides, sizes)
                for checkout, (figures, depth) in zip(checkouts, results, strict=True):
                    report(_named("PostgreSQL", checkout), figures, depth, sizes)
                workers = measure_workers(sides, sizes)
                for checkout, by_route in zip(checkouts, workers, strict=True):
                    report_workers(_named("PostgreSQL", checkout), by_route, sizes)
                figures_, depths = [f for f, _ in results], [d for _, d in results]
                compared.insert(0, Compared("PostgreSQL", figures_, depths, workers))
    if len(checkouts) == 2:
        report_comparison(checkouts, compared)
    print(f"\n(HTTP bench took {time.perf_counter() - started:.0f} s)")
