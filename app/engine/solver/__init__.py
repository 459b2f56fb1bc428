"""The solver: exact answers for a game whose every card is known.

Two questions, for any layout and rule option (undo is irrelevant to the optimum and
``open_peaks`` to a solver that sees every card):

- ``solve_clear``: can the tableau be cleared, and by which line of moves;
- ``solve_best``: the highest final score reachable when the player may also stop
  (concede) at any moment, under the game's scoring scheme, and a line that reaches it
  (for ``cards_left`` the fewest cards left).

Both take a ``GameState`` (the start of a deal or any position of a game), so an HTTP
endpoint, the hints and the analysis call them directly; ``solve_deal`` is the form for a
deal. Each search has a ``SearchBudget`` (nodes and/or seconds); when it runs out the answer is
``None`` ("unknown"), never a guess, except where ``solve_best`` is asked for an anytime
answer (an analysis, where six peaks' search rarely finishes): then the layered search
answers, exact when it finishes, else with the best line it found, replayed, and the
sound bound it proved, marked not exact (layers.py, docs/research/best-score.md).

Where each part is, and why each is sound (each module argues its own):

- tables.py: the compact problem the searches work on (a position as bitmasks of ranks)
  and what is precomputed for a deal;
- budget.py: the budget and the count of work a search keeps against it;
- clear.py: the clearing search, its table and its bound (Hall's theorem);
- best.py: the exact best score, a dynamic programme over draw positions;
- streaks.py: the streaks both best-score searches walk between two draws;
- bounds.py: sound bounds on the points still to come (streaks capped by the ranks left);
- ceiling.py: the proof that no streak of any line passes a length;
- layers.py: the anytime best score, the layered search;
- accel.py: the glue to the optional C searches, the same searches in the same order.

The hints ask the clearing question of many samples through ``clear_search`` (the C
search where it is built), on positions made with ``start_of`` (a ``Start``).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from app.engine.cards import Card
from app.engine.deals import MAX_DEAL_NUMBER, Deal, numbered_deal
from app.engine.errors import TriPeaksError
from app.engine.game import GameState, GameStatus, apply, new_game
from app.engine.layouts import Layout, get_layout
from app.engine.rules import Rules, Scoring
from app.engine.solver.best import BestSearch
from app.engine.solver.bounds import score_bound
from app.engine.solver.budget import DEFAULT_MAX_NODES, BudgetExhausted, SearchBudget
from app.engine.solver.clear import ClearingSearch, ClearSearch, clear_search
from app.engine.solver.layers import LayerSearch
from app.engine.solver.tables import (
    DRAW_CODE,
    NO_TOP,
    REDEAL_CODE,
    Start,
    rank_fits,
    start_of,
)

__all__ = [
    "DEFAULT_MAX_NODES",
    "DRAW_CODE",
    "NO_TOP",
    "REDEAL_CODE",
    "BestAnswer",
    "BudgetExhausted",
    "ClearAnswer",
    "ClearingSearch",
    "NoWinnableDealError",
    "SearchBudget",
    "Solution",
    "Start",
    "WinnableDeal",
    "clear_search",
    "rank_fits",
    "solve_best",
    "solve_clear",
    "solve_deal",
    "start_of",
    "winnable_deal",
    "winnable_deal_within",
]


@dataclass(frozen=True, slots=True)
class ClearAnswer:
    """``winnable`` is None when the budget ran out; ``line`` is a winning line of move
    strings from the position solved (empty unless winnable)."""

    winnable: bool | None
    line: tuple[str, ...]
    nodes: int
    seconds: float


@dataclass(frozen=True, slots=True)
class BestAnswer:
    """``score`` is the best final score (for ``cards_left`` the fewest cards left), None
    when the budget ran out; with ``exact`` False (an anytime answer, ``solve_best``) it is
    the best line's found, and ``bound`` is a sound bound no line passes (for cards_left:
    no line leaves fewer), the score itself when exact. ``line`` reaches the score from the
    position solved; it ends with ``concede`` when the line stops before the game ends."""

    score: int | None
    scheme: Scoring
    line: tuple[str, ...]
    nodes: int
    seconds: float
    bound: int | None
    exact: bool


@dataclass(frozen=True, slots=True)
class Solution:
    """Both answers for one deal (``solve_deal``)."""

    clear: ClearAnswer | None
    best: BestAnswer | None

    @property
    def seconds(self) -> float:
        return sum(a.seconds for a in (self.clear, self.best) if a is not None)

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {}
        if self.clear is not None:
            out["winnable"] = self.clear.winnable
            out["win_line"] = list(self.clear.line) if self.clear.winnable else None
        if self.best is not None:
            out["scoring"] = self.best.scheme.value
            out["best_score"] = self.best.score
            out["best_line"] = list(self.best.line) if self.best.score is not None else None
        out["nodes"] = sum(a.nodes for a in (self.clear, self.best) if a is not None)
        out["seconds"] = round(self.seconds, 6)
        return out


def _move_text(code: int) -> str:
    if code == DRAW_CODE:
        return "draw"
    if code == REDEAL_CODE:
        return "redeal"
    return f"play {code}"


def _check_line(state: GameState, line: Sequence[str]) -> GameState:
    """Replay the line with the engine: a solver answer is never unchecked."""
    for move in line:
        state = apply(state, move)
    return state


def solve_clear(
    state: GameState, budget: SearchBudget | None = None, *, bound: bool = True
) -> ClearAnswer:
    """Whether the game can still be cleared from ``state``, with a winning line.
    ``bound=False`` turns off the bound (clear.py), for tests and benchmarks."""
    began = time.perf_counter()
    budget = budget or SearchBudget()
    if state.outcome is GameStatus.WON:
        return ClearAnswer(True, (), 0, time.perf_counter() - began)
    if state.is_over:
        return ClearAnswer(False, (), 0, time.perf_counter() - began)
    start = start_of(state)
    search = ClearSearch(state.layout, state.rules, start, budget, bound)
    try:
        ok = search.wins(start)
    except BudgetExhausted:
        return ClearAnswer(None, (), search.nodes, time.perf_counter() - began)
    line = tuple(_move_text(c) for c in search.line) if ok else ()
    if ok and _check_line(state, line).outcome is not GameStatus.WON:
        raise AssertionError(f"solver line does not win: {line}")  # pragma: no cover
    return ClearAnswer(ok, line, search.nodes, time.perf_counter() - began)


def solve_best(
    state: GameState, budget: SearchBudget | None = None, *, anytime: bool = False
) -> BestAnswer:
    """The best final score reachable from ``state`` under its rules' scoring, stopping
    (conceding) whenever that is best, with a line that reaches it, and a sound bound
    (bounds.py ``score_bound``; the score itself when exact).

    Without ``anytime`` a search that runs out of budget answers None: what ranks or
    judges results (a challenge's best score, the fair-play measure) needs the exact best.
    With ``anytime`` (an analysis, ``tripeaks solve``) the layered search
    (layers.py ``LayerSearch``) has the whole budget: exact when it finishes (classic and golf deals
    as soon as the exact search, docs/research/best-score.md), else the best line it found, with
    the bound it proved, ``exact`` False unless the line reaches it; with redeals (the
    waste's order is then part of a position) there is no layered search, and the answer
    is None with the bound."""
    began = time.perf_counter()
    budget = budget or SearchBudget()
    scheme = state.rules.scoring
    if state.is_over:
        total = state.score.total
        return BestAnswer(total, scheme, (), 0, time.perf_counter() - began, total, True)
    start = start_of(state)
    unwinnable = False
    if scheme is Scoring.CARDS_LEFT:
        # No card left is the best there is: a winning line, when there is one, is best.
        clear = solve_clear(state, budget)
        if clear.winnable:
            seconds = time.perf_counter() - began
            return BestAnswer(0, scheme, clear.line, clear.nodes, seconds, 0, True)
        unwinnable = clear.winnable is False
    search: LayerSearch | BestSearch
    if anytime and state.rules.redeals == 0:
        search = LayerSearch(state.layout, state.rules, start, budget)
        lower = search.scorer.lower_is_better
        gain, most, exact, codes = search.run(start, unwinnable)
        # the bound proved: never above the start's own (``LayerSearch._search``)
        bound = start.total - most if lower else start.total + most
    else:
        search = BestSearch(state.layout, state.rules, start, budget)
        lower = search.scorer.lower_is_better
        bound = score_bound(start, search.table, search.scorer, unwinnable, search.longest)
        try:
            gain, codes = search.best(start)
        except BudgetExhausted:
            seconds = time.perf_counter() - began
            return BestAnswer(None, scheme, (), search.meter.nodes, seconds, bound, False)
        exact = True
    line = [_move_text(c) for c in codes]
    end = _check_line(state, line)
    if not end.is_over:
        line.append("concede")
    score = start.total - gain if lower else start.total + gain
    if end.score.total != score:
        raise AssertionError(  # pragma: no cover
            f"solver line scores {end.score.total}, not {score}: {line}"
        )
    exact = exact or score == bound
    seconds = time.perf_counter() - began
    nodes = search.meter.nodes
    return BestAnswer(score, scheme, tuple(line), nodes, seconds, score if exact else bound, exact)


def solve_deal(
    deal: Sequence[Card],
    rules: Rules,
    layout: Layout | None = None,
    *,
    clear: bool = True,
    best: bool = True,
    budget: SearchBudget | None = None,
) -> Solution:
    """Both questions for a deal, each with its own ``budget``."""
    state = new_game(deal, rules, layout)
    return Solution(
        clear=solve_clear(state, budget) if clear else None,
        best=solve_best(state, budget) if best else None,
    )


@dataclass(frozen=True, slots=True)
class WinnableDeal:
    """A deal the solver proved winnable, its number (None for an explicit random order),
    how many deals were tried, and a winning line (kept secret from players)."""

    deal: Deal
    number: int | None
    tried: int
    line: tuple[str, ...] = field(default=())


class NoWinnableDealError(TriPeaksError):
    """No deal was proved winnable within the budget."""


def winnable_deal_within(
    rules: Rules, layout: Layout, seconds: float, nodes_per_deal: int = 200_000
) -> WinnableDeal | None:
    """Deal until a deal is proved winnable, or None once ``seconds`` have passed. Each
    deal's search stops at ``nodes_per_deal`` nodes (a fresh deal is cheaper than a hard
    proof: most deals are proved in far fewer) or at the time left."""
    deadline = time.perf_counter() + seconds
    while (left := deadline - time.perf_counter()) > 0:
        try:
            return winnable_deal(
                rules,
                layout,
                max_deals=1,
                budget=SearchBudget(max_nodes=nodes_per_deal, seconds=left),
            )
        except NoWinnableDealError:
            continue
    return None


def winnable_deal(
    rules: Rules,
    layout: Layout | None = None,
    *,
    first_number: int | None = None,
    rng: random.Random | None = None,
    max_deals: int = 100,
    budget: SearchBudget | None = None,
) -> WinnableDeal:
    """Deal until the solver proves a deal winnable under ``rules``.

    Deals are numbered deals ``first_number``, ``first_number + 1``, ... when it is given,
    else numbered deals drawn from ``rng`` (default: the system's secure generator, so a
    player cannot predict the number). A deal whose search runs out of ``budget`` (default
    200,000 nodes each) counts as not winnable. After ``max_deals`` deals with no proof,
    ``NoWinnableDealError``.
    """
    lay = layout if layout is not None else get_layout(rules.layout)
    budget = budget or SearchBudget(max_nodes=200_000)
    chooser = rng if rng is not None else random.SystemRandom()
    for tried in range(1, max_deals + 1):
        if first_number is not None:
            number = first_number + tried - 1
        else:
            number = chooser.randrange(MAX_DEAL_NUMBER + 1)
        deal = numbered_deal(number, lay.decks, rules.jokers)
        answer = solve_clear(new_game(deal, rules, lay), budget)
        if answer.winnable:
            return WinnableDeal(deal, number, tried, answer.line)
    raise NoWinnableDealError(
        f"no deal proved winnable in {max_deals} deals under these rules "
        f"(budget {budget.max_nodes} nodes / {budget.seconds} s per deal)"
    )
