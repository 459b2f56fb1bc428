"""Fair play: how often a player's choices needed cards they could not see.

A result on a board is worth something only if it was played from what the player saw.
With the whole deal known (once the challenge has closed) the measure looks at each of the
player's decisions (a position with more than one move, undo and concede aside):

- the clairvoyant best: the moves after which the best final score still reachable is the
  best from the position (``solve_best``, every card known: what a board ranks);
- the hidden-information best: the move the hint suggests from the player's view alone
  (``app.engine.hints.hint``, ``samples`` samples, a fixed seed: the same answer on every
  run), which cannot depend on a hidden card;
- the decision is *telling* when the hint's move is not a clairvoyant best: a player who
  cannot see had no reason, from what they saw, to prefer the clairvoyant move;
- it is *resolved the clairvoyant way* when the player's move is a clairvoyant best.

Against honest play, two ways of choosing, told apart by the game's other decisions (those
with a clairvoyant choice where the hint's move is one of the bests): a player who *follows
their view* took the hint's move at ``VIEW_AGREEMENT`` (70%) or more of at least
``VIEW_DECISIONS`` (10) of them; any other is held to the null of a player choosing at
random. At a telling decision with ``c`` of its ``m`` moves clairvoyant bests, honest play
resolves it the clairvoyant way with a probability ``q`` of at most ``HONEST_RATE`` when it
follows its view, and ``max(c / m, HONEST_RATE)`` when not. ``HONEST_RATE`` is fitted on
honest play, rounded up from the highest rate of the players that follow their view (hint
bots and the greedy player), a random player resolving about its ``c / m``; the agreement
that tells the two families apart is fitted on the same games (docs/fairplay.md has the
games and the rates, ``python -m bench fairplay``). The measure is the probability, under
that null, of resolving at least as many of the game's telling decisions the clairvoyant
way as the player did: a p-value (each decision an independent Bernoulli(q), their sum
Poisson-binomial, computed exactly). A small one says the player chose as only someone
seeing the hidden cards would; ``FAIR_PLAY_THRESHOLD`` (0.01 by default) flags it. Since
``q >= HONEST_RATE``, a game needs at least ``ceil(log(threshold) / log(HONEST_RATE))``
telling decisions (4 at 0.01), every one resolved the clairvoyant way, before it can be
flagged: a short game never is. Choosing the null from the game itself cannot be turned
against an honest player: the random null is the larger one, and a player held to the
smaller one chose like the hint.

What it catches (``python -m bench fairplay``, docs/fairplay.md): a player who plays the
deal's best line; not a partial cheater who knows only the stock or only the face-down
cards and plays for the win (their choices look like the hint's). A short game of the
best line (3 telling decisions or fewer) cannot be flagged alone: ``combined`` takes a
player's results together (``flags_player``). For the stock-only
cheater, ``stock_evidence`` below is a test of its own: too weak to flag one game, strong
enough over several results of one player (``summed``; the server flags by the sum over
a player's last results: app.challenges.fairplay, docs/fairplay.md).

Pure engine: it runs in the solver's processes, with no database and no clock but the
searches' budgets.
"""

from __future__ import annotations

import dataclasses
import math
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from app.engine.cards import Card
from app.engine.game import GameState, apply, legal_moves, new_game
from app.engine.hints import (
    DEFAULT_SAMPLE_NODES,
    _move_code,
    _race_samples,
    _Sight,
    _sight,
    first_best,
    hint,
)
from app.engine.layouts import Layout
from app.engine.moves import Concede, Move, Undo, parse_move
from app.engine.rules import Rules, Scoring
from app.engine.solver import SearchBudget, Start, solve_best, solve_clear
from app.engine.view import player_view

HONEST_RATE: Final = 0.3
VIEW_AGREEMENT: Final = 0.7
VIEW_DECISIONS: Final = 10
DEFAULT_THRESHOLD: Final = 0.01
DEFAULT_SAMPLES: Final = 64
DEFAULT_NODES: Final = 2_000_000  # a search of the best score after one move


@dataclass(frozen=True, slots=True)
class FairPlay:
    """The measure of one game: its decisions, the telling ones, how many of those the
    player resolved the clairvoyant way, ``expected`` of them under the honest null, and
    the p-value. ``complete`` is False when a search ran out of its budget (that
    decision is left out: the measure can only be weaker, never stronger)."""

    decisions: int
    telling: int
    resolved: int
    expected: float
    p_value: float
    complete: bool
    # The other decisions with a clairvoyant choice, and how many of them the player took
    # the hint's move at; whether that makes them a player who follows their view.
    others: int = 0
    agreed: int = 0
    follows_view: bool = False

    def flagged(self, threshold: float) -> bool:
        return self.p_value < threshold

    def to_dict(self) -> dict[str, Any]:
        return {
            "decisions": self.decisions,
            "telling": self.telling,
            "resolved": self.resolved,
            "expected": round(self.expected, 3),
            "p_value": self.p_value,
            "complete": self.complete,
            "others": self.others,
            "agreed": self.agreed,
            "follows_view": self.follows_view,
        }


