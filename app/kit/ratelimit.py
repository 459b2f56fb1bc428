"""Rate limits per client, with separate budgets for reads, moves, game creation, solver
calls and refusals (the ``limits`` library's sliding-window counters, through its asyncio
API, ``limits.aio``: the event loop awaits Redis, it never blocks on it).

- **The client** is a verified identity: the credential the request carries
  (``Authorization: Bearer``: a game token or a player key), known by its SHA-256 only,
  once that credential has opened something in this process (``verified``: the routes'
  access checks say so); any other request, one with no credential or with a made-up one,
  is known by its address (``X-Forwarded-For`` counts only from
  ``FORWARDED_ALLOW_IPS``). A bearer per request buys no fresh budget: a string nobody
  verified spends its address's. Creating a player spends the address's budget whatever
  the request carries (``by_address``). A process remembers the last
  ``VERIFIED_REMEMBERED`` credentials it verified or issued (``issued``); a credential's
  first request in a process that did neither (another worker, another replica, after a
  restart) spends the address's budget, and every one after it its own.
- **Storage**: in process memory by default (``memory://``: one worker, one budget), in
  ``LocalStorage``, this module's own implementation of the library's public storage
  interface: the library's ``async+memory://`` walks every key it holds on every hit to
  expire the old ones, so that a check's cost grows with the clients in the window,
  where this one's stays flat (``python -m bench ratelimit``; docs/performance.md);
  ``redis://`` in ``RATE_LIMIT_STORAGE_URL`` (``async+redis://``, redis-py's asyncio
  client) shares the budgets between workers and replicas. When Redis does not answer
  (``limits.errors.StorageError``: the storage's errors, wrapped by the library), requests
  are served (fail open), a warning is logged and ``tripeaks_rate_limit_errors_total``
  counts it; Redis is then left alone for a few seconds, so that a dead Redis costs no
  request a timeout.
- **Refusals** spend a budget too: a request refused (4xx) before its route spent one (a
  body too large or malformed, a key given twice, no such route, no credential where one
  is needed) spends one of its client's ``refused`` budget (``RefusedBudget``, the
  middleware, calls ``refused``). Once that is spent, every request of the client is
  answered 429 before its body is read, until the window has room: a refusal costs the
  worker a parse at most ``RATE_LIMIT_REFUSED`` times a window, and nothing after. The
  check before the body is this process's memory of the storage's last refusal
  (``Barred``), so that it costs no storage call: with Redis, each process lets at most
  one refused request of a client through past the shared budget before it bars it too.
- **Headers** (draft-ietf-httpapi-ratelimit-headers-09): every answer of a limited route
  carries ``RateLimit-Policy: "<budget>";q=<quota>;w=<window s>`` and
  ``RateLimit: "<budget>";r=<remaining>;t=<seconds to reset>``; over the limit the answer
  is a 429 problem with those and ``Retry-After``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from fastapi import Depends, Request, Response
from limits import RateLimitItem, parse
from limits.aio.storage import SlidingWindowCounterSupport, Storage
from limits.aio.strategies import SlidingWindowCounterRateLimiter
from limits.errors import StorageError
from limits.storage import storage_from_string
from pydantic import Field

from app.kit import metrics
from app.kit.auth import BearerDep
from app.kit.errors import Member, ProblemError

log = logging.getLogger("app.ratelimit")

DRAFT = "draft-ietf-httpapi-ratelimit-headers-09"
REDIS_TIMEOUT_S = 0.25  # a request never waits longer than this on Redis
REDIS_PAUSE_S = 5.0  # after a Redis failure, budgets are not checked for this long


# The budgets a client spends: each route spends one. (No docstring: it would be the
# enum's description in the committed spec.)
class Budget(StrEnum):
    READ = "read"
    MOVE = "move"
    CREATE = "create"
    SOLVER = "solver"
    REFUSED = "refused"


RATE_LIMIT_HEADERS: dict[str, dict[str, Any]] = {
    "RateLimit-Policy": {
        "description": f"The budget this request counts against ({DRAFT}): its name, quota "
        "and window (its route's; `refused` on a 429 after too many refusals)",
        "schema": {"type": "string", "example": '"move";q=600;w=60'},
    },
    "RateLimit": {
        "description": f"What is left of it ({DRAFT}): requests remaining, seconds to reset",
        "schema": {"type": "string", "example": '"move";r=597;t=41'},
    },
}


class RateLimitedProblem(ProblemError):
    status = 429
    slug = "rate-limited"
    when = (
        "the client's budget is spent (`budget`: the route's, or `refused` after too many"
        " refusals; `Retry-After`, `RateLimit`, `RateLimit-Policy`); nothing was applied"
    )
    title = "Too many requests"
    response_headers: ClassVar[dict[str, dict[str, Any]]] = {
        **RATE_LIMIT_HEADERS,
        "Retry-After": {
            "description": "Seconds until the budget has room again",
            "schema": {"type": "integer"},
        },
    }
    members: ClassVar[dict[str, Member]] = {
        "budget": (
            Budget,
            Field(
                description="The budget that is spent: read, move, create, solver or refused "
                "(requests refused before any other budget was spent)",
                examples=["move"],
            ),
        ),
    }


@dataclass(frozen=True, slots=True)
class Decision:
    allowed: bool
    budget: Budget
    quota: int
    window_s: int
    remaining: int
    reset_s: int

    def headers(self) -> dict[str, str]:
        name = self.budget.value
        return {
            "RateLimit-Policy": f'"{name}";q={self.quota};w={self.window_s}',
            "RateLimit": f'"{name}";r={self.remaining};t={self.reset_s}',
        }


@dataclass(slots=True)
class _Window:
    """One key's counts: in the window numbered ``index`` (``now // expiry``) and in the
    one before it."""

    expiry: int
    index: int
    current: int = 0
    previous: int = 0

    def at(self, index: int) -> _Window:
        """The counts as they stand in window ``index`` (the same or a later one)."""
        if index != self.index:
            self.previous = self.current if index == self.index + 1 else 0
            self.current = 0
            self.index = index
        return self


class LocalStorage(Storage, SlidingWindowCounterSupport):
    """The budgets of one process in its memory, for ``limits.aio``'s sliding-window
    counters, through the library's public storage interface (``Storage``,
    ``SlidingWindowCounterSupport``; its fixed-window counters too, unused here).

    Each key holds its two windows' counts; every call costs the same however many keys
    there are: the keys are kept in the order they were last used, and each call drops
    the least recently used ones whose windows have both ended (nothing is walked that is
    still alive). Nothing here awaits, so no two requests interleave inside a call:
    a hit's check and its count are one step, without a lock.
    """

    STORAGE_SCHEME = None  # made directly, not from a URL

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        super().__init__(None, wrap_exceptions=True)
        self._clock = clock
        self._windows: OrderedDict[str, _Window] = OrderedDict()
        self._counters: OrderedDict[str, tuple[int, float]] = OrderedDict()  # count, ends

    def __len__(self) -> int:
        """How many keys are held."""
        return len(self._windows) + len(self._counters)

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return ValueError

    def _drop_ended(self, now: float) -> None:
        windows, counters = self._windows, self._counters
        while windows:
            window = next(iter(windows.values()))
            if int(now // window.expiry) <= window.index + 1:
                break
            windows.popitem(last=False)
        while counters and next(iter(counters.values()))[1] <= now:
            counters.popitem(last=False)

    def _window(self, key: str, expiry: int, now: float) -> _Window:
        self._drop_ended(now)
        index = int(now // expiry)
        window = self._windows.get(key)
        if window is None:
            window = self._windows[key] = _Window(expiry, index)
        else:
            self._windows.move_to_end(key)
        return window.at(index)

    def _stats(self, window: _Window, now: float) -> tuple[int, float, int, float]:
        """As the library's storages say them: the previous window's count and the part
        of it that still counts (its weight, in seconds of the window), the current
        window's count and the seconds until it is forgotten."""
        left = (window.index + 1) * window.expiry - now  # of the current window
        previous_ttl = left if window.previous else 0.0
        return window.previous, previous_ttl, window.current, left + window.expiry

    async def acquire_sliding_window_entry(
        self, key: str, limit: int, expiry: int, amount: int = 1
    ) -> bool:
        if amount > limit:
            return False
        now = self._clock()
        window = self._window(key, expiry, now)
        previous, previous_ttl, current, _ = self._stats(window, now)
        if math.floor(previous * previous_ttl / expiry + current) + amount > limit:
            return False
        window.current += amount
        return True

    async def get_sliding_window(self, key: str, expiry: int) -> tuple[int, float, int, float]:
        now = self._clock()
        return self._stats(self._window(key, expiry, now), now)

    async def clear_sliding_window(self, key: str, expiry: int) -> None:
        self._windows.pop(key, None)

    # The fixed-window counters of the interface.
    def _counter(self, key: str, now: float) -> tuple[int, float] | None:
        self._drop_ended(now)
        counter = self._counters.get(key)
        if counter is not None and counter[1] <= now:
            del self._counters[key]
            return None
        return counter

    async def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        now = self._clock()
        count, ends = self._counter(key, now) or (0, now + expiry)
        self._counters[key] = (count + amount, ends)
        self._counters.move_to_end(key)
        return count + amount

    async def get(self, key: str) -> int:
        counter = self._counter(key, self._clock())
        return counter[0] if counter else 0

    async def get_expiry(self, key: str) -> float:
        now = self._clock()
        counter = self._counter(key, now)
        return counter[1] if counter else now

    async def check(self) -> bool:
        return True

    async def reset(self) -> int | None:
        held = len(self)
        self._windows.clear()
        self._counters.clear()
        return held

    async def clear(self, key: str) -> None:
        self._counters.pop(key, None)
        self._windows.pop(key, None)


