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
sound bound it proved, marked not exact (``_LayerSearch``, docs/best-score.md).

How it is fast. The search never touches ``GameState``: a position is a bitmask of the
removed tableau positions, the index of the next stock card, the waste top's rank, and
(only when redeals are allowed) the stock and waste as tuples of ranks. Suits never
matter, so cards are ranks (0 for a joker). Covering is a precomputed bitmask per position,
the free cards are kept as a bitmask, and the playable ones are ``free & fit[top]``.

Clearing is a depth-first search (the game graph is acyclic: every move removes a card,
takes a stock card or spends a redeal, so a move fully searched without a win loses),
playing first the highest position (a lower row: the cards holding others up). Its
transposition table is per removed mask: for each move, the lowest stock index from
which it was searched without a win. A position is never worse for being earlier in the
stock (the player may draw more first), so that index rules the move out at every later
index too; and a run of draws is a loop inside one call, not a call a draw
(``_Search._wins``). On the slowest classic deals (the lost ones) this searches each
(mask, card) about once where a table keyed on (mask, index) searched it once per index
(half the instructions, with the changes that came with it). The search is cut short by
a bound (below) that proves lost positions lost without searching them: on the slowest
classic deals (those that cannot be cleared) it removes a quarter to 60% of the nodes. A
search that goes 500 nodes (calls) without a win starts again in another order, ten
times at most (``_wins_restarting``): the table is kept, so this costs a lost deal
little and saves hard winnable ones most of their search.

Best score uses the fact that a draw ends the streak: the points still to come from a
position reached by a draw do not depend on how it was reached, and its waste top is the
card just drawn. So the search is a dynamic programme over "draw positions" (removed mask,
stock index): from each it enumerates the masks a streak can reach before the next draw
(the walk deduplicated on mask and top; the points of a streak depend only on how many
cards it takes and which peaks, both fixed by the mask), then stops or draws. The streak
never enters the key, which keeps the table small; the search is exhaustive. A draw
position where no card fits the top is never kept: it is worth max(0, the next draw
position where one fits, less the draws to it) (below), which takes a third of the
positions out of the table. Without redeals the search runs in C where the install built
it (``_bestscore.c``, the same search in the same order: same values, lines and node
counts, tested), 20 to 30 times faster; the pure Python search is the fallback.

The hint asks the clearing question of many samples (each a position and each move's
position, on one search: ``clear_search``). Without redeals it is answered in C where the
install built it (``_bestscore.Clear``, in the same module): a plain depth-first search
(the highest position first, then a draw; no restarts) with the bound below and a table
kept between questions of what is proved lost, per (mask, top), from the lowest stock
index (a position is never worse for being earlier in the stock, as above). It searches
in another order than ``_Search``, so its lines and node counts differ; its answers are
the same (tested on every rule scheme), and on the hint's samples it is about 8 times
faster (``python -m bench solver --hint-only``). With redeals the Python search answers.

The bound for clearing (sound; it removes only positions that cannot be cleared). Every
tableau card left must be played onto the waste's top of that moment: the top now, a card
still to be drawn, or a tableau card still in place played just before it. A card has at
most one card played directly onto it, so the cards left need distinct "predecessors" of a
rank they may go on. By Hall's theorem, for every set ``I`` of ranks, the cards left with a
rank in ``I`` are at most the predecessors with a rank in ``N(I)`` (the ranks a card of
``I`` may go on): tableau cards left, stock cards to come, and the top, which counts only
when a card of ``I`` can be played on it now (later it is covered for good). It checks
this for the sets ``I`` of one rank or two ranks two apart (r, r+2: ranks that compete
for the same predecessors). Measured, a full per-card matching would prune little more;
runs of up to four ranks (r, r+2, r+4, r+6) searched 1 to 8% fewer masks on the slowest
deals but cost more than they saved (bench: ``--no-bound`` turns the bound off). It is off
in games with jokers (a joker goes on anything and anything on it) or redeals (they bring
waste cards back).
"""

from __future__ import annotations

import heapq
import itertools
import os
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Final, Protocol

from app.engine.cards import JOKER_RANK, KING, Card, ranks_adjacent
from app.engine.deals import MAX_DEAL_NUMBER, Deal, numbered_deal
from app.engine.errors import TriPeaksError
from app.engine.game import GameState, GameStatus, apply, new_game
from app.engine.layouts import Layout, get_layout
from app.engine.rules import Rules, Scoring
from app.engine.scoring import card_points, draw_cost, peak_bonus

__all__ = [
    "BestAnswer",
    "ClearAnswer",
    "NoWinnableDealError",
    "SearchBudget",
    "Solution",
    "WinnableDeal",
    "solve_best",
    "solve_clear",
    "solve_deal",
    "winnable_deal",
]

NO_TOP: Final = -1  # free_start: no card on the waste yet
DRAW_CODE: Final = -1  # move codes inside the search: a position >= 0 is a play
REDEAL_CODE: Final = -2
DEFAULT_MAX_NODES: Final = 5_000_000
_ALL_RANKS: Final = (1 << 14) - 2  # bits 1..13


def _load_accelerator() -> ModuleType | None:
    """The optional C search (setup.py); without it the pure Python one, the same."""
    try:
        from app.engine import _bestscore
    except ImportError:  # pragma: no cover - built wherever the tests run
        return None
    return _bestscore


# The C best-score search (app/engine/_bestscore.c), None where it is not built or when
# TRIPEAKS_PURE_SOLVER is set: the pure Python search then answers, the same answers (the
# tests run both). Its keys hold a mask in 56 bits. Its table does not grow past
# _ACCEL_MAX_ENTRIES draw positions (16 bytes a slot, at most 2^23 slots: 128 MB, 192 MB
# while it grows); a search that needs more is unknown, as when the budget runs out (a
# budget of seconds alone would let it grow by millions a second).
_ACCEL_MODULE: Final = _load_accelerator()
_ACCEL: ModuleType | None = None if os.environ.get("TRIPEAKS_PURE_SOLVER") else _ACCEL_MODULE
_ACCEL_MAX_POSITIONS: Final = 56
_ACCEL_MAX_ENTRIES = 1 << 22


@dataclass(frozen=True, slots=True)
class SearchBudget:
    """How much work one search may do: search nodes and/or wall-clock seconds."""

    max_nodes: int | None = DEFAULT_MAX_NODES
    seconds: float | None = None


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


class BudgetExhausted(Exception):
    """Raised inside a search when its budget has run out."""


class _Restart(Exception):
    """Raised inside a clearing search to start it again in another order."""


# Nodes each attempt may search before a restart: ten short tries, the first in the usual
# order and the others in random ones (a good order finds most winnable deals in a few
# hundred nodes), then the search runs to the end of its budget in the usual order.
_RESTART_AFTER: Final = (500,) * 10
_RESTART_GROUP: Final = 7


# ---------------------------------------------------------------------------------------
# The compact problem


def _fits(rank: int, top: int, rules: Rules) -> bool:
    """``game.fits`` on ranks; ``top`` is NO_TOP when the waste is empty."""
    if top == NO_TOP:
        return True
    if rules.king_stops and top == KING:
        return False
    if rank == JOKER_RANK or top == JOKER_RANK:
        return True
    return ranks_adjacent(rank, top, wrap=rules.wrap)


# Hall's sets of ranks as fields of one integer, ``_FIELD`` bits each, biased by ``_BIAS``:
# the search adds one precomputed integer per card played instead of recounting. A field
# holds count(I) - count(N(I)) for at most ``_MAX_RUN`` ranks and their neighbours: with
# up to four ranks and five neighbours and two decks (layouts have one or two), from -40
# to 32, so 24 to 96 biased, and adding ``positive`` (63) never carries into the next one.
_FIELD: Final = 8
_BIAS: Final = 64
_MAX_RUN: Final = 2


@dataclass(frozen=True, slots=True)
class _HallSets:
    """The sets ``I`` of the bound (module docstring) under one set of fit rules:
    ``sets[f] = (I, N(I))`` as rank bitmasks, ``delta[x]``: what taking a card of rank
    ``x`` adds to the packed values ``count(I) - count(N(I))``."""

    sets: tuple[tuple[int, int], ...]
    delta: tuple[int, ...]
    high: int  # the top bit of every field
    positive: int  # added to the packed values, sets the top bit of the fields above 0


_HALL_CACHE: dict[tuple[tuple[int, ...], bool], _HallSets] = {}
_NO_DELTA: Final = (0,) * 14


def _hall_sets(sup_ranks: tuple[int, ...], wrap: bool) -> _HallSets:
    found = _HALL_CACHE.get((sup_ranks, wrap))
    if found is not None:
        return found
    sets: list[tuple[int, int]] = []
    for length in range(1, _MAX_RUN + 1):
        for r in range(1, 14):
            ranks = [r + 2 * k for k in range(length)]
            if wrap:
                ranks = [(x - 1) % 13 + 1 for x in ranks]
            elif ranks[-1] > 13:
                continue
            bits = sum(1 << x for x in ranks)
            near = 0
            for x in ranks:
                near |= sup_ranks[x]
            near &= ~1  # no joker: the bound is off when there is one
            if (bits, near) not in sets:
                sets.append((bits, near))
    delta = []
    for x in range(14):
        d = 0
        for f, (bits, near) in enumerate(sets):
            d += ((near >> x & 1) - (bits >> x & 1)) << (_FIELD * f)
        delta.append(d)
    found = _HallSets(
        tuple(sets),
        tuple(delta),
        sum(1 << (_FIELD * f + _FIELD - 1) for f in range(len(sets))),
        sum((_BIAS - 1) << (_FIELD * f) for f in range(len(sets))),
    )
    _HALL_CACHE[sup_ranks, wrap] = found
    return found


@dataclass(slots=True)
class _Start:
    """A position to search from, in the search's terms."""

    ranks: tuple[int, ...]  # per tableau position (any value where removed)
    mask: int  # removed positions
    top: int  # waste top rank or NO_TOP
    waste: tuple[int, ...]  # ranks under the top, bottom first (only matters with redeals)
    stock: tuple[int, ...]  # ranks, top first
    redeals_left: int
    streak: int
    total: int  # score so far (classic/msc: points; cards_left: cards left)


