"""Use cases that need the solver (winnable deals, hints, analysis)."""

from __future__ import annotations

from app import engine
from app.errors import ServiceUnavailableProblem


def winnable_deal(rules: engine.Rules, layout: engine.Layout) -> tuple[engine.Deal, int]:
    raise ServiceUnavailableProblem("winnable_only needs the solver, which is not installed yet")
