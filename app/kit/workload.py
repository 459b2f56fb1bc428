"""Heavy work (solver searches) with a bounded concurrency per worker process.

A search holds the CPU (and, in this process, the interpreter) for up to its budget. A
worker runs at most ``slots`` of them at once; one more is refused at once with a 503
problem and ``Retry-After``, never queued: a queue would only make every caller wait
longer while the light requests (moves, reads) that share the worker slow down. The work
itself runs with no transaction open and no pooled connection held (the routes load what
a search needs and end their read first).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from app.kit.errors import ServiceUnavailableProblem
from app.ops import metrics


class WorkLimiter:
    def __init__(self, slots: int, retry_after_s: int = 1) -> None:
        self.slots = slots
        self.retry_after_s = retry_after_s
        self._free = threading.BoundedSemaphore(slots)

    @contextmanager
    def slot(self, kind: str) -> Iterator[None]:
        """Hold one slot for the ``with`` block (``kind`` names the work in metrics), or
        raise a 503 problem at once when every slot is taken."""
        if not self._free.acquire(blocking=False):
            metrics.work_refused(kind)
            raise ServiceUnavailableProblem(
                f"the solver is busy ({self.slots} searches at once in this worker); "
                f"retry in {self.retry_after_s} s",
                retry_after=self.retry_after_s,
            )
        try:
            yield
        finally:
            self._free.release()
