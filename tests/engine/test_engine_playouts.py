"""Random playouts through the public functions, with invariants checked after every step.

Over every registered layout and a data-only one, with sampled rule options: every card
of the deal is somewhere exactly once, every legal move is accepted and random illegal
ones are refused without touching the state, the end is detected the moment it happens,
replaying the move strings rebuilds the same state, and the player's view never holds
the identity of a face-down tableau card or of a stock card.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine import (
    CONCEDE,
    DRAW,
    LAYOUTS,
    MAX_DEAL_NUMBER,
    REDEAL,
    UNDO,
    Card,
    Concede,
    Draw,
    GameOverError,
    GameState,
    GameStatus,
    IllegalMoveError,
    Layout,
    Move,
    Play,
    Redeal,
    Rules,
    Scoring,
    Undo,
    apply,
    legal_moves,
    line_after,
    line_of,
    new_game,
    numbered_deal,
    playable_positions,
    player_view,
    replay,
    restore,
)

pytestmark = pytest.mark.slow

# A layout that exists only as data: two peaks of three over a row of four.
TWIN_PEAKS = Layout.from_dict(
    {
        "name": "twin_peaks",
        "positions": [
            {"index": 0, "row": 0, "x": 1, "covered_by": [2, 3], "face_up": False, "peak": True},
            {"index": 1, "row": 0, "x": 5, "covered_by": [4, 5], "face_up": False, "peak": True},
            {"index": 2, "row": 1, "x": 0, "covered_by": [6, 7], "face_up": False},
            {"index": 3, "row": 1, "x": 2, "covered_by": [7, 8], "face_up": False},
            {"index": 4, "row": 1, "x": 4, "covered_by": [8, 9], "face_up": False},
            {"index": 5, "row": 1, "x": 6, "covered_by": [9], "face_up": False},
            *({"index": 6 + i, "row": 2, "x": 2 * i, "face_up": True} for i in range(4)),
        ],
    }
)
ALL_LAYOUTS = [*LAYOUTS.values(), TWIN_PEAKS]
MAX_STEPS = 400
VIEW_KEYS = {
    "layout",
    "rules",
    "status",
    "tableau",
    "waste",
    "waste_top",
    "stock_count",
    "redeals_left",
    "cards_left",
    "moves_made",
    "score",
    "legal_moves",
}


@st.composite
def rule_sets(draw: st.DrawFn, layout: Layout) -> Rules:
    wrap = draw(st.booleans())
    scoring = draw(st.sampled_from(list(Scoring)))
    options: dict[str, Any] = {
        "wrap": wrap,
        "king_stops": not wrap and draw(st.booleans()),
        "open_peaks": draw(st.booleans()),
        "free_start": draw(st.booleans()),
        "jokers": draw(st.integers(0, 2)),
        "redeals": draw(st.integers(0, 2)),
        "undo": draw(st.booleans()),
        "scoring": scoring,
    }
    if scoring is Scoring.CLASSIC:
        options["draw_penalty"] = draw(st.integers(0, 20))
        options["deal_cost"] = draw(st.sampled_from([0, 52]))
    return Rules.for_layout(layout, **options)


def _can_redeal(state: GameState) -> bool:
    return not state.stock and state.redeals_left > 0 and len(state.waste) > 1


def check_state(state: GameState, deal: tuple[Card, ...], moves: list[str]) -> None:
    t = state.tableau
    # Every card of the deal is somewhere, exactly once (as a multiset).
    everywhere = [c for c in t if c is not None] + list(state.stock) + list(state.waste)
    assert Counter(everywhere) == Counter(deal)
    assert state.moves_made == len(moves)
    left = sum(c is not None for c in t)
    assert state.cards_left == state.score.cards_left == left
    if state.rules.scoring is Scoring.CARDS_LEFT:
        assert state.score.total == left
    else:
        s = state.score
        assert s.total == s.streak_points + s.bonus_points - s.draw_penalties - s.deal_cost
    assert 0 <= state.redeals_left <= state.rules.redeals
    # The end is detected at once.
    legal = legal_moves(state)
    playable = playable_positions(state)
    assert (state.outcome is GameStatus.WON) == (left == 0)
    if state.outcome is GameStatus.LOST:
        assert not playable and not state.stock and not _can_redeal(state)
    if state.outcome is GameStatus.CONCEDED:
        assert moves[-1] == "concede"
    if state.outcome is GameStatus.IN_PROGRESS:
        assert playable or state.stock or _can_redeal(state)
        assert CONCEDE in legal
        assert [m for m in legal if isinstance(m, Play)] == [Play(p) for p in playable]
        assert (DRAW in legal) == bool(state.stock)
        assert (REDEAL in legal) == _can_redeal(state)
        assert (UNDO in legal) == (state.rules.undo and state.previous is not None)
    else:
        assert legal == []
    check_view(state)


def check_view(state: GameState) -> None:
    view = player_view(state)
    assert set(view) == VIEW_KEYS
    assert view["stock_count"] == len(state.stock)
    assert view["status"] == state.outcome.value
    assert view["legal_moves"] == [str(m) for m in legal_moves(state)]
    hidden: list[Card] = list(state.stock)
    visible: list[Card] = list(state.waste)
    for entry, card in zip(view["tableau"], state.tableau, strict=True):
        p = entry["position"]
        assert entry["removed"] == (card is None)
        if card is None:
            assert entry["card"] is None and not entry["face_up"]
        elif state.is_face_up(p):
            assert entry["face_up"] and entry["card"] == card.code
            visible.append(card)
        else:
            # Structurally: face down means no identity at all.
            assert not entry["face_up"] and entry["card"] is None
            hidden.append(card)
    # Textually: a hidden card's code appears nowhere, unless another copy is in sight.
    text = json.dumps(view)
    for code in {c.code for c in hidden} - {c.code for c in visible}:
        assert f'"{code}"' not in text, f"{code} leaks into the view"


def illegal_candidates(state: GameState, rng: random.Random) -> list[Move]:
    size = state.layout.size
    playable = set(playable_positions(state))
    out: list[Move] = [Play(p) for p in range(size) if p not in playable]
    out += [Play(size), Play(size + rng.randrange(1, 100))]
    if not state.stock:
        out.append(DRAW)
    if not _can_redeal(state):
        out.append(REDEAL)
    if not (state.rules.undo and state.previous is not None):
        out.append(UNDO)
    return out


def check_moves(state: GameState, rng: random.Random) -> None:
    before = dataclasses.replace(state)
    legal_before = legal_moves(state)
    for move in legal_before:  # every legal move is accepted
        after = apply(state, move)
        assert after.moves_made == state.moves_made + 1
    candidates = illegal_candidates(state, rng)
    for move in rng.sample(candidates, min(6, len(candidates))):
        with pytest.raises(IllegalMoveError):
            apply(state, move)
        with pytest.raises(IllegalMoveError):
            apply(state, str(move))
    assert state == before
    assert state.previous is before.previous
    assert legal_moves(state) == legal_before


def choose(legal: list[Move], rng: random.Random) -> Move:
    plays = [m for m in legal if isinstance(m, Play)]
    by_kind: dict[type, list[Move]] = {}
    for m in legal:
        by_kind.setdefault(type(m), []).append(m)
    roll = rng.random()
    if Undo in by_kind and roll < 0.08:
        return UNDO
    if roll > 0.998:
        return CONCEDE
    if plays and (rng.random() < 0.85 or not ({Draw, Redeal} & set(by_kind))):
        return rng.choice(plays)
    for kind in (Draw, Redeal):
        if kind in by_kind:
            return by_kind[kind][0]
    assert set(by_kind) <= {Undo, Concede}
    return CONCEDE  # pragma: no cover - an in-progress game always has a play or a draw


def playout(layout: Layout, rules: Rules, number: int, seed: int) -> GameState:
    rng = random.Random(seed)
    deal = numbered_deal(number, layout.decks, rules.jokers)
    state = new_game(deal, rules, layout)
    moves: list[str] = []
    line: tuple[str, ...] = ()
    check_state(state, deal, moves)
    for _ in range(MAX_STEPS):
        if state.is_over:
            break
        check_moves(state, rng)
        move = choose(legal_moves(state), rng)
        state = apply(state, move)
        moves.append(str(move))
        line = line_after(line, move)
        check_state(state, deal, moves)
        if rng.random() < 0.2 or state.is_over:
            # Replaying the stored form rebuilds the same state, and so does restoring
            # it from its line (the log without what was undone) and its version.
            rebuilt = replay(deal, rules, moves, layout)
            assert rebuilt == state
            assert player_view(rebuilt) == player_view(state)
            assert line == line_of(moves)
            restored = restore(deal, rules, line, len(moves), layout)
            assert restored == state
            assert legal_moves(restored) == legal_moves(state)
            assert player_view(restored) == player_view(state)
    else:
        state = apply(state, CONCEDE)
        moves.append("concede")
        check_state(state, deal, moves)
    assert state.is_over
    for move in (DRAW, CONCEDE, UNDO, REDEAL, Play(0)):
        with pytest.raises(GameOverError):
            apply(state, move)
    assert replay(deal, rules, moves, layout) == state
    return state


@pytest.mark.parametrize("layout", ALL_LAYOUTS, ids=lambda lay: lay.name)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_playouts_keep_every_invariant(layout: Layout, data: st.DataObject) -> None:
    rules = data.draw(rule_sets(layout), label="rules")
    number = data.draw(st.integers(0, MAX_DEAL_NUMBER), label="deal")
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    playout(layout, rules, number, seed)


def test_playouts_reach_every_outcome() -> None:
    """The invariants above are not checked on trivial games only."""
    outcomes: Counter[GameStatus] = Counter()
    for number in range(40):
        rules = Rules(undo=number % 2 == 0, redeals=number % 3)
        outcomes[playout(LAYOUTS["tripeaks"], rules, number, number).outcome] += 1
    assert outcomes[GameStatus.WON] > 0
    assert outcomes[GameStatus.LOST] > 0
    assert sum(outcomes.values()) == 40
