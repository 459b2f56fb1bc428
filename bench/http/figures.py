"""What ``python -m bench http`` measures and its goals: the sizes of a run, the phases'
latencies and CPU, and the figures made of them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

CLIENTS = 4  # the loaded figures; the unloaded ones use one client
TIME_GOAL = 3.0  # a move costs at most this many bare requests by time...
CPU_GOAL = 4.0  # ... and this many by the server's CPU
SCALE_WORKERS = 2  # PostgreSQL again, with this many workers
SCALE_CLIENTS = 8  # and this many clients
DEPTH_GOAL = 1.5  # move 60 costs at most this many times move 1
DEEP_MOVE = 60
# Classic tripeaks has 23 stock cards: with two redeals, draws alone reach move 71.
DEEP_RULES = {"redeals": 2}


@dataclass(frozen=True)
class Sizes:
    rounds: int
    bare: int  # requests per client per round, for each bare route
    games: int  # games created per client per round
    moves_per_game: int  # make_move requests on each created game
    reads: int  # list_legal_moves requests per client per round, and as many get_game
    pairs: int  # move 1 / move 60 pairs

    @staticmethod
    def chosen(quick: bool, side_by_side: bool = False) -> Sizes:
        """The sizes (``quick``: ``--quick``'s); ``side_by_side`` (``--baseline``): about
        as many requests in three times as many rounds, so that the two servers take turns
        more often (on the same code, in one trial, the round-by-round ratios' medians
        strayed half as far from 1)."""
        if quick:
            if side_by_side:
                return Sizes(rounds=4, bare=15, games=2, moves_per_game=4, reads=8, pairs=10)
            return Sizes(rounds=2, bare=30, games=4, moves_per_game=4, reads=16, pairs=10)
        if side_by_side:
            return Sizes(rounds=15, bare=27, games=4, moves_per_game=4, reads=16, pairs=20)
        # Five rounds of 48 moves a client: with three of 32, the median round of one
        # client swung by half a bare request from run to run on the same code.
        return Sizes(rounds=5, bare=80, games=12, moves_per_game=4, reads=48, pairs=20)


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
