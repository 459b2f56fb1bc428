"""Sound bounds on the points still to come, for the best-score searches.

Two things are bounded, each argued in its docstring: how many cards one streak can take
from the cards left (``streak_caps``: the ranks left, whatever the covering), and from
that the points the cards left can still score (``cards_bound``) and the final score of
any line (``score_bound``). The layered search (layers.py) prunes a draw position whose
points so far and bound do not pass the best line found, and answers the highest bound it
has not ruled out; the ceiling's proof (ceiling.py) leaves a state whose streak cannot
reach a length. ``Scorer`` is the points as the searches count them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.engine.layouts import Layout
from app.engine.rules import Rules, Scoring
from app.engine.scoring import card_points, draw_cost, peak_bonus
from app.engine.solver.tables import Start, Table


@dataclass(slots=True)
class Scorer:
    """Points as the search counts them: ``pts[l]`` for a streak of ``l`` cards from a
    streak of 0, the cumulative peak bonus ``bonus[k]`` for ``k`` peaks taken, the draw
    penalty. Under cards_left every card taken is one point (one card fewer left)."""

    pts: list[int]
    bonus: list[int]
    penalty: int
    lower_is_better: bool


def scorer_for(rules: Rules, layout: Layout, longest: int) -> Scorer:
    scheme = rules.scoring
    if scheme is Scoring.CARDS_LEFT:
        return Scorer(list(range(longest + 1)), [0] * (len(layout.peaks) + 1), 0, True)
    pts = [0]
    for n in range(1, longest + 1):
        pts.append(pts[-1] + card_points(scheme, n))
    peaks = len(layout.peaks)
    bonus = [0]
    for k in range(1, peaks + 1):
        bonus.append(bonus[-1] + peak_bonus(scheme, k, peaks))
    return Scorer(pts, bonus, draw_cost(rules), False)


def rank_cover(weights: Sequence[int], wraps: bool, v: int) -> tuple[int, int]:
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


def streak_caps(table: Table, mask: int, top: int) -> tuple[int, int]:
    """The most cards a streak can take from the cards left (``mask`` removed): from the
    waste top ``top``, and from any top (the streaks after a draw).

    Why no streak takes more. Two cards one after the other in a streak (the waste top
    first) have neighbouring ranks, or one is a joker. Take any set C of ranks that holds
    one of every two neighbouring ranks (``rank_cover``), and count a joker as in C: then
    no two cards outside C follow each other. In the sequence of the top and the streak's
    ``l`` cards, the cards outside C are therefore at most one more than those in C, and no
    more than those in C when the top is in C (it comes first). So ``l <= 2 k`` with
    ``k`` the cards left whose rank is in C (jokers included), plus one when the top is in
    C (no top, or a joker, counts as in C: the first card may then be anything). The least
    such count over every C is the cap; it is a relaxation (covering and the order of the
    cards are not looked at), and it lets a streak take every card left only where the
    ranks left are spread evenly around the ranks' ring (what it takes off six-peaks
    positions: docs/research/best-score.md, step 6)."""
    counts = table.rank_counts(mask)
    left = sum(counts)
    jokers = 2 * counts[0]
    inside, outside = rank_cover([2 * c for c in counts[1:]], table.wraps, max(top - 1, 0))
    anyway = min(left, jokers + min(inside, outside) + 1)
    if top < 1:  # no top, or a joker
        return anyway, anyway
    # the top is a card of a rank in the set, or not
    return min(left, jokers + min(inside + 1, outside)), anyway


def cards_bound(
    table: Table, scorer: Scorer, mask: int, top: int, streak: int, draws: int, longest: int
) -> int:
    """The most points the cards left can still score: their streaks' points, less the
    penalty of the draw each streak after the first needs (not the peaks' bonuses), from a
    position with ``mask`` removed, the waste top ``top`` and a streak of ``streak``, with
    ``draws`` stock cards left, where no streak takes more than ``longest`` cards (the one
    going on counted whole: ceiling.py ``streak_ceiling``; ``table.n + streak`` where
    nothing is known).

    Why no line scores more. The cards still to be played are split into streaks: the
    first continues the current one and takes at most ``first`` cards, each later one
    starts after a draw (so there are at most ``draws`` of them) and takes at most
    ``anyway`` (``streak_caps``: the caps only fall as cards are removed). A streak's n-th
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
    first, anyway = streak_caps(table, mask, top)
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


def peaks_left(table: Table, scorer: Scorer, mask: int) -> int:
    """The bonus of every peak left (``mask`` removed)."""
    peaks = table.peak_mask
    return scorer.bonus[peaks.bit_count()] - scorer.bonus[(mask & peaks).bit_count()]


def points_ahead(
    table: Table, scorer: Scorer, mask: int, top: int, streak: int, draws: int, longest: int
) -> int:
    """The most points still to come from a position (``cards_bound``'s arguments): the
    cards' and every peak left's bonus (``score_bound`` argues it)."""
    cards = cards_bound(table, scorer, mask, top, streak, draws, longest)
    return cards + peaks_left(table, scorer, mask)


def score_bound(start: Start, table: Table, scorer: Scorer, unwinnable: bool, longest: int) -> int:
    """A sound bound on the final score reachable from ``start``: no line scores more
    (under ``cards_left``, where lower is better, no line leaves fewer cards). No streak
    takes more than ``longest`` cards (``cards_bound``).

    Why no line passes it. Every point still to come is a card's streak points, a peak's
    bonus or a draw's penalty. The cards' points, less the penalty of one draw for each
    streak after the first, are at most ``cards_bound``'s (its docstring argues it:
    streaks capped by the ranks left). Each peak left is taken at most once, and the bonus
    is counted by how many peaks are taken, so the bonuses still to come are at most
    ``bonus[peaks] - bonus[taken]``. The penalty is never negative, so the other draws can
    only lower the sum. Under cards_left the fewest cards a line can leave
    is 0 (or what ``cards_bound`` says cannot be taken), or 1 once the clearing search has
    proved that the table cannot be cleared.

    It is loose where the ranks left are spread evenly (a streak may then take every card
    left, by the ranks alone): only covering and the order of the cards make such streaks
    short, which nothing cheap follows (docs/research/best-score.md has how loose)."""
    left = table.n - start.mask.bit_count()
    # with a redeal left the waste comes round again: as many streaks as cards
    draws = len(start.stock) if start.redeals_left == 0 else table.n
    ahead = points_ahead(table, scorer, start.mask, start.top, start.streak, draws, longest)
    if scorer.lower_is_better:  # no bonus: the points are the cards taken
        return max(left - ahead, 1 if unwinnable and left else 0)
    return start.total + ahead