def start_of(state: GameState) -> _Start:
    n = state.layout.size
    ranks = tuple(
        (c.rank if c is not None else (state.deal[i].rank if i < len(state.deal) else 0))
        for i, c in enumerate(state.tableau)
    )
    mask = sum(1 << i for i in range(n) if state.tableau[i] is None)
    waste = tuple(c.rank for c in state.waste)
    return _Start(
        ranks=ranks,
        mask=mask,
        top=waste[-1] if waste else NO_TOP,
        waste=waste[:-1],
        stock=tuple(c.rank for c in state.stock),
        redeals_left=state.redeals_left,
        streak=state.score.current_streak,
        total=state.score.total,
    )


_SUP_CACHE: dict[tuple[bool, bool], tuple[int, ...]] = {}


def _sup_ranks(wrap: bool, king_stops: bool) -> tuple[int, ...]:
    """Per rank (0 for a joker): the ranks a card of that rank may go on, as bits."""
    found = _SUP_CACHE.get((wrap, king_stops))
    if found is None:
        rules = Rules(wrap=wrap, king_stops=king_stops)
        found = tuple(sum(1 << s for s in range(14) if _fits(r, s, rules)) for r in range(14))
        _SUP_CACHE[wrap, king_stops] = found
    return found


class _Table:
    """Everything about the layout, the rules and the tableau ranks, precomputed."""

    def __init__(self, layout: Layout, rules: Rules, ranks: Sequence[int]) -> None:
        n = layout.size
        self.n = n
        self.full = (1 << n) - 1
        self.rank = tuple(ranks)
        cover = tuple(sum(1 << c for c in pos.covered_by) for pos in layout.positions)
        self.cover = cover
        self.uncovers = tuple(tuple((q, cover[q]) for q in layout.covers[p]) for p in range(n))
        self.peak_mask = sum(1 << p for p in layout.peaks)
        self.rank_mask = tuple(
            sum(1 << p for p in range(n) if self.rank[p] == r) for r in range(14)
        )
        # sup_ranks[r]: the ranks a card of rank r may go on
        self.sup_ranks = _sup_ranks(rules.wrap, rules.king_stops)
        # whether a King and an Ace are neighbours (``_streak_caps``)
        self.wraps = bool(self.sup_ranks[1] >> KING & 1 or self.sup_ranks[KING] >> 1 & 1)
        # fit[top + 1]: positions whose card may go on ``top`` (NO_TOP: any)
        self.fit = (
            self.full,
            *(
                self.holding(sum(1 << r for r in range(14) if self.sup_ranks[r] >> t & 1))
                for t in range(14)
            ),
        )
        # Playing order (clearing): the highest position first, which in every layout is a
        # lower row, the cards holding others up; restarts shuffle it inside these classes
        # of how many cards a card holds up (and the search with redeals sorts by them).
        weight = [0] * n
        for p in range(n - 1, -1, -1):
            weight[p] = len(layout.covers[p])
        self.weight = tuple(weight)
        self.weight_groups = tuple(
            sum(1 << p for p in range(n) if weight[p] == w)
            for w in sorted(set(weight), reverse=True)
        )

    def free_of(self, mask: int) -> int:
        free = 0
        for p in range(self.n):
            if not mask >> p & 1 and self.cover[p] & mask == self.cover[p]:
                free |= 1 << p
        return free

    def holding(self, ranks: int) -> int:
        """The positions whose card has one of the ``ranks`` (bits)."""
        return sum(m for r, m in enumerate(self.rank_mask) if ranks >> r & 1)

    def rank_counts(self, mask: int) -> list[int]:
        """How many cards of each rank (0 for a joker) are left in the tableau."""
        left = ~mask & self.full
        return [(m & left).bit_count() for m in self.rank_mask]


