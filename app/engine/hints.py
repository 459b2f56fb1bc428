"""Hints that never peek, and the analysis of a finished game.

``hint`` takes what the player sees, ``player_view(state)``, and nothing else of the
game: it cannot depend on a hidden card because it is never given one. The cards the
player cannot see (face-down tableau cards and the stock) are exactly the deck less the
visible tableau cards and the waste; the hint deals them at random, consistently with the
view, many times, solves each sample exactly, and suggests the move that wins in the most
samples (of moves about as good, one that turns a face-down card up), with the share of
samples it wins as the estimated chance of winning.

Choices:
- Under ``open_peaks`` the tableau is visible but the stock is still face down, so only
  the stock is sampled (solving the true stock would peek). When at most one card is
  hidden there is nothing to sample and the answer is exact.
- After a redeal the stock is made of former waste cards, whose order a player who
  watched the waste knows; the view does not carry it, so the hint samples it like any
  hidden card. That can only make the hint weaker, never leak.
- A sample whose search runs out of its node budget counts as not won for that move (a
  hard sample is most often a lost one), so the chance is a cautious estimate.
- The samples come from ``random.Random(seed)``; with a sample count instead of a time
  budget the hint is fully deterministic for a seed.
- The moves race (``_race``): every move is solved on the same samples, so two moves are
  compared on the samples where exactly one of them wins; a move clearly behind the leader
  there is no longer solved, and sampling stops when one move is left. The time goes to
  the moves that are close, and a clear choice is answered early.
- Moves whose win counts are within ``TIE_SHARE`` of the samples (2%: one sample in 64)
  of the best one's count as equal, and the first of them in this order is suggested: a
  play that turns a face-down card up, then any play, then a draw, the card holding up
  the most cards first. The moves that lose a winnable game are most often ones the
  samples could not tell from a winning move, and a sample, solved with every card known,
  gives knowing a card no value: among moves the samples cannot tell apart, the one that
  shows the player more is the better bet. The margin and the order were chosen by the
  hint bot's games (docs/research/hints.md, "Near ties", with the orders and margins tried).
- Other ways of ranking the moves were tried and dropped (docs/research/hints.md, "Near ties"):
  the slack of the wins, a greedy player's wins after the move; neither picked better
  moves than the win count.

``analysis`` looks back at a finished game with the whole deal known: whether the deal
could be cleared, its best score, and, when the player lost a winnable deal, the move
after which a win was no longer possible.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from app.engine.calibration import KNOTS, Knots, calibrated, family, interval, wilson
from app.engine.cards import Card, parse_card
from app.engine.deals import ordered_deck
from app.engine.errors import TriPeaksError
from app.engine.game import GameState, GameStatus, apply, new_game
from app.engine.layouts import Layout, get_layout
from app.engine.moves import Move, Play, parse_move
from app.engine.rules import Rules, Scoring
from app.engine.solver import (
    DRAW_CODE,
    NO_TOP,
    REDEAL_CODE,
    BestAnswer,
    BudgetExhausted,
    ClearAnswer,
    SearchBudget,
    Start,
    clear_search,
    rank_fits,
    solve_best,
    solve_clear,
    start_of,
)

DEFAULT_HINT_SECONDS = 0.25
DEFAULT_SAMPLE_NODES = 20_000
RACE_EVERY: Final = 4  # samples between two looks at the race
RACE_Z: Final = 2.5  # how many standard deviations a lead must pass to drop a move
RACE_MIN: Final = 4  # and how many samples
# Moves whose win counts are within this share of the samples of the best one's are taken
# as equal, and the preferred one (a play that turns a card up) is suggested (module
# docstring).
TIE_SHARE: Final = 0.02


@dataclass(frozen=True, slots=True)
class Hint:
    """``move`` is None only when the game is over. ``sample_share`` is the share of the
    samples the move wins with every card known; ``win_chance`` what a player following
    the hints wins from such a position (``app.engine.calibration``; the share itself for
    ``sampled_hint``, and exact when ``exact``), ``ci95`` its 95% interval. ``wins``
    counts the winning samples of every move considered (a move dropped from the race
    was solved on fewer samples)."""

    move: str | None
    win_chance: float
    samples: int
    exact: bool
    wins: dict[str, int] = field(default_factory=dict)
    unknown: int = 0  # searches (of a sample or a move in it) out of budget: not won
    sample_share: float = 0.0
    ci95: tuple[float, float] = (0.0, 1.0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "move": self.move,
            "win_chance": round(self.win_chance, 4),
            "win_chance_ci95": [round(x, 4) for x in self.ci95],
            "sample_share": round(self.sample_share, 4),
            "samples": self.samples,
            "exact": self.exact,
            "wins": dict(self.wins),
            "unknown": self.unknown,
        }


def _answer(
    move: str, wins: dict[str, int], samples: int, exact: bool, unknown: int, knots: Knots | None
) -> Hint:
    """The hint for ``move``, its chance calibrated on ``knots`` (None: the share)."""
    share = wins[move] / samples
    if exact:
        return Hint(move, share, samples, True, wins, unknown, share, (share, share))
    if knots is None:
        return Hint(move, share, samples, False, wins, unknown, share, wilson(wins[move], samples))
    return Hint(
        move,
        calibrated(share, knots),
        samples,
        False,
        wins,
        unknown,
        share,
        interval(wins[move], samples, knots),
    )


class HintError(TriPeaksError):
    """The view cannot be read as a TriPeaks position."""


def _after(start: Start, code: int, ranks: tuple[int, ...]) -> Start:
    """The compact position after a move (the search's own terms)."""
    under = (*start.waste, start.top) if start.top != NO_TOP else start.waste
    if code == DRAW_CODE:
        return Start(
            ranks,
            start.mask,
            start.stock[0],
            under,
            start.stock[1:],
            start.redeals_left,
            0,
            start.total,
        )
    if code == REDEAL_CODE:
        return Start(
            ranks,
            start.mask,
            start.top,
            (),
            start.waste,
            start.redeals_left - 1,
            start.streak,
            start.total,
        )
    return Start(
        ranks,
        start.mask | 1 << code,
        ranks[code],
        under,
        start.stock,
        start.redeals_left,
        start.streak + 1,
        start.total,
    )


def _move_code(move: Move) -> int | None:
    if isinstance(move, Play):
        return move.position
    return {"draw": DRAW_CODE, "redeal": REDEAL_CODE}.get(str(move))


@dataclass(frozen=True, slots=True)
class _Sight:
    """The view as the hints read it: what is known, what is hidden, and how to deal the
    hidden cards at random consistently with it."""

    layout: Layout
    rules: Rules
    candidates: tuple[Move, ...]  # in the order of preference (``_preference``)
    visible: Mapping[int, Card]
    hidden: tuple[int, ...]
    mask: int
    pool: tuple[Card, ...]  # the cards not seen: the hidden tableau cards and the stock
    waste: tuple[int, ...]  # ranks, bottom first
    redeals_left: int
    streak: int
    total: int
    hidden_set: frozenset[int]  # ``hidden``, for ``reveals``

    @property
    def exact(self) -> bool:
        return len(self.pool) <= 1

    def sample(self, rng: random.Random) -> Start:
        """A deal of the hidden cards at random, as the search's start."""
        order = list(self.pool)
        rng.shuffle(order)
        return self.start(order)

    def start(self, order: Sequence[Card]) -> Start:
        """The search's start with the unseen cards dealt in ``order``: the face-down
        positions first (in ``hidden``'s order), then the stock, top first."""
        ranks = [0] * self.layout.size
        for p, card in self.visible.items():
            ranks[p] = card.rank
        for p, card in zip(self.hidden, order, strict=False):
            ranks[p] = card.rank
        w = self.waste
        return Start(
            tuple(ranks),
            self.mask,
            w[-1] if w else NO_TOP,
            w[:-1],
            tuple(c.rank for c in order[len(self.hidden) :]),
            self.redeals_left,
            self.streak,
            self.total,
        )

    def reveals(self, mask: int, p: int) -> bool:
        """Whether playing ``p`` from ``mask`` turns a face-down card up."""
        lay = self.layout
        after = mask | 1 << p
        return any(
            q in self.hidden_set and all(after >> c & 1 for c in lay.positions[q].covered_by)
            for q in lay.covers[p]
        )


def _sight(view: Mapping[str, Any], rules: Rules, lay: Layout) -> _Sight:
    candidates = [
        m for m in (parse_move(t) for t in view["legal_moves"]) if _move_code(m) is not None
    ]
    if not candidates:
        raise HintError("the view has no move to suggest")
    tableau = view["tableau"]
    if len(tableau) != lay.size:
        raise HintError(f"the view has {len(tableau)} positions, the layout {lay.size}")
    visible: dict[int, Card] = {}
    hidden: list[int] = []
    mask = 0
    for entry in tableau:
        p = int(entry["position"])
        if entry["removed"]:
            mask |= 1 << p
        elif entry["card"] is not None:
            visible[p] = parse_card(entry["card"])
        else:
            hidden.append(p)
    waste = [parse_card(c) for c in view["waste"]]
    unknown = Counter(ordered_deck(lay.decks, rules.jokers))
    unknown.subtract(visible.values())
    unknown.subtract(waste)
    if any(n < 0 for n in unknown.values()):
        raise HintError("the view shows a card more often than the deck holds it")
    pool = sorted(unknown.elements(), key=lambda c: (c.rank, c.suit))
    stock_count = int(view["stock_count"])
    if len(pool) != len(hidden) + stock_count:
        raise HintError(
            f"{len(pool)} cards are unseen but the view hides {len(hidden)} tableau cards "
            f"and {stock_count} stock cards"
        )
    score = view["score"]
    sight = _Sight(
        lay,
        rules,
        (),
        visible,
        tuple(hidden),
        mask,
        tuple(pool),
        tuple(c.rank for c in waste),
        int(view["redeals_left"]),
        int(score["current_streak"]),
        int(score["total"]),
        frozenset(hidden),
    )
    # The order of preference among moves the samples cannot tell apart (``TIE_SHARE``):
    # first a play that turns a face-down card up, then any play, then a draw; the card
    # holding up the most cards first.
    candidates.sort(
        key=lambda m: (
            (
                0,
                not sight.reveals(mask, m.position),
                -len(lay.covers[m.position]),
                lay.positions[m.position].row,
            )
            if isinstance(m, Play)
            else (1, False, 0, 0)
        )
    )
    return replace(sight, candidates=tuple(candidates))


def _time_left(began: float, time_budget: float | None, budget: SearchBudget) -> SearchBudget:
    """``budget``, cut to what is left of the hint's time: no search runs past it."""
    if time_budget is None:
        return budget
    left = max(0.0, time_budget - (time.perf_counter() - began))
    if budget.seconds is None or budget.seconds > left:
        return SearchBudget(budget.max_nodes, left)
    return budget


def _race_samples(
    sight: _Sight,
    lines: Sequence[tuple[int, ...]],
    seed: int,
    began: float,
    time_budget: float | None,
    sample_budget: SearchBudget,
    max_samples: int | None,
) -> tuple[list[list[bool]], list[int], int, int]:
    """Deal samples and solve, in each, the position after each of ``lines`` (moves in
    the search's codes) that is still in the race (``_race``), until ``max_samples`` or
    ``time_budget``. The answer: ``won[i][k]``, whether line i wins sample k (a line
    dropped from the race has a shorter list: it is no longer searched), the lines still
    in the race, the number of samples and of searches out of budget (not won)."""
    rng = random.Random(seed)
    lay, rules = sight.layout, sight.rules
    won: list[list[bool]] = [[] for _ in lines]
    alive = list(range(len(lines)))
    samples = 0
    unknown = 0
    while True:
        root = sight.sample(rng)
        search = clear_search(lay, rules, root, _time_left(began, time_budget, sample_budget))
        try:
            # The whole position first: when it is lost in this sample every line is,
            # and when it is won the search's first move is a winner, and what the
            # search learnt serves the other lines.
            root_won = search.wins(root)
        except BudgetExhausted:
            unknown += 1
            root_won = False
        winner = (search.line[0],) if root_won else None
        for i in alive:
            ok = False
            if root_won:
                start = root
                for code in lines[i]:
                    start = _after(start, code, root.ranks)
                search.nodes = 0  # each line gets the whole budget
                try:
                    ok = lines[i] == winner or search.wins(start)
                except BudgetExhausted:
                    unknown += 1
            won[i].append(ok)
        samples += 1
        if len(alive) > 1 and samples % RACE_EVERY == 0:
            alive = _race(alive, won)
        if sight.exact or len(alive) == 1:
            break
        if max_samples is not None and samples >= max_samples:
            break
        if time_budget is not None and time.perf_counter() - began >= time_budget:
            break
        if max_samples is None and time_budget is None:
            break
    return won, alive, samples, unknown


def sampled_hint(
    view: Mapping[str, Any],
    rules: Rules | None = None,
    layout: Layout | None = None,
    *,
    seed: int = 0,
    time_budget: float | None = DEFAULT_HINT_SECONDS,
    max_samples: int | None = None,
    sample_budget: SearchBudget | None = None,
    knots: Knots | None = None,
) -> Hint:
    """The hint up to 2026-12 (the bots' ``pimc``): every legal move solved on the same
    samples with every card known, the move that wins the most suggested.

    Sampling stops at ``max_samples`` samples or when ``time_budget`` seconds have
    passed, whichever comes first (at least one sample is always tried, and no search
    runs past the time budget). Each search (a sample's position, then each move in it)
    has ``sample_budget`` (default 20,000 nodes). For a result that depends only on the
    view and the seed, give ``max_samples`` and ``time_budget=None``.
    """
    began = time.perf_counter()
    rules = rules if rules is not None else Rules.from_dict(view["rules"])
    lay = layout if layout is not None else get_layout(rules.layout)
    if view.get("status", "in_progress") != "in_progress":
        return Hint(None, 0.0, 0, True)
    sample_budget = sample_budget or SearchBudget(max_nodes=DEFAULT_SAMPLE_NODES)
    sight = _sight(view, rules, lay)
    exact = sight.exact
    codes = [(str(m), code) for m in sight.candidates if (code := _move_code(m)) is not None]
    won, alive, samples, unknown_count = _race_samples(
        sight, [(code,) for _, code in codes], seed, began, time_budget, sample_budget, max_samples
    )
    counts = [sum(w) for w in won]
    wins = {text: counts[i] for i, (text, _) in enumerate(codes)}
    best = first_best(counts, alive, samples, exact)
    best_text = codes[best][0]
    # A play that takes the last card wins whatever is hidden: no chance to calibrate.
    clears = codes[best][1] >= 0 and sight.mask | 1 << codes[best][1] == (1 << lay.size) - 1
    return _answer(best_text, wins, samples, exact or clears, unknown_count, knots)


# The ends of the plans (``planned_hint``): what happens after the plays, and the key
# that tells two ends apart (two orders of the same plays end in the same position).
_DRAWN: Final = 0  # then a draw (or a redeal): the next card is news
_TURNED: Final = 1  # the last play turned a face-down card up
_CLEARED: Final = 2  # the tableau is cleared
_STUCK: Final = 3  # no move is left


def _plans(sight: _Sight, top: int, after: Sequence[int]) -> list[tuple[tuple[int, ...], set[int]]]:
    """Every plan from the view: plays the player can choose with what they see now (on
    face-up cards, none of them turning a card up but the last), each ended by the first
    thing that brings news (a draw or redeal, in ``after``, or a card turned up), or by
    the end of the game. Two plans reaching the same position are one end; the answer
    is each end's moves and the first moves that reach it."""
    lay, rules = sight.layout, sight.rules
    rank = {p: c.rank for p, c in sight.visible.items()}
    full = (1 << lay.size) - 1
    ends: dict[tuple[int, int, int], tuple[tuple[int, ...], set[int]]] = {}

    def end(key: tuple[int, int, int], path: tuple[int, ...]) -> None:
        if key in ends:
            ends[key][1].add(path[0])
        else:
            ends[key] = (path, {path[0]})

    # A position is walked once for each first move that reaches it (each must be credited
    # with every end after it).
    seen: set[tuple[int, int, int]] = set()
    stack: list[tuple[int, int, tuple[int, ...]]] = [(sight.mask, top, ())]
    while stack:
        mask, tp, path = stack.pop()
        if mask == full:
            end((_CLEARED, mask, 0), path)
            continue
        plays = [
            p
            for p, r in rank.items()
            if not mask >> p & 1
            and all(mask >> c & 1 for c in lay.positions[p].covered_by)
            and rank_fits(r, tp, rules)
        ]
        for code in after:
            end((_DRAWN, mask, code), (*path, code))
        if not plays and not after and path:
            end((_STUCK, mask, tp), path)
        for p in plays:
            m2 = mask | 1 << p
            if sight.reveals(mask, p):
                end((_TURNED, m2, rank[p]), (*path, p))
            elif (m2, rank[p], path[0] if path else p) not in seen:
                seen.add((m2, rank[p], path[0] if path else p))
                stack.append((m2, rank[p], (*path, p)))
    return list(ends.values())


def planned_hint(
    view: Mapping[str, Any],
    rules: Rules | None = None,
    layout: Layout | None = None,
    *,
    seed: int = 0,
    time_budget: float | None = DEFAULT_HINT_SECONDS,
    max_samples: int | None = None,
    sample_budget: SearchBudget | None = None,
) -> Hint:
    """Plans solved on samples: the move that starts the plan winning the most samples.

    ``sampled_hint`` credits a move with every sample that some line after it wins, each
    sample's line chosen knowing that sample's cards: after the move it may play on in
    one sample and draw in another, though the player, who sees no more after the move
    than before it, could not have told the two apart ("strategy fusion"). Here the
    player's choices up to the next news (a card drawn or turned up) are one plan chosen
    for all samples: each plan is solved on the same samples and the moves are ranked by
    their best plan. Only after the news does the search know the cards.
    Arguments as ``sampled_hint``.
    """
    began = time.perf_counter()
    rules = rules if rules is not None else Rules.from_dict(view["rules"])
    lay = layout if layout is not None else get_layout(rules.layout)
    if view.get("status", "in_progress") != "in_progress":
        return Hint(None, 0.0, 0, True)
    sample_budget = sample_budget or SearchBudget(max_nodes=DEFAULT_SAMPLE_NODES)
    sight = _sight(view, rules, lay)
    codes = {code: str(m) for m in sight.candidates if (code := _move_code(m)) is not None}
    after = [c for c in codes if c < 0]  # a draw, a redeal
    w = sight.waste
    plans = _plans(sight, w[-1] if w else NO_TOP, after)
    exact = sight.exact
    won, alive, samples, unknown_count = _race_samples(
        sight, [path for path, _ in plans], seed, began, time_budget, sample_budget, max_samples
    )
    # A move's wins: its best plan's.
    wins = dict.fromkeys(codes.values(), 0)
    for i in alive:
        for code in plans[i][1]:
            wins[codes[code]] = max(wins[codes[code]], sum(won[i]))
    most = max(wins.values())
    margin = 0 if exact else int(TIE_SHARE * samples)
    best_text = next(t for t in codes.values() if wins[t] >= most - margin)  # the first preferred
    return _answer(best_text, wins, samples, exact, unknown_count, None)


def hint(
    view: Mapping[str, Any],
    rules: Rules | None = None,
    layout: Layout | None = None,
    *,
    seed: int = 0,
    time_budget: float | None = DEFAULT_HINT_SECONDS,
    max_samples: int | None = None,
    sample_budget: SearchBudget | None = None,
) -> Hint:
    """The server's hint: ``sampled_hint``'s move (each search in C where it is built),
    its chance calibrated for the game's rules (``app.engine.calibration``). What was
    tried to choose better moves, and did not, is in docs/research/hints.md."""
    rules = rules if rules is not None else Rules.from_dict(view["rules"])
    lay = layout if layout is not None else get_layout(rules.layout)
    return sampled_hint(
        view,
        rules,
        lay,
        seed=seed,
        time_budget=time_budget,
        max_samples=max_samples,
        sample_budget=sample_budget,
        knots=KNOTS[family(rules, lay)],
    )


def first_best(counts: Sequence[int], alive: Sequence[int], samples: int, exact: bool) -> int:
    """Of the moves still in the race (indexes in the order of preference), the first whose
    win count is within ``TIE_SHARE`` of the samples of the most (exactly the most when
    nothing is hidden)."""
    most = max(counts[i] for i in alive)
    margin = 0 if exact else int(TIE_SHARE * samples)
    return min(i for i in alive if counts[i] >= most - margin)


def _race(alive: list[int], won: list[list[bool]]) -> list[int]:
    """The moves still in the race: a move drops out when the leader (the most wins, the
    first of equals) beats it clearly on the samples where exactly one of the two wins.

    Both moves are solved on the same samples, so the comparison is paired: on a sample
    that both win or both lose they are equal. With ``d`` samples where they differ, an
    equally good move would win about half of them; the leader's lead must pass
    ``RACE_Z`` standard deviations (sqrt(d)) and ``RACE_MIN`` samples.
    """
    leader = max(alive, key=lambda i: sum(won[i]))
    lead = won[leader]
    keep = []
    for i in alive:
        if i != leader:
            a = b = 0
            for x, y in zip(lead, won[i], strict=True):
                if x != y:
                    a += x
                    b += y
            if a - b >= RACE_MIN and (a - b) ** 2 >= RACE_Z * RACE_Z * (a + b):
                continue
        keep.append(i)
    return keep


@dataclass(frozen=True, slots=True)
class Analysis:
    """A finished game looked back on with the whole deal known.

    ``lost_at`` is the index (from 0) in the move list of the move after which the
    game could no longer be won, and ``lost_move`` that move; both None when the deal
    was not winnable, the game was won, or a search ran out of budget (``complete``
    False). ``best_score`` is exact when ``best_score_exact``; otherwise it is the best
    line found when the search could not finish (``solve_best``'s anytime answer),
    and ``best_score_bound`` a sound bound on it (the score itself when exact)."""

    winnable: bool | None
    win_line: tuple[str, ...]
    best_score: int | None
    best_line: tuple[str, ...]
    best_score_bound: int | None
    best_score_exact: bool
    final_score: int
    outcome: str
    lost_at: int | None
    lost_move: str | None
    complete: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "winnable": self.winnable,
            "win_line": list(self.win_line),
            "best_score": self.best_score,
            "best_line": list(self.best_line),
            "best_score_bound": self.best_score_bound,
            "best_score_exact": self.best_score_exact,
            "final_score": self.final_score,
            "outcome": self.outcome,
            "lost_at": self.lost_at,
            "lost_move": self.lost_move,
            "complete": self.complete,
        }


