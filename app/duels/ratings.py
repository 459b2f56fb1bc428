"""Ratings by OpenSkill's Plackett-Luce model (the ``openskill`` library, MIT), on the
scale players know from chess: a new player is 1500, give or take 500. A duel is a game
of two teams of one; a draw ranks both first. The rating shown is ``mu`` rounded; the
first ``RATING_PROVISIONAL_GAMES`` duels of a player's are marked provisional, as
Lichess marks a rating still settling."""

from __future__ import annotations

from dataclasses import dataclass

from openskill.models import PlackettLuce

from app.engine.difficulty import Tier

START_MU = 1500.0
START_SIGMA = 500.0
# The model's own defaults scaled to the chess-like scale: beta = sigma / 2, and a small
# tau so that a rating keeps moving after many games.
MODEL = PlackettLuce(mu=START_MU, sigma=START_SIGMA, beta=START_SIGMA / 2, tau=START_MU / 300)
# A deal's tier by the pair's rating: the easy deals below, the hard ones above.
EASY_BELOW = 1350
HARD_FROM = 1650


@dataclass(frozen=True, slots=True)
class Skill:
    mu: float
    sigma: float

    @property
    def rating(self) -> int:
        return round(self.mu)


NEW = Skill(START_MU, START_SIGMA)


def rated(first: Skill, second: Skill, outcome: int) -> tuple[Skill, Skill]:
    """The two players' skills after a duel: ``outcome`` 1 the first won, -1 the second,
    0 a draw."""
    ranks = {1: [1.0, 2.0], -1: [2.0, 1.0], 0: [1.0, 1.0]}[outcome]
    a = MODEL.rating(mu=first.mu, sigma=first.sigma)
    b = MODEL.rating(mu=second.mu, sigma=second.sigma)
    [[a2], [b2]] = MODEL.rate([[a], [b]], ranks=ranks)
    return Skill(a2.mu, a2.sigma), Skill(b2.mu, b2.sigma)


def tier_for(rating: int) -> Tier:
    """The difficulty tier of a deal that suits a player of ``rating``."""
    if rating < EASY_BELOW:
        return Tier.EASY
    return Tier.MEDIUM if rating < HARD_FROM else Tier.HARD
