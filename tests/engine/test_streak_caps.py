"""The caps on a streak's length that the best score's bound is built from
(``solver._streak_caps``): no streak a game plays is longer than the cap at any position
along it, under every rule that changes which ranks follow which (wrap, king stops,
jokers, no card on the waste at the start)."""

from __future__ import annotations

import random

import pytest

from app.engine import (
    DRAW,
    GameState,
    Play,
    Rules,
    apply,
    get_layout,
    legal_moves,
    new_game,
    numbered_deal,
    solver,
)
from app.engine.solver import start_of


def caps(state: GameState) -> tuple[int, int, int]:
    """The cards left, and the caps of a streak from this position's top and from any."""
    start = start_of(state)
    table = solver._Table(state.layout, state.rules, start.ranks)
    first, anyway = solver._streak_caps(table, start.mask, start.top)
    return table.n - start.mask.bit_count(), first, anyway


RULES = [
    ("tripeaks", {"wrap": True}),
    ("tripeaks", {"wrap": False}),
    ("tripeaks", {"wrap": False, "king_stops": True}),
    ("tripeaks", {"wrap": True, "jokers": 2}),
    ("tripeaks", {"wrap": True, "free_start": True}),
    ("six_peaks", {}),
    ("golf", {}),
]


@pytest.mark.parametrize(("layout_name", "options"), RULES, ids=[str(r) for r in RULES])
def test_no_streak_is_longer_than_its_cap(layout_name: str, options: dict[str, object]) -> None:
    """Games played by a player that plays a card whenever it can (so streaks run long):
    at every position, the cards the streak then goes on to take are at most the cap from
    its top, and at most the cap from any top; each cap is at most the cards left."""
    layout = get_layout(layout_name)
    rules = Rules.for_layout(layout, **options)
    rng = random.Random(11)
    below = 0
    for number in range(40):
        state = new_game(numbered_deal(number, layout.decks, rules.jokers), rules, layout)
        pending: list[tuple[int, int, int]] = []  # (streak then, cap from the top, any)
        while not state.is_over:
            left, first, anyway = caps(state)
            assert first <= anyway <= left
            below += first < left
            pending.append((state.score.current_streak, first, anyway))
            plays = [m for m in legal_moves(state) if isinstance(m, Play)]
            before = state.score.current_streak
            state = apply(state, rng.choice(plays) if plays else DRAW)
            if not plays or state.is_over:
                streak = before + (1 if plays else 0)
                for then, first, anyway in pending:
                    assert streak - then <= first <= anyway, (number, streak, then)
                pending = []
    assert below > 100  # the caps cut, not only the cards left


def test_a_six_peaks_start_where_the_ranks_cap_a_streak() -> None:
    """Six peaks deal 2: no streak can take more than 51 of its 56 cards. Its ranks' counts
    (Ace to King: 6 5 3 6 2 5 4 5 4 4 2 5 5) are uneven enough that some set of ranks
    holding one of every two neighbours holds only 25 of its cards, and at least one of
    every two cards in a row of a streak is one of those."""
    layout = get_layout("six_peaks")
    rules = Rules.for_layout(layout)
    state = new_game(numbered_deal(2, layout.decks), rules, layout)
    assert caps(state) == (56, 51, 51)
