"""Use cases that need the solver: winnable deals, hints, the analysis of a game and a
deal's difficulty.

Each has a time budget from the settings, and says so when it ran out: a winnable deal
that could not be proved in time is a 503 problem; a hint solves as many samples as fit;
an analysis that ran out reports ``complete: false`` with what it could not decide as null.
Each search runs in one of the worker's search processes (``app.kit.workload``): when none
is free the caller gets a 503 at once. None of them touches the database: callers
load what a search needs and end their transaction first.
"""

from __future__ import annotations

import secrets
import time

from app import engine
from app.engine.difficulty import Difficulty, DifficultySettings, difficulty
from app.engine.hints import Analysis, Hint, analysis, hint
from app.engine.solver import SearchBudget, winnable_deal_within
from app.games.errors import GameInProgressProblem, GameOverProblem
from app.kit import metrics
from app.kit.errors import ServiceUnavailableProblem
from app.kit.workload import Searches, SolverPool
from app.settings import Settings

# A deal that takes more nodes than this to prove is skipped for the next one: most
# classic deals are proved in far fewer, and a fresh deal is cheaper than a hard proof.
WINNABLE_NODES_PER_DEAL = 200_000
MAX_HINT_SAMPLES = 64


async def winnable_deal(
    rules: engine.Rules, layout: engine.Layout, settings: Settings, solver: Searches
) -> tuple[engine.Deal, int]:
    """A numbered deal (its number secret) that the solver proved winnable under ``rules``."""
    seconds = settings.solver_budget_ms / 1000
    began = time.perf_counter()
    found = await solver.run(
        "winnable_deal",
        seconds,
        winnable_deal_within,
        rules,
        layout,
        seconds,
        WINNABLE_NODES_PER_DEAL,
    )
    if found is None:
        metrics.observe_solver(time.perf_counter() - began, "budget_exhausted")
        raise ServiceUnavailableProblem(
            f"no deal was proved winnable under these rules within {seconds:g} s; "
            "retry, or create the game without winnable_only",
            retry_after=1,
        )
    metrics.observe_solver(time.perf_counter() - began, "winnable_deal")
    assert found.number is not None
    return found.deal, found.number


async def suggest(
    state: engine.GameState,
    settings: Settings,
    solver: Searches,
    seed: int | None,
    samples: int | None,
) -> Hint:
    """A hint from the player's view alone (the solver never sees the hidden cards)."""
    if state.is_over:
        raise GameOverProblem(
            f"the game is over ({state.outcome.value}): no hint", game_status=state.outcome.value
        )
    view = engine.player_view(state)
    seconds = settings.hint_budget_ms / 1000
    began = time.perf_counter()
    result = await solver.run(
        "hint",
        seconds,
        hint,
        view,
        state.rules,
        state.layout,
        seed=seed if seed is not None else secrets.randbits(32),
        # At most ``samples`` samples, within the hint's budget all the same: asking for
        # more samples never buys more time. (A seed and a count the budget lets finish
        # make the hint repeatable.)
        time_budget=seconds,
        max_samples=samples if samples is not None else MAX_HINT_SAMPLES,
    )
    if seed is not None and samples is not None and not result.exact and result.samples < samples:
        # A seeded hint of a set number of samples is the same every time, or none: the
        # budget cut it short (a loaded machine), and a hint of fewer samples could differ.
        metrics.observe_hint(time.perf_counter() - began, "cut_short")
        raise ServiceUnavailableProblem(
            f"the hint's {seconds:g} s solved {result.samples} of the {samples} samples asked "
            "for; a seeded hint answers only whole, so that it is the same every time: retry",
            retry_after=1,
        )
    metrics.observe_hint(time.perf_counter() - began, "exact" if result.exact else "sampled")
    return result


async def analyse(
    state: engine.GameState, settings: Settings, solver: Searches, moves: list[str]
) -> Analysis:
    """The finished game looked back on with its whole deal known, within the analysis
    budget (``ANALYSIS_BUDGET_MS``: it runs once a game, its answer is kept)."""
    if not state.is_over:
        raise GameInProgressProblem("a game is analysed once it has ended; it is in progress")
    seconds = settings.analysis_budget_ms / 1000
    began = time.perf_counter()
    result = await solver.run(
        "analysis",
        seconds,
        analysis,
        state.deal,
        state.rules,
        moves,
        state.layout,
        budget=SearchBudget(max_nodes=None, seconds=seconds),
    )
    metrics.observe_solver(
        time.perf_counter() - began, "analysis" if result.complete else "budget_exhausted"
    )
    return result


def difficulty_settings(settings: Settings) -> DifficultySettings:
    return DifficultySettings(
        playouts=settings.difficulty_playouts, samples=settings.difficulty_samples
    )


async def rate(
    deal: engine.Deal,
    rules: engine.Rules,
    settings: Settings,
    solver: Searches | SolverPool,
    kind: str = "difficulty",
) -> Difficulty | None:
    """The deal's difficulty (``app.engine.difficulty``), within ``DIFFICULTY_BUDGET_MS``;
    None when that ran out. Its answer depends on the deal, the rules and the settings
    alone, never on the machine's speed. ``kind`` names the search for the pool (a closed
    challenge's takes the challenges' kept slot)."""
    seconds = settings.difficulty_budget_ms / 1000
    began = time.perf_counter()
    found = await solver.run(
        kind,
        seconds,
        difficulty,
        deal,
        rules,
        engine.get_layout(rules.layout),
        difficulty_settings(settings),
        seconds,
    )
    metrics.observe_solver(
        time.perf_counter() - began, "difficulty" if found is not None else "budget_exhausted"
    )
    return found
