"""How much work a search may do, and the count a search keeps of the work it has done.

Every search answers "unknown" rather than guess when its budget runs out, so each one
counts its nodes and looks at the clock. ``Meter`` is that count for the best-score
searches: the exact one, the layered one, their streak walks and the proof of the ceiling
on every streak share one, so that a question's budget is spent once however its work is
split. The clearing search keeps its own count in its own attributes (clear.py: the
hottest loop of the solver reads them on every node).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Final

DEFAULT_MAX_NODES: Final = 5_000_000
UNLIMITED_NODES: Final = 1 << 62  # a node budget of None


@dataclass(frozen=True, slots=True)
class SearchBudget:
    """How much work one search may do: search nodes and/or wall-clock seconds."""

    max_nodes: int | None = DEFAULT_MAX_NODES
    seconds: float | None = None


class BudgetExhausted(Exception):
    """Raised inside a search when its budget has run out."""


def seconds_until(deadline: float | None) -> float:
    """The seconds left until ``deadline`` as the C searches take them: -1.0 for none."""
    return -1.0 if deadline is None else max(0.0, deadline - time.perf_counter())


class Meter:
    """The nodes a search has counted and the deadline and node count it must stop at.

    ``max_nodes`` and ``deadline`` may be narrowed for a part of a search (``share``) and
    set back after it: the layered search gives its probe a share of the budget."""

    __slots__ = ("deadline", "max_nodes", "nodes")

    def __init__(self, budget: SearchBudget) -> None:
        self.nodes = 0
        self.max_nodes = budget.max_nodes if budget.max_nodes is not None else UNLIMITED_NODES
        self.deadline = time.perf_counter() + budget.seconds if budget.seconds is not None else None

    @property
    def unlimited(self) -> bool:
        """Neither nodes nor time are limited."""
        return self.deadline is None and self.max_nodes >= UNLIMITED_NODES

    def tick(self) -> None:
        """Count a node; raise BudgetExhausted past the budget (the clock every 1,024)."""
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise BudgetExhausted
        if (
            self.deadline is not None
            and self.nodes & 1023 == 0
            and time.perf_counter() > self.deadline
        ):
            raise BudgetExhausted

    def within_budget(self, pending: int) -> None:
        """Raise BudgetExhausted if ``pending`` more nodes, or the time, exceed the budget."""
        if self.nodes + pending > self.max_nodes or (
            self.deadline is not None and time.perf_counter() > self.deadline
        ):
            raise BudgetExhausted

    def share(self, share: float) -> tuple[float | None, int]:
        """The deadline and the node count by which ``share`` of the budget left is spent."""
        now = time.perf_counter()
        until = None if self.deadline is None else now + share * (self.deadline - now)
        return until, self.nodes + int(share * (self.max_nodes - self.nodes))

    def nodes_left(self) -> int:
        return self.max_nodes - self.nodes