def needed(threshold: float, honest_rate: float = HONEST_RATE) -> int:
    """The fewest telling decisions, all resolved the clairvoyant way, that can flag."""
    return max(1, math.ceil(math.log(threshold) / math.log(honest_rate)))


def tail(chances: Sequence[float], k: int) -> float:
    """P(at least ``k`` successes) of independent Bernoulli trials of these chances (the
    Poisson-binomial upper tail, by its exact distribution)."""
    dist = [1.0]
    for q in chances:
        nxt = [0.0] * (len(dist) + 1)
        for j, p in enumerate(dist):
            nxt[j] += p * (1 - q)
            nxt[j + 1] += p * q
        dist = nxt
    return min(1.0, max(0.0, sum(dist[k:])))


# -- a player's results: the game's measure combined (docs/fairplay.md) ------------------

# A result flagged by its player's results must lean the clairvoyant way itself: its own
# p-value at most PLAYER_LEAN (as unlikely as one telling decision resolved so by a player
# who follows their view, at least), so that a result which shows nothing is never flagged
# for the player's others. A short game of a player who plays the best line (3 or fewer
# telling decisions, which cannot be flagged alone) is then flagged with the player's
# earlier results (docs/fairplay.md).
PLAYER_LEAN: Final = HONEST_RATE
DEFAULT_RESULTS: Final = 10  # a player's last results, this one included (FAIR_PLAY_RESULTS)


def combined(p_values: Sequence[float]) -> float:
    """Fisher's combination of the p-values of several results of one player (on different
    deals, so independent): ``-2 sum(log p)`` is chi-squared with ``2k`` degrees of freedom
    when each ``p`` is uniform, and its upper tail has a closed form for even degrees,
    ``exp(-x) * sum(x**i / i!, i < k)`` with ``x = -sum(log p)``. Each game's p-value is
    conservative (never under a uniform's for honest play: ``q`` is an upper bound of
    honest play's rate), so the combination is too: honest players pass a threshold with at
    most its probability. 1 for none."""
    x = -sum(math.log(max(p, sys.float_info.min)) for p in p_values)
    if x <= 0:
        return 1.0
    log_x = math.log(x)
    tail_sum = sum(math.exp(i * log_x - x - math.lgamma(i + 1)) for i in range(len(p_values)))
    return min(1.0, tail_sum)


def flags_player(p_value: float, player_p: float, threshold: float) -> bool:
    """Whether a result is flagged by its player's results: it leans the clairvoyant way
    itself (``PLAYER_LEAN``) and their p-values ``combined`` (this one's included) pass
    ``threshold``."""
    return p_value <= PLAYER_LEAN and player_p < threshold


def _choices(state: GameState) -> list[Move]:
    return [m for m in legal_moves(state) if not isinstance(m, Undo | Concede)]


def _clairvoyant(
    state: GameState, moves: Sequence[Move], nodes: int, deadline: float | None
) -> set[str] | None:
    """The moves after which the best final score reachable is the position's best; None
    when a search ran out of budget (nodes, or the time left before ``deadline``)."""
    scores: dict[str, int] = {}
    for move in moves:
        left = None if deadline is None else max(0.0, deadline - time.perf_counter())
        best = solve_best(apply(state, move), SearchBudget(max_nodes=nodes, seconds=left)).score
        if best is None:
            return None
        scores[str(move)] = best
    lower = state.rules.scoring is Scoring.CARDS_LEFT
    top = min(scores.values()) if lower else max(scores.values())
    return {m for m, s in scores.items() if s == top}


def measure(
    deal: Sequence[Card],
    rules: Rules,
    moves: Sequence[Move | str],
    layout: Layout | None = None,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
    nodes: int = DEFAULT_NODES,
    honest_rate: float = HONEST_RATE,
    seconds: float | None = None,
) -> FairPlay:
    """The fair-play measure of the game ``moves`` played on ``deal`` (module doc). The
    hint at decision ``i`` is seeded ``seed * 1000 + i``: the measure of a game is the same
    on every run. Within ``seconds`` when given: the decisions not measured by then are
    left out (``complete`` False)."""
    deadline = None if seconds is None else time.perf_counter() + seconds
    state = new_game(deal, rules, layout)
    decisions = telling = resolved = others = agreed = 0
    shares: list[float] = []  # c / m of each telling decision
    complete = True
    for i, raw in enumerate(moves):
        move = parse_move(raw) if isinstance(raw, str) else raw
        choices = _choices(state)
        if len(choices) > 1 and not isinstance(move, Undo | Concede):
            decisions += 1
            best = _clairvoyant(state, choices, nodes, deadline)
            if best is None:
                complete = False
            elif len(best) < len(choices):
                suggested = hint(
                    player_view(state),
                    rules,
                    state.layout,
                    seed=seed * 1000 + i,
                    time_budget=None,
                    max_samples=samples,
                ).move
                if suggested not in best:
                    telling += 1
                    shares.append(len(best) / len(choices))
                    resolved += str(move) in best
                else:
                    others += 1
                    agreed += str(move) == suggested
        state = apply(state, move)
    follows = others >= VIEW_DECISIONS and agreed >= VIEW_AGREEMENT * others
    chances = [honest_rate if follows else max(share, honest_rate) for share in shares]
    return FairPlay(
        decisions,
        telling,
        resolved,
        sum(chances),
        tail(chances, resolved),
        complete,
        others,
        agreed,
        follows,
    )