# What the clearing search keeps per mask: per card (and a draw, last), the lowest stock
# index from which that move was searched without a win; the bound's shortfalls; the free
# cards.
_Seen = tuple[bytearray, tuple[tuple[int, int, int], ...], int]


class _Search:
    """One search's state: the table, the stock, the budget and the transposition tables.

    A ``_Search`` may answer several questions on positions of the same deal (hints and
    analysis ask about successive positions), sharing what it has learnt.
    """

    def __init__(
        self, layout: Layout, rules: Rules, start: _Start, budget: SearchBudget, bound: bool = True
    ) -> None:
        self.table = _Table(layout, rules, start.ranks)
        self.stock = start.stock
        self.track = rules.redeals > 0  # the waste's order matters only if it can come back
        self.nodes = 0
        self.max_nodes = budget.max_nodes if budget.max_nodes is not None else 1 << 62
        self.deadline = time.perf_counter() + budget.seconds if budget.seconds is not None else None
        self.dead: set[object] = set()  # positions proved lost (with redeals)
        # without redeals: what the clearing search knows of each mask (``_Seen``)
        self.seen: dict[int, _Seen] = {}
        self.line: list[int] = []
        # The bound (module docstring): off with a joker or a redeal, or when not asked for.
        self.hall = (
            _hall_sets(self.table.sup_ranks, rules.wrap)
            if bound and not self.track and rules.jokers == 0
            else None
        )
        self.positive = self.hall.positive if self.hall is not None else 0
        self.high = self.hall.high if self.hall is not None else 0
        self.delta = self.hall.delta if self.hall is not None else _NO_DELTA
        t = self.table
        self.fit, self.full, self.rank, self.uncovers = t.fit, t.full, t.rank, t.uncovers
        # the playing order: masks played in turn, the highest position first in each
        self.groups: tuple[int, ...] = (t.full,)
        self.draws = len(self.stock)
        # A mask's marks, none yet: a bytearray, which the garbage collector does not walk
        # (a list it would). Every index fits a byte: two decks and two jokers at most.
        self.blank = bytearray([self.draws + 1] * (t.n + 1))
        # stock_fit[j]: the positions whose card may go on the top after j draws
        self.stock_fit = (0, *(self.fit[r + 1] for r in self.stock))
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

    def within_budget(self, pending: int) -> None:
        """Raise BudgetExhausted if ``pending`` more nodes, or the time, exceed the budget."""
        if self.nodes + pending > self.max_nodes or (
            self.deadline is not None and time.perf_counter() > self.deadline
        ):
            raise BudgetExhausted

    def tick(self) -> None:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise BudgetExhausted
        if (
            self.deadline is not None
            and self.nodes & 1023 == 0
            and time.perf_counter() > self.deadline
        ):
            raise BudgetExhausted

    # -- clearing ----------------------------------------------------------------------

    def wins(self, start: _Start) -> bool:
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
        highest position first in each). Measured in instructions against one group a
        card: 5% less on deals 100 to 299 with wrap, 17% less on five hard winnable ones."""
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
        ``I`` less those with a rank in ``N(I)``, packed (``_HallSets``)."""
        hall = self.hall
        if hall is None:
            return 0
        counts = self.table.rank_counts(mask)
        packed = 0
        for f, (bits, near) in enumerate(hall.sets):
            value = _BIAS
            for r in range(1, 14):
                value += counts[r] * ((bits >> r & 1) - (near >> r & 1))
            packed |= value << (_FIELD * f)
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
            f = b.bit_length() // _FIELD - 1
            field = f << _FIELD | (key >> (_FIELD * f) & 0xFF)  # the set and its count
            entry = self.entry_of.get(field)
            if entry is None:
                entry = self.entry_of[field] = self._shortfall(f, (field & 0xFF) - _BIAS)
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

        What it remembers is per mask (``_Search.seen``): for each card, the lowest stock
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
                key = packed & (over << 1) - (over >> (_FIELD - 1))
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
        self.tick()
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

    def wins(self, start: _Start) -> bool: ...


@dataclass(frozen=True, slots=True)
class _Shape:
    """What the C clearing search takes of a layout (the rest of ``_Table`` it does not
    need, and building a whole ``_Table`` a sample cost more than most samples' search)."""

    layout: Layout
    full: int
    cover: tuple[int, ...]
    uncovers: tuple[tuple[tuple[int, int], ...], ...]


_SHAPES: dict[str, _Shape] = {}
_FIT_RANKS: dict[tuple[bool, bool], tuple[tuple[int, ...], ...]] = {}


def _shape(layout: Layout) -> _Shape:
    found = _SHAPES.get(layout.name)
    if found is not None and found.layout is layout:
        return found
    cover = tuple(sum(1 << c for c in pos.covered_by) for pos in layout.positions)
    uncovers = tuple(tuple((q, cover[q]) for q in layout.covers[p]) for p in range(layout.size))
    found = _SHAPES[layout.name] = _Shape(layout, (1 << layout.size) - 1, cover, uncovers)
    return found


def _fit_ranks(wrap: bool, king_stops: bool) -> tuple[tuple[int, ...], ...]:
    """Per top rank (0 for a joker): the ranks that may go on it."""
    found = _FIT_RANKS.get((wrap, king_stops))
    if found is None:
        sup = _sup_ranks(wrap, king_stops)
        found = tuple(tuple(r for r in range(14) if sup[r] >> t & 1) for t in range(14))
        _FIT_RANKS[wrap, king_stops] = found
    return found


