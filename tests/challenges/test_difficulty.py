"""A deal's difficulty through HTTP, on SQLite and PostgreSQL: a finished game's analysis
says it; the daily shows its own once the day is over; a challenge set for a tier, and an
event's rounds, are drawn of that tier. The test's settings measure with 4 of the hint's
games (tests/conftest.py): each answer is checked against the engine's own measure of
the deal revealed."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app import engine
from app.challenges.deals import first_of_tier
from app.engine.difficulty import DifficultySettings, Tier, difficulty
from app.engine.solver import solve_clear
from app.ops.fairplay import run
from app.settings import Settings
from tests.challenges.test_fair_play import at, greedy
from tests.challenges.test_set_challenges import HOUR, enter, iso, set_challenge
from tests.fixtures.clock import NOON
from tests.fixtures.deals import losing_deal
from tests.fixtures.games import new_game_id, new_player

FOUR = DifficultySettings(playouts=4)
CLASSIC = engine.Rules.for_layout()


def measured(deal: list[str], rules: dict[str, Any]) -> dict[str, Any]:
    """The engine's measure of ``deal``, as the API gives it."""
    game_rules = engine.Rules.from_dict(rules)
    found = difficulty(engine.parse_deal(deal), game_rules, settings=FOUR)
    assert found is not None
    return found.to_dict()


def test_a_finished_game_s_analysis_says_how_hard_its_deal_is(client: TestClient) -> None:
    gid, auth = new_game_id(client, deal=losing_deal())
    client.post(f"/v1/games/{gid}/concede", headers=auth)
    a = client.get(f"/v1/games/{gid}/analysis", headers=auth).json()
    assert a["difficulty"] == measured(losing_deal(), engine.Rules.for_layout().to_dict())
    assert a["difficulty"]["tier"] == "hard" and a["difficulty"]["wins"] == 0
    number = 3
    gid, auth = new_game_id(client, deal_number=number)
    client.post(f"/v1/games/{gid}/concede", headers=auth)
    a = client.get(f"/v1/games/{gid}/analysis", headers=auth).json()
    deal = [c.code for c in engine.numbered_deal(number)]
    assert a["difficulty"] == measured(deal, CLASSIC.to_dict())
    assert a["difficulty"]["playouts"] == 4 and a["difficulty"]["samples"] == 8


def test_the_daily_shows_its_difficulty_once_the_day_is_over(
    client: TestClient, set_clock: Callable[[datetime], None]
) -> None:
    daily = client.get("/v1/challenges/daily").json()
    assert daily["tier"] is None and daily["difficulty"] is None
    set_clock(NOON + timedelta(days=1))
    over = client.get(f"/v1/challenges/{daily['id']}").json()
    assert over["status"] == "closed"
    assert over["difficulty"] == measured(over["reveal"]["deal"], over["rules"])
    assert over["tier"] is None
    assert client.get(f"/v1/challenges/{daily['id']}").json()["difficulty"] == over["difficulty"]


@pytest.mark.parametrize("tier", ["hard", "easy"])
def test_a_challenge_set_for_a_tier_is_dealt_one_of_it(
    client: TestClient, set_clock: Callable[[datetime], None], tier: str
) -> None:
    _, host = new_player(client)
    c = set_challenge(client, host, tier=tier)
    assert c["tier"] == tier and c["difficulty"] is None and c["winnable_only"] is True
    url = f"/v1/challenges/{c['id']}"
    assert client.get(url).json()["difficulty"] is None  # not before the close
    set_clock(NOON + timedelta(minutes=10))
    closed = client.post(f"{url}/close", headers=host).json()
    deal = closed["reveal"]["deal"]
    assert closed["difficulty"] == measured(deal, closed["rules"])
    assert closed["difficulty"]["tier"] == tier and closed["tier"] == tier
    game = engine.new_game(engine.parse_deal(deal), CLASSIC)
    assert solve_clear(game).winnable is True


def test_a_tier_is_one_of_three(client: TestClient) -> None:
    _, host = new_player(client)
    r = client.post(
        "/v1/challenges",
        json={"name": "x", "closes_at": iso(NOON + 2 * HOUR), "tier": "brutal"},
        headers=host,
    )
    assert r.status_code == 422 and r.json()["type"] == "/problems/validation"


@pytest.mark.parametrize("tier", list(Tier))
def test_the_first_candidate_of_a_tier(tier: Tier) -> None:
    """first_of_tier skips every candidate not proved winnable or not of the tier, and
    answers the first that is, with its difficulty."""
    numbers = [3, 1, 2, 5, 0, 4, 6, 7, 8, 9, 10, 12, 13]
    found = first_of_tier(lambda k: numbers[k], CLASSIC, True, 600, tier, FOUR)
    assert found is not None
    deal, rated = found
    assert rated is not None and rated.tier is tier
    k = next(i for i, n in enumerate(numbers) if engine.numbered_deal(n) == deal)
    assert difficulty(deal, CLASSIC, settings=FOUR) == rated
    for n in numbers[:k]:
        game = engine.new_game(engine.numbered_deal(n), CLASSIC)
        if solve_clear(game).winnable:
            before = difficulty(engine.numbered_deal(n), CLASSIC, settings=FOUR)
            assert before is not None and before.tier is not tier
    # Without a tier: the first candidate, unmeasured.
    assert first_of_tier(lambda k: numbers[k], CLASSIC, False, 600) == (
        engine.numbered_deal(3),
        None,
    )
    # Out of time: nothing.
    assert first_of_tier(lambda k: numbers[k], CLASSIC, True, 0, tier, FOUR) is None


@pytest.mark.slow
def test_a_tier_s_results_have_no_stock_evidence(
    client_with: Callable[..., TestClient], settings: Settings
) -> None:
    """The stock's evidence needs a deal drawn at random: one drawn for its difficulty is
    measured by the game's own measure alone (docs/fairplay.md). The measure's run reads
    what the app committed: this test's app commits for real."""
    client = client_with()
    at(client, NOON)
    _, auth = new_player(client)
    _, host = new_player(client)
    c = set_challenge(client, host, tier="easy")
    greedy(client, enter(client, c["id"], auth))
    at(client, NOON + timedelta(minutes=10))
    assert client.post(f"/v1/challenges/{c['id']}/close", headers=host).status_code == 200
    done = asyncio.run(run(settings, NOON + timedelta(minutes=20), 100, c["id"]))
    assert done.ok + done.flagged == 1
    r = client.get(f"/v1/challenges/{c['id']}/leaderboard")
    [entry] = r.json()["entries"]
    fair = entry["fair_play"]
    assert fair["status"] == "ok" and fair["telling"] is not None
    assert (fair["stock_z"], fair["stock_decisions"]) == (None, None)
    assert (fair["player_stock_z"], fair["player_stock_results"]) == (None, None)
