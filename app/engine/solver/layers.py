"""The anytime best score: the layered search, exact when it finishes, else the best line
found and a sound bound (``LayerSearch``: the answer of an analysis and of ``tripeaks
solve``, ``solve_best(anytime=True)``).

Six peaks' exact search (best.py) rarely finishes in an analysis's budget; this one takes
the same draw positions forward, prunes them by the bounds of bounds.py under the ceiling
on every streak of ceiling.py, and when the budget runs out answers the best line it found
with the bound it proved.
"""

from __future__ import annotations

import heapq
import time
from typing import Final

from app.engine.layouts import Layout
from app.engine.rules import Rules
from app.engine.solver import accel
from app.engine.solver.bounds import peaks_left, points_ahead, score_bound, scorer_for
from app.engine.solver.budget import BudgetExhausted, Meter, SearchBudget
from app.engine.solver.ceiling import streak_ceiling
from app.engine.solver.streaks import Streaks
from app.engine.solver.tables import Start, Table

# The layered search's limits. A streak's walk stops after this many steps; the ends it
# did not reach are then bounded by the states it had left (``_expand``): a cut walk
# holds the bound up, a longer one costs memory (its table of masks, its ends, its stack).
# And it keeps at most this many draw positions (40 bytes each in C, more with its tables'
# free slots). What the two cost and buy, measured: docs/research/best-score.md (step 5, "Memory").
_LAYER_WALK: Final = 2_000_000
_LAYER_MAX_ENTRIES = 1 << 21
# Room is made (``LayerSearch._evict``) once less than 1/_LAYER_ROOM of the table is free.
_LAYER_ROOM: Final = 8
# A draw position's flags in the Python table (``LayerSearch``).
_DONE: Final = 1
_EXPANDED: Final = 2
_LAYER_SHARE = 0.05  # of the budget layer by layer, the rest by bound (docs/research/best-score.md)
# Of the budget, first, the probe: one layered search as it was before the ceiling
# (``LayerSearch.run``; classic and golf deals finish there).
_PROBE_SHARE = 0.1


class _CeilingReached(Exception):
    """A line found reaches the start's bound: no line does better (``LayerSearch``)."""


