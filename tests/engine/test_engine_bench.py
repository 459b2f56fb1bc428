"""The engine benchmark still runs (its figures are printed, never asserted)."""

from __future__ import annotations

import pytest

from app.engine.solver import accel
from bench import engine, solver

pytestmark = pytest.mark.slow


def test_engine_benchmark_runs(capsys: pytest.CaptureFixture[str]) -> None:
    engine.run(["--quick"])
    out = capsys.readouterr().out
    assert "random playouts:" in out
    assert "legal_moves + apply:" in out
    for length in engine.REPLAY_LENGTHS:
        assert f"{length:3d} moves:" in out


def test_solver_benchmark_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """Deals 28..30: 28 is lost with wrap, so the bench meets both answers."""

    flags = (
        "--deals 2 --seed 28 --plain-nodes 2000 --many 3 --best-deals 1 --positions 2"
        " --six-deals 1 --six-seconds 0.2 --python-deals 1"
    )
    solver.run(flags.split())
    out = capsys.readouterr().out
    assert "clear, classic, wrap: winnable 1/2, solver unknown 0" in out
    assert "clear, classic, wrap, deals 28..30: winnable 2/3, unknown 0" in out
    assert "over 100 ms:" in out
    assert "best score, whole tripeaks deals 28..28, no wrap: unknown 0" in out
    assert "best score, whole six_peaks deals 28..28, wrap:" in out
    assert "pure Python search on 1 of them" in out or accel.active is None
    assert "plain/solver time" in out
