"""How complete a finished game's analysis is within its budget, and how long it takes.

An analysis runs once a game (``get_analysis`` keeps it) under ``ANALYSIS_BUDGET_MS``,
shared by its searches in order: could the deal be cleared, where was the win lost, then
the best score with the time left. This plays finished games the way people finish them
(deals 2000, 2001, ... of each layout, by a player who makes the greedy move, or a random
one a third of the time, so that games are won and lost), analyses each as the server
does (the engine's ``analysis``, in process), and prints per layout the share of complete
analyses, the share with each answer, and the time of the first call (p50, p90, max).

``python -m bench analysis --quick`` analyses 5 games a layout instead of 20.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from app.engine import Rules, apply, get_layout, legal_moves, new_game, numbered_deal, player_view
from app.engine.bots import HintSettings, greedy_strategy, percentile
from app.engine.hints import Analysis, analysis
from app.engine.solver import SearchBudget
from app.settings import Settings

LAYOUTS = ("tripeaks", "golf", "six_peaks")
FIRST_DEAL = 2000
RANDOM_SHARE = 0.3


def finished_game(layout_name: str, number: int, rng: random.Random) -> tuple[Rules, list[str]]:
    layout = get_layout(layout_name)
    rules = Rules.for_layout(layout_name)
    greedy = greedy_strategy(rules, layout, HintSettings())
    state = new_game(numbered_deal(number, layout.decks, rules.jokers), rules, layout)
    log: list[str] = []
    while not state.is_over:
        moves = [str(m) for m in legal_moves(state) if str(m) not in ("undo", "concede")]
        move = (
            rng.choice(moves) if rng.random() < RANDOM_SHARE else greedy(player_view(state), 0).move
        )
        state = apply(state, move)
        log.append(move)
    return rules, log


def run(argv: Sequence[str]) -> None:
    games = 5 if "--quick" in argv else 20
    seconds = Settings().analysis_budget_ms / 1000
    print(f"ANALYSIS_BUDGET_MS={seconds * 1000:.0f}, {games} finished games a layout")
    print(
        f"  {'layout':<10} {'won':>4} {'complete':>9} {'clear':>6} {'lost at':>8} "
        f"{'best':>5}  {'p50 s':>6} {'p90 s':>6} {'max s':>6}"
    )
    for name in LAYOUTS:
        layout = get_layout(name)
        rng = random.Random(name)
        answers: list[Analysis] = []
        times: list[float] = []
        for number in range(FIRST_DEAL, FIRST_DEAL + games):
            rules, log = finished_game(name, number, rng)
            deal = numbered_deal(number, layout.decks, rules.jokers)
            began = time.perf_counter()
            answers.append(
                analysis(
                    deal, rules, log, layout, budget=SearchBudget(max_nodes=None, seconds=seconds)
                )
            )
            times.append(time.perf_counter() - began)
        lost_winnable = [a for a in answers if a.winnable and a.outcome != "won"]

        def share(count: int, of: int) -> str:
            return f"{count}/{of}"

        print(
            f"  {name:<10} {sum(a.outcome == 'won' for a in answers):>4} "
            f"{share(sum(a.complete for a in answers), games):>9} "
            f"{share(sum(a.winnable is not None for a in answers), games):>6} "
            f"{share(sum(a.lost_at is not None for a in lost_winnable), len(lost_winnable)):>8} "
            f"{share(sum(a.best_score is not None for a in answers), games):>5}  "
            f"{percentile(times, 0.5):>6.2f} {percentile(times, 0.9):>6.2f} {max(times):>6.2f}"
        )
    print(
        "  (clear: could it be cleared, answered; lost at: of the winnable games not won, "
        "where the win was lost; best: the best score)"
    )
