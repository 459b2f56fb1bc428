"""A deal's difficulty: the hint's own games on it, from the player's view alone."""

from __future__ import annotations

import pytest

from app import engine
from app.engine.difficulty import (
    EASY_FROM,
    HARD_BELOW,
    Difficulty,
    DifficultySettings,
    Tier,
    difficulty,
    playout,
    tier_of,
)
from tests.fixtures.deals import chain_deal, losing_deal

CLASSIC = engine.Rules.for_layout()
FEW = DifficultySettings(playouts=6)


def test_a_deal_nobody_can_clear_is_hard_and_a_chain_is_easy() -> None:
    lost = difficulty(engine.parse_deal(losing_deal()), CLASSIC, settings=FEW)
    assert lost == Difficulty(0, 6, 8, 20_000)
    assert lost.tier is Tier.HARD and lost.interval[0] == 0
    easy = difficulty(engine.parse_deal(chain_deal()), CLASSIC, settings=FEW)
    assert easy is not None and easy.wins == 6 and easy.tier is Tier.EASY
    assert easy.interval[1] == pytest.approx(1)


def test_the_playouts_differ_by_their_seeds_and_the_measure_repeats() -> None:
    """Deal 3 is won by some of the hint's games and lost by others: the playouts take
    other lines (their sampling seeds differ); measured again, with or without a time
    budget, the same games are won (node budgets, not the clock)."""
    deal = engine.numbered_deal(3)
    settings = DifficultySettings(playouts=8)
    outcomes = [playout(deal, CLASSIC, engine.TRIPEAKS, k, settings) for k in range(8)]
    assert True in outcomes and False in outcomes
    first = difficulty(deal, CLASSIC, settings=settings)
    assert first is not None and first.wins == outcomes.count(True)
    assert difficulty(deal, CLASSIC, settings=settings, seconds=600) == first


@pytest.mark.slow
def test_the_default_measure_on_every_layout() -> None:
    for layout in ("tripeaks", "golf", "six_peaks"):
        rules = engine.Rules.for_layout(layout)
        lay = engine.get_layout(layout)
        found = difficulty(engine.numbered_deal(11, lay.decks), rules)
        assert found is not None and found.playouts == 24 and found.samples == 8
        low, high = found.interval
        assert 0 <= low <= found.share <= high <= 1
        body = found.to_dict()
        assert body["tier"] == found.tier.value and body["wins"] == found.wins


def test_a_budget_too_short_answers_unknown() -> None:
    assert difficulty(engine.numbered_deal(3), CLASSIC, settings=FEW, seconds=0) is None


@pytest.mark.parametrize(
    ("share", "tier"),
    [
        (0.0, Tier.HARD),
        (HARD_BELOW - 0.01, Tier.HARD),
        (HARD_BELOW, Tier.MEDIUM),
        (EASY_FROM - 0.01, Tier.MEDIUM),
        (EASY_FROM, Tier.EASY),
        (1.0, Tier.EASY),
    ],
)
def test_the_tiers_thresholds(share: float, tier: Tier) -> None:
    assert tier_of(share) is tier


def test_only_a_tier_stops_once_the_games_rule_it_out() -> None:
    """A deal the hint never wins is ruled out of easy after the games that make 80%
    unreachable, and measured whole for hard: the same answer as without ``only``."""
    lost = engine.parse_deal(losing_deal())
    settings = DifficultySettings(playouts=10)
    whole = difficulty(lost, CLASSIC, settings=settings)
    assert whole is not None and whole.tier is Tier.HARD
    assert difficulty(lost, CLASSIC, settings=settings, only=Tier.HARD) == whole
    assert difficulty(lost, CLASSIC, settings=settings, only=Tier.EASY) is None
    assert difficulty(lost, CLASSIC, settings=settings, only=Tier.MEDIUM) is None
    easy = engine.parse_deal(chain_deal())
    assert difficulty(easy, CLASSIC, settings=settings, only=Tier.HARD) is None
    found = difficulty(easy, CLASSIC, settings=settings, only=Tier.EASY)
    assert found == difficulty(easy, CLASSIC, settings=settings)
