"""The search pool: searches run in niced processes of their own, a bounded number at once;
a dead or stuck search process costs one 503, and the next search works.

Nothing here waits on a clock of the machine's: the pool's budgets are far above what
each function needs, so a loaded machine (the niced process gets little CPU) only makes
the tests slower, never wrong. The stuck search is the one exception by design: its
budget is what is under test, and it sleeps far past it.
"""

from __future__ import annotations

import asyncio
import os
import time

import pytest

from app.kit.errors import ServiceUnavailableProblem
from app.kit.workload import NICENESS, Requester, SolverPool

# Generous: a process at the lowest priority on a saturated machine starts slowly.
PATIENT_S = 120.0


def where_and_how_nice() -> tuple[int, int]:
    return os.getpid(), os.nice(0)


def die() -> None:
    os._exit(3)


def sleep(seconds: float) -> str:
    time.sleep(seconds)
    return "slept"


def test_a_search_runs_in_a_niced_process_of_its_own() -> None:
    pool = SolverPool(1)

    async def run() -> tuple[int, int]:
        try:
            return await pool.run("test", PATIENT_S, where_and_how_nice)
        finally:
            pool.close()

    pid, niceness = asyncio.run(run())
    assert pid != os.getpid()
    assert niceness >= min(19, os.nice(0) + NICENESS)


def test_the_niceness_is_a_setting() -> None:
    pool = SolverPool(1, niceness=0)

    async def run() -> tuple[int, int]:
        try:
            return await pool.run("test", PATIENT_S, where_and_how_nice)
        finally:
            pool.close()

    assert asyncio.run(run())[1] == os.nice(0)


def test_a_client_has_one_search_at_a_time_and_hints_and_challenges_slots_of_their_own() -> None:
    """Slots held as a search holds them (no clock involved): a client with a search in
    flight is refused a second at once, whatever its kind, while another client is
    served; with every shared slot taken by analyses, a hint still gets the hints' slot
    (a quarter-second hint never waits for a ten-second analysis) and the day's challenge
    its own, and only a second hint meanwhile is refused."""
    pool = SolverPool(2, niceness=0)
    ann, cy, di = (pool.for_client(name) for name in ("ann", "cy", "di"))

    async def run() -> None:
        with pool.slot("analysis", Requester("ann")):
            for kind in ("hint", "analysis", "winnable_deal"):
                with pytest.raises(ServiceUnavailableProblem, match="in flight"):
                    ann.ensure_free(kind)
                with pytest.raises(ServiceUnavailableProblem, match="in flight"):
                    await ann.run(kind, PATIENT_S, sleep, 0)
            with pool.slot("analysis", Requester("bob")):  # every shared slot taken now
                with pytest.raises(ServiceUnavailableProblem, match="solver is busy"):
                    cy.ensure_free("analysis")
                with pool.slot("hint", Requester("cy")):  # the hints' own slot
                    with pytest.raises(ServiceUnavailableProblem, match="solver is busy"):
                        di.ensure_free("hint")
                    # The day's deal (the server's own search) is searched all the same.
                    assert await pool.run("challenge", PATIENT_S, sleep, 0) == "slept"
                assert await di.run("hint", PATIENT_S, sleep, 0) == "slept"
        assert await ann.run("hint", PATIENT_S, sleep, 0) == "slept"  # the first one ended

    try:
        asyncio.run(run())
    finally:
        pool.close()


def test_an_address_has_one_search_at_a_time_whatever_its_clients() -> None:
    """Slots held as searches hold them: while one account of an address searches, the
    address's other accounts are refused at once, whatever the kind, with slots to spare;
    another address takes them, and the first address searches again once its search has
    answered. The server's own searches (no address) are not counted."""
    pool = SolverPool(2, niceness=0)
    ann, bob = (Requester(f"c:{name}", "a:10.0.0.1") for name in ("ann", "bob"))
    cy = pool.for_client("c:cy", "a:10.0.0.2")

    async def run() -> None:
        with pool.slot("hint", ann):
            for kind in ("hint", "analysis"):
                with pytest.raises(ServiceUnavailableProblem, match="from this address"):
                    pool.ensure_free(kind, bob)
            # A client known by its address holds that address's one search.
            with (
                pool.slot("analysis", Requester("a:10.0.0.2")),
                pytest.raises(ServiceUnavailableProblem, match="from this address"),
            ):
                cy.ensure_free("analysis")
            assert await pool.for_client("c:di", "a:10.0.0.3").run("hint", PATIENT_S, sleep, 0)
            assert await pool.run("challenge", PATIENT_S, sleep, 0) == "slept"
        with pool.slot("analysis", bob):  # the address's search has answered
            pass

    try:
        asyncio.run(run())
    finally:
        pool.close()


def test_a_full_pool_refuses_at_once() -> None:
    pool = SolverPool(1, niceness=0)

    async def run() -> None:
        with pool.slot("test"):
            with pytest.raises(ServiceUnavailableProblem, match="solver is busy"):
                pool.ensure_free("test")
            with pytest.raises(ServiceUnavailableProblem, match="solver is busy"):
                await pool.run("test", PATIENT_S, sleep, 0)
        pool.ensure_free("test")  # free again

    try:
        asyncio.run(run())
    finally:
        pool.close()


@pytest.mark.parametrize(
    ("fn", "args", "budget_s"),
    [(die, (), PATIENT_S), (sleep, (3600,), 0.5)],
    ids=["dies", "stuck"],
)
def test_a_dead_or_stuck_search_is_a_503_and_the_pool_recovers(
    fn: object, args: tuple[object, ...], budget_s: float
) -> None:
    pool = SolverPool(1, grace_s=0.5, niceness=0)

    async def run() -> str:
        with pytest.raises(ServiceUnavailableProblem, match="could not finish"):
            await pool.run("test", budget_s, fn, *args)  # type: ignore[arg-type]
        return await pool.run("test", PATIENT_S, sleep, 0)

    try:
        assert asyncio.run(run()) == "slept"
    finally:
        pool.close()


def test_a_pool_whose_processes_die_at_start_is_a_503_and_is_replaced() -> None:
    """Processes that cannot start (here: their initializer fails, as a worker killed at
    start would) break the pool; the search is a 503, not a 500, and the next one runs
    in a new pool."""
    pool = SolverPool(1, grace_s=0.5, niceness="not a number")  # type: ignore[arg-type]

    async def run() -> str:
        with pytest.raises(ServiceUnavailableProblem, match="could not finish"):
            await pool.run("test", PATIENT_S, sleep, 0)
        pool.niceness = 0
        return await pool.run("test", PATIENT_S, sleep, 0)

    try:
        assert asyncio.run(run()) == "slept"
    finally:
        pool.close()
