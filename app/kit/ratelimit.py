"""Rate limits per client, with separate budgets for reads, moves, game creation and solver
calls (the ``limits`` library's sliding-window counters).

- **The client** is the credential the request carries (``Authorization: Bearer``: a game
  token, or a player key once players exist), known by its SHA-256 only; a request with
  none is known by its address (uvicorn takes ``X-Forwarded-For`` only from
  ``FORWARDED_ALLOW_IPS``). A game token counts for its game's client alone.
- **Storage**: in process memory by default (one worker, one budget); ``redis://`` in
  ``RATE_LIMIT_STORAGE_URL`` shares the budgets between workers and replicas. When Redis
  does not answer, requests are served (fail open), a warning is logged and
  ``tripeaks_rate_limit_errors_total`` counts it; Redis is then left alone for a few
  seconds, so that a dead Redis costs no request a timeout.
- **Headers** (draft-ietf-httpapi-ratelimit-headers-09): every answer of a limited route
  carries ``RateLimit-Policy: "<budget>";q=<quota>;w=<window s>`` and
  ``RateLimit: "<budget>";r=<remaining>;t=<seconds to reset>``; over the limit the answer
  is a 429 problem with those and ``Retry-After``.
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
import time
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from fastapi import Depends, Request, Response
from limits import RateLimitItem, parse
from limits.storage import MemoryStorage, Storage, storage_from_string
from limits.strategies import SlidingWindowCounterRateLimiter
from pydantic import Field
from starlette.concurrency import run_in_threadpool

from app.kit.errors import Member, ProblemError
from app.ops import metrics

log = logging.getLogger("app.ratelimit")

DRAFT = "draft-ietf-httpapi-ratelimit-headers-09"
REDIS_TIMEOUT_S = 0.25  # a request never waits longer than this on Redis
REDIS_PAUSE_S = 5.0  # after a Redis failure, budgets are not checked for this long


class Budget(StrEnum):
    READ = "read"
    MOVE = "move"
    CREATE = "create"
    SOLVER = "solver"


RATE_LIMIT_HEADERS: dict[str, dict[str, Any]] = {
    "RateLimit-Policy": {
        "description": f"The budget this route spends ({DRAFT}): its name, quota and window",
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
                description="The budget that is spent: read, move, create or solver",
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


SWEEP_EVERY_S = 1.0  # how often the memory storage drops the counters of past windows


class SweptMemoryStorage(MemoryStorage):
    """``limits``' memory storage without a thread a request: it starts a timer thread to
    drop past windows' counters whenever none is running, that is on nearly every hit
    (a thread's start and run cost a third of a bare request). A counter is checked
    for expiry whenever it is read anyway; the rest are dropped here, inline, at most
    once every SWEEP_EVERY_S seconds."""

    _next_sweep = 0.0

    def _MemoryStorage__schedule_expiry(self) -> None:  # overrides the name-mangled method
        now = time.monotonic()
        if now >= self._next_sweep:
            self._next_sweep = now + SWEEP_EVERY_S
            self._MemoryStorage__expire_events()  # type: ignore[attr-defined]


def _storage(url: str, options: dict[str, Any]) -> Storage:
    if url.startswith("memory://"):
        return SweptMemoryStorage()
    storage = storage_from_string(url, **options)
    assert isinstance(storage, Storage)  # a URL of the sync storages (not async+...)
    return storage


class RateLimiter:
    """The budgets of one process, in memory or in Redis (see the module's doc)."""

    def __init__(
        self,
        items: dict[Budget, RateLimitItem],
        storage_url: str = "memory://",
        key_prefix: str = "tripeaks",
    ) -> None:
        self.items = items
        self.remote = not storage_url.startswith("memory://")
        options: dict[str, Any] = {"key_prefix": key_prefix} if self.remote else {}
        if storage_url.startswith(("redis://", "rediss://")):
            options |= {
                "socket_timeout": REDIS_TIMEOUT_S,
                "socket_connect_timeout": REDIS_TIMEOUT_S,
            }
        self.limiter = SlidingWindowCounterRateLimiter(_storage(storage_url, options))
        self._paused_until = 0.0
        self._lock = threading.Lock()

    def check(self, budget: Budget, client: str) -> Decision | None:
        """Spend one request of ``client``'s ``budget``; None when the storage failed (the
        request is then served: fail open)."""
        if self._paused_until > time.monotonic():
            return None
        item = self.items[budget]
        try:
            allowed = self.limiter.hit(item, budget.value, client)
            reset_time, remaining = self.limiter.get_window_stats(item, budget.value, client)
        except Exception as e:  # any storage failure: serve, and say so
            with self._lock:
                self._paused_until = time.monotonic() + REDIS_PAUSE_S
            metrics.rate_limit_error()
            log.warning(
                "rate limit storage failed (%s): serving without limits for %g s",
                type(e).__name__,
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


def client_of(request: Request) -> str:
    """Who the request counts against: its credential's hash, else its address."""
    authorization = request.headers.get("authorization", "")
    scheme, _, credential = authorization.partition(" ")
    if scheme.lower() == "bearer" and credential.strip():
        return "c:" + hashlib.sha256(credential.strip().encode()).hexdigest()[:32]
    host = request.client.host if request.client is not None else "unknown"
    return "a:" + host


async def spend(request: Request, response: Response, budget: Budget) -> None:
    """Spend one request of ``budget`` for the caller (429 when none is left), and put
    the RateLimit headers on the answer."""
    limiter: RateLimiter | None = request.app.state.rate_limiter
    if limiter is None:
        return
    client = client_of(request)
    if limiter.remote:  # a round trip to Redis: not on the event loop
        decision = await run_in_threadpool(limiter.check, budget, client)
    else:
        decision = limiter.check(budget, client)
    if decision is None:
        return
    if not decision.allowed:
        metrics.rate_limited(budget.value)
        problem = RateLimitedProblem(
            f"the {budget.value} budget of {decision.quota} requests in "
            f"{decision.window_s} s is spent; retry in {decision.reset_s} s",
            budget=budget.value,
        )
        problem.headers.update(decision.headers())
        problem.headers["Retry-After"] = str(decision.reset_s)
        raise problem
    response.headers.update(decision.headers())


def rate_limit(budget: Budget) -> Any:
    """A dependency that spends one request of ``budget`` for the caller (``spend``). A
    route whose one dependency spends it itself (a move's, ``app.games.endpoints``) has
    none: each dependency FastAPI solves costs about 2% of a move's server CPU."""

    async def spend_budget(request: Request, response: Response) -> None:
        await spend(request, response, budget)

    return Depends(spend_budget)


def limiter_from(
    enabled: bool, storage_url: str, key_prefix: str, limits: dict[Budget, str]
) -> RateLimiter | None:
    if not enabled:
        return None
    return RateLimiter({b: parse(text) for b, text in limits.items()}, storage_url, key_prefix)
