"""Positions of real deals, for the tests and the bench: with a short stock, or after a
few random moves.

The plain search (bench/plain_dfs.py) cannot finish a whole deal that is lost, so the
agreement test and the bench compare on deals played forward to a short stock: even
numbers along the solver's own winning line (mostly winnable positions), odd ones by a
random player who plays a card nine times in ten (mostly lost positions). A streak may be
running at the position, which the solver must count on.
"""

from __future__ import annotations

import random

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
)
from app.engine.solver import SearchBudget, solve_clear


def position(number: int, rules: Rules, rng: random.Random, stock_left: int) -> GameState:
    """Deal ``number`` played forward until at most ``stock_left`` stock cards remain."""
    layout = get_layout(rules.layout)
    state = new_game(numbered_deal(number, layout.decks, rules.jokers), rules, layout)
    line: list[str] = []
    if number % 2 == 0:
        answer = solve_clear(state, SearchBudget(max_nodes=20_000))
        line = list(answer.line) if answer.winnable else []
    while len(state.stock) > stock_left and not state.is_over:
        if line:
            state = apply(state, line.pop(0))
            continue
        plays = [m for m in legal_moves(state) if isinstance(m, Play)]
        if plays and rng.random() < 0.9:
            state = apply(state, rng.choice(plays))
        else:
            state = apply(state, DRAW)
    return state


def random_play(rules: Rules, number: int, rng: random.Random, moves: int) -> GameState:
    """Numbered deal ``number`` after up to ``moves`` random legal moves (a play four
    times in five where one is legal), short of the game's end."""
    layout = get_layout(rules.layout)
    state = new_game(numbered_deal(number, layout.decks, rules.jokers), rules, layout)
    for _ in range(moves):
        plays = [m for m in legal_moves(state) if isinstance(m, Play)]
        draw = bool(state.stock) and (not plays or rng.random() >= 0.8)
        after = apply(state, DRAW if draw else rng.choice(plays))
        if after.is_over:
            break
        state = after
    return state