# -- players to calibrate it on (bench/fairplay.py) -------------------------------------


class _Peeking:
    """The hint's sampling with some hidden cards known: ``stock`` (the stock's order,
    the face-down cards dealt at random) or ``face_down`` (the face-down cards, the stock
    dealt at random). A cheater's sight, for calibrating the measure only."""

    def __init__(self, sight: _Sight, state: GameState, knows: str) -> None:
        self.sight, self.state, self.knows = sight, state, knows
        self.layout, self.rules, self.exact = sight.layout, sight.rules, sight.exact

    def sample(self, rng: random.Random) -> Start:
        sight, state = self.sight, self.state
        hidden = [card for p in sight.hidden if (card := state.tableau[p]) is not None]
        known = list(state.stock) if self.knows == "stock" else hidden
        rest = Counter(sight.pool)
        rest.subtract(known)
        dealt = list(rest.elements())
        rng.shuffle(dealt)
        order = dealt + known if self.knows == "stock" else known + dealt
        return sight.start(order)


def _peeking_race(
    sight: _Sight, state: GameState, knows: str, samples: int, seed: int
) -> tuple[list[tuple[str, int]], list[list[bool]], list[int], int]:
    """Every move of ``sight`` (the view of ``state``) solved on ``samples`` samples that
    know the ``knows`` cards of ``state`` (``_Peeking``, the hint's race): the moves
    (text, code), which samples each won, the moves still in the race, and the number of
    samples."""
    lines = [(str(m), code) for m in sight.candidates if (code := _move_code(m)) is not None]
    won, alive, count, _ = _race_samples(
        _Peeking(sight, state, knows),  # type: ignore[arg-type]
        [(code,) for _, code in lines],
        seed,
        0.0,
        None,
        SearchBudget(max_nodes=DEFAULT_SAMPLE_NODES),
        samples,
    )
    return lines, won, alive, count


def peeking_move(state: GameState, knows: str, *, samples: int, seed: int) -> str:
    """The hint's move when it knows the ``knows`` cards (``stock`` or ``face_down``): a
    partial cheater's. For calibration only; nothing the server answers calls it."""
    sight = _sight(player_view(state), state.rules, state.layout)
    lines, won, alive, count = _peeking_race(sight, state, knows, samples, seed)
    return lines[first_best([sum(w) for w in won], alive, count, sight.exact)][0]


# -- the stock's evidence: a randomization test (docs/fairplay.md) ----------------------

# A player's results are flagged when ``summed`` over their last ``DEFAULT_RESULTS``
# (this one included) passes ``DEFAULT_STOCK_Z`` (the settings FAIR_PLAY_STOCK_Z and
# FAIR_PLAY_RESULTS): honest games come out near N(0, 1), the stock cheater's about one
# standard deviation above and tightly, so the threshold and the window are chosen where
# the sum over a player's results passes for nearly every stock cheater and next to no
# honest player (the figures: docs/fairplay.md, ``python -m bench fairplay --stock``).
DEFAULT_STOCK_Z: Final = 3.0
STOCK_ALTERNATIVES: Final = 16
STOCK_SAMPLES: Final = 24
WINNABLE_NODES: Final = 200_000  # as the daily's proof (app.challenges.deals)
ALTERNATIVE_TRIES: Final = 8  # draws a copy before a decision is left out


@dataclass(frozen=True, slots=True)
class StockEvidence:
    """How much better the player's moves were under the true stock than under stocks
    they could not tell from it: ``z`` in standard deviations (about N(0, 1) for any
    player who did not know the stock), over ``decisions`` decisions."""

    z: float
    decisions: int


def _hidden(state: GameState) -> list[int]:
    return [
        p for p, card in enumerate(state.tableau) if card is not None and not state.is_face_up(p)
    ]