class _ClearSearch:
    """The C clearing search (``_bestscore.Clear``: its comment says how) behind
    ``_Search``'s interface, for the rules without redeals. Its table of positions proved
    lost lives in the C object and serves every question on this deal and stock. It has
    the bound but not the restarts of ``_Search``. A node is a position reached by a play,
    as there (a run of draws is one node), but it does not look ahead past a child whose
    moves are all known lost, so on hard lost samples it counts about 1.5 times the Python
    search's nodes: a node budget buys a little less search, in an eighth of the time. The
    answers, when both give one, are the same (tested)."""

    def __init__(self, layout: Layout, rules: Rules, start: _Start, budget: SearchBudget) -> None:
        assert _ACCEL is not None and rules.redeals == 0
        self.shape = shape = _shape(layout)
        self.stock = start.stock
        self.nodes = 0
        self.max_nodes = budget.max_nodes if budget.max_nodes is not None else 1 << 62
        self.deadline = time.perf_counter() + budget.seconds if budget.seconds is not None else None
        rank_mask = [0] * 14
        for p, r in enumerate(start.ranks):
            rank_mask[r] |= 1 << p
        fit = (
            shape.full,
            *(
                sum(rank_mask[r] for r in ranks)
                for ranks in _fit_ranks(rules.wrap, rules.king_stops)
            ),
        )
        # The bound (module docstring), off with a joker.
        sup = _sup_ranks(rules.wrap, rules.king_stops)
        hall = _hall_sets(sup, rules.wrap).sets if rules.jokers == 0 else ()
        self.search = _ACCEL.Clear(start.ranks, shape.uncovers, fit, self.stock, shape.full, hall)
        self.line: list[int] = []

    def wins(self, start: _Start) -> bool:
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
        left = -1.0 if self.deadline is None else max(0.0, self.deadline - time.perf_counter())
        won, nodes, line = self.search.wins(
            mask,
            free,
            idx,
            start.top,
            max(0, self.max_nodes - self.nodes),
            left,
            _ACCEL_MAX_ENTRIES,
        )
        self.nodes += nodes
        if won is None:
            raise BudgetExhausted
        self.line = line
        return bool(won)


def clear_search(
    layout: Layout, rules: Rules, start: _Start, budget: SearchBudget
) -> ClearingSearch:
    """A clearing search for questions on positions of ``start``'s deal and stock, sharing
    what it learns: the C one (``_ClearSearch``) where it is built and the rules have no
    redeals, else the pure Python ``_Search``; both with the bound."""
    if (
        _ACCEL is not None
        and rules.redeals == 0
        and layout.size <= _ACCEL_MAX_POSITIONS
        and len(start.stock) < 256
    ):
        return _ClearSearch(layout, rules, start, budget)
    return _Search(layout, rules, start, budget)


# ---------------------------------------------------------------------------------------
# Best score


@dataclass(slots=True)
class _Scorer:
    """Points as the search counts them: ``pts[l]`` for a streak of ``l`` cards from a
    streak of 0, the cumulative peak bonus ``bonus[k]`` for ``k`` peaks taken, the draw
    penalty. Under cards_left every card taken is one point (one card fewer left)."""

    pts: list[int]
    bonus: list[int]
    penalty: int
    lower_is_better: bool


def _scorer(rules: Rules, layout: Layout, longest: int) -> _Scorer:
    scheme = rules.scoring
    if scheme is Scoring.CARDS_LEFT:
        return _Scorer(list(range(longest + 1)), [0] * (len(layout.peaks) + 1), 0, True)
    pts = [0]
    for n in range(1, longest + 1):
        pts.append(pts[-1] + card_points(scheme, n))
    peaks = len(layout.peaks)
    bonus = [0]
    for k in range(1, peaks + 1):
        bonus.append(bonus[-1] + peak_bonus(scheme, k, peaks))
    return _Scorer(pts, bonus, draw_cost(rules), False)


@dataclass(slots=True)
class _Plan:
    path: tuple[int, ...]  # plays and redeals of the streak
    then: object | None  # key of the draw position after the draw, or None: stop


# A position inside a streak, for the general (redeals) walk:
# mask, free, top, stock, stock index, waste under the top, redeals left, path.
_Step = tuple[int, int, int, tuple[int, ...], int, tuple[int, ...], int, tuple[int, ...]]
_DrawPosition = tuple[int, int, int, tuple[int, ...], int, tuple[int, ...], int]


