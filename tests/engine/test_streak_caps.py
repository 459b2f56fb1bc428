"""The caps on a streak's length that the best score's bound is built from
(``solver.bounds.streak_caps``): no streak a game plays is longer than the cap at any position
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
    Scoring,
    apply,
    get_layout,
    legal_moves,
    new_game,
    numbered_deal,
)
from app.engine.solver import start_of
from app.engine.solver.bounds import cards_bound, scorer_for, streak_caps
from app.engine.solver.tables import Table


def caps(state: GameState) -> tuple[int, int, int]:
    """The cards left, and the caps of a streak from this position's top and from any."""
    start = start_of(state)
    table = Table(state.layout, state.rules, start.ranks)
    first, anyway = streak_caps(table, start.mask, start.top)
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


def most_of_every_split(
    pts: list[int], penalty: int, streak: int, left: int, first: int, anyway: int, draws: int
) -> int:
    """The most points of any split of the cards left into streaks under the caps, by brute
    force: a first streak of at most ``first`` cards continuing one of ``streak``, then at
    most ``draws`` streaks of at most ``anyway`` cards, each after a draw that costs
    ``penalty``; cards may be left out."""
    never = -(1 << 40)
    # later[t]: the most of later streaks (as many as allowed) taking t cards in all
    later = [0] + [never] * left
    for _ in range(draws):
        step = later[:]
        for t in range(1, left + 1):
            for size in range(1, min(anyway, t) + 1):
                if later[t - size] > never:
                    step[t] = max(step[t], later[t - size] + pts[size] - penalty)
        if step == later:
            break
        later = step
    best = never
    for l1 in range(first + 1):
        rest = max(later[: left - l1 + 1])
        best = max(best, pts[streak + l1] - pts[streak] + rest)
    return best


@pytest.mark.parametrize("layout_name", ["tripeaks", "six_peaks"])
def test_the_cards_bound_is_the_most_of_every_split_less_the_draws(layout_name: str) -> None:
    """``cards_bound`` takes the most over splits at a few corners, and charges each streak
    after the first the penalty of its draw (a streak worth less is left out): at positions
    of random games it equals the brute force over every split, under classic scoring with
    a penalty of 5 and of 0, and msc."""
    layout = get_layout(layout_name)
    rng = random.Random(5)
    checked = 0
    for rules in (
        Rules.for_layout(layout),
        Rules.for_layout(layout, draw_penalty=0),
        Rules.for_layout(layout, scoring=Scoring.MSC),
    ):
        for number in range(3):
            state = new_game(numbered_deal(number, layout.decks, rules.jokers), rules, layout)
            while not state.is_over:
                if rng.random() < 0.3:
                    start = start_of(state)
                    table = Table(state.layout, state.rules, start.ranks)
                    scorer = scorer_for(rules, layout, table.n + start.streak)
                    first, anyway = streak_caps(table, start.mask, start.top)
                    left = table.n - start.mask.bit_count()
                    draws = len(start.stock)
                    # no ceiling on a streak but the cards, then one of the caps' or less
                    for longest in (table.n + start.streak, rng.randint(1, anyway) + start.streak):
                        bound = cards_bound(
                            table, scorer, start.mask, start.top, start.streak, draws, longest
                        )
                        expected = most_of_every_split(
                            scorer.pts,
                            scorer.penalty,
                            start.streak,
                            left,
                            min(first, longest - start.streak),
                            min(anyway, longest),
                            draws,
                        )
                        assert bound == expected, (rules, number, start, longest)
                    checked += 1
                plays = [m for m in legal_moves(state) if isinstance(m, Play)]
                state = apply(state, rng.choice(plays) if plays else DRAW)
    assert checked > 60
