"""``python -m bench http``: its options (``--help`` lists them) and the run."""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path

from bench.http.figures import Sizes
from bench.http.load import measure_database, measure_workers
from bench.http.report import Compared, report, report_comparison, report_workers
from bench.http.servers import Checkout, postgres_database_or_none

ENVIRONMENT = """\
environment:
  BENCH_POSTGRES_URL    PostgreSQL admin URL for the scratch databases (else
                        TEST_POSTGRES_URL, else postgres@127.0.0.1:5432)
  BENCH_SERVER_WRAPPER  a command the servers run under, e.g. "py-spy record -o x.svg --"
                        (their CPU figures are then left out)
"""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m bench http",
        description="The game endpoints' HTTP costs against a bare endpoint of the same server,\n"
        "on SQLite and PostgreSQL; with --baseline, two checkouts in one run.",
        epilog=ENVIRONMENT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    p.add_argument("--quick", action="store_true", help="fewer rounds and requests")
    p.add_argument("--sqlite-only", action="store_true", help="skip PostgreSQL")
    p.add_argument(
        "--baseline",
        metavar="DIR",
        help="also measure DIR, a checkout of this repository with its own DIR/.venv (say a"
        " git worktree of an older commit), against this one in the same run",
    )
    p.add_argument(
        "--current",
        metavar="DIR",
        help="measure the checkout DIR in place of this one (with --baseline on the same"
        " code: the ratios show the noise)",
    )
    return p


def checkouts_for(baseline: str | None, current: str | None) -> list[Checkout | None]:
    """Whose code the servers run: this checkout's alone (None: as without the options);
    with ``--baseline DIR``, DIR's and then this checkout's (or ``--current DIR``'s)."""
    new = Checkout.at("new", "--current", current) if current is not None else None
    if baseline is None:
        return [new]
    return [Checkout.at("baseline", "--baseline", baseline), new or Checkout.this("new")]


def _named(database: str, checkout: Checkout | None) -> str:
    return database if checkout is None else f"{database}, {checkout.name}"


def run(argv: Sequence[str]) -> None:
    """Measure and print, as ``argv``'s options ask (``python -m bench``'s whole command
    line: the module names before them, and options of other modules, are let through)."""
    options, _ = parser().parse_known_args(argv)
    checkouts = checkouts_for(options.baseline, options.current)
    sizes = Sizes.chosen(options.quick, side_by_side=len(checkouts) > 1)
    started = time.perf_counter()
    print(
        "HTTP, against bare endpoints of the same server in the same run. 'x bare': time"
        " per request over the bare sync route's (median over rounds); 'p50 x': the same"
        " by median latency; 'cpu': the server process's CPU time per request."
    )
    for checkout in checkouts:
        if checkout is not None:
            print(checkout.describe())
    compared: list[Compared] = []
    with tempfile.TemporaryDirectory(prefix="tripeaks-bench-") as tmp:
        files = [f"bench-{c.name}.sqlite3" if c else "bench.sqlite3" for c in checkouts]
        sides = [(f"sqlite:///{Path(tmp) / f}", c) for f, c in zip(files, checkouts, strict=True)]
        results = measure_database(sides, sizes)
        for checkout, (figures, depth) in zip(checkouts, results, strict=True):
            report(_named("SQLite", checkout), figures, depth, sizes)
        compared.append(Compared("SQLite", [f for f, _ in results], [d for _, d in results]))
    if not options.sqlite_only:
        with ExitStack() as stack:
            databases: list[str] = []
            for _ in checkouts:  # each server its own fresh database
                pg = stack.enter_context(postgres_database_or_none())
                if pg is None:
                    break
                databases.append(pg)
            if len(databases) == len(checkouts):
                sides = list(zip(databases, checkouts, strict=True))
                results = measure_database(sides, sizes)
                for checkout, (figures, depth) in zip(checkouts, results, strict=True):
                    report(_named("PostgreSQL", checkout), figures, depth, sizes)
                workers = measure_workers(sides, sizes)
                for checkout, by_route in zip(checkouts, workers, strict=True):
                    report_workers(_named("PostgreSQL", checkout), by_route, sizes)
                figures_, depths = [f for f, _ in results], [d for _, d in results]
                compared.insert(0, Compared("PostgreSQL", figures_, depths, workers))
    if len(checkouts) == 2:
        report_comparison(checkouts, compared)
    print(f"\n(HTTP bench took {time.perf_counter() - started:.0f} s)")
