"""Rate limits per client, with separate budgets for reads, moves, game creation and solver
calls (the ``limits`` library's sliding-window counters, through its asyncio API,
``limits.aio``: the event loop awaits Redis, it never blocks on it).

- **The client** is the credential the request carries (``Authorization: Bearer``: a game
  token, or a player key once players exist), known by its SHA-256 only; a request with
  none is known by its address (uvicorn takes ``X-Forwarded-For`` only from
  ``FORWARDED_ALLOW_IPS``). A game token counts for its game's client alone.
- **Storage**: in process memory by default (``async+memory://``: one worker, one budget);
  ``redis://`` in ``RATE_LIMIT_STORAGE_URL`` (``async+redis://``, redis-py's asyncio
  client) shares the budgets between workers and replicas. When Redis does not answer
  (``limits.errors.StorageError``: the storage's errors, wrapped by the library), requests
  are served (fail open), a warning is logged and ``tripeaks_rate_limit_errors_total``
  counts it; Redis is then left alone for a few seconds, so that a dead Redis costs no
  request a timeout.
- **Headers** (draft-ietf-httpapi-ratelimit-headers-09): every answer of a limited route
  carries ``RateLimit-Policy: "<budget>";q=<quota>;w=<window s>`` and
  ``RateLimit: "<budget>";r=<remaining>;t=<seconds to reset>``; over the limit the answer
  is a 429 problem with those and ``Retry-After``.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from fastapi import Depends, Request, Response
from limits import RateLimitItem, parse
from limits.aio.storage import Storage
from limits.aio.strategies import SlidingWindowCounterRateLimiter
from limits.errors import StorageError
from limits.storage import storage_from_string
from pydantic import Field

from app.kit import metrics
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


def _storage(url: str, key_prefix: str) -> Storage:
    """The async storage of ``url`` (``memory://`` or ``redis://``, as the settings
    take it): its errors wrapped as ``StorageError``."""
    if url.startswith("memory://"):
        storage = storage_from_string("async+memory://", wrap_exceptions=True)
    else:
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
    decision = await limiter.check(budget, client_of(request))
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
    """A dependency that spends one request of ``budget`` for the caller (``spend``)."""

    async def spend_budget(request: Request, response: Response) -> None:
        await spend(request, response, budget)

    return Depends(spend_budget)


def limiter_from(
    enabled: bool, storage_url: str, key_prefix: str, limits: dict[Budget, str]
) -> RateLimiter | None:
    if not enabled:
        return None
    return RateLimiter({b: parse(text) for b, text in limits.items()}, storage_url, key_prefix)
