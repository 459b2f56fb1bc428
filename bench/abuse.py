"""What a client hammering the expensive endpoints costs everyone else, and what a long
history costs a read.

One worker of the production server serves the real app on a fresh SQLite file (and on a
fresh PostgreSQL database when one answers), with the default solver settings and the
rate limits out of the way but for the refused budget (``RATE_LIMIT_REFUSED`` at its
default: it is the server's own defence against refusals), so that nothing but the
server's own design protects the victim. A victim client, from an address of its own
(127.0.0.2), alternates ``get_game`` and a move (a draw, then its undo) on its own game;
first alone (idle), then while attacker clients (from 127.0.0.1) hammer one endpoint each
phase:

- ``hint`` (4 attackers): ``get_hint?samples=64`` on golf deal 1 (a hard position for the
  hint), each on its own game;
- ``analysis`` (4): a fresh six_peaks game, conceded, then ``get_analysis`` (a full search);
- ``winnable`` (4): ``create_game`` with ``winnable_only`` on six_peaks;
- ``flood`` (6): six threads of one identity (one game's token) post a move body of 5,500
  unknown keys (60 KB, under the default body limit) as fast as they are answered: once,
  each was a 422 before any budget, as many as they could send;
- ``refused`` (6): the same, with a small refused move (a key given twice);
- ``starve`` (6): six player accounts each ask ``get_hint?samples=64`` as fast as they are
  answered, and the victim asks a hint of its own after each move: what its hints got is
  printed (once, the accounts held every search slot the hints could use, and the victim's
  hints answered 503 in about a third of its tries);
- ``players`` (4): no attack, four other players moving (draw, undo) and reading as fast as
  they can: plain load, to set the other phases against;
- ``slow-heads``: 1,050 connections from a third address (127.0.0.3), each sending a
  request line, then a header line every 2 s and never the head's end (slowloris), each
  opened again as soon as the server closes it; more connections than the worker holds
  (``MAX_CONNECTIONS``), for three of the server's head deadlines (``KEEP_ALIVE_TIMEOUT_S``).
  The victim's client connects once the attack's connections are all open.

Printed per phase: the victim's get_game and move latency (p50, p99, max) and its p50 as
a multiple of idle, and what the attackers got (by status; for ``slow-heads``, how many
connections the server closed and served). Goals: the victim's p50 within
2x of idle, no victim request waiting more than 1 s, and no hint of the victim's refused.

Then, a long history: ``get_game`` on a game with 10 moves against one with 10,000 (draw
and undo in turn; the undo rules keep the game going), medians of interleaved pairs.
Goal: at most 2x.

``python -m bench abuse --quick`` runs shorter phases; ``--sqlite-only`` skips PostgreSQL;
``--phases flood,refused`` runs those phases alone (after idle).
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import statistics
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Event
from typing import Any

import httpx

from app.settings import Settings
from bench.http.figures import percentile
from bench.http.servers import Server, migrate, postgres_database_or_none
from tests.fixtures.servers import (
    ROOMY_RATE_LIMITS,
    free_port,
    serve_command,
    served_on,
    server_process,
)
from tests.fixtures.slowheads import SlowHeads

ATTACKERS = 4
VICTIM_ADDRESS = "127.0.0.2"  # the victim's own address: budgets and slots are per address
VICTIM_P50_GOAL = 2.0
WAIT_GOAL_S = 1.0
HISTORY_GOAL = 2.0
LONG_HISTORY = 10_000
UNDO_RULES = {"rules": {"undo": True}}


@dataclass
class VictimFigures:
    reads: list[float] = field(default_factory=list)
    moves: list[float] = field(default_factory=list)
    hints: Counter[int] = field(default_factory=Counter)  # by status, when it asks any

    def p50(self) -> float:
        return percentile(self.reads + self.moves, 50)


@contextmanager
def abuse_server(database_url: str) -> Iterator[Server]:
    migrate(database_url)
    port = free_port()
    env = {
        **os.environ,
        **ROOMY_RATE_LIMITS,
        # The refused budget at its default: it is the server's own defence against floods
        # of refusals, not a limit on what a well-behaved client does.
        "RATE_LIMIT_REFUSED": Settings.model_fields["rate_limit_refused"].default,
        "DATABASE_URL": database_url,
        "LOG_LEVEL": "warning",
        "MAX_MOVES_PER_GAME": str(LONG_HISTORY + 100),
    }
    with server_process(serve_command(), port, {**env, **served_on(port)}) as proc:
        yield Server(f"http://127.0.0.1:{port}", proc.pid)


def _game(client: httpx.Client, body: dict[str, Any]) -> tuple[str, dict[str, str]]:
    r = client.post("/v1/games", json=body)
    if r.status_code != 201:
        raise RuntimeError(f"create_game: {r.status_code} {r.text[:200]}")
    data = r.json()
    return data["id"], {"Authorization": f"Bearer {data['token']}"}


def victim_client(base: str) -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=VICTIM_ADDRESS)
    return httpx.Client(base_url=base, timeout=60, transport=transport)


def victim(
    base: str,
    game: tuple[str, dict[str, str]],
    seconds: float,
    figures: VictimFigures,
    hints: bool = False,
) -> None:
    gid, auth = game
    with victim_client(base) as c:
        ends = time.monotonic() + seconds
        draw = True
        while time.monotonic() < ends:
            t0 = time.perf_counter()
            r = c.get(f"/v1/games/{gid}", headers=auth)
            figures.reads.append(time.perf_counter() - t0)
            assert r.status_code == 200, r.text
            body = {"move": "draw" if draw else "undo"}
            t0 = time.perf_counter()
            r = c.post(f"/v1/games/{gid}/moves", json=body, headers=auth)
            figures.moves.append(time.perf_counter() - t0)
            assert r.status_code == 200, r.text
            draw = not draw
            if hints:
                figures.hints[c.get(f"/v1/games/{gid}/hint", headers=auth).status_code] += 1


Attack = Callable[[httpx.Client, Counter[int]], None]


def attack_hint(c: httpx.Client, got: Counter[int]) -> None:
    gid, auth = _game(c, {"layout": "golf", "deal_number": 1})
    while True:
        got[c.get(f"/v1/games/{gid}/hint?samples=64", headers=auth).status_code] += 1
        yield_point()


def attack_analysis(c: httpx.Client, got: Counter[int]) -> None:
    while True:
        gid, auth = _game(c, {"layout": "six_peaks"})
        c.post(f"/v1/games/{gid}/concede", headers=auth)
        got[c.get(f"/v1/games/{gid}/analysis", headers=auth).status_code] += 1
        yield_point()


def attack_winnable(c: httpx.Client, got: Counter[int]) -> None:
    while True:
        got[
            c.post("/v1/games", json={"layout": "six_peaks", "winnable_only": True}).status_code
        ] += 1
        yield_point()


# 5,500 keys the move's schema does not have, and a move: 60,500 bytes, under the default
# body limit.
FLOOD = json.dumps(
    {f"k{i:05d}": 0 for i in range(5500)} | {"move": "draw"}, separators=(",", ":")
).encode()
# A small move refused before its route: a key given twice.
REFUSED = b'{"move": "draw", "move": "concede"}'


def refusals(body: bytes) -> Callable[[str], Attack]:
    """Attackers of one identity (one game's token, shared), posting ``body`` as a move
    as fast as they are answered."""

    def shared(base: str) -> Attack:
        with httpx.Client(base_url=base, timeout=60) as c:
            gid, auth = _game(c, UNDO_RULES)
        headers = {**auth, "Content-Type": "application/json"}

        def attack(c: httpx.Client, got: Counter[int]) -> None:
            while True:
                got[
                    c.post(f"/v1/games/{gid}/moves", content=body, headers=headers).status_code
                ] += 1
                yield_point()

        return attack

    return shared


def attack_starve(c: httpx.Client, got: Counter[int]) -> None:
    """A player account of its own, asking 64-sample hints as fast as they are answered."""
    r = c.post("/v1/players", json={"kind": "bot"})
    if r.status_code != 201:
        raise RuntimeError(f"create_player: {r.status_code} {r.text[:200]}")
    key = {"Authorization": f"Bearer {r.json()['key']}"}
    r = c.post("/v1/games", json={"layout": "golf", "deal_number": 1}, headers=key)
    if r.status_code != 201:
        raise RuntimeError(f"create_game: {r.status_code} {r.text[:200]}")
    gid = r.json()["id"]
    while True:
        got[c.get(f"/v1/games/{gid}/hint?samples=64", headers=key).status_code] += 1
        yield_point()


def attack_players(c: httpx.Client, got: Counter[int]) -> None:
    gid, auth = _game(c, UNDO_RULES)
    while True:
        for move in ("draw", "undo"):
            got[
                c.post(f"/v1/games/{gid}/moves", json={"move": move}, headers=auth).status_code
            ] += 1
        got[c.get(f"/v1/games/{gid}", headers=auth).status_code] += 1
        yield_point()


class _Stop(Exception):
    pass


_stopping = threading.local()


def yield_point() -> None:
    if getattr(_stopping, "event", None) is not None and _stopping.event.is_set():
        raise _Stop


SLOW_HEADS = 1050
SLOW_HEAD_INTERVAL_S = 2.0
# The server's default head deadline: the slow-heads phase lasts three of them, so that the
# attack's connections are closed and opened again while the victim plays.
HEAD_DEADLINE_S = float(Settings.model_fields["keep_alive_timeout_s"].default)


SLOW_HEADS_PHASE = "slow-heads"


def slow_heads_phase(base: str, seconds: float) -> tuple[VictimFigures, str]:
    figures = VictimFigures()
    with httpx.Client(base_url=base, timeout=60) as c:
        game = _game(c, UNDO_RULES)
    port = int(base.rsplit(":", 1)[1])
    with SlowHeads(port, SLOW_HEADS, SLOW_HEAD_INTERVAL_S) as attack:
        ends = time.monotonic() + 60
        while attack.opened < SLOW_HEADS and time.monotonic() < ends:
            time.sleep(0.1)
        victim(base, game, max(seconds, 3 * HEAD_DEADLINE_S), figures)
    served = sum(answer.startswith(b"HTTP/1.1 2") for answer in attack.answers)
    return figures, f"{attack.opened} opened, {attack.closed} closed by the server, {served} served"


def each(attack: Attack) -> Callable[[str], Attack]:
    """Attackers each of its own (their setup in ``attack``)."""
    return lambda base: attack


@dataclass(frozen=True)
class Phase:
    attack: Callable[[str], Attack]  # made once a phase (a setup shared by its attackers)
    attackers: int = ATTACKERS
    victim_hints: bool = False


PHASES: dict[str, Phase] = {
    "hint": Phase(each(attack_hint)),
    "analysis": Phase(each(attack_analysis)),
    "winnable": Phase(each(attack_winnable)),
    "flood": Phase(refusals(FLOOD), attackers=6),
    "refused": Phase(refusals(REFUSED), attackers=6),
    "starve": Phase(each(attack_starve), attackers=6, victim_hints=True),
    "players": Phase(each(attack_players)),
}
# Every phase, in the order they run: the attacks, then the slow heads.
ALL_PHASES = [*PHASES, SLOW_HEADS_PHASE]


def attackers(base: str, spec: Phase, stop: Event, out: Queue[dict[int, int]]) -> None:
    """The phase's attackers, as threads of this process, until ``stop``; what they got
    goes to ``out``."""
    got: Counter[int] = Counter()
    attack = spec.attack(base)

    def attacker() -> None:
        _stopping.event = stop
        with httpx.Client(base_url=base, timeout=120) as c, suppress(_Stop):
            attack(c, got)

    threads = [threading.Thread(target=attacker) for _ in range(spec.attackers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.put(dict(got))


def phase(base: str, spec: Phase | None, seconds: float) -> tuple[VictimFigures, Counter[int]]:
    """The victim's figures while ``spec``'s attackers run in a process of their own: as
    threads of the victim's they would take its interpreter lock from it, and measure
    the bench's own client rather than the server."""
    figures = VictimFigures()
    with httpx.Client(base_url=base, timeout=60) as c:
        game = _game(c, UNDO_RULES)
    if spec is None:
        victim(base, game, seconds, figures)
        return figures, Counter()
    context = multiprocessing.get_context("fork")  # the phase's attack, closures and all
    stop = context.Event()
    out: Queue[dict[int, int]] = context.Queue()
    process = context.Process(target=attackers, args=(base, spec, stop, out))
    process.start()
    time.sleep(0.5)  # the attack under way before the victim's clock starts
    victim(base, game, seconds, figures, hints=spec.victim_hints)
    stop.set()
    got = Counter(out.get(timeout=300))
    process.join()
    return figures, got


def history_figures(base: str, database_url: str, pairs: int) -> tuple[float, float]:
    """Medians of get_game on a 10-move game and on a 10,000-move one, interleaved."""
    with httpx.Client(base_url=base, timeout=60) as c:
        short, short_auth = _game(c, UNDO_RULES)
        long, long_auth = _game(c, UNDO_RULES)
        for move in ("draw", "undo") * 5:
            c.post(f"/v1/games/{short}/moves", json={"move": move}, headers=short_auth)
        lengthen(database_url, long, LONG_HISTORY)
        assert c.get(f"/v1/games/{long}", headers=long_auth).json()["version"] == LONG_HISTORY
        times: dict[str, list[float]] = {"short": [], "long": []}
        for i in range(pairs):
            order = [("short", short, short_auth), ("long", long, long_auth)]
            for name, gid, auth in order if i % 2 else order[::-1]:
                t0 = time.perf_counter()
                assert c.get(f"/v1/games/{gid}", headers=auth).status_code == 200
                times[name].append(time.perf_counter() - t0)
    return statistics.median(times["short"]), statistics.median(times["long"])


def lengthen(database_url: str, game_id: str, moves: int) -> None:
    """Draw and undo in turn until the game holds ``moves`` moves: untimed setup, in this
    process through the service the server runs (one transaction), much quicker than HTTP."""
    from app.games.service import GameService, MoveAsked, rehydrate
    from app.kit.database import make_database

    settings = Settings(database_url=database_url, max_moves_per_game=moves + 100)

    async def lengthened() -> None:
        database = make_database(settings)
        try:
            async with database.sessions() as session:
                service = GameService(session, settings)
                row = await service.get(game_id)
                assert row is not None
                for i in range(moves - row.version):
                    await service.move(rehydrate(row), MoveAsked("draw" if i % 2 == 0 else "undo"))
                await session.commit()
        finally:
            await database.dispose()

    asyncio.run(lengthened())


def report(
    name: str, base: str, database_url: str, seconds: float, pairs: int, phases: Sequence[str]
) -> None:
    print(
        f"\n### {name}: one worker, {seconds:g} s a phase "
        f"(slow-heads: {SLOW_HEADS} connections, {max(seconds, 3 * HEAD_DEADLINE_S):g} s)"
    )
    print(
        f"  {'phase':<10} {'get p50':>8} {'p99':>7} {'move p50':>9} {'p99':>7} {'max':>7} "
        f"{'p50 x idle':>10}  attackers got"
    )
    idle, _ = phase(base, None, seconds)
    rows = [("idle", idle, Counter[int]())]
    for label in phases:
        if label == SLOW_HEADS_PHASE:
            figures, closed = slow_heads_phase(base, seconds)
            rows.append((label, figures, Counter[int]()))
            continue
        figures, got = phase(base, PHASES[label], seconds)
        rows.append((label, figures, got))
    worst_ratio = 0.0
    worst_wait = 0.0
    hints: Counter[int] = Counter()
    for label, figures, got in rows:
        ratio = figures.p50() / idle.p50()
        wait = max(figures.reads + figures.moves)
        if label != "idle" and label != "players":
            worst_ratio = max(worst_ratio, ratio)
        if label != "idle":
            worst_wait = max(worst_wait, wait)
        hints += figures.hints
        statuses = ", ".join(f"{n}x{s}" for s, n in sorted(got.items())) or "-"
        if label == SLOW_HEADS_PHASE:
            statuses = closed
        asked = ", ".join(f"{n}x{s}" for s, n in sorted(figures.hints.items()))
        print(
            f"  {label:<10} {1000 * percentile(figures.reads, 50):>7.1f}ms "
            f"{1000 * percentile(figures.reads, 99):>6.1f} "
            f"{1000 * percentile(figures.moves, 50):>8.1f}ms "
            f"{1000 * percentile(figures.moves, 99):>6.1f} {1000 * wait:>6.0f}ms "
            f"{ratio:>9.2f}x  {statuses}" + (f"; the victim's hints: {asked}" if asked else "")
        )
    verdict = "met" if worst_ratio <= VICTIM_P50_GOAL else "MISSED"
    print(f"goal: the victim's p50 within {VICTIM_P50_GOAL}x of idle: worst {worst_ratio:.2f}x")
    print(f"  {verdict}; the players phase (no attack, plain load) sets the scale")
    verdict = "met" if worst_wait <= WAIT_GOAL_S else "MISSED"
    print(f"goal: no victim request over {WAIT_GOAL_S:g} s: longest {worst_wait:.3f} s {verdict}")
    if hints:
        refused = sum(n for status, n in hints.items() if status != 200)
        verdict = "met" if refused == 0 else "MISSED"
        print(f"goal: no hint of the victim's refused: {refused} of {hints.total()} {verdict}")
    if list(phases) != ALL_PHASES:
        return  # a few phases, to look at them: no long history
    short, long = history_figures(base, database_url, pairs)
    ratio = long / short
    verdict = "met" if ratio <= HISTORY_GOAL else "MISSED"
    print(
        f"goal: get_game at {LONG_HISTORY:,} moves <= {HISTORY_GOAL}x at 10 ({pairs} interleaved "
        f"pairs, medians): {1000 * short:.2f} ms vs {1000 * long:.2f} ms -> {ratio:.2f}x {verdict}"
    )


def run(argv: Sequence[str]) -> None:
    seconds = 3.0 if "--quick" in argv else 6.0
    pairs = 20 if "--quick" in argv else 50
    phases = ALL_PHASES
    if "--phases" in argv:
        phases = argv[argv.index("--phases") + 1].split(",")
        unknown = set(phases) - set(ALL_PHASES)
        if unknown:
            raise SystemExit(
                f"no such phase: {', '.join(sorted(unknown))} (of {', '.join(ALL_PHASES)})"
            )
    began = time.perf_counter()
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'abuse.sqlite3'}"
        with abuse_server(url) as server:
            report("SQLite", server.base, url, seconds, pairs, phases)
    if "--sqlite-only" not in argv:
        with postgres_database_or_none() as pg:
            if pg is not None:
                with abuse_server(pg) as server:
                    report("PostgreSQL", server.base, pg, seconds, pairs, phases)
    print(f"\n(abuse bench took {time.perf_counter() - began:.0f} s)")
