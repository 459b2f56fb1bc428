"""The search pool: searches run in niced processes of their own, a bounded number at once;
a dead or stuck search process costs one 503, and the next search works."""

from __future__ import annotations

import os
import time

import pytest

from app.kit.errors import ServiceUnavailableProblem
from app.kit.workload import NICENESS, WorkLimiter


def where_and_how_nice() -> tuple[int, int]:
    return os.getpid(), os.nice(0)


def die() -> None:
    os._exit(3)


def sleep(seconds: float) -> str:
    time.sleep(seconds)
    return "slept"


@pytest.fixture
def limiter() -> WorkLimiter:
    return WorkLimiter(1, grace_s=0.5)


def test_a_search_runs_in_a_niced_process_of_its_own(limiter: WorkLimiter) -> None:
    try:
        pid, niceness = limiter.run("test", 5, where_and_how_nice)
    finally:
        limiter.close()
    assert pid != os.getpid()
    assert niceness >= min(19, os.nice(0) + NICENESS)


def test_a_full_pool_refuses_at_once(limiter: WorkLimiter) -> None:
    with limiter.slot("test"):
        with pytest.raises(ServiceUnavailableProblem, match="solver is busy"):
            limiter.ensure_free("test")
        with pytest.raises(ServiceUnavailableProblem, match="solver is busy"):
            limiter.run("test", 5, sleep, 0)
    limiter.ensure_free("test")  # free again
    limiter.close()


@pytest.mark.parametrize(("fn", "args"), [(die, ()), (sleep, (30,))], ids=["dies", "stuck"])
def test_a_dead_or_stuck_search_is_a_503_and_the_pool_recovers(
    limiter: WorkLimiter, fn: object, args: tuple[object, ...]
) -> None:
    try:
        with pytest.raises(ServiceUnavailableProblem, match="could not finish"):
            limiter.run("test", 0.5, fn, *args)  # type: ignore[arg-type]
        assert limiter.run("test", 5, sleep, 0) == "slept"
    finally:
        limiter.close()
