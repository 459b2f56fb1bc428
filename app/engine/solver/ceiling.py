"""The ceiling on every streak: how many cards no streak of any line passes.

The layered search's bound (bounds.py ``cards_bound``) caps every streak by the ranks left;
where the ranks left are spread evenly that cap lets one streak take every card, and the
bound is loose. This proves a lower cap, a length at a time, by a search of its own
(``streak_reaches``, in C where it is built), which the layered search (layers.py
``LayerSearch.run``) takes as ``longest``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Final

from app.engine.solver import accel
from app.engine.solver.bounds import streak_caps
from app.engine.solver.budget import seconds_until
from app.engine.solver.streaks import Streaks
from app.engine.solver.tables import Start

# Of the budget left after the layered search's probe, the share that proves how many
# cards no streak passes (``streak_ceiling``), and the (mask, top) states that proof keeps
# at most: in C 16 bytes each, a table of 2**24 slots at the most (and the one it grew
# from while it grows: docs/research/memory.md); in Python many times that each, so a
# tenth as many. Freed before the layered search (its memory, measured:
# docs/research/best-score.md, "Memory").
_CEILING_SHARE = 0.2
_CEILING_MAX_ENTRIES: Final = 12_000_000
_CEILING_MAX_ENTRIES_PY: Final = 1_200_000


def first_draws(stock: Sequence[int]) -> list[list[int]]:
    """Per stock index i (0 to the stock's length): the indexes j >= i of the first card
    of each rank from i on, the latest first (a search that pushes them takes the
    nearest first)."""
    out: list[list[int]] = [[] for _ in range(len(stock) + 1)]
    for i in range(len(stock)):
        ranks: set[int] = set()
        for j in range(i, len(stock)):
            if stock[j] not in ranks:
                ranks.add(stock[j])
                out[i].append(j)
        out[i].reverse()
    return out


def streak_ceiling(streaks: Streaks, start: Start, longest_known: int) -> int:
    """The fewest cards no streak of any line from ``start`` passes (the streak going on
    counted whole) that ``_CEILING_SHARE`` of the budget left can prove, and never more
    than ``longest_known``: for the bounds (``cards_bound``'s ``longest``).

    From the caps of the start (``streak_caps``: no streak passes them), a length at a
    time, downwards: whether some line has a streak of that many cards
    (``streak_reaches``, in C where it is built: ``_accel.longest``, ceiling.c, the same
    answers). If no line has, the ceiling is one less, and the next length is tried;
    if one has, the ceiling is that length, exactly; out of the share of the budget
    (None), the last ceiling proved stands. Each length costs more than the one before
    (docs/research/best-score.md, step 8), so a length whose cost, foretold by the growth from the
    one before (taken as 1.5 to 3), would not fit in what is left of the share is not
    tried: its time goes to the layered search.
    Only with a budget (layers.py ``LayerSearch.run``)."""
    t, stock, meter = streaks.table, streaks.stock, streaks.meter
    first, anyway = streak_caps(t, start.mask, start.top)
    longest = max(start.streak + first, anyway)
    free = t.free_of(start.mask)
    until, stop = meter.share(_CEILING_SHARE)
    # the nodes of the last two lengths tried (none yet) and the last one's time
    cost: list[int] = []
    seconds = 0.0
    while longest > start.streak:
        began, nodes0 = time.perf_counter(), meter.nodes
        if len(cost) == 2:  # the next length's cost, foretold by the last growth
            growth = min(max(cost[1] / max(cost[0], 1), 1.5), 3.0)
            if meter.nodes + growth * cost[1] > stop or (
                until is not None and began + growth * seconds > until
            ):
                break
        c = accel.usable(t.n, len(stock))
        if c is not None:
            found, nodes = c.longest(
                t.rank,
                t.uncovers,
                t.fit,
                stock,
                start.mask,
                free,
                start.top,
                start.streak,
                longest,
                stop - meter.nodes,
                seconds_until(until),
                _CEILING_MAX_ENTRIES,
                t.wraps,
            )
            meter.nodes += nodes
        else:
            found = streak_reaches(streaks, start, free, longest, stop, until)
        if found is not False:
            break
        longest -= 1
        cost = [*cost[-1:], meter.nodes - nodes0]
        seconds = time.perf_counter() - began
    return min(longest_known, longest)


def streak_reaches(
    streaks: Streaks, start: Start, free0: int, length: int, stop: int, until: float | None
) -> bool | None:
    """Whether some line from ``start`` has a streak of ``length`` cards or more (the
    one going on counted whole); None when ``stop`` nodes, the time ``until`` or
    ``_CEILING_MAX_ENTRIES_PY`` kept states are passed first.

    A depth-first search of the states (mask removed, top, the streak's cards so far,
    the next stock index). From each: the plays of a card that fits (the streak one
    card longer), and the end of the streak there followed by the draws up to each
    later stock card at once (a new streak on it): the first card of each rank from
    the index on (``first_draws``; a later card of the same rank is reached from
    there by drawing on, and its state would be no better). A state just drawn to
    does not draw again: its drawing on is among the draws of the state it was drawn
    from. Every move takes a card or the stock index forward, so no state is reached
    from itself. Why it misses no line:
    - A state is left when neither the streak going on nor any later one can reach
      ``length``: its cards so far plus the cap from its top (``streak_caps``), and the
      cap from any top, are both short. The caps only fall as cards are removed, and
      along a streak its cards so far plus the cap from its top never rise (a card
      played takes one from the count of the cap's set, or is outside it and was
      played on a card inside it), so no state after it does better.
    - A (mask, top) reached before with a streak at least as long, and one (the same
      state or another) with a stock index no later, is not searched again. Its plays
      are the first one's (its streaks no longer); its draws are among the second
      one's, or those of the state that one was drawn to from (the same mask, an
      earlier index), searched there at once: never through this state, which is why
      the draws are taken at once and not one at a time (one at a time, a state drawn
      to would be found "searched" by the state it was drawn on from; that version
      proved six-peaks deal lengths some line reaches).
    The Python search and C's (``_accel.longest``, ceiling.c) push the same children in the
    same order, so they visit the same states and count the same nodes."""
    t, stock, meter = streaks.table, streaks.stock, streaks.meter
    seen: dict[tuple[int, int], tuple[int, int]] = {}
    stack = [(start.mask, free0, start.top, start.streak, 0, False)]
    fit, rank, uncovers = t.fit, t.rank, t.uncovers
    draws = first_draws(stock)
    while stack:
        mask, free, top, streak, idx, drawn = stack.pop()
        if streak >= length:
            return True
        old = seen.get((mask, top))
        if old is not None:
            if old[0] >= streak and old[1] <= idx:
                continue
            seen[mask, top] = (max(streak, old[0]), min(idx, old[1]))
        elif len(seen) >= _CEILING_MAX_ENTRIES_PY:
            return None
        else:
            seen[mask, top] = (streak, idx)
        meter.nodes += 1
        if meter.nodes > stop or (
            until is not None and not meter.nodes & 1023 and time.perf_counter() > until
        ):
            return None
        first, anyway = streak_caps(t, mask, top)
        if streak + first < length and anyway < length:
            continue
        if anyway >= length and not drawn:
            for j in draws[idx]:
                stack.append((mask, free, stock[j], 0, j + 1, True))
        playable = free & fit[top + 1]
        while playable:
            b = playable & -playable
            playable ^= b
            p = b.bit_length() - 1
            m2 = mask | b
            f2 = free & ~b
            for q, cq in uncovers[p]:
                if cq & m2 == cq:
                    f2 |= 1 << q
            stack.append((m2, f2, rank[p], streak + 1, idx, False))
    return False
