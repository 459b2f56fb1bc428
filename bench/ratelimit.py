"""What one rate-limit check costs in process memory, as the clients in the window grow.

A check is what every limited route does: ``hit`` then ``get_window_stats`` of
``limits.aio``'s sliding-window counters, for one client, after ``clients`` other clients
have each spent a request in the same window. Two storages: this server's own
``LocalStorage`` (``memory://``), and the library's ``async+memory://``, which walks
every key it holds on every hit to expire the old ones. Each figure is set against the
same storage's with 10 clients, and ``LocalStorage`` against the library's, in one run.

Goal: ``LocalStorage``'s check at 100,000 clients within 1.5x of its check at 10.
``python -m bench ratelimit --quick`` stops at 10,000 clients.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Callable, Sequence

from limits import parse
from limits.aio.storage import Storage
from limits.aio.strategies import SlidingWindowCounterRateLimiter
from limits.storage import storage_from_string

from app.kit.ratelimit import LocalStorage

CHECKS = 2000


def _library() -> Storage:
    storage = storage_from_string("async+memory://")
    assert isinstance(storage, Storage)
    return storage


STORAGES: dict[str, Callable[[], Storage]] = {
    "LocalStorage": LocalStorage,
    "limits async+memory://": _library,
}


async def _check_us(make: Callable[[], Storage], clients: int, checks: int) -> float:
    """Microseconds a check, median of five runs of ``checks``."""
    limiter = SlidingWindowCounterRateLimiter(make())
    item = parse("1000000/minute")
    for k in range(clients):
        await limiter.hit(item, "read", f"client-{k}")
    runs = []
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(checks):
            await limiter.hit(item, "read", "me")
            await limiter.get_window_stats(item, "read", "me")
            await asyncio.sleep(0)  # a request's turn of the event loop: expiry tasks run
        runs.append((time.perf_counter() - started) / checks * 1e6)
    return statistics.median(runs)


def run(argv: Sequence[str]) -> None:
    sizes = (10, 1_000, 10_000) if "--quick" in argv else (10, 1_000, 10_000, 100_000)
    print("One rate-limit check (hit + window stats), microseconds; 'x 10': against the same")
    print("storage with 10 clients; 'x library': LocalStorage against limits' own memory storage.")
    figures: dict[str, dict[int, float]] = {name: {} for name in STORAGES}
    for clients in sizes:
        for name, make in STORAGES.items():
            # The library's storage at 100,000 clients takes seconds a check run: fewer.
            checks = CHECKS if name == "LocalStorage" or clients <= 1_000 else 100
            figures[name][clients] = asyncio.run(_check_us(make, clients, checks))
    print(
        f"  {'clients':>8}"
        + "".join(f" {name:>24} {'x 10':>6}" for name in STORAGES)
        + "  x library"
    )
    for clients in sizes:
        row = f"  {clients:>8}"
        for name in STORAGES:
            us = figures[name][clients]
            row += f" {us:>24.1f} {us / figures[name][10]:>5.2f}x"
        ours, theirs = figures["LocalStorage"][clients], figures["limits async+memory://"][clients]
        print(f"{row}  {ours / theirs:>8.3f}x")
    top = sizes[-1]
    ratio = figures["LocalStorage"][top] / figures["LocalStorage"][10]
    verdict = "met" if ratio <= 1.5 else "MISSED"
    print(f"goal: LocalStorage at {top:,} clients <= 1.5x at 10: {ratio:.2f}x {verdict}")
