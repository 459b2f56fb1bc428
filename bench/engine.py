"""Engine figures on the classic deal: playouts, moves, and the cost of replay.

- random playouts per second (a playout: deal, then random legal moves to the end);
- ``legal_moves`` + ``apply`` pairs per second inside those playouts;
- rebuilding a game of 10, 30 and 60 moves with ``replay`` (what loading a stored game
  costs), as a multiple of one ``apply``. Undo is off. One pass of the classic stock is at
  most 23 draws and 28 plays, so the 60-move game is played with ``redeals=1``.

``python -m bench engine [--quick]``. Figures are measured in one run; compare ratios,
not absolute times, between machines.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from functools import partial

from app.engine import (
    Deal,
    Draw,
    GameState,
    Move,
    Play,
    Redeal,
    Rules,
    apply,
    legal_moves,
    new_game,
    numbered_deal,
    replay,
)

REPLAY_LENGTHS = (10, 30, 60)


def _choose(legal: list[Move], rng: random.Random) -> Move:
    """A random move, preferring plays, never conceding while something else is legal."""
    plays = [m for m in legal if isinstance(m, Play)]
    others = [m for m in legal if isinstance(m, Draw | Redeal)]
    if plays and (not others or rng.random() < 0.8):
        return rng.choice(plays)
    return others[0] if others else legal[-1]


def playout(state: GameState, rng: random.Random) -> tuple[GameState, list[Move]]:
    moves: list[Move] = []
    while not state.is_over:
        move = _choose(legal_moves(state), rng)
        state = apply(state, move)
        moves.append(move)
    return state, moves


def _timed(fn: Callable[[], object], seconds: float) -> float:
    """Seconds per call of ``fn``: the best of batches of calls over about ``seconds``
    (the best batch is the one least disturbed by the rest of a busy machine)."""
    batch = 1
    while True:
        start = time.perf_counter()
        for _ in range(batch):
            fn()
        took = time.perf_counter() - start
        if took >= 0.02:
            break
        batch *= 2
    best = took / batch
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        start = time.perf_counter()
        for _ in range(batch):
            fn()
        best = min(best, (time.perf_counter() - start) / batch)
    return best


def _long_game(rules: Rules, length: int) -> tuple[int, Deal, list[Move]]:
    """The first deal (by number) whose seeded random playout lasts ``length`` moves."""
    for number in range(10_000):
        deal = numbered_deal(number)
        _, moves = playout(new_game(deal, rules), random.Random(number))
        if len(moves) >= length:
            return number, deal, moves
    raise RuntimeError(f"no playout of {length} moves found")  # pragma: no cover


def run(argv: list[str]) -> None:
    quick = "--quick" in argv
    seconds = 0.3 if quick else 2.0
    rules = Rules()  # the classic deal: tripeaks, wrap, classic scoring, no undo

    # Random playouts per second, and the legal_moves + apply pairs inside them.
    rng = random.Random(1)
    games = moves_played = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or games < 10:
        state = new_game(numbered_deal(games), rules)
        _, moves = playout(state, rng)
        games += 1
        moves_played += len(moves)
    elapsed = time.perf_counter() - start
    print(
        f"random playouts:           {games / elapsed:10,.0f} games/s "
        f"({moves_played / games:.1f} moves a game, deal included)"
    )

    states: list[GameState] = []
    rng = random.Random(2)
    for number in range(50):
        state = new_game(numbered_deal(number), rules)
        while not state.is_over:
            states.append(state)
            state = apply(state, _choose(legal_moves(state), rng))
    choices = [_choose(legal_moves(s), rng) for s in states]

    def step_all() -> None:
        for s in states:
            apply(s, _choose(legal_moves(s), rng))

    def apply_all() -> None:
        for s, m in zip(states, choices, strict=True):
            apply(s, m)

    per_round = _timed(step_all, seconds)
    print(f"legal_moves + apply:       {len(states) / per_round:10,.0f} moves/s")
    per_round = _timed(apply_all, seconds)
    print(f"apply alone:               {len(states) / per_round:10,.0f} moves/s")

    # Replay: the cost of rebuilding a stored game, as a multiple of one apply. The
    # timings are interleaved, round after round, so that a busy machine disturbs them
    # alike; each figure is the best round.
    long_rules = Rules(redeals=1)
    number, deal, moves = _long_game(long_rules, max(REPLAY_LENGTHS))
    moves = moves[: max(REPLAY_LENGTHS)]
    texts = [str(m) for m in moves]
    chain = [new_game(deal, long_rules)]
    for move in moves[:-1]:
        chain.append(apply(chain[-1], move))

    def apply_each() -> None:  # each move of this game, applied once to its own state
        for s, m in zip(chain, moves, strict=True):
            apply(s, m)

    timings: dict[str, Callable[[], object]] = {
        "apply_all": apply_all,
        "apply_each": apply_each,
        "new_game": lambda: new_game(deal, long_rules),
    }
    for length in REPLAY_LENGTHS:
        assert replay(deal, long_rules, texts[:length]).moves_made == length
        timings[f"replay{length}"] = partial(replay, deal, long_rules, texts[:length])
    best = _interleaved(timings, seconds * 2)
    unit = best["apply_all"] / len(states)
    same = best["apply_each"] / len(moves)
    kinds = Counter(t.split()[0] for t in texts)
    print(
        f"replay from move strings (deal {number}, undo off, redeals=1 to reach 60 moves; "
        f"its 60 moves are {kinds['play']} plays, {kinds['draw']} draws, "
        f"{kinds['redeal']} redeal):"
    )
    print(
        f"  one apply: {unit * 1e6:.1f} µs on average over the playouts above, "
        f"{same * 1e6:.1f} µs over this game's moves; new_game: {best['new_game'] / unit:.1f} "
        f"applies"
    )
    for length in REPLAY_LENGTHS:
        cost = best[f"replay{length}"]
        print(
            f"  {length:3d} moves: {cost * 1e6:7.0f} µs = {cost / unit:6.1f} applies "
            f"({cost / same:6.1f} of this game's), {cost / unit / length:.2f} a move"
        )


def _interleaved(fns: dict[str, Callable[[], object]], seconds: float) -> dict[str, float]:
    """Seconds per call of each function: batches of calls taken in turn, best batch."""
    batches = {}
    for name, fn in fns.items():
        batch = 1
        while True:
            start = time.perf_counter()
            for _ in range(batch):
                fn()
            if time.perf_counter() - start >= 0.01:
                break
            batch *= 2
        batches[name] = batch
    best = dict.fromkeys(fns, float("inf"))
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        for name, fn in fns.items():
            start = time.perf_counter()
            for _ in range(batches[name]):
                fn()
            best[name] = min(best[name], (time.perf_counter() - start) / batches[name])
    return best
