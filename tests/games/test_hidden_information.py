"""No response, header or error ever holds a face-down card, a stock card, or the number
of a deal the server chose, before the game reveals them at its end."""

from __future__ import annotations

import random
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app import engine
from tests.fixtures.deals import verify_commitment

pytestmark = pytest.mark.slow


def hidden_codes(state: engine.GameState) -> set[str]:
    """Codes of the cards the player may not know: face-down tableau cards and the stock."""
    hidden = {c.code for c in state.stock}
    for pos in state.layout.positions:
        card = state.tableau[pos.index]
        if card is not None and not state.is_face_up(pos.index):
            hidden.add(card.code)
    return hidden


def leaks(response: Any, hidden: set[str]) -> list[str]:
    text = response.text + " ".join(f"{k}: {v}" for k, v in response.headers.items())
    return sorted(code for code in hidden if f'"{code}"' in text or f" {code} " in text)


def test_random_games_never_leak_hidden_cards(client: TestClient) -> None:
    rng = random.Random(2026)
    for game_no in range(6):
        rules: dict[str, Any] = {"redeals": rng.choice([0, 1]), "undo": rng.random() < 0.3}
        r = client.post("/v1/games", json={"rules": rules})
        game = r.json()
        auth = {"Authorization": f"Bearer {game['token']}"}
        url = f"/v1/games/{game['id']}"
        responses: list[Any] = [r]
        moves: list[str] = []  # the moves applied, in order, to rebuild each moment
        moments: list[int] = [0]  # how many moves had been applied at each response
        while True:
            legal = client.get(f"{url}/legal-moves", headers=auth)
            responses.append(legal)
            moments.append(len(moves))
            if legal.json()["status"] != "in_progress":
                break
            options = [m for m in legal.json()["legal_moves"] if m["kind"] != "concede"]
            if len(moves) > 60 or not options:
                options = [{"move": "concede"}]
            if len(moves) % 4 == 0:
                for path in ("", "/score", "/moves"):
                    responses.append(client.get(url + path, headers=auth))
                    moments.append(len(moves))
            # An illegal try (a covered card) must not leak either.
            covered = [
                m
                for m in range(28)
                if f"play {m}" not in {o["move"] for o in legal.json()["legal_moves"]}
            ]
            if len(moves) % 4 == 1:
                bad = client.post(
                    f"{url}/play",
                    json={"position": covered[len(moves) % len(covered)]},
                    headers=auth,
                )
                assert bad.status_code == 400
                responses.append(bad)
                moments.append(len(moves))
            choice = rng.choice(options)
            done = client.post(f"{url}/moves", json=choice, headers=auth)
            assert done.status_code == 200, done.text
            moves.append(choice["move"])
            if done.json()["status"] != "in_progress":
                final = done.json()
                break
            responses.append(done)
            moments.append(len(moves))
        reveal = final["reveal"]
        assert reveal is not None and verify_commitment(
            game["commitment"], reveal["deal"], reveal["salt"]
        )
        deal = engine.parse_deal(reveal["deal"])
        assert deal == engine.numbered_deal(reveal["deal_number"])
        rules_obj = engine.Rules.from_dict(final["rules"])
        states = [engine.new_game(deal, rules_obj)]
        for m in moves:
            states.append(engine.apply(states[-1], m))
        for response, moment in zip(responses, moments, strict=True):
            state = states[moment]
            found = leaks(response, hidden_codes(state))
            assert not found, f"game {game_no} leaked {found} at move {moment}: {response.text}"
            number = str(reveal["deal_number"])
            assert number not in response.text, "the server-chosen deal number leaked"
