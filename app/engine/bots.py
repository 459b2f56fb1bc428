"""Bots that play from the player's view alone, and how to compare them.

A strategy sees ``player_view(state)`` and nothing else of the game (it cannot peek), and
answers a ``Decision``: the move, and for the hints the chance of winning they gave. A
bot's games are kept as ``GameRecord`` so that several strategies can be set side by
side on the same deals (``summarise``, ``report``): the share of games won with its 95% (Wilson)
interval, the time a decision takes (p50, p99), and for the hints how well their win
chance is calibrated: in each decile of the chance they said, the share of those
positions from which the game was then actually won, and the Brier score (the mean
squared gap between the chance said and the outcome; 0.25 is what always saying 50%
scores on a fair coin).

Strategies by name (``STRATEGIES``):
- ``random``: any legal move but undo and concede.
- ``greedy``: a card when one fits (the one holding up the most cards, then the highest
  on the table), else a draw, else a redeal.
- ``pimc``: ``app.engine.hints.sampled_hint``, the hint's moves with the share of samples
  won as its chance (uncalibrated), as the hint was up to 2026-12: every move solved on
  the same samples with every card known, the move winning the most. (Its figures in
  docs/research/hints.md were taken with the code of that time, whose searches were pure Python.)
- ``planned``: ``app.engine.hints.planned_hint``, an attempt (docs/research/hints.md).
- ``hint``: the server's hint (``app.engine.hints.hint``).
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.engine.calibration import wilson
from app.engine.deals import numbered_deal
from app.engine.game import apply, new_game
from app.engine.layouts import Layout
from app.engine.rules import Rules
from app.engine.solver import SearchBudget
from app.engine.view import player_view


@dataclass(frozen=True, slots=True)
class Decision:
    move: str
    win_chance: float | None = None  # the hint's chance of winning, None for a plain bot
    sample_share: float | None = None  # the share of its samples won, every card known
    samples: int = 0


# (view, game number) -> decision. The game number seeds a strategy's randomness.
Strategy = Callable[[dict[str, Any], int], Decision]


@dataclass(frozen=True, slots=True)
class HintSettings:
    """How a hint strategy is run: at most ``samples`` samples, within ``seconds`` when
    given (the server's form), ``nodes`` nodes a search."""

    samples: int = 64
    seconds: float | None = 0.25
    nodes: int = 20_000


@dataclass(slots=True)
class GameRecord:
    """One game: its deal number, the outcome, the final score, how long each decision
    took (positions with one move only are played without asking) and, for the hints,
    the chance said at each decision."""

    deal: int
    won: bool
    score: int
    seconds: list[float] = field(default_factory=list)
    chances: list[float] = field(default_factory=list)
    shares: list[float] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "deal": self.deal,
            "won": self.won,
            "score": self.score,
            "seconds": [round(s, 5) for s in self.seconds],
            "chances": [round(c, 4) for c in self.chances],
            "shares": [round(c, 4) for c in self.shares],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameRecord:
        return cls(
            int(d["deal"]),
            bool(d["won"]),
            int(d["score"]),
            [float(s) for s in d["seconds"]],
            [float(c) for c in d["chances"]],
            [float(c) for c in d.get("shares", d["chances"])],
        )


def _playable(view: dict[str, Any]) -> list[str]:
    return [m for m in view["legal_moves"] if m not in ("undo", "concede")]


def random_strategy(rules: Rules, layout: Layout, settings: HintSettings) -> Strategy:
    rngs: dict[int, random.Random] = {}

    def choose(view: dict[str, Any], game: int) -> Decision:
        rng = rngs.setdefault(game, random.Random(game))
        return Decision(rng.choice(_playable(view)))

    return choose


def greedy_strategy(rules: Rules, layout: Layout, settings: HintSettings) -> Strategy:
    def weight(m: str) -> tuple[int, int]:
        p = int(m.split()[1])
        return (len(layout.covers[p]), -layout.positions[p].row)

    def choose(view: dict[str, Any], game: int) -> Decision:
        legal: list[str] = view["legal_moves"]
        plays = [m for m in legal if m.startswith("play ")]
        if plays:
            return Decision(max(plays, key=weight))
        for m in ("draw", "redeal"):
            if m in legal:
                return Decision(m)
        return Decision("concede")  # pragma: no cover - a game with no move is over

    return choose


def hint_arguments(view: dict[str, Any], game: int, settings: HintSettings) -> dict[str, Any]:
    """How a hint strategy asks for its move: seeded by the game and the move (the same
    samples whenever that position is asked about again), under ``settings``."""
    return {
        "seed": game * 1000 + int(view["moves_made"]),
        "time_budget": settings.seconds,
        "max_samples": settings.samples,
        "sample_budget": SearchBudget(max_nodes=settings.nodes),
    }


def _hint_strategy(name: str) -> Callable[[Rules, Layout, HintSettings], Strategy]:
    def make(rules: Rules, layout: Layout, settings: HintSettings) -> Strategy:
        from app.engine import hints

        function = getattr(hints, name)

        def choose(view: dict[str, Any], game: int) -> Decision:
            h = function(view, rules, layout, **hint_arguments(view, game, settings))
            assert h.move is not None
            if h.exact:  # nothing hidden: not a chance to calibrate
                return Decision(h.move)
            return Decision(h.move, h.win_chance, h.sample_share, h.samples)

        return choose

    return make


STRATEGIES: dict[str, Callable[[Rules, Layout, HintSettings], Strategy]] = {
    "random": random_strategy,
    "greedy": greedy_strategy,
    "pimc": _hint_strategy("sampled_hint"),
    "planned": _hint_strategy("planned_hint"),
    "hint": _hint_strategy("hint"),
}


def play_game(strategy: Strategy, rules: Rules, layout: Layout, deal: int) -> GameRecord:
    """Play numbered deal ``deal`` to its end; a position with one move is played
    without asking the strategy."""
    state = new_game(numbered_deal(deal, layout.decks, rules.jokers), rules, layout)
    seconds: list[float] = []
    chances: list[float] = []
    shares: list[float] = []
    while not state.is_over:
        view = player_view(state)
        moves = _playable(view)
        if len(moves) == 1:
            state = apply(state, moves[0])
            continue
        began = time.perf_counter()
        decision = strategy(view, deal)
        seconds.append(time.perf_counter() - began)
        if decision.win_chance is not None:
            chances.append(decision.win_chance)
            shares.append(
                decision.sample_share if decision.sample_share is not None else decision.win_chance
            )
        state = apply(state, decision.move)
    return GameRecord(
        deal, state.outcome.value == "won", state.score.total, seconds, chances, shares
    )


# ---------------------------------------------------------------------------------------
# Comparing


def percentile(values: Sequence[float], q: float) -> float:
    """The q-quantile (0-1) by the nearest rank; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1))
    return ordered[k]


@dataclass(frozen=True, slots=True)
class Bin:
    """A decile of the chance said: how many decisions, the mean chance said, the share
    of them whose game was won, and its 95% interval."""

    low: float
    high: float
    count: int
    said: float
    won: float
    ci95: tuple[float, float]


def calibration(pairs: Sequence[tuple[float, bool]]) -> tuple[list[Bin], float | None]:
    """The reliability table in deciles of the chance said, and the Brier score, of
    (chance said, game won) pairs."""
    bins = []
    for d in range(10):
        low, high = d / 10, (d + 1) / 10
        inside = [(p, w) for p, w in pairs if low <= p < high or (d == 9 and p == 1.0)]
        if not inside:
            continue
        won = sum(w for _, w in inside)
        bins.append(
            Bin(
                low,
                high,
                len(inside),
                statistics.fmean(p for p, _ in inside),
                won / len(inside),
                wilson(won, len(inside)),
            )
        )
    brier = statistics.fmean((p - w) ** 2 for p, w in pairs) if pairs else None
    return bins, brier


@dataclass(frozen=True, slots=True)
class Summary:
    name: str
    games: int
    won: int
    ci95: tuple[float, float]
    mean_score: float
    decisions: int
    p50: float
    p99: float
    bins: list[Bin]
    brier: float | None

    @property
    def rate(self) -> float:
        return self.won / self.games if self.games else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "strategy": self.name,
            "games": self.games,
            "won": self.won,
            "win_rate": round(self.rate, 4),
            "win_rate_ci95": [round(x, 4) for x in self.ci95],
            "mean_score": round(self.mean_score, 3),
            "decisions": self.decisions,
            "decision_seconds_p50": round(self.p50, 4),
            "decision_seconds_p99": round(self.p99, 4),
            "brier": round(self.brier, 4) if self.brier is not None else None,
            "calibration": [
                {
                    "said": f"{b.low:.1f}-{b.high:.1f}",
                    "count": b.count,
                    "mean_said": round(b.said, 4),
                    "won": round(b.won, 4),
                    "won_ci95": [round(x, 4) for x in b.ci95],
                }
                for b in self.bins
            ],
        }


def summarise(name: str, records: Sequence[GameRecord]) -> Summary:
    won = sum(r.won for r in records)
    times = [s for r in records for s in r.seconds]
    bins, brier = calibration([(c, r.won) for r in records for c in r.chances])
    return Summary(
        name,
        len(records),
        won,
        wilson(won, len(records)),
        statistics.fmean(r.score for r in records) if records else 0.0,
        len(times),
        percentile(times, 0.5),
        percentile(times, 0.99),
        bins,
        brier,
    )


def paired(a: Sequence[GameRecord], b: Sequence[GameRecord]) -> tuple[int, int]:
    """On the deals both played: how many only ``a`` won, and how many only ``b`` won."""
    won_b = {r.deal: r.won for r in b}
    only_a = sum(1 for r in a if r.deal in won_b and r.won and not won_b[r.deal])
    only_b = sum(1 for r in a if r.deal in won_b and not r.won and won_b[r.deal])
    return only_a, only_b


def report(summaries: Sequence[Summary], records: Mapping[str, Sequence[GameRecord]]) -> str:
    """The side-by-side table, the paired counts of each hint against the others, and
    each hint's calibration table."""
    lines = [
        f"  {'strategy':<10} {'games':>6} {'won':>6} {'win %':>7} {'95% CI':>15}"
        f" {'score':>7} {'decisions':>9} {'p50 ms':>8} {'p99 ms':>8} {'Brier':>6}"
    ]
    for s in summaries:
        brier = f"{s.brier:.3f}" if s.brier is not None else "-"
        lines.append(
            f"  {s.name:<10} {s.games:>6} {s.won:>6} {100 * s.rate:>6.1f}%"
            f" {100 * s.ci95[0]:>6.1f}-{100 * s.ci95[1]:>5.1f}%"
            f" {s.mean_score:>7.1f} {s.decisions:>9} {1000 * s.p50:>8.1f}"
            f" {1000 * s.p99:>8.1f} {brier:>6}"
        )
    names = [s.name for s in summaries]
    for i, a in enumerate(names):
        for other in names[i + 1 :]:
            only_a, only_b = paired(records[a], records[other])
            lines.append(f"  paired: {only_a} deals won by {a} alone, {only_b} by {other} alone")
    for s in summaries:
        if not s.bins:
            continue
        lines.append(f"  calibration of {s.name} (chance said -> games won from there):")
        for b in s.bins:
            lines.append(
                f"    said {b.low:.1f}-{b.high:.1f}: {b.count:>6} decisions, mean said"
                f" {b.said:.3f}, won {b.won:.3f} ({b.ci95[0]:.3f}-{b.ci95[1]:.3f})"
            )
    return "\n".join(lines)