def _storage(url: str, key_prefix: str) -> Storage:
    """The async storage of ``url`` (``memory://`` or ``redis://``, as the settings
    take it): its errors wrapped as ``StorageError``."""
    if url.startswith("memory://"):
        return LocalStorage()
    storage = storage_from_string(
        "async+" + url,
        wrap_exceptions=True,
        implementation="redispy",
        key_prefix=key_prefix,
        socket_timeout=REDIS_TIMEOUT_S,
        socket_connect_timeout=REDIS_TIMEOUT_S,
    )
    assert isinstance(storage, Storage)  # an async+ scheme makes an async storage
    return storage


# Credentials a process remembers as verified (what that holds: docs/research/memory.md).
VERIFIED_REMEMBERED = 100_000


class Verified:
    """The credentials (by hash) that opened something in this process, the most recently
    seen ``size`` of them."""

    def __init__(self, size: int = VERIFIED_REMEMBERED) -> None:
        self.size = size
        self._hashes: OrderedDict[str, None] = OrderedDict()

    def add(self, credential_hash: str) -> None:
        self._hashes[credential_hash] = None
        self._hashes.move_to_end(credential_hash)
        if len(self._hashes) > self.size:
            self._hashes.popitem(last=False)

    def __contains__(self, credential_hash: object) -> bool:
        return credential_hash in self._hashes


