"""The in-process budgets (``LocalStorage``) through the ``limits`` library's own
sliding-window strategy, on a clock the test moves: the counts against a plain model of
the sliding window, the previous window's weight, and the keys forgotten once both their
windows have ended (what keeps each call's cost flat however many clients there were)."""

from __future__ import annotations

import asyncio
import math
import random
from collections import defaultdict

from limits import parse
from limits.aio.strategies import SlidingWindowCounterRateLimiter

from app.kit.ratelimit import LocalStorage


class Clock:
    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_quota_is_spent_then_refused_and_each_key_has_its_own() -> None:
    clock = Clock(1000.25)
    limiter = SlidingWindowCounterRateLimiter(LocalStorage(clock))
    item = parse("3/minute")

    async def play() -> None:
        assert [await limiter.hit(item, "move", "a") for _ in range(4)] == [
            True,
            True,
            True,
            False,
        ]
        assert (await limiter.get_window_stats(item, "move", "a")).remaining == 0
        assert await limiter.hit(item, "move", "b")
        assert await limiter.hit(item, "read", "a")  # another budget: another key
        assert not await limiter.test(item, "move", "a")

    asyncio.run(play())


def test_the_previous_window_weighs_by_the_part_of_it_still_inside_the_sliding_window() -> None:
    clock = Clock(0.0)
    limiter = SlidingWindowCounterRateLimiter(LocalStorage(clock))
    item = parse("10/minute")

    async def play() -> None:
        for _ in range(10):
            assert await limiter.hit(item, "move", "a")
        # The next window: 59.5 s of the last one still count, 10 * 59.5 / 60 = 9.9,
        # counted whole as 9 (the library's rounding): one more, then no more.
        clock.now = 60.5
        assert [await limiter.hit(item, "move", "a") for _ in range(2)] == [True, False]
        clock.now = 90.0  # half of it: 10 * 0.5 + 1 = 6 counted, 4 left
        stats = await limiter.get_window_stats(item, "move", "a")
        assert stats.remaining == 4
        assert [await limiter.hit(item, "move", "a") for _ in range(5)] == [True] * 4 + [False]
        clock.now = 240.0  # two windows later: nothing counts
        assert (await limiter.get_window_stats(item, "move", "a")).remaining == 10

    asyncio.run(play())


def test_random_hits_agree_with_a_plain_model_of_the_sliding_window() -> None:
    """The model keeps every hit and counts the current window plus the previous one
    weighted by how much of it the sliding window still covers."""
    rng = random.Random(27)
    clock = Clock(rng.uniform(0, 1000))
    storage = LocalStorage(clock)
    limiter = SlidingWindowCounterRateLimiter(storage)
    items = [parse("5/10 seconds"), parse("12/minute")]
    counted: dict[tuple[str, int, int], int] = defaultdict(int)  # key, expiry, window

    def model_hit(key: str, limit: int, expiry: int) -> bool:
        index = math.floor(clock.now / expiry)
        left = (index + 1) * expiry - clock.now
        weight = left / expiry
        weighted = counted[key, expiry, index - 1] * weight + counted[key, expiry, index]
        if math.floor(weighted) + 1 > limit:
            return False
        counted[key, expiry, index] += 1
        return True

    async def play() -> None:
        for _ in range(3000):
            clock.now += rng.expovariate(1 / 0.7)
            item = rng.choice(items)
            key = rng.choice("abc")
            expected = model_hit(item.key_for("move", key), item.amount, item.get_expiry())
            assert await limiter.hit(item, "move", key) == expected

    asyncio.run(play())


def test_keys_are_forgotten_once_both_their_windows_have_ended_and_not_before() -> None:
    clock = Clock(0.0)
    storage = LocalStorage(clock)
    limiter = SlidingWindowCounterRateLimiter(storage)
    item = parse("100/minute")

    async def play() -> None:
        for k in range(1000):
            await limiter.hit(item, "move", f"client-{k}")
        clock.now = 119.0  # the next window: their counts still weigh
        await limiter.hit(item, "move", "late")
        assert len(storage) == 1001
        clock.now = 120.0  # the one after: they weigh nothing and are gone
        await limiter.hit(item, "move", "later")
        assert len(storage) == 2  # "late" (its previous window still weighs) and "later"

    asyncio.run(play())


def test_the_fixed_window_counters_of_the_interface_count_and_expire() -> None:
    clock = Clock(100.0)
    storage = LocalStorage(clock)

    async def play() -> None:
        assert await storage.incr("k", 10) == 1
        assert await storage.incr("k", 10, amount=2) == 3
        assert await storage.get("k") == 3
        assert await storage.get_expiry("k") == 110.0
        clock.now = 110.0
        assert await storage.get("k") == 0
        assert await storage.incr("k", 10) == 1
        await storage.clear("k")
        assert await storage.get("k") == 0
        assert await storage.check()
        await storage.incr("j", 10)
        assert await storage.reset() == 1 and len(storage) == 0

    asyncio.run(play())