def _alternatives(
    initial: GameState, state: GameState, rng: random.Random, count: int, winnable: bool
) -> list[GameState] | None:
    """``count`` copies of ``state`` with its hidden cards (face-down and stock) dealt
    again at random; when ``winnable``, only deals still proved winnable from their start
    (a daily's deal is: the true one was chosen so, and the alternatives must be alike).
    None when ``ALTERNATIVE_TRIES`` draws a copy did not find them: the decision is then
    left out (which depends on the view alone, not on the true hidden cards)."""
    hidden = _hidden(state)
    drawn = len(initial.stock) - len(state.stock)
    found: list[GameState] = []
    for _ in range(ALTERNATIVE_TRIES * count):
        pool = [c for p in hidden if (c := state.tableau[p]) is not None] + list(state.stock)
        rng.shuffle(pool)
        now, then = list(state.tableau), list(initial.tableau)
        for p, card in zip(hidden, pool, strict=False):
            now[p] = then[p] = card
        stock = tuple(pool[len(hidden) :])
        start = dataclasses.replace(
            initial, tableau=tuple(then), stock=initial.stock[:drawn] + stock, previous=None
        )
        if not winnable or solve_clear(start, SearchBudget(max_nodes=WINNABLE_NODES)).winnable:
            found.append(dataclasses.replace(state, tableau=tuple(now), stock=stock, previous=None))
            if len(found) == count:
                return found
    return None


def _regret(sight: _Sight, state: GameState, move: str, samples: int, seed: int) -> float:
    """How much less often ``move`` wins than the best move from ``state`` (seen as
    ``sight``), on samples that know its stock (the face-down cards dealt at random)."""
    lines, won, _, _ = _peeking_race(sight, state, "stock", samples, seed)
    shares = {text: sum(w) / len(w) for (text, _), w in zip(lines, won, strict=True)}
    return max(shares.values()) - shares.get(move, 0.0)


def stock_evidence(
    deal: Sequence[Card],
    rules: Rules,
    moves: Sequence[Move | str],
    layout: Layout | None = None,
    *,
    alternatives: int = STOCK_ALTERNATIVES,
    samples: int = STOCK_SAMPLES,
    seed: int = 0,
    winnable: bool = True,
    seconds: float | None = None,
) -> StockEvidence:
    """Whether the player's moves needed the stock's order: a randomization test.

    At each decision with two stock cards or more, the regret of the player's move (how
    much less often it wins than the best move, ``samples`` samples knowing the stock)
    under the true stock, against its regrets under ``alternatives`` stocks dealt from
    what the player saw (``_alternatives``). A player who did not know the stock chose
    without it, and the true stock is then one more of those the view allows: its
    regret is exchangeable with theirs, whatever the player's way of choosing (no
    honest model to fit). ``z`` sums, over the decisions, the alternatives' mean regret
    less the true one, over the square root of the summed variances.

    Honest players of every kind come out near N(0, 1), the stock-only cheater a little
    above: one game cannot tell them apart, several results of one player can (``summed``;
    the figures: docs/fairplay.md, ``python -m bench fairplay --stock``). Within ``seconds``
    when given: the decisions not weighed by then are left out (each term is valid alone,
    so the test stays valid, only weaker); so are those after a redeal (the stock is then
    the waste the player saw)."""
    deadline = None if seconds is None else time.perf_counter() + seconds
    initial = state = new_game(deal, rules, layout)
    rng = random.Random(seed)
    gap = variance = 0.0
    decisions = 0
    for i, raw in enumerate(moves):
        if state.redeals_left < rules.redeals:
            break  # a redeal turned the waste into the stock: its order is known
        if deadline is not None and time.perf_counter() >= deadline:
            break
        move = parse_move(raw) if isinstance(raw, str) else raw
        others = None
        if (
            len(_choices(state)) > 1
            and len(state.stock) > 1
            and not isinstance(move, Undo | Concede)
        ):
            others = _alternatives(initial, state, rng, alternatives, winnable)
        if others is not None:
            # The alternatives change hidden cards only: all are seen as ``state`` is.
            sight = _sight(player_view(state), rules, state.layout)
            true = _regret(sight, state, str(move), samples, seed * 1000 + i)
            regrets = [_regret(sight, o, str(move), samples, seed * 1000 + i) for o in others]
            mean = sum(regrets) / len(regrets)
            spread = sum((r - mean) ** 2 for r in regrets) / len(regrets)
            if spread > 0 or true != mean:
                decisions += 1
                gap += mean - true
                variance += spread
        state = apply(state, move)
    return StockEvidence(gap / math.sqrt(variance) if variance > 0 else 0.0, decisions)


def summed(zs: Sequence[float]) -> float:
    """Stouffer's sum of the ``z`` of several results (on different deals, so independent):
    about N(0, 1) again for a player who never knew the stock, and growing as the square
    root of their number for one who always did (0 for none)."""
    return sum(zs) / math.sqrt(len(zs)) if zs else 0.0
