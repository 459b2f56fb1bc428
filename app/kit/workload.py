"""Heavy work (solver searches) apart from the requests: in processes of their own, at a
lower CPU priority, a bounded number at once per worker.

A search holds a CPU for up to its budget. Run in the worker's own threads it would also
hold the interpreter (the GIL), and every other request of the worker would wait its turn
behind it: measured (``python -m bench abuse``), four clients asking for hints made another
player's reads 40-60 times slower. So searches run in a pool of ``slots`` processes per
worker, started lazily (from a clean fork server that has imported only the engine) and
niced, so that the operating system serves the requests first and the searches with what
is left.

The pool never queues: when every slot is taken, one more search is refused at once with
a 503 problem and ``Retry-After``, so that callers know to come back and the light
requests are not slowed by a growing queue. A search that outlives its budget by far (a
bug, or a machine too loaded to give it any time) has its processes killed and the pool
started again; so does a pool whose process died. The work holds no transaction and no
pooled connection: routes load what a search needs and end their read first.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from app.kit.errors import ServiceUnavailableProblem
from app.ops import metrics

log = logging.getLogger("app.workload")

T = TypeVar("T")

NICENESS = 19  # the lowest CPU priority: searches get what the requests leave
GRACE_S = 5.0  # a search this long past its budget is stuck: its pool is started again


def _lower_priority(niceness: int) -> None:
    with contextlib.suppress(OSError):  # not allowed here: run at the same priority
        os.nice(niceness)


class WorkLimiter:
    """``slots`` searches at once in processes of their own (see the module's doc)."""

    def __init__(
        self,
        slots: int,
        preload: Sequence[str] = (),
        retry_after_s: int = 1,
        grace_s: float = GRACE_S,
    ) -> None:
        self.slots = slots
        self.retry_after_s = retry_after_s
        self.grace_s = grace_s
        self.preload = list(preload)
        self._busy = 0  # slots taken
        self._lock = threading.Lock()
        self._pool: ProcessPoolExecutor | None = None

    def ensure_free(self, kind: str) -> None:
        """Refuse now (503) when every slot is taken: a route checks this before loading
        what a search needs, so that a refusal costs no query (a slot may still be taken
        by then: ``slot`` decides)."""
        if self._busy >= self.slots:
            self._refuse(kind)

    def _refuse(self, kind: str) -> None:
        metrics.work_refused(kind)
        raise ServiceUnavailableProblem(
            f"the solver is busy ({self.slots} searches at once in this worker); "
            f"retry in {self.retry_after_s} s",
            retry_after=self.retry_after_s,
        )

    @contextlib.contextmanager
    def slot(self, kind: str) -> Iterator[None]:
        """Hold one slot for the ``with`` block (``kind`` names the work in metrics), or
        raise a 503 problem at once when every slot is taken."""
        with self._lock:
            if self._busy >= self.slots:
                self._refuse(kind)
            self._busy += 1
        try:
            yield
        finally:
            with self._lock:
                self._busy -= 1

    def run(self, kind: str, budget_s: float, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` in a search process, holding a slot; ``fn`` and its
        arguments must pickle (a module-level function of the engine and plain values).
        ``budget_s`` is the time ``fn`` gives itself: waited for, with some grace."""
        with self.slot(kind):
            pool = self._started()
            try:
                return pool.submit(fn, *args, **kwargs).result(timeout=budget_s + self.grace_s)
            except FutureTimeout:
                log.error(
                    "a %s search ran %g s past its budget: restarting the pool", kind, self.grace_s
                )
                self._restart(pool)
            except BrokenProcessPool:
                log.error("a search process died during a %s search: restarting the pool", kind)
                self._restart(pool)
            raise ServiceUnavailableProblem(
                "the search could not finish; retry", retry_after=self.retry_after_s
            )

    def _started(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                context = multiprocessing.get_context("forkserver")
                context.set_forkserver_preload(self.preload)
                self._pool = ProcessPoolExecutor(
                    max_workers=self.slots,
                    mp_context=context,
                    initializer=_lower_priority,
                    initargs=(NICENESS,),
                )
            return self._pool

    def _restart(self, pool: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._pool is pool:
                self._pool = None
        for process in list(getattr(pool, "_processes", {}).values()):
            process.kill()  # a stuck search never ends by itself
        pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the search processes (at the worker's shutdown, once the requests in
        flight have been answered)."""
        with self._lock:
            pool = self._pool
        if pool is not None:
            self._restart(pool)