BARRED_REMEMBERED = 10_000  # clients a process remembers as barred, the latest


class Barred:
    """The clients whose ``refused`` budget the storage said was spent, each with when it
    has room again, the latest ``size`` of them (older ones are checked again by the
    storage at their next refusal)."""

    def __init__(
        self, size: int = BARRED_REMEMBERED, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.size = size
        self._clock = clock
        self._until: OrderedDict[str, tuple[float, Decision]] = OrderedDict()

    def bar(self, client: str, decision: Decision) -> None:
        self._until[client] = (self._clock() + decision.reset_s, decision)
        self._until.move_to_end(client)
        if len(self._until) > self.size:
            self._until.popitem(last=False)

    def get(self, client: str) -> Decision | None:
        """The refusal that bars ``client`` now, its reset counted down; None when none
        does."""
        barred = self._until.get(client)
        if barred is None:
            return None
        until, decision = barred
        left = until - self._clock()
        if left <= 0:
            del self._until[client]
            return None
        return dataclasses.replace(
            decision, allowed=False, remaining=0, reset_s=max(1, math.ceil(left))
        )


class RateLimiter:
    """The budgets of one process, in memory or in Redis (see the module's doc)."""

    def __init__(
        self,
        items: dict[Budget, RateLimitItem],
        storage_url: str = "memory://",
        key_prefix: str = "tripeaks",
    ) -> None:
        self.items = items
        self.limiter = SlidingWindowCounterRateLimiter(_storage(storage_url, key_prefix))
        self.verified = Verified()
        self.barred = Barred()
        self._paused_until = 0.0

    async def check(self, budget: Budget, client: str) -> Decision | None:
        """Spend one request of ``client``'s ``budget``; None when the storage failed (the
        request is then served: fail open)."""
        if self._paused_until > time.monotonic():
            return None
        item = self.items[budget]
        try:
            allowed = await self.limiter.hit(item, budget.value, client)
            reset_time, remaining = await self.limiter.get_window_stats(item, budget.value, client)
        except StorageError as e:  # the storage failed: serve, and say so
            self._paused_until = time.monotonic() + REDIS_PAUSE_S
            metrics.rate_limit_error()
            log.warning(
                "rate limit storage failed (%s): serving without limits for %g s",
                type(e.storage_error).__name__,
                REDIS_PAUSE_S,
            )
            return None
        return Decision(
            allowed=allowed,
            budget=budget,
            quota=item.amount,
            window_s=item.get_expiry(),
            remaining=max(0, remaining),
            reset_s=max(1, math.ceil(reset_time - time.time())),
        )

    async def refused(self, client: str) -> None:
        """Spend one of ``client``'s ``refused`` budget; bar it once none is left."""
        decision = await self.check(Budget.REFUSED, client)
        if decision is not None and decision.remaining == 0:
            self.barred.bar(client, decision)


def _hash(credential: str) -> str:
    return hashlib.sha256(credential.encode()).hexdigest()[:32]


def _credential_hash(request: Request) -> str | None:
    """The hash of the request's bearer credential (None without one), made once a
    request: the budget's check, the solver's client and ``verified`` all ask for it."""
    if not hasattr(request.state, "credential_hash"):
        authorization = request.headers.get("authorization", "")
        scheme, _, credential = authorization.partition(" ")
        bearer = scheme.lower() == "bearer" and credential.strip()
        request.state.credential_hash = _hash(credential.strip()) if bearer else None
    found: str | None = request.state.credential_hash
    return found


def _address(request: Request) -> str:
    return "a:" + (request.client.host if request.client is not None else "unknown")


def client_of(request: Request, limiter: RateLimiter | None, *, by_address: bool = False) -> str:
    """Who the request counts against: its credential, when this process has seen it open
    something; else its address (always, without rate limits: nothing is verified)."""
    credential = None if by_address else _credential_hash(request)
    if credential is not None and limiter is not None and credential in limiter.verified:
        return "c:" + credential
    return _address(request)


def verified(request: Request) -> None:
    """The request's credential has opened what it named (a game, a player's account):
    from now on this process counts its requests under it."""
    limiter: RateLimiter | None = request.app.state.rate_limiter
    credential = _credential_hash(request)
    if limiter is not None and credential is not None:
        limiter.verified.add(credential)


def issued(request: Request, credential: str) -> None:
    """This process has just made ``credential`` (a new game's token, a player key): its
    first request here already counts under it."""
    limiter: RateLimiter | None = request.app.state.rate_limiter
    if limiter is not None:
        limiter.verified.add(_hash(credential))


async def spend(
    request: Request, response: Response, budget: Budget, *, by_address: bool = False
) -> None:
    """Spend one request of ``budget`` for the caller (429 when none is left), and put
    the RateLimit headers on the answer."""
    limiter: RateLimiter | None = request.app.state.rate_limiter
    if limiter is None:
        return
    request.state.budget_spent = True  # refused or not: no refusal is free of budget
    decision = await limiter.check(budget, client_of(request, limiter, by_address=by_address))
    if decision is None:
        return
    if not decision.allowed:
        raise rate_limited(decision)
    response.headers.update(decision.headers())


def rate_limited(decision: Decision) -> RateLimitedProblem:
    """The 429 of a refused ``decision``, with its headers (and counted)."""
    budget = decision.budget
    metrics.rate_limited(budget.value)
    problem = RateLimitedProblem(
        f"the {budget.value} budget of {decision.quota} requests in "
        f"{decision.window_s} s is spent; retry in {decision.reset_s} s",
        budget=budget.value,
    )
    problem.headers.update(decision.headers())
    problem.headers["Retry-After"] = str(decision.reset_s)
    return problem


def budget_spent(request: Request) -> bool:
    """Whether the request spent (or was refused) a budget of its route's (``spend``)."""
    return bool(getattr(request.state, "budget_spent", False))


def rate_limit(budget: Budget, *, by_address: bool = False, needs_key: bool = False) -> Any:
    """A dependency that spends one request of ``budget`` for the caller (``spend``);
    ``by_address``: for the request's address, whatever credential it carries;
    ``needs_key``: a route that needs a credential answers its 401 for none first (a
    request refused before any work spends its client's ``refused`` budget instead)."""

    async def spend_budget(request: Request, response: Response) -> None:
        await spend(request, response, budget, by_address=by_address)

    async def spend_with_key(request: Request, response: Response, _: BearerDep) -> None:
        await spend(request, response, budget, by_address=by_address)

    return Depends(spend_with_key if needs_key else spend_budget)


def limiter_from(
    enabled: bool, storage_url: str, key_prefix: str, limits: dict[Budget, str]
) -> RateLimiter | None:
    if not enabled:
        return None
    return RateLimiter({b: parse(text) for b, text in limits.items()}, storage_url, key_prefix)
