"""The streaks of one deal, as both best-score searches walk them.

A streak is the run of plays between two draws. The best-score searches (best.py,
layers.py) go from draw position to draw position, so what they ask of a streak is where
it can end (``Streaks.ends``: every mask a streak can reach, the walk deduplicated on
mask and top), and, once the best line is known by its draw positions, which cards it
played to get there (``Streaks.cards_to``, in C where it is built) and the line's moves
(``Streaks.line``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from app.engine.solver import accel
from app.engine.solver.budget import Meter
from app.engine.solver.tables import DRAW_CODE, Start, Table


class Streaks:
    """The streak walks of one deal and stock, counted against the search's ``meter``."""

    def __init__(self, table: Table, stock: tuple[int, ...], meter: Meter) -> None:
        self.table = table
        self.stock = stock
        self.meter = meter

    def line(self, start: Start, ends: Sequence[tuple[int, int]]) -> list[int]:
        """The moves of a line given by its draw positions, as (stock index, the mask its
        streak ends on), the first ``start`` (best.py ``BestSearch``, layers.py ``LayerSearch``)."""
        line: list[int] = self.cards_to(start.mask, start.top, ends[0][1])
        for (i, before), (j, end) in itertools.pairwise(ends):
            line.extend([DRAW_CODE] * (j - i))
            line.extend(self.cards_to(before, self.stock[j - 1], end))
        return line

    def ends(
        self, mask0: int, free0: int, top0: int, cap: int | None
    ) -> tuple[dict[int, int], int, list[tuple[int, int]]]:
        """Every mask a streak can reach from a draw position (with its free cards), how
        many steps the walk took, and where it was cut short: the walk is deduplicated on
        (mask, top), all that decides how it can go on, and depth first (the highest
        position first). ``cap`` stops it past that many steps (layers.py ``_LAYER_WALK``; None: the
        whole walk), as the C walk does; it then answers the states (mask, top) it had
        still to go on from, those on its stack and the one it was at: every end it did
        not reach is reached from one of them (none when it finished)."""
        t = self.table
        fit = t.fit
        rank = t.rank
        uncovers = t.uncovers
        ends: dict[int, int] = {mask0: free0}
        seen: set[int] = set()
        stack: list[tuple[int, int, int]] = [(mask0, free0, top0)]
        pop = stack.pop
        push = stack.append
        limit = 1 << 62 if cap is None else cap
        while stack:
            m, f, tp = pop()
            playable = f & fit[tp + 1]
            while playable:
                b = playable & -playable
                playable ^= b
                m2 = m | b
                p = b.bit_length() - 1
                r = rank[p]
                k = m2 << 4 | r
                if k in seen:
                    continue
                seen.add(k)
                if len(seen) > limit:
                    return ends, len(seen), [(m, tp), *((sm, st) for sm, _, st in stack)]
                if not len(seen) & 4095:
                    # One streak's walk can be huge (six_peaks): keep to the budget inside it.
                    self.meter.within_budget(len(seen))
                f2 = f & ~b
                for q, cq in uncovers[p]:
                    if cq & m2 == cq:
                        f2 |= 1 << q
                if m2 not in ends:
                    ends[m2] = f2
                push((m2, f2, r))
        return ends, len(seen), []

    def cards_to(self, mask0: int, top0: int, end: int) -> list[int]:
        """The cards of a streak from (mask0, top0) that ends on the mask ``end`` (one
        that a search found): a walk like ``ends``' over the masks inside ``end``,
        each step kept with the one it came from. In C where the install built it
        (``_accel.streak``, streaks.c): six_peaks' streaks are long and their walks huge,
        which took Python long after a search had spent its budget (docs/research/best-score.md)."""
        t = self.table
        c = accel.usable(t.n, 0)
        if c is not None:
            played: list[int] = c.streak(
                t.rank, t.uncovers, t.fit, mask0, t.free_of(mask0), top0, end
            )
            return played

        parent: dict[tuple[int, int], tuple[tuple[int, int], int]] = {}
        stack = [(mask0, t.free_of(mask0), top0)]
        found = (mask0, top0) if end == mask0 else None
        while stack and found is None:
            m, f, tp = stack.pop()
            playable = f & t.fit[tp + 1]
            while playable:
                b = playable & -playable
                playable ^= b
                m2 = m | b
                p = b.bit_length() - 1
                state = (m2, t.rank[p])
                if state in parent or m2 & ~end:
                    continue
                parent[state] = ((m, tp), p)
                if m2 == end:
                    found = state
                    break
                f2 = f & ~b
                for q, cq in t.uncovers[p]:
                    if cq & m2 == cq:
                        f2 |= 1 << q
                stack.append((m2, f2, t.rank[p]))
        if found is None:  # pragma: no cover - the end was reached by this very walk
            raise AssertionError("a streak's end cannot be found again")
        cards: list[int] = []
        while found != (mask0, top0):
            found, p = parent[found]
            cards.append(p)
        cards.reverse()
        return cards
