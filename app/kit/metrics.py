"""The Prometheus instruments every part of the server counts with (``/metrics``, in
``app.ops.metrics``, serves them).

Labels are bounded: a route is its template (``/v1/games/{game_id}``, or ``unmatched``),
never a raw path, so no id ever becomes a label value.

With several worker processes ``PROMETHEUS_MULTIPROC_DIR`` names a fresh, writable
directory (the container's entrypoint sets it): every worker then writes its values there.
prometheus_client reads that variable when it is first imported, so it must be set before
the server starts.

The solver and hint endpoints time their work with ``observe_solver`` and
``observe_hint`` (or ``with timed(SOLVER_SECONDS, result=...)``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from prometheus_client import Counter, Gauge, Histogram

NAMESPACE = "tripeaks"
LATENCY_BUCKETS = (0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
SOLVER_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

HTTP_REQUESTS = Counter(
    "http_requests",
    "HTTP requests answered, by method, route template and status",
    ["method", "route", "status"],
    namespace=NAMESPACE,
)
HTTP_LATENCY = Histogram(
    "http_request_duration_seconds",
    "Time to answer an HTTP request, by method and route template",
    ["method", "route"],
    namespace=NAMESPACE,
    buckets=LATENCY_BUCKETS,
)
HTTP_IN_PROGRESS = Gauge(
    "http_requests_in_progress",
    "HTTP requests being served now, by method",
    ["method"],
    namespace=NAMESPACE,
    multiprocess_mode="livesum",
)
GAMES_CREATED = Counter(
    "games_created", "Games created, by layout", ["layout"], namespace=NAMESPACE
)
GAMES_ENDED = Counter(
    "games_ended",
    "Games ended, by outcome (won, lost, conceded)",
    ["outcome"],
    namespace=NAMESPACE,
)
MOVES_APPLIED = Counter(
    "moves_applied",
    "Moves applied and stored, by kind (play, draw, redeal, undo, concede)",
    ["kind"],
    namespace=NAMESPACE,
)
CONFLICTS = Counter(
    "conflicts",
    "Moves refused because the game changed: 409 (a racing move won) or 412 (stale If-Match)",
    ["status"],
    namespace=NAMESPACE,
)
SOLVER_SECONDS = Histogram(
    "solver_seconds",
    "Time the solver spent on one search, by result (solved, unsolvable, budget_exhausted)",
    ["result"],
    namespace=NAMESPACE,
    buckets=SOLVER_BUCKETS,
)
HINT_SECONDS = Histogram(
    "hint_seconds",
    "Time to answer a hint, by result (found, none, budget_exhausted)",
    ["result"],
    namespace=NAMESPACE,
    buckets=SOLVER_BUCKETS,
)
WORK_REFUSED = Counter(
    "work_refused",
    "Solver searches refused at once (503) because the worker's slots were all taken, by kind",
    ["kind"],
    namespace=NAMESPACE,
)
RATE_LIMITED = Counter(
    "rate_limited",
    "Requests refused with 429 because the client's budget was spent, by budget",
    ["budget"],
    namespace=NAMESPACE,
)
RATE_LIMIT_ERRORS = Counter(
    "rate_limit_errors",
    "Rate-limit storage failures (Redis away): the requests were served without limits",
    namespace=NAMESPACE,
)
GAMES_PURGED = Counter(
    "games_purged",
    "Games and players deleted by the purge (python -m app.ops.purge), by reason "
    "(abandoned, finished, closed_challenge, over_cap: games; idle_player: players)",
    ["reason"],
    namespace=NAMESPACE,
)


def game_created(layout: str) -> None:
    GAMES_CREATED.labels(layout=layout).inc()


def move_applied(kind: str, outcome: str) -> None:
    """One stored move; ``outcome`` is the game's status after it."""
    MOVES_APPLIED.labels(kind=kind).inc()
    if outcome in ("won", "lost", "conceded"):
        GAMES_ENDED.labels(outcome=outcome).inc()


def conflict(status: int) -> None:
    CONFLICTS.labels(status=str(status)).inc()


def work_refused(kind: str) -> None:
    WORK_REFUSED.labels(kind=kind).inc()


def rate_limited(budget: str) -> None:
    RATE_LIMITED.labels(budget=budget).inc()


def rate_limit_error() -> None:
    RATE_LIMIT_ERRORS.inc()


def games_purged(reason: str, count: int) -> None:
    GAMES_PURGED.labels(reason=reason).inc(count)


def observe_solver(seconds: float, result: str = "solved") -> None:
    SOLVER_SECONDS.labels(result=result).observe(seconds)


def observe_hint(seconds: float, result: str = "found") -> None:
    HINT_SECONDS.labels(result=result).observe(seconds)


@contextmanager
def timed(histogram: Histogram, **labels: str) -> Iterator[None]:
    """Observe the time the ``with`` block takes (labels fixed at the start)."""
    start = time.perf_counter()
    try:
        yield
    finally:
        histogram.labels(**labels).observe(time.perf_counter() - start)
