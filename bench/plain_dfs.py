"""A plain memoised depth-first search over the engine's own states.

The reference the solver is checked against (tests) and measured against (bench): no
compact state, no move ordering, no pruning, only the engine's ``legal_moves`` and
``apply``. Its memo keys hold everything that can matter to what follows:

- the tableau and the stock (cards, in order);
- the waste: all of it while a redeal is left (it may become the stock), else its top only
  (nothing under the top can ever be played again);
- the redeals left;
- for the best score, the current streak (the next card's points depend on it; the peaks
  taken are fixed by the tableau).

``None`` means the node budget ran out.
"""

from __future__ import annotations

import sys
from collections.abc import Hashable

from app.engine import Draw, GameState, GameStatus, Play, Redeal, Scoring, apply, legal_moves


class OutOfNodes(Exception):
    pass


def _key(state: GameState) -> Hashable:
    waste = state.waste if state.redeals_left else state.waste[-1:]
    return (state.tableau, state.stock, waste, state.redeals_left)


def _moves(state: GameState) -> list[Play | Draw | Redeal]:
    return [m for m in legal_moves(state) if isinstance(m, Play | Draw | Redeal)]


def plain_clear(state: GameState, max_nodes: int = 10**9) -> bool | None:
    """Whether ``state`` can be cleared."""
    memo: dict[Hashable, bool] = {}
    count = [0]

    def win(s: GameState) -> bool:
        if s.outcome is GameStatus.WON:
            return True
        if s.is_over:
            return False
        k = _key(s)
        if k in memo:
            return memo[k]
        count[0] += 1
        if count[0] > max_nodes:
            raise OutOfNodes
        result = any(win(apply(s, m)) for m in _moves(s))
        memo[k] = result
        return result

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    try:
        return win(state)
    except OutOfNodes:
        return None


def plain_best(state: GameState, max_nodes: int = 10**9) -> int | None:
    """The best final score from ``state``, stopping whenever that is best."""
    sign = -1 if state.rules.scoring is Scoring.CARDS_LEFT else 1
    memo: dict[Hashable, int] = {}
    count = [0]

    def gain(s: GameState) -> int:
        """The most (signed) points still to come; stopping now gives 0."""
        if s.is_over:
            return 0
        k = (_key(s), s.score.current_streak)
        if k in memo:
            return memo[k]
        count[0] += 1
        if count[0] > max_nodes:
            raise OutOfNodes
        best = 0
        for m in _moves(s):
            t = apply(s, m)
            best = max(best, sign * (t.score.total - s.score.total) + gain(t))
        memo[k] = best
        return best

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    try:
        return state.score.total + sign * gain(state)
    except OutOfNodes:
        return None
