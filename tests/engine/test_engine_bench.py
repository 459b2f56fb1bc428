"""The engine benchmark still runs (its figures are printed, never asserted)."""

from __future__ import annotations

import pytest

from bench import engine


def test_engine_benchmark_runs(capsys: pytest.CaptureFixture[str]) -> None:
    engine.run(["--quick"])
    out = capsys.readouterr().out
    assert "random playouts:" in out
    assert "legal_moves + apply:" in out
    for length in engine.REPLAY_LENGTHS:
        assert f"{length:3d} moves:" in out
