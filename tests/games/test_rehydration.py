"""Rehydration remembered: a state is a pure function of its row's layout, rules, deal,
line and version, so each process keeps the states it computed or was handed by a move
(``app.games.service.REHYDRATED``). A game played from remembered states answers exactly
as one replayed from its row on every request, undo, redeals and the end included."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from fastapi.testclient import TestClient

from app import engine
from app.games.models import Game
from app.games.repository import GameRepository
from app.games.service import REHYDRATED, RehydratedStates, state_key
from tests.conftest import portal_of
from tests.fixtures.games import new_game

# What is particular to one game (its id, token, salted commitment, times), not to its
# state.
VOLATILE = {"id", "game_id", "token", "commitment", "salt", "created_at", "updated_at", "ended_at"}
RULES = {"undo": True, "redeals": 1}


def _state(answer: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in answer.items() if k not in VOLATILE}


def _play(client: TestClient, seed: int, *, forget: bool) -> list[dict[str, Any]]:
    """A game of deal ``seed`` played to its end by random legal moves (undo among them),
    every answer kept; with ``forget``, nothing remembered before any request."""
    rng = random.Random(seed)
    game, auth = new_game(client, deal_number=seed, rules=RULES)
    url = f"/v1/games/{game['id']}"
    answers = [_state(game)]
    while game["status"] == "in_progress" and len(answers) < 240:
        moves = [m for m in game["legal_moves"] if m["kind"] != "concede"]
        if forget:
            REHYDRATED.clear()
        r = client.post(f"{url}/moves", json=rng.choice(moves), headers=auth)
        assert r.status_code == 200, r.text
        game = r.json()
        answers.append(_state(game))
        if forget:
            REHYDRATED.clear()
        read = client.get(url, headers=auth)
        assert read.status_code == 200, read.text
        answers.append(_state(read.json()))
    return answers


def test_a_game_played_from_remembered_states_answers_as_one_replayed_every_time(
    client: TestClient,
) -> None:
    for seed in (3, 11):
        REHYDRATED.clear()
        remembered = _play(client, seed, forget=False)
        assert len(REHYDRATED) > 0
        replayed = _play(client, seed, forget=True)
        assert len(remembered) == len(replayed)
        for i, (x, y) in enumerate(zip(remembered, replayed, strict=True)):
            assert x == y, (i, {k: (x[k], y.get(k)) for k in x if x[k] != y.get(k)})
        assert any(a["version"] > 0 and "undo" in str(a) for a in remembered)


async def stored_row(client: TestClient, game_id: str) -> Game | None:
    async with client.app.state.database.read_sessions() as session:  # type: ignore[attr-defined]
        return await GameRepository(session).get(game_id)


def test_the_state_a_move_hands_over_is_found_by_the_row_it_wrote(client: TestClient) -> None:
    """The key a move remembers its new state by (derived from the key it read the game
    by) is the key of the row as stored: the next request replays nothing."""
    game, auth = new_game(client, deal_number=8, rules={"undo": True})
    url = f"/v1/games/{game['id']}"
    for _ in range(3):
        REHYDRATED.clear()
        assert client.get(url, headers=auth).status_code == 200  # read, and remembered
        move = next(m for m in game["legal_moves"] if m["kind"] != "concede")
        r = client.post(f"{url}/moves", json=move, headers=auth)
        assert r.status_code == 200, r.text
        game = r.json()
        held = len(REHYDRATED)
        row = portal_of(client).call(stored_row, client, game["id"])
        assert row is not None and row.version == game["version"]
        assert REHYDRATED.get(state_key(row)) is not None
        assert len(REHYDRATED) == held


def test_a_state_moved_to_is_the_state_its_line_restores_down_to_its_undo_chain() -> None:
    """What a move hands the memory (the state it computed) is what a later request's
    replay of the row would give: equal, and undoing alike, all the way back."""
    rules = engine.Rules.for_layout(undo=True, redeals=1)
    for seed in range(12):
        rng = random.Random(seed)
        deal = engine.numbered_deal(seed)
        state = engine.new_game(deal, rules)
        line: tuple[str, ...] = ()
        while not state.is_over and state.moves_made < 120:
            move = rng.choice([m for m in engine.legal_moves(state) if m.kind != "concede"])
            state = engine.apply(state, move)
            line = engine.line_after(line, move)
            restored = engine.restore(deal, rules, line, state.moves_made)
            assert state == restored
            # The states before: alike but for their own version, which an undo
            # overwrites with the game's (moves_made + 1).
            a: engine.GameState | None = state
            b: engine.GameState | None = restored
            while a is not None and b is not None:
                assert replace(a, moves_made=0) == replace(b, moves_made=0)
                assert engine.legal_moves(a) == engine.legal_moves(b)
                a, b = a.previous, b.previous
            assert a is None and b is None


def _key(version: int, name: str = "g") -> tuple[str, str, str, str, int]:
    return ("tripeaks", "{}", name, "", version)


def test_the_memory_holds_a_bounded_number_of_states_dropping_the_least_recently_used() -> None:
    states = RehydratedStates(capacity=10)
    s = engine.new_game(engine.numbered_deal(1), engine.Rules.for_layout())
    states.put(_key(3, "a"), s)  # 4 states held (a version 3 state and the 3 before it)
    states.put(_key(2, "b"), s)  # 3
    assert states.get(_key(3, "a")) is s  # a is now the most recently used
    states.put(_key(2, "c"), s)  # 10 in all: nothing dropped
    assert len(states) == 3
    states.put(_key(0, "d"), s)  # 11: b, the least recently used, goes
    assert states.get(_key(2, "b")) is None
    assert [states.get(_key(v, n)) is s for v, n in ((3, "a"), (2, "c"), (0, "d"))] == [True] * 3
    states.put(_key(10, "e"), s)  # more than the whole capacity: not kept
    assert states.get(_key(10, "e")) is None and len(states) == 3
