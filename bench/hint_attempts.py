"""Hints tried against the server's hint and not taken (issue 33; docs/research/hints.md).

Each is a strategy for ``python -m bench hints --strategies NAME`` (``ATTEMPTS``), played
from the player's view alone like the server's hint, so that its figures can be made
again. None is in the server: the server's hint is ``app.engine.hints.hint``.

- ``postponed`` (EPIMC, Arjonilla, Saffidine and Cazenave 2024: perfect-information
  Monte Carlo with its perfect-information evaluation postponed): the hint's samples, but
  a move's value is taken one move deeper, where the player has seen what the move
  showed. After a first move, the samples are split by what it showed (the card drawn,
  the cards turned up, or nothing), and in each part the second move is the one that
  wins the most samples of that part, the same move for all of them, as a player who
  cannot see the hidden cards must choose it; only the positions after the second move
  are solved with every card known. A move's value is the sum over the parts. The
  sample hint (one move deep) lets every sample choose its own second move, which the
  player could not do where the first move showed nothing ("strategy fusion").
- ``rollout``: no sample is solved with every card known. After each move, each sample
  is played out to its end by the greedy bot (``app.engine.bots.greedy_strategy``'s
  choice: a card when one fits, the one holding up the most cards, else a draw), which
  sees only what the player would see in that sample; the move whose playouts win the
  most is suggested. The value of a move is then what a player who cannot peek wins
  after it, at the price of that player's weakness.

Both keep the hint's order of preference among moves within ``TIE_SHARE`` of the best,
its samples (``_Sight.sample``) and its time budget.
"""

from __future__ import annotations

import random
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from functools import partial
from typing import Any

from app.engine.bots import Decision, HintSettings, Strategy, hint_arguments
from app.engine.hints import TIE_SHARE, _after, _move_code, _Sight, _sight, _time_left
from app.engine.layouts import Layout
from app.engine.rules import Rules
from app.engine.solver import (
    DRAW_CODE,
    REDEAL_CODE,
    BudgetExhausted,
    SearchBudget,
    Start,
    clear_search,
    rank_fits,
)


def _legal(start: Start, layout: Layout, rules: Rules) -> list[int]:
    """The moves from ``start`` in the search's codes: the plays (the card holding up the
    most cards first, then the lower row), then a draw or a redeal."""
    codes = [
        p
        for p in range(layout.size)
        if not start.mask >> p & 1
        and all(start.mask >> c & 1 for c in layout.positions[p].covered_by)
        and rank_fits(start.ranks[p], start.top, rules)
    ]
    codes.sort(key=lambda p: (-len(layout.covers[p]), -layout.positions[p].row))
    if start.stock:
        codes.append(DRAW_CODE)
    elif start.redeals_left and start.waste:
        codes.append(REDEAL_CODE)
    return codes


CLEARED = -9  # the "move" after a cleared table (``postponed_move``)


def _news(sight: _Sight, before: Start, code: int, after: Start) -> tuple[int, ...]:
    """What the player sees after ``code`` that they did not see before: the card drawn,
    or the ranks of the face-down cards the play turned up (nothing for a redeal)."""
    if code == DRAW_CODE:
        return (after.top,)
    if code < 0:
        return ()
    lay = sight.layout
    return tuple(
        after.ranks[q]
        for q in lay.covers[code]
        if q in sight.hidden_set and all(after.mask >> c & 1 for c in lay.positions[q].covered_by)
    )


def _samples(
    sight: _Sight, seed: int, began: float, time_budget: float | None, max_samples: int | None
) -> Iterator[Start]:
    """The hidden cards dealt at random (``_Sight.sample``), one sample at a time, until
    ``max_samples`` or ``time_budget`` seconds after ``began`` (at least one; one only
    when nothing is hidden)."""
    rng = random.Random(seed)
    count = 0
    while True:
        yield sight.sample(rng)
        count += 1
        if sight.exact or (max_samples is not None and count >= max_samples):
            return
        if time_budget is not None and time.perf_counter() - began >= time_budget:
            return


def _choose(sight: _Sight, codes: list[tuple[str, int]], value: list[int], samples: int) -> str:
    """The first move (in the hint's order of preference) within ``TIE_SHARE`` of the
    samples of the best value."""
    most = max(value)
    margin = 0 if sight.exact else int(TIE_SHARE * samples)
    return next(text for (text, _), v in zip(codes, value, strict=True) if v >= most - margin)


