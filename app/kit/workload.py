"""Heavy work (solver searches) apart from the requests: in processes of their own, at a
lower CPU priority, a bounded number at once per worker.

A search holds a CPU for up to its budget. Run in the worker's own threads it would also
hold the interpreter (the GIL), and every other request of the worker would wait its turn
behind it: four clients asking for hints made another player's reads tens of times
slower (``python -m bench abuse``; the figures are in docs/performance.md). So searches
run in a pool of ``slots`` processes per worker (pebble's ``ProcessPool``, started on
first use from a fork server that has imported only the engine), niced
(``SOLVER_NICENESS``), so that the operating system serves the requests first and the
searches with what is left. The event loop awaits a search's answer; it never blocks on
it.

The slots: ``slots`` shared ones, and one kept for each kind in ``KEPT_SLOTS`` (hints,
so that a quarter-second hint never waits for ten-second analyses; the day's challenges,
so that no load holds back a new day's deal), which a kind takes first. The pool never
queues: when no slot is left, one more search is refused at once with a 503 problem and
``Retry-After``, so that callers know to come back and the light requests are not slowed
by a growing queue.

The slots are shared between addresses: a client (as its rate limits know it) has one
search in flight at a time, and so has an address, whatever clients it speaks for (one a
client alone let a handful of accounts of one address hold every slot a hint could use,
and other players' hints were refused; docs/performance.md). Without a queue this is the
fair share: an address is refused a slot only when every slot it could use is held by a
search of another address, each holding one (no address holds more than its share while
another is refused), and it costs nothing to keep (a set of the addresses with a search
in flight). Its price: one address cannot use two slots even when the rest stand idle,
so players behind one address (a game backend, a carrier's NAT) share one search at a
time in each worker, unless their proxy passes each one's address (``X-Forwarded-For``
from ``FORWARDED_ALLOW_IPS``). The server's own searches (the day's challenges, the
fair-play measure) have no address, and keep their kept slots.

A search that outlives its budget by far (a bug, or a machine too loaded to give it any
time) is stopped by the pool, which kills its process and starts another; a process that
dies is replaced the same way. Either costs that one search a 503. The work holds no
transaction and no pooled connection: routes load what a search needs and end their read
first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from concurrent.futures import CancelledError as FutureCancelled
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Annotated, Any, ParamSpec, TypeVar

from fastapi import Depends, Request
from pebble import ProcessExpired, ProcessPool

from app.kit import metrics
from app.kit.errors import ServiceUnavailableProblem
from app.kit.ratelimit import client_of

log = logging.getLogger("app.workload")

T = TypeVar("T")
P = ParamSpec("P")

NICENESS = 19  # the lowest CPU priority: searches get what the requests leave
GRACE_S = 5.0  # a search this long past its budget is stuck: its process is killed


def _lower_priority(niceness: int) -> None:
    with contextlib.suppress(OSError):  # not allowed here: run at the same priority
        os.nice(niceness)


# Kinds of search with a slot kept for them besides the shared ones: the day's challenges
# (and what is measured of a challenge once it closes: its best score, its difficulty),
# so that no load of hints and analyses holds back a new day's deal (at midnight everyone
# asks for it at once); hints, so that a quarter-second hint never waits for a ten
# second analysis; and the fair-play measure of results (``app.ops.jobs``), so that no
# load keeps a result from its measure, nor a measure any request from a slot. A kind
# takes its own slot first, then a shared one.
KEPT_SLOTS: dict[str, frozenset[str]] = {
    "challenges": frozenset({"challenge", "challenge_best", "challenge_difficulty"}),
    "hints": frozenset({"hint"}),
    "fair_play": frozenset({"fair_play"}),
}


@dataclass(frozen=True, slots=True)
class Requester:
    """Whose search it is: a client (as the rate limits know it) and its address, each
    allowed one search in flight; None for neither (the server's own searches)."""

    client: str | None = None
    address: str | None = None

    def holders(self) -> set[str]:
        return {name for name in (self.client, self.address) if name is not None}


NOBODY = Requester()


class SolverPool:
    """``slots`` searches at once in processes of their own, shared, and one more for each
    kind in ``KEPT_SLOTS`` (see the module's doc); one at a time for each client and for
    each address (``for_client``)."""

    def __init__(
        self,
        slots: int,
        preload: Sequence[str] = (),
        retry_after_s: int = 1,
        grace_s: float = GRACE_S,
        niceness: int = NICENESS,
        kept: Mapping[str, frozenset[str]] = KEPT_SLOTS,
    ) -> None:
        self.slots = slots
        self.kept = kept  # the kinds with a slot kept for them (none: every slot shared)
        self.retry_after_s = retry_after_s
        self.grace_s = grace_s
        self.niceness = niceness
        self.preload = list(preload)
        # The event loop's own counts: no lock needed.
        self._busy = 0  # shared slots taken
        self._kept_busy = dict.fromkeys(kept, False)  # kept slots taken
        # Clients and addresses with a search in flight (their names never meet: a client
        # known by its address is that address).
        self._searching: set[str] = set()
        self._pool: ProcessPool | None = None

    def _kept(self, kind: str) -> str | None:
        return next((name for name, kinds in self.kept.items() if kind in kinds), None)

    def for_client(self, client: str | None, address: str | None = None) -> Searches:
        """This pool, for the searches of ``client`` from ``address`` (None and None:
        nobody's, the server's own)."""
        return Searches(self, Requester(client, address))

    def ensure_free(self, kind: str, requester: Requester = NOBODY) -> None:
        """Refuse now (503) when no slot is left for ``kind``, or ``requester``'s client or
        address already has a search in flight: a route checks this before loading what a
        search needs, so that a refusal costs no query (a slot may still be taken by then:
        ``slot`` decides)."""
        if requester.client is not None and requester.client in self._searching:
            self._refuse(
                kind,
                "this client has a search in flight already (one at a time); retry once it "
                "has answered",
            )
        if requester.address is not None and requester.address in self._searching:
            self._refuse(
                kind,
                "a search from this address is in flight already (one an address at a "
                "time, so that every address finds a slot); retry once it has answered",
            )
        kept = self._kept(kind)
        if kept is not None and not self._kept_busy[kept]:
            return
        if self._busy >= self.slots:
            self._refuse(
                kind,
                f"the solver is busy ({self.slots} searches at once in this worker); "
                f"retry in {self.retry_after_s} s",
            )

    def _refuse(self, kind: str, why: str) -> None:
        metrics.work_refused(kind)
        raise ServiceUnavailableProblem(why, retry_after=self.retry_after_s)

    @contextlib.contextmanager
    def slot(self, kind: str, requester: Requester = NOBODY) -> Iterator[None]:
        """Hold one slot for the ``with`` block (``kind`` names the work in metrics): the
        kind's kept slot when it has a free one, else a shared one; or raise a 503 problem
        at once when none is left or ``requester``'s client or address has a search in
        flight."""
        self.ensure_free(kind, requester)
        kept = self._kept(kind)
        own = kept if kept is not None and not self._kept_busy[kept] else None
        if own is not None:
            self._kept_busy[own] = True
        else:
            self._busy += 1
        holders = requester.holders()
        self._searching.update(holders)
        try:
            yield
        finally:
            if own is not None:
                self._kept_busy[own] = False
            else:
                self._busy -= 1
            self._searching.difference_update(holders)

    async def run(
        self, kind: str, budget_s: float, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """``fn(*args, **kwargs)`` in a search process, holding a slot; ``fn`` and its
        arguments must pickle (a module-level function of the engine and plain values).
        ``budget_s`` is the time ``fn`` gives itself: waited for, with some grace."""
        return await self.run_for(NOBODY, kind, budget_s, fn, *args, **kwargs)

    async def run_for(
        self,
        requester: Requester,
        kind: str,
        budget_s: float,
        fn: Callable[P, T],
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> T:
        with self.slot(kind, requester):
            future = self._started().schedule(
                fn, args=args, kwargs=kwargs, timeout=budget_s + self.grace_s
            )
            try:
                # pebble's timeout runs from the moment a process takes the search; this
                # one bounds the wait whatever happens before (no process able to start).
                async with asyncio.timeout(budget_s + 2 * self.grace_s):
                    return await asyncio.wrap_future(future)
            except TimeoutError:
                if future.done():
                    log.error(
                        "a %s search ran %g s past its budget: its process was killed",
                        kind,
                        self.grace_s,
                    )
                else:
                    future.cancel()  # type: ignore[no-untyped-call]
                    log.error("no search process took a %s search: a new pool", kind)
                    await asyncio.to_thread(self.close)
            except ProcessExpired:
                log.error("a search process died during a %s search: it was replaced", kind)
            except FutureCancelled:
                log.error("a %s search was cancelled by the pool", kind)
            except BrokenProcessPool:
                # Its processes died before they could take the search (killed at start,
                # or unable to start): the next search starts a new pool. The broken one's
                # threads have ended; its end is waited for off the event loop all the same.
                log.error("the search processes died before a %s search: a new pool", kind)
                await asyncio.to_thread(self.close)
            except asyncio.CancelledError:
                future.cancel()  # type: ignore[no-untyped-call]  # pebble kills its process
                raise
            raise ServiceUnavailableProblem(
                "the search could not finish; retry", retry_after=self.retry_after_s
            )

    def _started(self) -> ProcessPool:
        if self._pool is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(self.preload)
            self._pool = ProcessPool(
                max_workers=self.slots + len(self.kept),
                initializer=_lower_priority,
                initargs=(self.niceness,),
                context=context,
            )
        return self._pool

    def close(self) -> None:
        """Stop the search processes (at the worker's shutdown, once the requests in
        flight have been answered)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.stop()  # type: ignore[no-untyped-call]
            with contextlib.suppress(TimeoutError):  # its processes are killed regardless
                pool.join(timeout=self.grace_s)


class Coalesced:
    """Concurrent calls for one key, in this process, share the first one's answer: a
    search that many requests need at once (a new day's deal at midnight, an edition as it
    opens) runs once, and no request is refused a slot for a search already running. Its
    function must hold nothing of a request (no session): it goes on for the others if
    the request that started it is cancelled."""

    def __init__(self) -> None:
        self._running: dict[str, asyncio.Future[Any]] = {}

    async def run(self, key: str, make: Callable[[], Awaitable[T]]) -> T:
        running = self._running.get(key)
        if running is None:
            running = asyncio.ensure_future(make())
            self._running[key] = running
            running.add_done_callback(lambda _: self._running.pop(key, None))
        answer: T = await asyncio.shield(running)
        return answer


class Searches:
    """A pool's searches for one requester: at most one in flight at a time for its client
    and for its address. (The server's own searches, the day's challenges, are made on the
    pool itself: ``SolverPool.run``.)"""

    def __init__(self, pool: SolverPool, requester: Requester) -> None:
        self.pool = pool
        self.requester = requester

    def ensure_free(self, kind: str) -> None:
        self.pool.ensure_free(kind, self.requester)

    async def run(
        self, kind: str, budget_s: float, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """``SolverPool.run``, as this requester's search."""
        return await self.pool.run_for(self.requester, kind, budget_s, fn, *args, **kwargs)


async def get_solver(request: Request) -> Searches:
    """The worker's pool, for the request's client (as its rate limits know it) and its
    address."""
    solver: SolverPool = request.app.state.solver
    limiter = request.app.state.rate_limiter
    return solver.for_client(
        client_of(request, limiter), client_of(request, limiter, by_address=True)
    )


SolverDep = Annotated[Searches, Depends(get_solver)]


def solver_free(kind: str) -> Any:
    """A dependency that refuses (503) before anything is loaded when the worker's
    search slots are all taken: a refusal then costs no query."""

    async def check(solver: SolverDep) -> None:
        solver.ensure_free(kind)

    return Depends(check)


__all__ = [
    "KEPT_SLOTS",
    "NICENESS",
    "NOBODY",
    "Coalesced",
    "Requester",
    "Searches",
    "SolverDep",
    "SolverPool",
    "solver_free",
]