class LayerSearch:
    """The best score by layers, then by bound (no redeals): exact when it finishes, else
    the best line found and a sound bound. The answer of an analysis and of ``tripeaks
    solve`` (``solve_best(anytime=True)``).

    The draw positions of the exact search (best.py: removed mask, stock index), taken
    forward. Each is kept with the most points a line reaches it with (the points still to
    come from it do not depend on how it was reached, best.py) and expanded: its streaks are
    walked (``Streaks.ends``), each end is a line's score (stopping there) and, after the
    draws to the next stock card that fits, a draw position of a later layer.

    Two orders, one table. First (``_LAYER_SHARE`` of the budget) layer by layer, in the
    order of the stock: a draw position's index only grows along a line, so every line to
    a position has reached it when its layer is expanded, and good lines (one long streak
    after a few draws) are found early; until the table is crowded (``_crowded``). Then
    the positions left, the highest bound first: what lowers the bound answered. Between
    two expansions, room is made in a crowded table by evicting the positions never
    expanded with the lowest bounds (``_evict``). Either way the search prunes by the bound
    of ``score_bound`` (the cards left in streaks capped by the ranks left, every peak left;
    ``cards_bound`` argues it), kept in each entry (``_ahead``): a draw position whose
    points so far plus that bound do not pass the best line found cannot lead to a better
    one, and is neither kept nor expanded. The bound falls along every line (a streak and
    the bound after it are one of the splits the bound before it counted), so the highest
    bound left only falls, and a position reached from another with more points has the
    higher bound there: taken by bound, an expanded position is never reached again with
    more points.

    When the budget runs out, every line either ended at a streak's end already counted or
    passes through a draw position not yet expanded: the answer's bound is the most of the
    best line found and of those positions' bounds, of the states a walk cut at
    ``_LAYER_WALK`` steps had still to go on from (its ends not reached stay possible),
    and of any position evicted, or dropped because the table held
    ``_LAYER_MAX_ENTRIES``. Finished, with none of those above the best line, it is exact:
    every line was counted or proved no better.

    The ceiling on every streak (ceiling.py ``streak_ceiling``, after a probe: ``run``): a
    proof that no line has a streak of more than so many cards, which the bound takes as a
    cap on every streak beside the ranks' (``cards_bound``'s ``longest``).

    In C where the install built it (``_accel.layers``, layers.c, the same answers when it
    finishes: the points, the bound; lines of equal points may differ, its order within a
    layer and among equal bounds is its tables'). Measured in docs/research/best-score.md."""

    def __init__(self, layout: Layout, rules: Rules, start: Start, budget: SearchBudget) -> None:
        self.table = Table(layout, rules, start.ranks)
        self.stock = start.stock
        # One meter for the search, its streak walks and the ceiling's proof.
        self.meter = Meter(budget)
        self.streaks = Streaks(self.table, self.stock, self.meter)
        self.stock_fit = self.table.stock_fit(self.stock)
        # No streak takes more cards than the cards and the streak, until the ceiling's
        # proof (``run``) shows fewer.
        self.longest = self.table.n + start.streak
        self.scorer = scorer_for(rules, layout, self.longest + 1)
        # The Python search's state (``_layers``): per stock index, mask -> [points, free
        # cards, the draw position the best line to it streaked from: index and mask,
        # flags: _DONE (expanded or proved no better) and _EXPANDED (it has children), the
        # most points still to come (``_ahead``)]; the best line found (its points, and
        # its last streak: index, from, end); whether evicting still frees room; the most
        # a dropped or evicted position, or one whose walk was cut, could lead to; the
        # positions pending by bound (``_clear``: none yet, for each search).
        self._clear()
        self.ceiling = 0

    def run(self, start: Start, unwinnable: bool) -> tuple[int, int, bool, list[int]]:
        """The most points still to come of the lines found, a bound on any line's (both
        from ``start``'s score), whether that is exact, and the best line found (move
        codes; none: stop at once). ``unwinnable``: the clearing search proved the table
        cannot be cleared (``score_bound``).

        With a budget, first a probe: the search with ``_PROBE_SHARE`` of it (classic and
        golf deals finish there). Cut short, the ceiling on every streak is proved
        (ceiling.py ``streak_ceiling``, with its share of what is left) and the search runs
        again with the rest under it. The answer is the better line of the two and the
        lower bound (each is sound). Without a budget, one search, which finishes."""
        meter = self.meter
        if meter.unlimited:
            return self._search(start, unwinnable)
        deadline, max_nodes = meter.deadline, meter.max_nodes
        meter.deadline, meter.max_nodes = meter.share(_PROBE_SHARE)
        try:
            probe = self._search(start, unwinnable)
        finally:
            meter.deadline, meter.max_nodes = deadline, max_nodes
        if probe[2]:
            return probe
        self.longest = streak_ceiling(self.streaks, start, self.longest)
        found, most, complete, line = self._search(start, unwinnable)
        if probe[0] > found:
            found, line = probe[0], probe[3]
        most = min(most, probe[1])
        return found, most, complete or found == most, line

    def _search(self, start: Start, unwinnable: bool) -> tuple[int, int, bool, list[int]]:
        """One layered search from ``start`` (``run``'s answer) under the ceiling on every
        streak known (``self.longest``). The bound of ``start`` alone (``score_bound``),
        which may know more than a draw position's bound (a table proved unclearable),
        is the search's ``ceiling``: a line that reaches it ends the search, exact (golf:
        an unclearable deal's first line leaving one card), and the bound answered is
        never above it."""
        t = self.table
        sc = self.scorer
        bound = score_bound(start, t, sc, unwinnable, self.longest)
        ceiling = start.total - bound if sc.lower_is_better else bound - start.total
        free = t.free_of(start.mask)
        self.ceiling = ceiling
        c = accel.usable(t.n, len(self.stock))
        if c is not None:
            found, most, complete, nodes, ends = c.layers(
                *accel.best_args(
                    t, self.stock, sc, self.meter, start.mask, free, start.top, start.streak
                ),
                _LAYER_MAX_ENTRIES,
                _LAYER_WALK,
                _LAYER_SHARE,
                ceiling,
                _LAYER_ROOM,
                t.wraps,
                self.longest,
            )
            self.meter.nodes += nodes
        else:
            found, most, complete, ends = self._layers(start, free)
        return found, most, complete, self.streaks.line(start, ends)

    def _clear(self) -> None:
        """The Python search's state as before any search (``run`` may search twice)."""
        self.layers: list[dict[int, list[int]]] = [{} for _ in range(len(self.stock) + 1)]
        self.entries = 1
        self.found = 0
        self.found_at: tuple[int, int, int] | None = None
        self.evicting = True
        self.dropped = 0
        self.by_bound = False
        self.pending: list[tuple[int, int, int]] = []

    def _layers(self, start: Start, free0: int) -> tuple[int, int, bool, list[tuple[int, int]]]:
        """``_search`` in Python: the points, the bound, whether finished, and the best
        line's draw positions as best.py's ``_best_ends`` gives them."""
        self._clear()
        self.layers[0][start.mask] = [0, free0, -1, 0, 0, self._ahead(start, 0, start.mask)]
        switch_at, switch_nodes = self.meter.share(_LAYER_SHARE)
        finished = False
        try:
            for level, layer in enumerate(self.layers):
                for mask0, entry in layer.items():
                    if self.by_bound or entry[4] & _DONE:
                        continue
                    if entry[0] + entry[5] <= self.found:
                        entry[4] |= _DONE
                        continue
                    if (
                        self._crowded()
                        or self.meter.nodes > switch_nodes
                        or (switch_at is not None and time.perf_counter() > switch_at)
                    ):
                        self.by_bound = True
                        continue
                    self._expand(start, level, mask0, entry)
                    entry[4] = _DONE | _EXPANDED
            if self.by_bound:
                self._by_bound(start)
            finished = True
        except _CeilingReached:
            finished = True
        except BudgetExhausted:
            pass
        # The bound: the best found, every draw position not expanded (nor proved no
        # better), and those dropped or whose walk was cut; never above the ceiling.
        most = max(self.found, self.dropped)
        for layer in self.layers:
            for entry in layer.values():
                if not entry[4] & _DONE:
                    most = max(most, entry[0] + entry[5])
        most = min(most, self.ceiling)
        complete = finished and most == self.found
        return self.found, most, complete, self._ends_to(self.found_at, self.layers, start.mask)

    def _ahead(self, start: Start, level: int, mask: int) -> int:
        """The most points still to come from a draw position (``points_ahead``), no
        streak passing the ceiling (``streak_ceiling``): its bound is its points so far and
        these. Kept in its entry, worked out once."""
        streak, top = (start.streak, start.top) if level == 0 else (0, self.stock[level - 1])
        draws = len(self.stock) - level
        return points_ahead(self.table, self.scorer, mask, top, streak, draws, self.longest)

    def _by_bound(self, start: Start) -> None:
        """The draw positions left, the highest bound first, until none can beat the best
        line found (every one is then marked so). Room is made in the table between two
        expansions (``_evict``)."""
        self._pend(start)
        while True:
            if self.evicting and self._crowded():
                self.meter.within_budget(0)  # an eviction takes a while: not past the deadline
                self._evict(start)
            if not self.pending:
                break
            negative, level, mask = heapq.heappop(self.pending)
            if -negative <= self.found:
                break
            entry = self.layers[level].get(mask)
            if entry is None or entry[4] & _DONE or entry[0] + entry[5] != -negative:
                continue  # evicted, expanded, or a later entry holds its points
            self._expand(start, level, mask, entry)
            entry[4] = _DONE | _EXPANDED
        for layer in self.layers:
            for entry in layer.values():
                entry[4] |= _DONE

    def _pend(self, start: Start) -> None:
        """The heap of the positions pending, by bound (anew: none evicted or stale)."""
        self.pending = [
            (-entry[0] - entry[5], level, mask)
            for level, layer in enumerate(self.layers)
            for mask, entry in layer.items()
            if not entry[4] & _DONE
        ]
        heapq.heapify(self.pending)

    def _crowded(self) -> bool:
        """Less than an eighth of the table is free: one expansion can add that many."""
        return self.entries + _LAYER_MAX_ENTRIES // _LAYER_ROOM > _LAYER_MAX_ENTRIES

    def _evict(self, start: Start) -> None:
        """Make room: drop the positions never expanded with the lowest quarter of their
        bounds (those proved no better first), and count the highest of those bounds as
        dropped (a quarter, not more: the cut stays below the highest bounds, which are
        close together on six peaks). Sound, as a full table's dropping is: every line
        through one of them is worth at most its bound, and no line found passes through
        it (it has no children). Where fewer than an eighth of the table could go, it
        stops trying: new positions are then dropped, each counted by its own bound."""
        proved = -(1 << 62)
        bounds = [
            (proved if entry[4] & _DONE else entry[0] + entry[5], level, mask)
            for level, layer in enumerate(self.layers)
            for mask, entry in layer.items()
            if not entry[4] & _EXPANDED
        ]
        if len(bounds) < _LAYER_MAX_ENTRIES // _LAYER_ROOM:
            self.evicting = False
            return
        cut = sorted(bound for bound, _, _ in bounds)[len(bounds) // 4]
        for bound, level, mask in bounds:
            if bound <= cut:
                del self.layers[level][mask]
                self.entries -= 1
        self.dropped = max(self.dropped, cut)
        self._pend(start)

    def _expand(self, start: Start, level: int, mask0: int, entry: list[int]) -> None:
        """Walk a draw position's streaks: each end is a line's score and, after the draws
        to the next stock card that fits, a draw position of a later layer, kept with the
        most points that reach it (past ``_LAYER_MAX_ENTRIES`` a new one counts by its
        bound alone; taken by bound, it is pending)."""
        t = self.table
        sc = self.scorer
        pts, bonus, penalty = sc.pts, sc.bonus, sc.penalty
        stock = self.stock
        stock_fit = self.stock_fit
        draws = len(stock)
        peak_mask = t.peak_mask
        streak = start.streak if level == 0 else 0
        top = start.top if level == 0 else stock[level - 1]
        acc = entry[0]
        self.meter.tick()
        self.meter.within_budget(0)
        ends, walked, left_at = self.streaks.ends(mask0, entry[1], top, _LAYER_WALK)
        self.meter.nodes += walked
        count0 = mask0.bit_count()
        base = pts[streak] + bonus[(mask0 & peak_mask).bit_count()]
        if left_at:  # cut short: the ends not reached stay possible, each line through one
            # of the states the walk had still to go on from (its points so far, then the
            # streak going on: points_ahead from there), never above its own bound
            cut = max(
                acc
                - base
                + pts[streak + m.bit_count() - count0]
                + bonus[(m & peak_mask).bit_count()]
                + points_ahead(
                    t, sc, m, tp, streak + m.bit_count() - count0, draws - level, self.longest
                )
                for m, tp in left_at
            )
            self.dropped = max(self.dropped, min(cut, acc + entry[5]))
        for k, (m2, f2) in enumerate(ends.items()):
            if not k & 4095 and k:
                # a walk's ends can be many, each new draw position's bound costs
                # microseconds here: keep to the budget (the position stays pending)
                self.meter.within_budget(0)
            now = acc + pts[streak + m2.bit_count() - count0] + bonus[(m2 & peak_mask).bit_count()]
            now -= base
            if now > self.found:
                self.found = now
                self.found_at = (level, mask0, m2)
                if now >= self.ceiling:
                    raise _CeilingReached
            if m2 == t.full:
                continue
            j = level + 1
            while j <= draws and not f2 & stock_fit[j]:
                j += 1
            if j > draws:
                continue
            then = now - penalty * (j - level)
            # every card left in one streak: never below the bound, and cheaper (as in C)
            if then + pts[t.n - m2.bit_count()] + peaks_left(t, sc, m2) <= self.found:
                continue
            kept = self.layers[j].get(m2)
            ahead = self._ahead(start, j, m2) if kept is None else kept[5]
            u = then + ahead
            if u <= self.found:
                continue
            if kept is None:
                if self.entries >= _LAYER_MAX_ENTRIES:
                    self.dropped = max(self.dropped, u)
                    continue
                self.entries += 1
                kept = self.layers[j][m2] = [then - 1, 0, 0, 0, 0, ahead]
            if then > kept[0]:
                kept[:4] = [then, f2, level, mask0]
                if self.by_bound:
                    heapq.heappush(self.pending, (-u, j, m2))

    @staticmethod
    def _ends_to(
        best_at: tuple[int, int, int] | None, layers: list[dict[int, list[int]]], mask0: int
    ) -> list[tuple[int, int]]:
        """The draw positions of the best line found, as best.py's ``_best_ends`` gives
        them."""
        if best_at is None:
            return [(0, mask0)]
        level, before, end = best_at
        ends = [(level, end)]
        while level > 0:
            entry = layers[level][before]
            level, before, end = entry[2], entry[3], before
            ends.append((level, end))
        ends.reverse()
        return ends