class _BestSearch(_Search):
    """Best points still to come, by dynamic programming over draw positions.

    An exhaustive search (a bound on the cards a streak can take, tried as a branch and
    bound, pruned too little to pay for itself): exact by construction and fast by its
    small keys (mask and stock index), not by pruning. Tried again with alpha-beta over
    draw positions (entries exact or upper bounds) and the sound bound "every card left
    in one streak, and the bonus of every peak left" (penalties only lower the score),
    children ordered by gain plus bound: on classic deals 0-2 it searched 20 to 40% fewer
    nodes with wrap, none fewer without, and took no less time: the bound is 100 to 200
    points above the value at most positions, and stopping is always allowed, so no
    draw's penalty can be counted as owed.

    Dead draws. At a draw position (mask, i) where no free card fits the top, the only
    moves are to stop (0) or to draw (-penalty + V(mask, i + 1)); so V(mask, i) =
    max(0, V(mask, j) - penalty * (j - i)) for the first j > i where a card fits (the
    penalty is never negative, so the max(0, ...) of the positions between folds into
    one), and 0 when there is none (drawing to the end only costs). A streak's end is
    therefore followed straight to that j, and the line draws j - i cards.
    """

    def __init__(self, layout: Layout, rules: Rules, start: _Start, budget: SearchBudget) -> None:
        super().__init__(layout, rules, start, budget)
        # No streak takes more cards than the cards and the streak (``_cards_bound``'s
        # ``longest``; ``_LayerSearch.streak_ceiling`` may prove fewer).
        self.longest = self.table.n + start.streak
        self.scorer = _scorer(rules, layout, self.longest + 1)
        self.tt: dict[object, tuple[int, _Plan]] = {}
        self.tt_fast: dict[int, tuple[int, int, int]] = {}  # without redeals

    def best(self, start: _Start) -> tuple[int, list[int]]:
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
            return value, self._line(start, ends)
        line: list[int] = []
        while True:
            line.extend(plan.path)
            if plan.then is None:
                break
            line.append(DRAW_CODE)
            plan = self.tt[plan.then][1]
        return value, line

    def _line(self, start: _Start, ends: Sequence[tuple[int, int]]) -> list[int]:
        """The moves of a line given by its draw positions, as (stock index, the mask its
        streak ends on), the first ``start`` (``_best_ends``, ``_LayerSearch``)."""
        line: list[int] = self._streak_to(start.mask, start.top, ends[0][1])
        for (i, before), (j, end) in itertools.pairwise(ends):
            line.extend([DRAW_CODE] * (j - i))
            line.extend(self._streak_to(before, self.stock[j - 1], end))
        return line

    def _accel_args(self, mask: int, free: int, top: int, streak: int) -> tuple[object, ...]:
        """What both C best-score searches (``_bestscore.best`` and ``layers``) are first
        given: the tables, the scoring, the position, and the budget left."""
        t = self.table
        sc = self.scorer
        left = None if self.deadline is None else max(0.0, self.deadline - time.perf_counter())
        return (
            t.rank,
            t.uncovers,
            t.fit,
            self.stock,
            sc.pts,
            sc.bonus,
            sc.penalty,
            t.peak_mask,
            t.full,
            mask,
            free,
            top,
            streak,
            self.max_nodes - self.nodes,
            -1.0 if left is None else left,
        )

    def _best_ends(
        self, mask: int, free: int, top: int, streak: int
    ) -> tuple[int, list[tuple[int, int]]]:
        """Without redeals: the most points still to come and the draw positions of the
        best line, as (stock index, the mask its streak ends on), the first the position
        solved (index 0): by the C search when it is built (``_ACCEL``), else by
        ``_value_fast``."""
        t = self.table
        if _ACCEL is not None and t.n <= _ACCEL_MAX_POSITIONS and len(self.stock) < 256:
            value, nodes, ends = _ACCEL.best(
                *self._accel_args(mask, free, top, streak), _ACCEL_MAX_ENTRIES
            )
            self.nodes += nodes
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
        -1 to stop); ``_streak_to`` finds the streak's cards again for the line. ``key``
        is the position's key in the table (-1: the start, not kept)."""
        self.tick()
        t = self.table
        ends, walked, _ = self._streak_ends(mask0, free0, top0, None)
        self.nodes += walked

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
            # or nothing (stop), so the draws to it only cost (``_BestSearch``).
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

    def _streak_ends(
        self, mask0: int, free0: int, top0: int, cap: int | None
    ) -> tuple[dict[int, int], int, list[tuple[int, int]]]:
        """Every mask a streak can reach from a draw position (with its free cards), how
        many steps the walk took, and where it was cut short: the walk is deduplicated on
        (mask, top), all that decides how it can go on, and depth first (the highest
        position first). ``cap`` stops it past that many steps (``_LAYER_WALK``; None: the
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
                    self.within_budget(len(seen))
                f2 = f & ~b
                for q, cq in uncovers[p]:
                    if cq & m2 == cq:
                        f2 |= 1 << q
                if m2 not in ends:
                    ends[m2] = f2
                push((m2, f2, r))
        return ends, len(seen), []

    def _streak_to(self, mask0: int, top0: int, end: int) -> list[int]:
        """The cards of a streak from (mask0, top0) that ends on the mask ``end`` (one
        that a search found): a walk like ``_streak_ends``' over the masks inside ``end``,
        each step kept with the one it came from. In C where the install built it
        (``_bestscore.streak``): six_peaks' streaks reach 50 cards and more, and their walk
        a million steps, which took Python up to 2 s after a search had spent its budget."""
        t = self.table
        if _ACCEL is not None and t.n <= _ACCEL_MAX_POSITIONS:
            played: list[int] = _ACCEL.streak(
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

    def _value(self, key: object, node: _DrawPosition, streak: int) -> tuple[int, _Plan]:
        """``_value_fast`` when redeals are allowed: the stock and the waste (while a
        redeal is left) are part of the position, and a redeal may come inside a streak
        (it neither scores nor breaks the streak)."""
        if key is not None:
            entry = self.tt.get(key)
            if entry is not None:
                return entry
        self.tick()
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
            self.tick()
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


def _rank_cover(weights: Sequence[int], wraps: bool, v: int) -> tuple[int, int]:
    """The least weight of a set of ranks that holds one of every two neighbouring ranks
    (a vertex cover of the ranks Ace to King in a line, or in a ring when ``wraps``),
    ``weights[r - 1]`` for rank ``r``: among the sets that hold the rank ``v + 1``, and
    among those that do not. Two dynamic programmes side by side (a: v out, b: v in), each
    the least weight so far with the last rank in the set or not; round the ring from v
    when it wraps (the last rank before v is then in the set unless v is), else Ace to
    King."""
    never = 1 << 30
    if wraps:
        a_in, a_out, b_in, b_out = never, 0, weights[v], never
        for r in range(v + 1, v + 13):
            w = weights[r % 13]
            a_in, a_out = min(a_in, a_out) + w, a_in
            b_in, b_out = min(b_in, b_out) + w, b_in
        return min(b_in, b_out), a_in
    a_in = b_in = weights[0]
    a_out = b_out = 0
    for r, w in enumerate(weights):
        if r:
            a_in, a_out = min(a_in, a_out) + w, a_in
            b_in, b_out = min(b_in, b_out) + w, b_in
        if r == v:
            a_in, b_out = never, never
    return min(b_in, b_out), min(a_in, a_out)


def _streak_caps(table: _Table, mask: int, top: int) -> tuple[int, int]:
    """The most cards a streak can take from the cards left (``mask`` removed): from the
    waste top ``top``, and from any top (the streaks after a draw).

    Why no streak takes more. Two cards one after the other in a streak (the waste top
    first) have neighbouring ranks, or one is a joker. Take any set C of ranks that holds
    one of every two neighbouring ranks (``_rank_cover``), and count a joker as in C: then
    no two cards outside C follow each other. In the sequence of the top and the streak's
    ``l`` cards, the cards outside C are therefore at most one more than those in C, and no
    more than those in C when the top is in C (it comes first). So ``l <= 2 k`` with
    ``k`` the cards left whose rank is in C (jokers included), plus one when the top is in
    C (no top, or a joker, counts as in C: the first card may then be anything). The least
    such count over every C is the cap; it is a relaxation (covering and the order of the
    cards are not looked at), and it lets a streak take every card left only where the
    ranks left are spread evenly around the ranks' ring (on twelve six-peaks positions
    played forward 0 to 20 draws, it took 0 to 10 cards off the 27 to 56 left)."""
    counts = table.rank_counts(mask)
    left = sum(counts)
    jokers = 2 * counts[0]
    inside, outside = _rank_cover([2 * c for c in counts[1:]], table.wraps, max(top - 1, 0))
    anyway = min(left, jokers + min(inside, outside) + 1)
    if top < 1:  # no top, or a joker
        return anyway, anyway
    # the top is a card of a rank in the set, or not
    return min(left, jokers + min(inside + 1, outside)), anyway


def _first_draws(stock: Sequence[int]) -> list[list[int]]:
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


def _cards_bound(
    table: _Table, scorer: _Scorer, mask: int, top: int, streak: int, draws: int, longest: int
) -> int:
    """The most points the cards left can still score: their streaks' points, less the
    penalty of the draw each streak after the first needs (not the peaks' bonuses), from a
    position with ``mask`` removed, the waste top ``top`` and a streak of ``streak``, with
    ``draws`` stock cards left, where no streak takes more than ``longest`` cards (the one
    going on counted whole: ``_LayerSearch.streak_ceiling``; ``table.n + streak`` where
    nothing is known).

    Why no line scores more. The cards still to be played are split into streaks: the
    first continues the current one and takes at most ``first`` cards, each later one
    starts after a draw (so there are at most ``draws`` of them) and takes at most
    ``anyway`` (``_streak_caps``: the caps only fall as cards are removed). A streak's n-th
    card scores ``pts[n] - pts[n - 1]``, which never falls as n grows (classic n, msc 100 +
    200(n - 1), cards_left 1), so for each length ``l1`` of the first, the rest score at most
    as many streaks of ``anyway`` cards as fit and one of what remains (``pts`` is convex:
    the most of a sum of ``pts`` under those caps is at a corner). A later streak starts
    after a draw of its own, so each costs at least the penalty; one that scores less than
    that is better left out, so each counts ``max(pts[l] - penalty, 0)`` (leaving cards
    out of a corner never does better: fewer cards have a corner no higher, and no more
    streaks). The most of that over ``l1`` is the bound (along each run of ``l1`` with the
    same count of later streaks the sum is convex, a max of convex terms, so at the run's
    ends). It never rises along a line: after the first streak and a draw (whose penalty
    the line pays), the same split counts what is left, with one later streak fewer."""
    left = table.n - mask.bit_count()
    first, anyway = _streak_caps(table, mask, top)
    first, anyway = min(first, max(longest - streak, 0)), min(anyway, longest)
    # The most over l1: along each run of l1 over which the later streaks' count stays the
    # same (q), the sum is convex, so at the run's ends.
    if not anyway:
        return 0  # no card left
    pts, penalty = scorer.pts, scorer.penalty
    full = max(pts[anyway] - penalty, 0)  # a later streak of ``anyway`` cards
    best = 0
    q, hi = 0, left
    while True:
        lo = max(hi - anyway + 1, 0)
        for l1 in (lo, min(hi, first)) if lo <= first else ():
            part = left - l1 - q * anyway
            later = draws * full if q >= draws else q * full + max(pts[part] - penalty, 0)
            best = max(best, pts[streak + l1] - pts[streak] + later)
        if lo == 0:
            return best
        q, hi = q + 1, hi - anyway


def _peaks_left(table: _Table, scorer: _Scorer, mask: int) -> int:
    """The bonus of every peak left (``mask`` removed)."""
    peaks = table.peak_mask
    return scorer.bonus[peaks.bit_count()] - scorer.bonus[(mask & peaks).bit_count()]


def _points_ahead(
    table: _Table, scorer: _Scorer, mask: int, top: int, streak: int, draws: int, longest: int
) -> int:
    """The most points still to come from a position (``_cards_bound``'s arguments): the
    cards' and every peak left's bonus (``_score_bound`` argues it)."""
    cards = _cards_bound(table, scorer, mask, top, streak, draws, longest)
    return cards + _peaks_left(table, scorer, mask)


def _score_bound(
    start: _Start, table: _Table, scorer: _Scorer, unwinnable: bool, longest: int
) -> int:
    """A sound bound on the final score reachable from ``start``: no line scores more
    (under ``cards_left``, where lower is better, no line leaves fewer cards). No streak
    takes more than ``longest`` cards (``_cards_bound``).

    Why no line passes it. Every point still to come is a card's streak points, a peak's
    bonus or a draw's penalty. The cards' points, less the penalty of one draw for each
    streak after the first, are at most ``_cards_bound``'s (its docstring argues it:
    streaks capped by the ranks left). Each peak left is taken at most once, and the bonus
    is counted by how many peaks are taken, so the bonuses still to come are at most
    ``bonus[peaks] - bonus[taken]``. The penalty is never negative, so the other draws can
    only lower the sum. Under cards_left the fewest cards a line can leave
    is 0 (or what ``_cards_bound`` says cannot be taken), or 1 once the clearing search has
    proved that the table cannot be cleared.

    It is loose where the ranks left are spread evenly: at the six peaks start it is 1,701
    points (every card in one streak) on 28 of deals 0-99, 1,579 on average, where the
    best lines found score 667 to 1,560. Only covering and the order of the cards make
    such streaks short, which nothing cheap follows (docs/best-score.md)."""
    left = table.n - start.mask.bit_count()
    # with a redeal left the waste comes round again: as many streaks as cards
    draws = len(start.stock) if start.redeals_left == 0 else table.n
    ahead = _points_ahead(table, scorer, start.mask, start.top, start.streak, draws, longest)
    if scorer.lower_is_better:  # no bonus: the points are the cards taken
        return max(left - ahead, 1 if unwinnable and left else 0)
    return start.total + ahead


# The layered search's limits. A streak's walk stops after this many steps; the ends it
# did not reach are then bounded by the states it had left (``_expand``). Its memory: in C
# about 140 MB at the cut (its table of masks, its ends, its stack), in Python about 150
# bytes a step. Cut at a million steps, walks held the bound of six-peaks deals 6 and 8 at
# 1,591 and 1,510; at two million they finish (docs/best-score.md). And it keeps at most
# this many draw positions (40 bytes each in C, about 2.7 times that with its tables' free
# slots; six-peaks deals whose table crowds peaked at up to 388 MB in their process before
# the caps of ``_streak_caps``, 254 with them, 238 with the walks of two million steps).
_LAYER_WALK: Final = 2_000_000
_LAYER_MAX_ENTRIES = 1 << 21
# Room is made (``_LayerSearch._evict``) once less than 1/_LAYER_ROOM of the table is free.
_LAYER_ROOM: Final = 8
# A draw position's flags in the Python table (``_LayerSearch``).
_DONE: Final = 1
_EXPANDED: Final = 2
_LAYER_SHARE = 0.05  # of the budget layer by layer, the rest by bound (docs/best-score.md)
# Of the budget, first, the probe: one layered search as it was before the ceiling
# (``_LayerSearch.run``; classic and golf deals finish there).
_PROBE_SHARE = 0.1
# Of the budget left after the probe, the share that proves how many cards no streak passes
# (``streak_ceiling``), and the (mask, top) states that proof keeps at most: in C 16 bytes
# each, a table of 2**24 slots at the most (256 MiB, and the one it grew from while it
# grows: a proof that reached the cap peaked at 404 MB in its process, measured); in
# Python about 200 bytes each, so a tenth as many. Freed before the layered search.
_CEILING_SHARE = 0.2
_CEILING_MAX_ENTRIES: Final = 12_000_000
_CEILING_MAX_ENTRIES_PY: Final = 1_200_000


class _CeilingReached(Exception):
    """A line found reaches the start's bound: no line does better (``_LayerSearch``)."""


class _LayerSearch(_BestSearch):
    """The best score by layers, then by bound (no redeals): exact when it finishes, else
    the best line found and a sound bound. The answer of an analysis and of ``tripeaks
    solve`` (``solve_best(anytime=True)``).

    The draw positions of ``_value_fast`` (removed mask, stock index), taken forward. Each
    is kept with the most points a line reaches it with (the points still to come from it
    do not depend on how it was reached, ``_BestSearch``) and expanded: its streaks are
    walked (``_streak_ends``), each end is a line's score (stopping there) and, after the
    draws to the next stock card that fits, a draw position of a later layer.

    Two orders, one table. First (``_LAYER_SHARE`` of the budget) layer by layer, in the
    order of the stock: a draw position's index only grows along a line, so every line to
    a position has reached it when its layer is expanded, and good lines (one long streak
    after a few draws) are found early; until the table is crowded (``_crowded``). Then
    the positions left, the highest bound first: what lowers the bound answered. Between
    two expansions, room is made in a crowded table by evicting the positions never
    expanded with the lowest bounds (``_evict``). Either way the search prunes by the bound of
    ``_score_bound`` (the cards left in streaks capped by the ranks left, every peak left;
    ``_cards_bound`` argues it), kept in each entry (``_ahead``): a draw position whose
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
    and of any position
    evicted, or dropped because the table held ``_LAYER_MAX_ENTRIES``. Finished, with none
    of those above the best line, it is exact: every line was counted or proved no better.

    The ceiling on every streak (``streak_ceiling``, after a probe: ``run``): a proof that
    no line has a streak of more than so many cards, which the bound takes as a cap on
    every streak beside the ranks' (``_cards_bound``'s ``longest``).

    In C where the install built it (``_bestscore.layers``, the same answers when it
    finishes: the points, the bound; lines of equal points may differ, its order within a
    layer and among equal bounds is its tables'). Measured in docs/best-score.md."""

    def __init__(self, layout: Layout, rules: Rules, start: _Start, budget: SearchBudget) -> None:
        super().__init__(layout, rules, start, budget)
        # The Python search's state (``_layers``): per stock index, mask -> [points, free
        # cards, the draw position the best line to it streaked from: index and mask,
        # flags: _DONE (expanded or proved no better) and _EXPANDED (it has children), the
        # most points still to come (``_ahead``)]; the best line found (its points, and
        # its last streak: index, from, end); whether evicting still frees room; the most
        # a dropped or evicted position, or one whose walk was cut, could lead to; the
        # positions pending by bound (``_clear``: none yet, for each search).
        self._clear()
        self.ceiling = 0

    def streak_ceiling(self, start: _Start) -> int:
        """The fewest cards no streak of any line from ``start`` passes (the streak going on
        counted whole) that ``_CEILING_SHARE`` of the budget can prove, kept for the bounds
        (``_cards_bound``'s ``longest``).

        From the caps of the start (``_streak_caps``: no streak passes them), a length at a
        time, downwards: whether some line has a streak of that many cards
        (``_streak_reaches``, in C where it is built: ``_bestscore.longest``, the same
        answers). If no line has, the ceiling is one less, and the next length is tried;
        if one has, the ceiling is that length, exactly; out of the share of the budget
        (None), the last ceiling proved stands. Each length costs more than the one before
        (2 to 3 times on six peaks, more where the lengths are short), so a length whose
        cost, foretold by the growth from the one before (taken as 1.5 to 3), would not fit
        in what is left of the share is not tried: its time goes to the layered search.
        Only with a budget (``run``)."""
        t = self.table
        first, anyway = _streak_caps(t, start.mask, start.top)
        longest = max(start.streak + first, anyway)
        free = t.free_of(start.mask)
        until, stop = self._share(_CEILING_SHARE)
        # the nodes of the last two lengths tried (none yet) and the last one's time
        cost: list[int] = []
        seconds = 0.0
        while longest > start.streak:
            began, nodes0 = time.perf_counter(), self.nodes
            if len(cost) == 2:  # the next length's cost, foretold by the last growth
                growth = min(max(cost[1] / max(cost[0], 1), 1.5), 3.0)
                if self.nodes + growth * cost[1] > stop or (
                    until is not None and began + growth * seconds > until
                ):
                    break
            if _ACCEL is not None and t.n <= _ACCEL_MAX_POSITIONS and len(self.stock) < 256:
                left = -1.0 if until is None else max(0.0, until - time.perf_counter())
                found, nodes = _ACCEL.longest(
                    t.rank,
                    t.uncovers,
                    t.fit,
                    self.stock,
                    start.mask,
                    free,
                    start.top,
                    start.streak,
                    longest,
                    stop - self.nodes,
                    left,
                    _CEILING_MAX_ENTRIES,
                    t.wraps,
                )
                self.nodes += nodes
            else:
                found = self._streak_reaches(start, free, longest, stop, until)
            if found is not False:
                break
            longest -= 1
            cost = [*cost[-1:], self.nodes - nodes0]
            seconds = time.perf_counter() - began
        self.longest = min(self.longest, longest)
        return self.longest

    def _streak_reaches(
        self, start: _Start, free0: int, length: int, stop: int, until: float | None
    ) -> bool | None:
        """Whether some line from ``start`` has a streak of ``length`` cards or more (the
        one going on counted whole); None when ``stop`` nodes, the time ``until`` or
        ``_CEILING_MAX_ENTRIES_PY`` kept states are passed first.

        A depth-first search of the states (mask removed, top, the streak's cards so far,
        the next stock index). From each: the plays of a card that fits (the streak one
        card longer), and the end of the streak there followed by the draws up to each
        later stock card at once (a new streak on it): the first card of each rank from
        the index on (``_first_draws``; a later card of the same rank is reached from
        there by drawing on, and its state would be no better). A state just drawn to
        does not draw again: its drawing on is among the draws of the state it was drawn
        from. Every move takes a card or the stock index forward, so no state is reached
        from itself. Why it misses no line:
        - A state is left when neither the streak going on nor any later one can reach
          ``length``: its cards so far plus the cap from its top (``_streak_caps``), and the
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
        The Python search and C's (``_bestscore.longest``) push the same children in the
        same order, so they visit the same states and count the same nodes."""
        t = self.table
        stock = self.stock
        seen: dict[tuple[int, int], tuple[int, int]] = {}
        stack = [(start.mask, free0, start.top, start.streak, 0, False)]
        fit, rank, uncovers = t.fit, t.rank, t.uncovers
        draws = _first_draws(stock)
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
            self.nodes += 1
            if self.nodes > stop or (
                until is not None and not self.nodes & 1023 and time.perf_counter() > until
            ):
                return None
            first, anyway = _streak_caps(t, mask, top)
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

    def run(self, start: _Start, unwinnable: bool) -> tuple[int, int, bool, list[int]]:
        """The most points still to come of the lines found, a bound on any line's (both
        from ``start``'s score), whether that is exact, and the best line found (move
        codes; none: stop at once). ``unwinnable``: the clearing search proved the table
        cannot be cleared (``_score_bound``).

        With a budget, first a probe: the search with ``_PROBE_SHARE`` of it (classic and
        golf deals finish there). Cut short, the ceiling on every streak is proved
        (``streak_ceiling``, with ``_CEILING_SHARE`` of what is left) and the search runs
        again with the rest under it. The answer is the better line of the two and the
        lower bound (each is sound). Without a budget, one search, which finishes."""
        if self.deadline is None and self.max_nodes >= 1 << 62:
            return self._search(start, unwinnable)
        deadline, max_nodes = self.deadline, self.max_nodes
        self.deadline, self.max_nodes = self._share(_PROBE_SHARE)
        try:
            probe = self._search(start, unwinnable)
        finally:
            self.deadline, self.max_nodes = deadline, max_nodes
        if probe[2]:
            return probe
        self.streak_ceiling(start)
        found, most, complete, line = self._search(start, unwinnable)
        if probe[0] > found:
            found, line = probe[0], probe[3]
        most = min(most, probe[1])
        return found, most, complete or found == most, line

    def _search(self, start: _Start, unwinnable: bool) -> tuple[int, int, bool, list[int]]:
        """One layered search from ``start`` (``run``'s answer) under the ceiling on every
        streak known (``self.longest``). The bound of ``start`` alone (``_score_bound``),
        which may know more than a draw position's bound (a table proved unclearable),
        is the search's ``ceiling``: a line that reaches it ends the search, exact (golf:
        an unclearable deal's first line leaving one card), and the bound answered is
        never above it."""
        t = self.table
        sc = self.scorer
        bound = _score_bound(start, t, sc, unwinnable, self.longest)
        ceiling = start.total - bound if sc.lower_is_better else bound - start.total
        free = t.free_of(start.mask)
        self.ceiling = ceiling
        if _ACCEL is not None and t.n <= _ACCEL_MAX_POSITIONS and len(self.stock) < 256:
            found, most, complete, nodes, ends = _ACCEL.layers(
                *self._accel_args(start.mask, free, start.top, start.streak),
                _LAYER_MAX_ENTRIES,
                _LAYER_WALK,
                _LAYER_SHARE,
                ceiling,
                _LAYER_ROOM,
                t.wraps,
                self.longest,
            )
            self.nodes += nodes
        else:
            found, most, complete, ends = self._layers(start, free)
        return found, most, complete, self._line(start, ends)

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

    def _share(self, share: float) -> tuple[float | None, int]:
        """The deadline and the node count by which ``share`` of the budget left is spent."""
        now = time.perf_counter()
        until = None if self.deadline is None else now + share * (self.deadline - now)
        return until, self.nodes + int(share * (self.max_nodes - self.nodes))

    def _layers(self, start: _Start, free0: int) -> tuple[int, int, bool, list[tuple[int, int]]]:
        """``_search`` in Python: the points, the bound, whether finished, and the best
        line's draw positions as ``_best_ends`` gives them."""
        self._clear()
        self.layers[0][start.mask] = [0, free0, -1, 0, 0, self._ahead(start, 0, start.mask)]
        switch_at, switch_nodes = self._share(_LAYER_SHARE)
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
                        or self.nodes > switch_nodes
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

    def _ahead(self, start: _Start, level: int, mask: int) -> int:
        """The most points still to come from a draw position (``_points_ahead``), no
        streak passing the ceiling (``streak_ceiling``): its bound is its points so far and
        these. Kept in its entry, worked out once."""
        streak, top = (start.streak, start.top) if level == 0 else (0, self.stock[level - 1])
        draws = len(self.stock) - level
        return _points_ahead(self.table, self.scorer, mask, top, streak, draws, self.longest)

    def _by_bound(self, start: _Start) -> None:
        """The draw positions left, the highest bound first, until none can beat the best
        line found (every one is then marked so). Room is made in the table between two
        expansions (``_evict``)."""
        self._pend(start)
        while True:
            if self.evicting and self._crowded():
                self.within_budget(0)  # an eviction takes a while: not past the deadline
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

    def _pend(self, start: _Start) -> None:
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

    def _evict(self, start: _Start) -> None:
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

    def _expand(self, start: _Start, level: int, mask0: int, entry: list[int]) -> None:
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
        self.tick()
        self.within_budget(0)
        ends, walked, left_at = self._streak_ends(mask0, entry[1], top, _LAYER_WALK)
        self.nodes += walked
        count0 = mask0.bit_count()
        base = pts[streak] + bonus[(mask0 & peak_mask).bit_count()]
        if left_at:  # cut short: the ends not reached stay possible, each line through one
            # of the states the walk had still to go on from (its points so far, then the
            # streak going on: _points_ahead from there), never above its own bound
            cut = max(
                acc
                - base
                + pts[streak + m.bit_count() - count0]
                + bonus[(m & peak_mask).bit_count()]
                + _points_ahead(
                    t, sc, m, tp, streak + m.bit_count() - count0, draws - level, self.longest
                )
                for m, tp in left_at
            )
            self.dropped = max(self.dropped, min(cut, acc + entry[5]))
        for k, (m2, f2) in enumerate(ends.items()):
            if not k & 4095 and k:
                # a walk's ends can be many, each new draw position's bound costs
                # microseconds here: keep to the budget (the position stays pending)
                self.within_budget(0)
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
            if then + pts[t.n - m2.bit_count()] + _peaks_left(t, sc, m2) <= self.found:
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
        """The draw positions of the best line found, as ``_best_ends`` gives them."""
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


# ---------------------------------------------------------------------------------------
# The public functions


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
    ``bound=False`` turns off the bound (module docstring), for tests and benchmarks."""
    began = time.perf_counter()
    budget = budget or SearchBudget()
    if state.outcome is GameStatus.WON:
        return ClearAnswer(True, (), 0, time.perf_counter() - began)
    if state.is_over:
        return ClearAnswer(False, (), 0, time.perf_counter() - began)
    start = start_of(state)
    search = _Search(state.layout, state.rules, start, budget, bound)
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
    (``_score_bound``; the score itself when exact).

    Without ``anytime`` a search that runs out of budget answers None: what ranks or
    judges results (a challenge's best score, the fair-play measure) needs the exact best.
    With ``anytime`` (an analysis, ``tripeaks solve``) the layered search
    (``_LayerSearch``) has the whole budget: exact when it finishes (classic and golf deals
    as soon as the exact search, docs/best-score.md), else the best line it found, with
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
    layered = anytime and state.rules.redeals == 0
    search = (_LayerSearch if layered else _BestSearch)(state.layout, state.rules, start, budget)
    lower = search.scorer.lower_is_better
    if isinstance(search, _LayerSearch):
        gain, most, exact, codes = search.run(start, unwinnable)
        # the bound proved: never above the start's own (``_LayerSearch._search``)
        bound = start.total - most if lower else start.total + most
    else:
        bound = _score_bound(start, search.table, search.scorer, unwinnable, search.longest)
        try:
            gain, codes = search.best(start)
        except BudgetExhausted:
            seconds = time.perf_counter() - began
            return BestAnswer(None, scheme, (), search.nodes, seconds, bound, False)
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
    return BestAnswer(
        score, scheme, tuple(line), search.nodes, seconds, score if exact else bound, exact
    )


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