def analysis(
    deal: Sequence[Card],
    rules: Rules,
    moves: Sequence[Move | str],
    layout: Layout | None = None,
    *,
    budget: SearchBudget | None = None,
    best: bool = True,
) -> Analysis:
    """Whether the deal could be cleared, its best score, and where a winnable game was
    lost. With undo in the move list the answer is the last move that turned a winnable
    position into a lost one (a position won back by an undo was not lost yet).

    ``budget`` bounds the whole analysis, its seconds shared by every search in it: the
    clearing answer first, then where a win was lost, then the best score with the time
    that is left (the costliest search, and the one a player misses least: on six_peaks
    the search rarely finishes at all, while the rest takes milliseconds, so the
    best score is then the anytime answer: the best line found and a bound)."""
    budget = budget or SearchBudget()
    began = time.perf_counter()

    def left() -> SearchBudget:
        if budget.seconds is None:
            return budget
        spent = time.perf_counter() - began
        return SearchBudget(max_nodes=budget.max_nodes, seconds=max(0.0, budget.seconds - spent))

    first = new_game(deal, rules, layout)
    states: list[GameState] = [first]
    for move in moves:
        states.append(apply(states[-1], move))
    texts = [str(parse_move(m) if isinstance(m, str) else m) for m in moves]
    clear: ClearAnswer = solve_clear(first, left())
    final = states[-1]
    lost_at: int | None = None
    complete = clear.winnable is not None
    if clear.winnable and final.outcome is not GameStatus.WON:
        start = start_of(first)
        search = clear_search(first.layout, rules, start, left())
        known: dict[int, bool | None] = {0: True}

        def winnable(i: int) -> bool | None:
            if i not in known:
                s = states[i]
                if s.outcome is GameStatus.WON:
                    known[i] = True
                elif s.is_over:
                    known[i] = False
                else:
                    try:
                        search.nodes = 0
                        known[i] = search.wins(start_of(s))
                    except BudgetExhausted:
                        known[i] = None
            return known[i]

        last = len(states) - 1
        if "undo" not in texts:
            # Without undo every later position is reachable from an earlier one, so
            # winnable positions come first: the last winnable one by bisection.
            lo, hi = 0, last  # winnable(lo) True, winnable(hi) False (the game was not won)
            known[last] = winnable(last)
            while complete and hi - lo > 1:
                mid = (lo + hi) // 2
                w = winnable(mid)
                if w is None:
                    complete = False
                elif w:
                    lo = mid
                else:
                    hi = mid
            if complete and known[last] is False:
                lost_at = lo
        else:
            for i in range(last, 0, -1):
                w_before, w_after = winnable(i - 1), winnable(i)
                if w_before is None or w_after is None:
                    complete = False
                    break
                if w_before and not w_after:
                    lost_at = i - 1
                    break
    best_answer: BestAnswer | None = solve_best(first, left(), anytime=True) if best else None
    best_score, best_line = (
        (best_answer.score, best_answer.line) if best_answer is not None else (None, ())
    )
    if best_answer is not None and not best_answer.exact and "undo" not in texts:
        # The game itself is a line: when it scored more than every line found, it is the
        # best line known.
        mine = final.score.total
        lower = rules.scoring is Scoring.CARDS_LEFT
        if best_score is None or (mine < best_score if lower else mine > best_score):
            best_score, best_line = mine, tuple(texts)
    return Analysis(
        winnable=clear.winnable,
        win_line=clear.line,
        best_score=best_score,
        best_line=best_line,
        best_score_bound=best_answer.bound if best_answer is not None else None,
        best_score_exact=best_answer is not None and best_answer.exact,
        final_score=final.score.total,
        outcome=final.outcome.value,
        lost_at=lost_at,
        lost_move=texts[lost_at] if lost_at is not None else None,
        complete=complete and (best_answer is None or best_answer.exact),
    )
