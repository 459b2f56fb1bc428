"""The compact problem every search works on, and the tables precomputed for it.

The searches never touch ``GameState``: a position is a bitmask of the removed tableau
positions, the index of the next stock card, the waste top's rank, and (only when redeals
are allowed) the stock and waste as tuples of ranks. Suits never matter, so cards are
ranks (0 for a joker). Covering is a precomputed bitmask per position, the free cards are
kept as a bitmask, and the playable ones are ``free & fit[top]``. ``Start`` is a position
in those terms (``start_of`` makes one from a game), ``Table`` what one deal's layout,
rules and tableau ranks let be precomputed, and ``hall_sets`` the sets of ranks the
clearing search's bound checks (clear.py argues the bound).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from app.engine.cards import JOKER_RANK, KING, ranks_adjacent
from app.engine.game import GameState
from app.engine.layouts import Layout
from app.engine.rules import Rules

NO_TOP: Final = -1  # free_start: no card on the waste yet
DRAW_CODE: Final = -1  # move codes inside the search: a position >= 0 is a play
REDEAL_CODE: Final = -2


def rank_fits(rank: int, top: int, rules: Rules) -> bool:
    """``game.fits`` on ranks; ``top`` is NO_TOP when the waste is empty."""
    if top == NO_TOP:
        return True
    if rules.king_stops and top == KING:
        return False
    if rank == JOKER_RANK or top == JOKER_RANK:
        return True
    return ranks_adjacent(rank, top, wrap=rules.wrap)


@dataclass(slots=True)
class Start:
    """A position to search from, in the search's terms."""

    ranks: tuple[int, ...]  # per tableau position (any value where removed)
    mask: int  # removed positions
    top: int  # waste top rank or NO_TOP
    waste: tuple[int, ...]  # ranks under the top, bottom first (only matters with redeals)
    stock: tuple[int, ...]  # ranks, top first
    redeals_left: int
    streak: int
    total: int  # score so far (classic/msc: points; cards_left: cards left)


def start_of(state: GameState) -> Start:
    n = state.layout.size
    ranks = tuple(
        (c.rank if c is not None else (state.deal[i].rank if i < len(state.deal) else 0))
        for i, c in enumerate(state.tableau)
    )
    mask = sum(1 << i for i in range(n) if state.tableau[i] is None)
    waste = tuple(c.rank for c in state.waste)
    return Start(
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
_FIT_RANKS: dict[tuple[bool, bool], tuple[tuple[int, ...], ...]] = {}


def sup_ranks(wrap: bool, king_stops: bool) -> tuple[int, ...]:
    """Per rank (0 for a joker): the ranks a card of that rank may go on, as bits."""
    found = _SUP_CACHE.get((wrap, king_stops))
    if found is None:
        rules = Rules(wrap=wrap, king_stops=king_stops)
        found = tuple(sum(1 << s for s in range(14) if rank_fits(r, s, rules)) for r in range(14))
        _SUP_CACHE[wrap, king_stops] = found
    return found


def fit_ranks(wrap: bool, king_stops: bool) -> tuple[tuple[int, ...], ...]:
    """Per top rank (0 for a joker): the ranks that may go on it."""
    found = _FIT_RANKS.get((wrap, king_stops))
    if found is None:
        sup = sup_ranks(wrap, king_stops)
        found = tuple(tuple(r for r in range(14) if sup[r] >> t & 1) for t in range(14))
        _FIT_RANKS[wrap, king_stops] = found
    return found


# Hall's sets of ranks as fields of one integer, ``FIELD`` bits each, biased by ``BIAS``:
# the search adds one precomputed integer per card played instead of recounting. A field
# holds count(I) - count(N(I)) for at most ``_MAX_RUN`` ranks and their neighbours: with
# up to four ranks and five neighbours and two decks (layouts have one or two), from -40
# to 32, so 24 to 96 biased, and adding ``positive`` (63) never carries into the next one.
FIELD: Final = 8
BIAS: Final = 64
_MAX_RUN: Final = 2


@dataclass(frozen=True, slots=True)
class HallSets:
    """The sets ``I`` of the clearing search's bound (clear.py) under one set of fit
    rules: ``sets[f] = (I, N(I))`` as rank bitmasks, ``delta[x]``: what taking a card of
    rank ``x`` adds to the packed values ``count(I) - count(N(I))``."""

    sets: tuple[tuple[int, int], ...]
    delta: tuple[int, ...]
    high: int  # the top bit of every field
    positive: int  # added to the packed values, sets the top bit of the fields above 0


_HALL_CACHE: dict[tuple[tuple[int, ...], bool], HallSets] = {}
NO_DELTA: Final = (0,) * 14


def hall_sets(sup: tuple[int, ...], wrap: bool) -> HallSets:
    """The sets of one rank, or of two ranks two apart (r, r+2: ranks that compete for the
    same predecessors), with the ranks their cards may go on (``sup``: ``sup_ranks``)."""
    found = _HALL_CACHE.get((sup, wrap))
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
                near |= sup[x]
            near &= ~1  # no joker: the bound is off when there is one
            if (bits, near) not in sets:
                sets.append((bits, near))
    delta = []
    for x in range(14):
        d = 0
        for f, (bits, near) in enumerate(sets):
            d += ((near >> x & 1) - (bits >> x & 1)) << (FIELD * f)
        delta.append(d)
    found = HallSets(
        tuple(sets),
        tuple(delta),
        sum(1 << (FIELD * f + FIELD - 1) for f in range(len(sets))),
        sum((BIAS - 1) << (FIELD * f) for f in range(len(sets))),
    )
    _HALL_CACHE[sup, wrap] = found
    return found


class Table:
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
        self.sup_ranks = sup_ranks(rules.wrap, rules.king_stops)
        # whether a King and an Ace are neighbours (bounds.py ``streak_caps``)
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

    def stock_fit(self, stock: Sequence[int]) -> tuple[int, ...]:
        """Per stock index j: the positions whose card may go on the top after j draws."""
        return (0, *(self.fit[r + 1] for r in stock))
