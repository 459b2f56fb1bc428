"""The fair-play measure (app.engine.fairplay) on fixed deals: a player who plays the
deal's best line is flagged, the hint bot and the greedy player are not; the p-value is
the exact Poisson-binomial tail; a game is measured alike on every run. The stock's
evidence (``stock_evidence``): a player choosing with the stock known scores above one who
never sees it, on the same deal."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from app.engine import Rules, apply, get_layout, new_game, numbered_deal, player_view
from app.engine.bots import STRATEGIES, HintSettings
from app.engine.fairplay import (
    DEFAULT_THRESHOLD,
    HONEST_RATE,
    PLAYER_LEAN,
    combined,
    flags_player,
    measure,
    needed,
    peeking_move,
    stock_evidence,
    tail,
)
from app.engine.solver import SearchBudget, solve_best

RULES = Rules.for_layout("tripeaks", undo=False)
LAYOUT = get_layout("tripeaks")
# Daily-like deals (winnable under the daily's rules) on which the best line has enough
# telling decisions to be flagged.
DEALS = (2, 11)


def best_line(number: int) -> list[str]:
    line = solve_best(new_game(numbered_deal(number), RULES, LAYOUT), SearchBudget(None, 60)).line
    return [m for m in line if m != "concede"]


def bot_line(name: str, number: int) -> list[str]:
    """The moves of a bot of ``STRATEGIES``, or of ``stock``: a player who knows the
    stock's order, choosing on as many samples as the stock's evidence below weighs."""
    strategy = STRATEGIES.get(name, STRATEGIES["greedy"])(
        RULES, LAYOUT, HintSettings(samples=16, seconds=None)
    )
    state = new_game(numbered_deal(number), RULES, LAYOUT)
    moves: list[str] = []
    while not state.is_over:
        view = player_view(state)
        legal = [m for m in view["legal_moves"] if m not in ("undo", "concede")]
        if len(legal) == 1:
            move = legal[0]
        elif name == "stock":
            move = peeking_move(state, "stock", samples=8, seed=number * 1000 + len(moves))
        else:
            move = strategy(view, number).move
        moves.append(move)
        state = apply(state, move)
    return moves


@pytest.mark.parametrize("number", DEALS)
def test_the_best_line_is_flagged(number: int) -> None:
    fair = measure(numbered_deal(number), RULES, best_line(number), LAYOUT, seed=number)
    assert fair.complete
    assert fair.telling >= needed(DEFAULT_THRESHOLD)
    assert fair.resolved == fair.telling  # every telling decision, the clairvoyant way
    assert fair.flagged(DEFAULT_THRESHOLD), fair


@pytest.mark.parametrize(("name", "number"), list(itertools.product(("hint", "greedy"), DEALS)))
def test_honest_players_are_not_flagged(name: str, number: int) -> None:
    fair = measure(numbered_deal(number), RULES, bot_line(name, number), LAYOUT, seed=number)
    assert fair.decisions > 0
    assert fair.resolved <= fair.telling
    assert not fair.flagged(DEFAULT_THRESHOLD), fair


def test_a_game_is_measured_alike_on_every_run() -> None:
    moves = bot_line("greedy", DEALS[0])
    first = measure(numbered_deal(DEALS[0]), RULES, moves, LAYOUT, seed=3)
    assert measure(numbered_deal(DEALS[0]), RULES, moves, LAYOUT, seed=3) == first


def test_a_game_without_decisions_cannot_be_flagged() -> None:
    fair = measure(numbered_deal(DEALS[0]), RULES, ["concede"], LAYOUT)
    assert (fair.decisions, fair.telling, fair.p_value) == (0, 0, 1.0)


def test_the_tail_is_the_poisson_binomial_s() -> None:
    chances = [0.3, 0.5, 0.25, 0.9]
    for k in range(len(chances) + 2):
        brute = sum(
            math.prod(q if hit else 1 - q for q, hit in zip(chances, hits, strict=True))
            for hits in itertools.product((False, True), repeat=len(chances))
            if sum(hits) >= k
        )
        assert tail(chances, k) == pytest.approx(brute)
    assert tail([], 0) == 1.0


def test_results_combine_as_fisher_s_method() -> None:
    # One result is itself; two are P(U1 * U2 <= p1 * p2) = t (1 - log t) for uniforms.
    assert combined([0.2]) == pytest.approx(0.2)
    t = 0.03 * 0.2
    assert combined([0.03, 0.2]) == pytest.approx(t * (1 - math.log(t)))
    assert combined([]) == 1.0 and combined([1.0, 1.0]) == 1.0
    # Three, against the product of three uniforms drawn (seeded): the same tail.
    rng = random.Random(7)
    draws = [rng.random() * rng.random() * rng.random() for _ in range(200_000)]
    for ps in ([0.1, 0.1, 0.1], [0.5, 0.02, 0.9]):
        drawn = sum(d <= math.prod(ps) for d in draws) / len(draws)
        assert combined(ps) == pytest.approx(drawn, abs=0.003)
    # Several small results pass where none passes alone; nothing overflows.
    assert combined([0.027] * 2) < 0.01 < 0.027
    assert combined([0.0] * 1000) == 0.0 and combined([1e-300] * 3) < 1e-290


def test_a_result_flagged_by_its_player_s_others_leans_that_way_itself() -> None:
    assert flags_player(PLAYER_LEAN, 0.001, DEFAULT_THRESHOLD)
    assert not flags_player(0.31, 0.001, DEFAULT_THRESHOLD)  # shows nothing itself
    assert not flags_player(0.05, DEFAULT_THRESHOLD, DEFAULT_THRESHOLD)


def test_how_many_telling_decisions_can_flag() -> None:
    n = needed(DEFAULT_THRESHOLD)
    assert HONEST_RATE**n < DEFAULT_THRESHOLD <= HONEST_RATE ** (n - 1)
    assert needed(0.01) == 4 and needed(0.001) == 6


@pytest.mark.parametrize("number", DEALS)
def test_the_null_follows_how_the_player_chooses_elsewhere(number: int) -> None:
    """The greedy player takes the hint's move at most of the other decisions: held to the
    null of a player who follows their view; the random player does not: held to the
    random one (a larger chance at every telling decision), and not flagged."""
    greedy = measure(numbered_deal(number), RULES, bot_line("greedy", number), LAYOUT)
    assert greedy.follows_view and greedy.agreed >= 0.7 * greedy.others >= 7
    assert greedy.expected == pytest.approx(HONEST_RATE * greedy.telling)
    loose = measure(numbered_deal(number), RULES, bot_line("random", number), LAYOUT)
    assert not loose.follows_view
    assert loose.expected > HONEST_RATE * loose.telling  # some decision has c / m > 0.3
    assert not loose.flagged(DEFAULT_THRESHOLD)


def evidence(name: str, number: int) -> tuple[float, int]:
    e = stock_evidence(
        numbered_deal(number),
        RULES,
        bot_line(name, number),
        LAYOUT,
        alternatives=6,
        samples=8,
        seed=number,
    )
    return e.z, e.decisions


@pytest.mark.parametrize("number", DEALS)
def test_knowing_the_stock_shows_in_its_evidence(number: int) -> None:
    """The cheater chose the least regret under the true stock (on the samples the
    evidence weighs); the greedy player chose blind to it."""
    cheat, cheat_decisions = evidence("stock", number)
    honest, honest_decisions = evidence("greedy", number)
    assert cheat_decisions >= 3 and honest_decisions >= 3
    assert cheat > 0
    assert cheat > honest


def test_the_stock_evidence_is_alike_on_every_run() -> None:
    assert evidence("greedy", DEALS[0]) == evidence("greedy", DEALS[0])


def test_a_game_without_decisions_has_no_stock_evidence() -> None:
    e = stock_evidence(numbered_deal(DEALS[0]), RULES, ["concede"], LAYOUT)
    assert (e.z, e.decisions) == (0.0, 0)


@pytest.mark.slow
def test_after_a_redeal_the_stock_is_no_evidence() -> None:
    """A redeal turns the waste the player saw into the stock: the moves after it weigh
    nothing."""
    rules = Rules.for_layout("tripeaks", undo=False, redeals=1, wrap=False)
    deal = numbered_deal(0)  # a deal whose stock weighs before the redeal and after
    state = new_game(deal, rules, LAYOUT)
    moves: list[str] = []
    while not state.is_over:
        legal = [m for m in player_view(state)["legal_moves"] if m not in ("undo", "concede")]
        plays = [m for m in legal if m.startswith("play ")]
        # through the stock first (a draw every third move at least), then the redeal
        move = "draw" if "draw" in legal and (len(moves) % 3 == 0 or not plays) else legal[0]
        moves.append(move)
        state = apply(state, move)
    assert "redeal" in moves
    before = moves[: moves.index("redeal") + 1]
    assert len(before) < len(moves)

    def weigh(line: list[str]) -> tuple[float, int]:
        e = stock_evidence(deal, rules, line, LAYOUT, alternatives=4, samples=8, seed=1)
        return e.z, e.decisions

    weighed = weigh(before)
    assert weighed[1] > 0
    assert weigh(moves) == weighed