def postponed_move(
    view: Mapping[str, Any],
    rules: Rules,
    layout: Layout,
    *,
    seed: int,
    time_budget: float | None,
    max_samples: int | None,
    sample_budget: SearchBudget,
    depth: int = 2,
) -> str:
    began = time.perf_counter()
    sight = _sight(view, rules, layout)
    codes = [(str(m), code) for m in sight.candidates if (code := _move_code(m)) is not None]
    full = (1 << layout.size) - 1
    # won[history]: the samples won after ``history``, a first move's code then, for each
    # later move, what the last one showed (``_news``) and the move's code; ``depth`` moves
    # (fewer where the game ends first). CLEARED stands for the move after a cleared table.
    won: defaultdict[tuple[Any, ...], int] = defaultdict(int)
    samples = 0

    def walk(
        search: Any, before: Start, history: tuple[Any, ...], line: tuple[int, ...], alive: bool
    ) -> None:
        code = history[-1]
        after = _after(before, code, before.ranks)
        key = (*history, _news(sight, before, code, after))
        if after.mask == full:
            won[(*key, CLEARED)] += 1
            return
        for second in _legal(after, layout, rules):
            if len(line) + 1 < depth:
                walk(search, after, (*key, second), (*line, second), alive)
                continue
            ok = False
            if alive:
                search.nodes = 0
                try:
                    ok = (*line, second) == winner[: len(line) + 1] or search.wins(
                        _after(after, second, before.ranks)
                    )
                except BudgetExhausted:
                    ok = False
            won[(*key, second)] += ok

    for root in _samples(sight, seed, began, time_budget, max_samples):
        search = clear_search(layout, rules, root, _time_left(began, time_budget, sample_budget))
        try:
            root_won = search.wins(root)
        except BudgetExhausted:
            root_won = False
        winner = tuple(search.line) if root_won else ()
        for _, code in codes:
            walk(search, root, (code,), (code,), root_won)
        samples += 1
    # The value of an information set (a history ending in what was shown): the best of
    # its moves, each the sum over what it shows next.
    children: defaultdict[tuple[Any, ...], set[Any]] = defaultdict(set)
    for h in list(won):
        for cut in range(1, len(h)):
            children[h[:cut]].add(h[cut])

    def value(h: tuple[Any, ...]) -> int:
        if h in won:
            return won[h]
        if len(h) % 2 == 1:  # after a move: the sum over what it showed
            return sum(value((*h, o)) for o in children[h])
        return max((value((*h, a)) for a in children[h]), default=0)

    return _choose(sight, codes, [value((code,)) for _, code in codes], samples)


def _greedy_wins(start: Start, layout: Layout, rules: Rules) -> bool:
    """Whether the greedy bot clears the table from ``start`` (it chooses on face-up cards
    only: which cards fit the top, and how many cards each holds up)."""
    full = (1 << layout.size) - 1
    while start.mask != full:
        moves = _legal(start, layout, rules)
        if not moves:
            return False
        start = _after(start, moves[0], start.ranks)
    return True


def rollout_move(
    view: Mapping[str, Any],
    rules: Rules,
    layout: Layout,
    *,
    seed: int,
    time_budget: float | None,
    max_samples: int | None,
    sample_budget: SearchBudget,
) -> str:
    began = time.perf_counter()
    sight = _sight(view, rules, layout)
    codes = [(str(m), code) for m in sight.candidates if (code := _move_code(m)) is not None]
    value = [0] * len(codes)
    samples = 0
    for root in _samples(sight, seed, began, time_budget, max_samples):
        for i, (_, code) in enumerate(codes):
            value[i] += _greedy_wins(_after(root, code, root.ranks), layout, rules)
        samples += 1
    return _choose(sight, codes, value, samples)


def _strategy(move: Callable[..., str]) -> Callable[[Rules, Layout, HintSettings], Strategy]:
    def make(rules: Rules, layout: Layout, settings: HintSettings) -> Strategy:
        def choose(view: dict[str, Any], game: int) -> Decision:
            return Decision(move(view, rules, layout, **hint_arguments(view, game, settings)))

        return choose

    return make


ATTEMPTS: dict[str, Callable[[Rules, Layout, HintSettings], Strategy]] = {
    "postponed": _strategy(postponed_move),
    "postponed3": _strategy(partial(postponed_move, depth=3)),
    "rollout": _strategy(rollout_move),
}
