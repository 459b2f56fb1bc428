"""The glue to the optional C searches (setup.py builds them where a C compiler exists).

Each search module calls its C form where ``usable`` gives the C module, right beside its
pure Python form, which is the fallback and the reference: the C searches give the same
answers (tests/engine/test_best_accel.py, test_clear_accel.py, test_solver_agreement.py).
``active`` is the one switch: None where the C searches are not built or when
TRIPEAKS_PURE_SOLVER is set, and the tests and benchmarks set it to run either form
(read it as ``accel.active``, never import the name: a copy would not see the switch).

Here too: the arguments both C best-score searches are first given (``best_args``), and
the C clearing search behind the Python one's interface (``CClearSearch``).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Final

from app.engine.layouts import Layout
from app.engine.rules import Rules
from app.engine.solver.bounds import Scorer
from app.engine.solver.budget import (
    UNLIMITED_NODES,
    BudgetExhausted,
    Meter,
    SearchBudget,
    seconds_until,
)
from app.engine.solver.tables import Start, Table, fit_ranks, hall_sets, sup_ranks


def _load() -> ModuleType | None:
    """The optional C searches (setup.py); without them the pure Python ones, the same."""
    try:
        from app.engine.solver import _accel
    except ImportError:  # pragma: no cover - built wherever the tests run
        return None
    return _accel


# The C searches, None where they are not built or when TRIPEAKS_PURE_SOLVER is set: the
# pure Python searches then answer, the same answers (the tests run both). Their keys hold
# a mask in 56 bits. The best-score search's table does not grow past MAX_ENTRIES draw
# positions (16 bytes a slot, at most 2^23 slots: docs/research/memory.md); a search
# that needs more is unknown, as when the budget runs out (a budget of seconds alone would
# let it grow by millions a second).
BUILT: Final = _load()
active: ModuleType | None = None if os.environ.get("TRIPEAKS_PURE_SOLVER") else BUILT
MAX_POSITIONS: Final = 56
MAX_ENTRIES = 1 << 22


def usable(positions: int, stock: int) -> ModuleType | None:
    """The C searches, where they are on and take a deal of ``positions`` tableau positions
    and ``stock`` stock cards; None: the Python search answers."""
    if active is not None and positions <= MAX_POSITIONS and stock < 256:
        return active
    return None


def best_args(
    table: Table,
    stock: tuple[int, ...],
    scorer: Scorer,
    meter: Meter,
    mask: int,
    free: int,
    top: int,
    streak: int,
) -> tuple[object, ...]:
    """What both C best-score searches (``best`` and ``layers``) are first given: the
    tables, the scoring, the position, and the budget left."""
    return (
        table.rank,
        table.uncovers,
        table.fit,
        stock,
        scorer.pts,
        scorer.bonus,
        scorer.penalty,
        table.peak_mask,
        table.full,
        mask,
        free,
        top,
        streak,
        meter.nodes_left(),
        seconds_until(meter.deadline),
    )


@dataclass(frozen=True, slots=True)
class _Shape:
    """What the C clearing search takes of a layout (the rest of ``Table`` it does not
    need, and building a whole ``Table`` a sample cost more than most samples' search)."""

    layout: Layout
    full: int
    cover: tuple[int, ...]
    uncovers: tuple[tuple[tuple[int, int], ...], ...]


_SHAPES: dict[str, _Shape] = {}


def _shape(layout: Layout) -> _Shape:
    found = _SHAPES.get(layout.name)
    if found is not None and found.layout is layout:
        return found
    cover = tuple(sum(1 << c for c in pos.covered_by) for pos in layout.positions)
    uncovers = tuple(tuple((q, cover[q]) for q in layout.covers[p]) for p in range(layout.size))
    found = _SHAPES[layout.name] = _Shape(layout, (1 << layout.size) - 1, cover, uncovers)
    return found


class CClearSearch:
    """The C clearing search (``Clear``: its comment says how) behind the Python
    ``ClearSearch``'s interface (clear.py), for the rules without redeals. Its table of
    positions proved lost lives in the C object and serves every question on this deal and
    stock. It has the bound but not the restarts of ``ClearSearch``. A node is a position
    reached by a play, as there (a run of draws is one node), but it does not look ahead
    past a child whose moves are all known lost, so on hard lost samples it counts more
    nodes than the Python search: a node budget buys a little less search, in much less
    time (docs/performance.md). The answers, when both give one, are the same (tested)."""

    def __init__(self, layout: Layout, rules: Rules, start: Start, budget: SearchBudget) -> None:
        assert active is not None and rules.redeals == 0
        self.shape = shape = _shape(layout)
        self.stock = start.stock
        self.nodes = 0
        self.max_nodes = budget.max_nodes if budget.max_nodes is not None else UNLIMITED_NODES
        self.deadline = time.perf_counter() + budget.seconds if budget.seconds is not None else None
        rank_mask = [0] * 14
        for p, r in enumerate(start.ranks):
            rank_mask[r] |= 1 << p
        fit = (
            shape.full,
            *(
                sum(rank_mask[r] for r in ranks)
                for ranks in fit_ranks(rules.wrap, rules.king_stops)
            ),
        )
        # The bound (clear.py), off with a joker.
        sup = sup_ranks(rules.wrap, rules.king_stops)
        hall = hall_sets(sup, rules.wrap).sets if rules.jokers == 0 else ()
        self.search = active.Clear(start.ranks, shape.uncovers, fit, self.stock, shape.full, hall)
        self.line: list[int] = []

    def wins(self, start: Start) -> bool:
        """Whether ``start`` can be cleared; the line is left in ``self.line``."""
        self.line = []
        mask = start.mask
        if mask == self.shape.full:
            return True
        idx = len(self.stock) - len(start.stock)
        if idx < 0 or self.stock[idx:] != start.stock:
            raise ValueError("a search answers about one deal's stock")
        free = 0
        for p, cp in enumerate(self.shape.cover):
            if not mask >> p & 1 and cp & mask == cp:
                free |= 1 << p
        won, nodes, line = self.search.wins(
            mask,
            free,
            idx,
            start.top,
            max(0, self.max_nodes - self.nodes),
            seconds_until(self.deadline),
            MAX_ENTRIES,
        )
        self.nodes += nodes
        if won is None:
            raise BudgetExhausted
        self.line = line
        return bool(won)
