"""Whether a position can be cleared, and by which line: the clearing search.

Clearing is a depth-first search (the game graph is acyclic: every move removes a card,
takes a stock card or spends a redeal, so a move fully searched without a win loses),
playing first the highest position (a lower row: the cards holding others up). Its
transposition table is per removed mask: for each move, the lowest stock index from
which it was searched without a win. A position is never worse for being earlier in the
stock (the player may draw more first), so that index rules the move out at every later
index too; and a run of draws is a loop inside one call, not a call a draw
(``ClearSearch._wins``). On the slowest classic deals (the lost ones) this searches each
(mask, card) about once where a table keyed on (mask, index) searched it once per index.
The search is cut short by a bound (below) that proves lost positions lost without
searching them, most on the deals that cannot be cleared. A search that goes 500 nodes
(calls) without a win starts again in another order, ten times at most
(``_wins_restarting``): the table is kept, so this costs a lost deal little and saves
hard winnable ones most of their search. What each of these saves is measured in
docs/performance.md ("The solver's searches", ``python -m bench solver``).

The hint asks the clearing question of many samples (each a position and each move's
position, on one search: ``clear_search``). Without redeals it is answered in C where the
install built it (accel.py ``CClearSearch``, ``_accel.Clear``, clear.c): a plain
depth-first search (the highest position first, then a draw; no restarts) with the bound
below and a table kept between questions of what is proved lost, per (mask, top), from
the lowest stock index (a position is never worse for being earlier in the stock, as
above). It searches in another order than ``ClearSearch``, so its lines and node counts
differ; its answers are the same (tested on every rule scheme), and it answers the hint's
samples several times sooner (``python -m bench solver --hint-only``). With redeals the
Python search answers.

The bound for clearing (sound; it removes only positions that cannot be cleared). Every
tableau card left must be played onto the waste's top of that moment: the top now, a card
still to be drawn, or a tableau card still in place played just before it. A card has at
most one card played directly onto it, so the cards left need distinct "predecessors" of a
rank they may go on. By Hall's theorem, for every set ``I`` of ranks, the cards left with a
rank in ``I`` are at most the predecessors with a rank in ``N(I)`` (the ranks a card of
``I`` may go on): tableau cards left, stock cards to come, and the top, which counts only
when a card of ``I`` can be played on it now (later it is covered for good). It checks
this for the sets ``I`` of one rank or two ranks two apart (r, r+2: ranks that compete
for the same predecessors; tables.py ``hall_sets``): larger sets (a full per-card
matching, runs of up to four ranks) prune little more and cost more than they save
(docs/performance.md; ``python -m bench solver --no-bound`` turns the bound off). It is
off in games with jokers (a joker goes on anything and anything on it) or redeals (they
bring waste cards back).
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Sequence
from typing import Final, Protocol

from app.engine.layouts import Layout
from app.engine.rules import Rules
from app.engine.solver import accel
from app.engine.solver.budget import UNLIMITED_NODES, BudgetExhausted, SearchBudget
from app.engine.solver.tables import (
    BIAS,
    DRAW_CODE,
    FIELD,
    NO_DELTA,
    NO_TOP,
    REDEAL_CODE,
    Start,
    Table,
    hall_sets,
)


class _Restart(Exception):
    """Raised inside a clearing search to start it again in another order."""


# Nodes each attempt may search before a restart: ten short tries, the first in the usual
# order and the others in random ones (a good order finds most winnable deals in a few
# hundred nodes), then the search runs to the end of its budget in the usual order.
_RESTART_AFTER: Final = (500,) * 10
_RESTART_GROUP: Final = 7


# What the clearing search keeps per mask: per card (and a draw, last), the lowest stock
# index from which that move was searched without a win; the bound's shortfalls; the free
# cards.
_Seen = tuple[bytearray, tuple[tuple[int, int, int], ...], int]


class ClearSearch:
    """The clearing search in pure Python (the reference, and the search with redeals):
    the table, the stock, the budget and the transposition tables. It keeps its own node
    count and clock (not a ``Meter``): ``_wins`` reads them on every node.

    A ``ClearSearch`` may answer several questions on positions of the same deal (hints and
    analysis ask about successive positions), sharing what it has learnt.
    """

    def __init__(
        self, layout: Layout, rules: Rules, start: Start, budget: SearchBudget, bound: bool = True
    ) -> None:
        self.table = Table(layout, rules, start.ranks)
        self.stock = start.stock
        self.track = rules.redeals > 0  # the waste's order matters only if it can come back
        self.nodes = 0
        self.max_nodes = budget.max_nodes if budget.max_nodes is not None else UNLIMITED_NODES
        self.deadline = time.perf_counter() + budget.seconds if budget.seconds is not None else None
        self.dead: set[object] = set()  # positions proved lost (with redeals)
        # without redeals: what the clearing search knows of each mask (``_Seen``)
        self.seen: dict[int, _Seen] = {}
        self.line: list[int] = []
        # The bound (module docstring): off with a joker or a redeal, or when not asked for.
        self.hall = (
            hall_sets(self.table.sup_ranks, rules.wrap)
            if bound and not self.track and rules.jokers == 0
            else None
        )
        self.positive = self.hall.positive if self.hall is not None else 0
        self.high = self.hall.high if self.hall is not None else 0
        self.delta = self.hall.delta if self.hall is not None else NO_DELTA
        t = self.table
        self.fit, self.full, self.rank, self.uncovers = t.fit, t.full, t.rank, t.uncovers
        # the playing order: masks played in turn, the highest position first in each
        self.groups: tuple[int, ...] = (t.full,)
        self.draws = len(self.stock)
        # A mask's marks, none yet: a bytearray, which the garbage collector does not walk
        # (a list it would). Every index fits a byte: two decks and two jokers at most.
        self.blank = bytearray([self.draws + 1] * (t.n + 1))
        # stock_fit[j]: the positions whose card may go on the top after j draws
        self.stock_fit = t.stock_fit(self.stock)
        # What ``_wins`` reads on every call, in one attribute
        self.hot = (
            t.n,  # the slot of a draw in the marks
            self.full,
            self.rank,
            self.uncovers,
            self.delta,
            self.fit,
            self.draws,
            self.stock_fit,
        )
        self.stop_at = self.max_nodes  # the budget's end, or an earlier restart
        self.check_at = 0  # when the clearing search next looks at its budget
        self.enough: dict[int, list[int]] = {}
        self.by_counts: dict[int, tuple[tuple[int, int, int], ...]] = {}
        self.entry_of: dict[int, tuple[int, int, int]] = {}  # (set, its count) -> entry
        # holding[f]: the positions whose card has a rank in the f-th set
        self.holding = [self.table.holding(bits) for bits, _ in self.hall.sets] if self.hall else []

    def wins(self, start: Start) -> bool:
        """Whether ``start`` can be cleared; the line is left in ``self.line``."""
        self.line.clear()
        t = self.table
        if start.mask == t.full:
            return True
        free = t.free_of(start.mask)
        limit = sys.getrecursionlimit()
        need = t.n + len(start.stock) * (1 + start.redeals_left) + 200
        if limit < need:
            sys.setrecursionlimit(need)
        if self.track:
            self._next_check()
            ok = self._wins_tracked(
                start.mask, free, start.top, start.stock, 0, start.waste, start.redeals_left
            )
        else:
            idx = len(self.stock) - len(start.stock)
            if idx < 0 or self.stock[idx:] != start.stock:
                raise ValueError("a search answers about one deal's stock")
            ok = self._wins_restarting(start.mask, free, idx, start.top)
        self.line.reverse()
        return ok

    def _checkpoint(self) -> None:
        """Called by the clearing search when its node count reaches ``check_at``: stop at
        the end of the budget (nodes or time) or for a restart (``_wins_restarting``),
        else set when to look again (the clock every 1,024 nodes): the search makes one
        comparison a node."""
        if self.nodes > self.max_nodes or (
            self.deadline is not None and time.perf_counter() > self.deadline
        ):
            raise BudgetExhausted
        if self.nodes > self.stop_at:
            raise _Restart
        self._next_check()

    def _next_check(self) -> None:
        until = self.stop_at + 1
        if self.deadline is not None:
            until = min(until, self.nodes + 1024)
        self.check_at = until

    def _wins_restarting(self, mask: int, free: int, idx: int, top: int) -> bool:
        """``_wins`` with restarts: a search that has gone long without a win starts again
        with its cards in another order. A bad first choice can cost a winnable deal a
        huge lost subtree; another order often finds a win at once. Nothing is lost by
        starting again: every move fully searched stays in the table (``seen``), so a lost
        deal costs about the same."""
        packed = self._packed(mask)
        budget_end = self.max_nodes
        attempt = 0
        try:
            while True:
                if attempt < len(_RESTART_AFTER):
                    self.stop_at = min(budget_end, self.nodes + _RESTART_AFTER[attempt])
                else:
                    self.stop_at = budget_end
                self._next_check()
                try:
                    playable = free & self.fit[top + 1]
                    return self._wins(mask, free, idx, playable, packed, self.seen.get(mask))
                except _Restart:
                    self.line.clear()
                    attempt += 1
                    # The last attempt, which runs to the end, goes back to the usual
                    # order: one mask makes a node cheaper than one card a group.
                    last = attempt >= len(_RESTART_AFTER)
                    self.groups = (self.full,) if last else self._reordered(attempt)
        finally:
            self.groups = (self.full,)
            self.stop_at = budget_end

    def _reordered(self, attempt: int) -> tuple[int, ...]:
        """Another playing order for the ``attempt``-th restart: still by weight class,
        each class split at random into groups of up to ``_RESTART_GROUP`` cards (the
        highest position first in each): a mask of a few cards costs fewer instructions
        than one group a card, for the same search (docs/performance.md)."""
        rng = random.Random(attempt)
        groups: list[int] = []
        for group in self.table.weight_groups:
            positions = [p for p in range(self.table.n) if group >> p & 1]
            rng.shuffle(positions)
            for k in range(0, len(positions), _RESTART_GROUP):
                groups.append(sum(1 << p for p in positions[k : k + _RESTART_GROUP]))
        return tuple(groups)

    def _packed(self, mask: int) -> int:
        """For each of Hall's sets ``I`` (module docstring): the cards left with a rank in
        ``I`` less those with a rank in ``N(I)``, packed (tables.py ``HallSets``)."""
        hall = self.hall
        if hall is None:
            return 0
        counts = self.table.rank_counts(mask)
        packed = 0
        for f, (bits, near) in enumerate(hall.sets):
            value = BIAS
            for r in range(1, 14):
                value += counts[r] * ((bits >> r & 1) - (near >> r & 1))
            packed |= value << (FIELD * f)
        return packed

    def _shortfalls(self, key: int, over: int) -> tuple[tuple[int, int, int], ...]:
        """The sets ``I`` whose cards left outnumber the tableau cards left in ``N(I)``,
        as (the last stock index from which the stock still makes up the difference, the
        same when the top helps too, the positions holding ranks of ``I``), by the first
        index. A position past the second index, or past the first with no card of ``I``
        playable on its top, cannot be cleared. ``over`` has the top bit of those sets'
        fields, and ``key`` is the packed counts with the other fields masked out (the key
        of ``by_counts``, where the answer is kept)."""
        entries = []
        short = over
        while short:
            b = short & -short
            short ^= b
            f = b.bit_length() // FIELD - 1
            field = f << FIELD | (key >> (FIELD * f) & 0xFF)  # the set and its count
            entry = self.entry_of.get(field)
            if entry is None:
                entry = self.entry_of[field] = self._shortfall(f, (field & 0xFF) - BIAS)
            entries.append(entry)
        # The set that runs out first is looked at first. An entry is dropped when another
        # rules out every position it does: its first index is no later (the sort), its
        # second no later and its cards among this one's; or when its first index is
        # past an earlier entry's second one.
        entries.sort()
        kept: list[tuple[int, int, int]] = []
        end = len(self.stock) + 1
        for entry in entries:
            last, last_with_top, cards = entry
            if last >= end:
                break
            for _, k_with_top, k_cards in kept:
                if k_with_top <= last_with_top and k_cards & ~cards == 0:
                    break
            else:
                kept.append(entry)
                if last_with_top < end:
                    end = last_with_top
        found = self.by_counts[key] = tuple(kept)
        return found

    def _shortfall(self, f: int, missing: int) -> tuple[int, int, int]:
        """``_shortfalls``' entry for the ``f``-th set when it is ``missing`` predecessors
        short among the tableau cards."""
        assert self.hall is not None
        near = self.hall.sets[f][1]
        enough = self.enough.get(near)
        if enough is None:
            # enough[k]: the last stock index from which k cards in ``near`` are to come
            enough = [len(self.stock)]
            for i in range(len(self.stock) - 1, -1, -1):
                if near >> self.stock[i] & 1:
                    enough.append(i)
            self.enough[near] = enough
        return (
            enough[missing] if missing < len(enough) else -1,
            enough[missing - 1] if missing - 1 < len(enough) else -1,
            self.holding[f],
        )

    def _wins(
        self, mask: int, free: int, idx: int, playable: int, packed: int, entry: _Seen | None
    ) -> bool:
        """Clearing without redeals from (mask, stock index, the cards the top lets be
        played); ``packed`` is ``_packed(mask)``, kept up to date card by card, and
        ``entry`` is ``seen[mask]`` (None for a mask not seen yet). One call plays from the
        position and from each position reached from it by draws alone (a loop over the
        stock index, not a call a draw). The hottest code of the solver: what it reads
        often is held in attributes of its own.

        What it remembers is per mask (``ClearSearch.seen``): for each card, the lowest stock
        index at which playing it from this mask was searched without a win, and the same
        for drawing (the last slot). That is enough to skip a move, because a position is
        never worse for being earlier in the stock: from (mask, i, top) the player can
        make every line of (mask, j, top), j > i, by drawing j - i cards more before its
        first draw, and the positions after that draw are the same. So a move searched
        without a win at index i loses at any later index too: a later position with this
        mask skips it, and a play that leads to a position with only such moves left is
        skipped without a call (most of them, in a lost deal)."""
        seen = self.seen
        if entry is None:
            over = (packed + self.positive) & self.high  # the sets short of predecessors
            if over:
                # Only the fields of those sets matter: the others are masked out.
                key = packed & (over << 1) - (over >> (FIELD - 1))
                short = self.by_counts.get(key)  # most masks find theirs
                if short is None:
                    short = self._shortfalls(key, over)
            else:
                short = ()
            entry = seen[mask] = (self.blank[:], short, free)
        marks, short, _ = entry
        self.nodes += 1  # a node is a call
        if self.nodes >= self.check_at:
            self._checkpoint()
        here, full, rank, uncovers, delta, fit, draws, stock_fit = self.hot
        groups = self.groups
        # The bound (module docstring): a set of ranks short of predecessors. A position
        # it rules out rules out the ones its draws reach. With no card playable, it rules
        # out every position past the first entry's index.
        cut = short[0][0] if short else draws
        j = idx
        while True:
            if playable:
                for last, last_with_top, cards in short:  # by ``last``
                    if j <= last:
                        break
                    if j > last_with_top or not playable & cards:
                        if marks[here] > idx:
                            marks[here] = idx
                        return False
                # In the playing order: one pass per mask of ``groups``.
                for group in groups:
                    tier = playable & group
                    while tier:  # the highest position first (the lower rows of tripeaks)
                        p = tier.bit_length() - 1
                        b = 1 << p
                        tier ^= b
                        if marks[p] <= j:
                            continue
                        m2 = mask | b
                        if m2 == full:
                            self._won(p, j - idx)
                            return True
                        r = rank[p]
                        child = seen.get(m2)
                        if child is None:
                            f2 = free & ~b
                            for q, cq in uncovers[p]:
                                if cq & m2 == cq:
                                    f2 |= 1 << q
                            p2 = f2 & fit[r + 1]
                        else:
                            cmarks, _, f2 = child
                            p2 = f2 & fit[r + 1]
                            if cmarks[here] <= j:
                                # Its draws are searched: a call can only play a card
                                # not yet played from there at this index or before.
                                rest = p2
                                while rest:
                                    q = rest.bit_length() - 1
                                    if cmarks[q] > j:
                                        break
                                    rest ^= 1 << q
                                else:
                                    marks[p] = j
                                    continue
                        if self._wins(m2, f2, j, p2, packed + delta[r], child):
                            self._won(p, j - idx)
                            return True
                        marks[p] = j
            elif j > cut:
                if marks[here] > idx:
                    marks[here] = idx
                return False
            if j >= draws or marks[here] <= j:
                break
            j += 1
            playable = free & stock_fit[j]
        if marks[here] > idx:
            marks[here] = idx
        return False

    def _won(self, p: int, draws: int) -> None:
        """Extend the winning line (built backwards) by ``draws`` draws, then a play of ``p``."""
        self.line.append(p)
        self.line.extend([DRAW_CODE] * draws)

    def _wins_tracked(
        self,
        mask: int,
        free: int,
        top: int,
        stock: tuple[int, ...],
        idx: int,
        waste: tuple[int, ...],
        redeals_left: int,
    ) -> bool:
        """Clearing when redeals are allowed: the stock and the waste are part of the
        position (the waste only while a redeal is left)."""
        key = (
            mask,
            top,
            stock[idx:],
            waste if redeals_left else None,
            redeals_left,
        )
        if key in self.dead:
            return False
        self.nodes += 1
        if self.nodes >= self.check_at:
            self._checkpoint()
        t = self.table
        playable = free & t.fit[top + 1]
        under = (*waste, top) if (redeals_left and top != NO_TOP) else waste
        if playable:
            order = []
            while playable:
                b = playable & -playable
                playable ^= b
                p = b.bit_length() - 1
                order.append((t.weight[p], p))
            order.sort(reverse=True)
            for _, p in order:
                m2 = mask | 1 << p
                if m2 == t.full:
                    self.line.append(p)
                    return True
                f2 = free & ~(1 << p)
                for q, cq in t.uncovers[p]:
                    if cq & m2 == cq:
                        f2 |= 1 << q
                if self._wins_tracked(m2, f2, t.rank[p], stock, idx, under, redeals_left):
                    self.line.append(p)
                    return True
        if idx < len(stock):
            if self._wins_tracked(mask, free, stock[idx], stock, idx + 1, under, redeals_left):
                self.line.append(DRAW_CODE)
                return True
        elif (
            redeals_left
            and waste
            # The waste but its top becomes the stock, its bottom card on top.
            and self._wins_tracked(mask, free, top, waste, 0, (), redeals_left - 1)
        ):
            self.line.append(REDEAL_CODE)
            return True
        self.dead.add(key)
        return False


class ClearingSearch(Protocol):
    """What the hints ask of a clearing search (``clear_search``): whether a position of
    its deal can be cleared (``BudgetExhausted`` when its budget runs out), the winning
    line's move codes (``line``, the first move first) and the nodes searched, which the
    caller may set back to 0 to give the next question the whole node budget."""

    nodes: int

    @property
    def line(self) -> Sequence[int]: ...

    def wins(self, start: Start) -> bool: ...


def clear_search(
    layout: Layout, rules: Rules, start: Start, budget: SearchBudget
) -> ClearingSearch:
    """A clearing search for questions on positions of ``start``'s deal and stock, sharing
    what it learns: the C one (accel.py ``CClearSearch``) where it is built and the rules
    have no redeals, else the pure Python ``ClearSearch``; both with the bound."""
    if rules.redeals == 0 and accel.usable(layout.size, len(start.stock)) is not None:
        return accel.CClearSearch(layout, rules, start, budget)
    return ClearSearch(layout, rules, start, budget)
