"""The exact best score: a dynamic programme over draw positions.

Best score uses the fact that a draw ends the streak: the points still to come from a
position reached by a draw do not depend on how it was reached, and its waste top is the
card just drawn. So the search is a dynamic programme over "draw positions" (removed mask,
stock index): from each it enumerates the masks a streak can reach before the next draw
(streaks.py: the walk deduplicated on mask and top; the points of a streak depend only on
how many cards it takes and which peaks, both fixed by the mask), then stops or draws. The
streak never enters the key, which keeps the table small; the search is exhaustive. A draw
position where no card fits the top is never kept: it is worth max(0, the next draw
position where one fits, less the draws to it) (``BestSearch``), which takes many
positions out of the table. Without redeals the search runs in C where the install built
it (best.c, the same search in the same order: same values, lines and node counts,
tested), many times faster; the pure Python search is the fallback. The figures:
docs/research/best-score.md, "The exact search" (``python -m bench solver``).

This search is exact or answers nothing (out of budget). The anytime answer of an analysis
is the layered search's (layers.py), over the same draw positions.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from app.engine.layouts import Layout
from app.engine.rules import Rules
from app.engine.solver import accel
from app.engine.solver.bounds import scorer_for
from app.engine.solver.budget import BudgetExhausted, Meter, SearchBudget
from app.engine.solver.streaks import Streaks
from app.engine.solver.tables import DRAW_CODE, NO_TOP, REDEAL_CODE, Start, Table


@dataclass(slots=True)
class _Plan:
    path: tuple[int, ...]  # plays and redeals of the streak
    then: object | None  # key of the draw position after the draw, or None: stop


# A position inside a streak, for the general (redeals) walk:
# mask, free, top, stock, stock index, waste under the top, redeals left, path.
_Step = tuple[int, int, int, tuple[int, ...], int, tuple[int, ...], int, tuple[int, ...]]
_DrawPosition = tuple[int, int, int, tuple[int, ...], int, tuple[int, ...], int]


class BestSearch:
    """Best points still to come, by dynamic programming over draw positions.

    An exhaustive search: exact by construction and fast by its small keys (mask and
    stock index), not by pruning. Stopping is always allowed, so no draw's penalty can be
    counted as owed, and the sound bounds cheap enough to work out stand far above the
    value at most positions: a branch and bound on the cards a streak can take, and
    alpha-beta over draw positions, pruned too little to pay for themselves
    (docs/research/best-score.md, "The exact search").

    Dead draws. At a draw position (mask, i) where no free card fits the top, the only
    moves are to stop (0) or to draw (-penalty + V(mask, i + 1)); so V(mask, i) =
    max(0, V(mask, j) - penalty * (j - i)) for the first j > i where a card fits (the
    penalty is never negative, so the max(0, ...) of the positions between folds into
    one), and 0 when there is none (drawing to the end only costs). A streak's end is
    therefore followed straight to that j, and the line draws j - i cards.
    """

    def __init__(self, layout: Layout, rules: Rules, start: Start, budget: SearchBudget) -> None:
        self.table = Table(layout, rules, start.ranks)
        self.stock = start.stock
        self.track = rules.redeals > 0  # the waste's order matters only if it can come back
        self.meter = Meter(budget)
        self.streaks = Streaks(self.table, self.stock, self.meter)
        self.stock_fit = self.table.stock_fit(self.stock)
        # No streak takes more cards than the cards and the streak (bounds.py
        # ``cards_bound``'s ``longest``).
        self.longest = self.table.n + start.streak
        self.scorer = scorer_for(rules, layout, self.longest + 1)
        self.tt: dict[object, tuple[int, _Plan]] = {}
        self.tt_fast: dict[int, tuple[int, int, int]] = {}  # without redeals

    def best(self, start: Start) -> tuple[int, list[int]]:
        """The most points still to come from ``start`` (>= 0) and a line to them."""
        t = self.table
        free = t.free_of(start.mask)
        limit = sys.getrecursionlimit()
        need = 4 * (len(start.stock) * (1 + start.redeals_left) + t.n) + 200
        if limit < need:
            sys.setrecursionlimit(need)
        if self.track:
            node = (start.mask, free, start.top, start.stock, 0, start.waste, start.redeals_left)
            value, plan = self._value(None, node, start.streak)
        else:
            if start.stock != self.stock:
                raise ValueError("a search answers about one deal's stock")
            value, ends = self._best_ends(start.mask, free, start.top, start.streak)
            return value, self.streaks.line(start, ends)
        line: list[int] = []
        while True:
            line.extend(plan.path)
            if plan.then is None:
                break
            line.append(DRAW_CODE)
            plan = self.tt[plan.then][1]
        return value, line

    def _best_ends(
        self, mask: int, free: int, top: int, streak: int
    ) -> tuple[int, list[tuple[int, int]]]:
        """Without redeals: the most points still to come and the draw positions of the
        best line, as (stock index, the mask its streak ends on), the first the position
        solved (index 0): by the C search when it is built (accel.py), else by
        ``_value_fast``."""
        c = accel.usable(self.table.n, len(self.stock))
        if c is not None:
            args = accel.best_args(
                self.table, self.stock, self.scorer, self.meter, mask, free, top, streak
            )
            value, nodes, ends = c.best(*args, accel.MAX_ENTRIES)
            self.meter.nodes += nodes
            if value is None:
                raise BudgetExhausted
            return value, ends
        value, end, then = self._value_fast(-1, mask, free, 0, top, streak)
        ends = [(0, end)]
        while then >= 0:
            j = then & 255
            _, end, then = self.tt_fast[then]
            ends.append((j, end))
        return value, ends

    def _value_fast(
        self, key: int, mask0: int, free0: int, idx: int, top0: int, streak: int
    ) -> tuple[int, int, int]:
        """Best points still to come from a draw position (no redeals allowed): the
        streaks playable now, each followed by a stop or by a draw. The answer is (the
        points, the mask the best streak ends on, the key of the draw position after it or
        -1 to stop); ``Streaks.cards_to`` finds the streak's cards again for the line. ``key``
        is the position's key in the table (-1: the start, not kept)."""
        self.meter.tick()
        t = self.table
        ends, walked, _ = self.streaks.ends(mask0, free0, top0, None)
        self.meter.nodes += walked

        sc = self.scorer
        pts = sc.pts
        bonus = sc.bonus
        penalty = sc.penalty
        stock = self.stock
        stock_fit = self.stock_fit
        draws = len(stock)
        count0 = mask0.bit_count()
        peak_mask = t.peak_mask
        base = pts[streak] + bonus[(mask0 & peak_mask).bit_count()]
        full = t.full
        tt_get = self.tt_fast.get
        best = 0
        best_end = mask0
        best_then = -1
        for m2, f2 in ends.items():
            # Stop after this streak (its points are fixed by the mask reached) ...
            now = pts[streak + m2.bit_count() - count0] + bonus[(m2 & peak_mask).bit_count()] - base
            if now > best:
                best = now
                best_end = m2
                best_then = -1
            if m2 == full:
                continue
            # ... or draw, and go on from the next draw position where a card can be
            # played: one where none can is worth its next draw's value less the draw,
            # or nothing (stop), so the draws to it only cost (``BestSearch``).
            j = idx + 1
            while j <= draws and not f2 & stock_fit[j]:
                j += 1
            if j <= draws:
                ckey = m2 << 8 | j
                entry = tt_get(ckey)
                if entry is None:
                    entry = self._value_fast(ckey, m2, f2, j, stock[j - 1], 0)
                c = now - penalty * (j - idx) + entry[0]
                if c > best:
                    best = c
                    best_end = m2
                    best_then = ckey
        found = (best, best_end, best_then)
        if key >= 0:
            self.tt_fast[key] = found
        return found

    def _value(self, key: object, node: _DrawPosition, streak: int) -> tuple[int, _Plan]:
        """``_value_fast`` when redeals are allowed: the stock and the waste (while a
        redeal is left) are part of the position, and a redeal may come inside a streak
        (it neither scores nor breaks the streak)."""
        if key is not None:
            entry = self.tt.get(key)
            if entry is not None:
                return entry
        self.meter.tick()
        t = self.table
        sc = self.scorer
        pts = sc.pts
        bonus = sc.bonus
        mask0 = node[0]
        count0 = mask0.bit_count()
        base = pts[streak] + bonus[(mask0 & t.peak_mask).bit_count()]
        best = 0
        best_plan = _Plan((), None)
        children: dict[object, tuple[int, _DrawPosition, tuple[int, ...]]] = {}
        seen: set[object] = set()
        stack: list[_Step] = [(*node, ())]
        while stack:
            mask, free, top, stock, idx, waste, rl, path = stack.pop()
            self.meter.tick()
            gained = mask.bit_count() - count0
            now = pts[streak + gained] + bonus[(mask & t.peak_mask).bit_count()] - base
            if now > best:
                best = now
                best_plan = _Plan(path, None)
            if mask == t.full:
                continue
            # The cards under the top matter only while a redeal can bring them back.
            under = (*waste, top) if (rl and top != NO_TOP) else ()
            if idx < len(stock):
                drawn = stock[idx]
                ckey = (mask, drawn, stock[idx + 1 :], under, rl)
                if ckey not in children:
                    children[ckey] = (now, (mask, free, drawn, stock, idx + 1, under, rl), path)
            elif rl and waste:
                rkey = ("redeal", mask, top, waste, rl)
                if rkey not in seen:
                    seen.add(rkey)
                    stack.append((mask, free, top, waste, 0, (), rl - 1, (*path, REDEAL_CODE)))
            playable = free & t.fit[top + 1]
            while playable:
                b = playable & -playable
                playable ^= b
                p = b.bit_length() - 1
                m2 = mask | b
                skey = (m2, t.rank[p], stock[idx:], under, rl)
                if skey in seen:
                    continue
                seen.add(skey)
                f2 = free & ~b
                for q, cq in t.uncovers[p]:
                    if cq & m2 == cq:
                        f2 |= 1 << q
                stack.append((m2, f2, t.rank[p], stock, idx, under, rl, (*path, p)))
        for child_key, (now, child, path) in children.items():
            c = now - sc.penalty + self._value(child_key, child, 0)[0]
            if c > best:
                best = c
                best_plan = _Plan(path, child_key)
        found = (best, best_plan)
        if key is not None:
            self.tt[key] = found
        return found
