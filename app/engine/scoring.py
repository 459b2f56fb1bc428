"""Scoring schemes: classic, cards_left and msc (docs/rules.md#scoring).

The score is kept as a breakdown that each move updates: points from streaks, from peak
bonuses, lost to draws, the deal cost, and the longest streak.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.engine.rules import Rules, Scoring


@dataclass(frozen=True, slots=True)
class Score:
    scheme: Scoring
    total: int
    streak_points: int = 0
    bonus_points: int = 0
    draw_penalties: int = 0
    deal_cost: int = 0
    current_streak: int = 0
    longest_streak: int = 0
    peaks_taken: int = 0
    cards_left: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "scheme": self.scheme.value,
            "total": self.total,
            "streak_points": self.streak_points,
            "bonus_points": self.bonus_points,
            "draw_penalties": self.draw_penalties,
            "deal_cost": self.deal_cost,
            "current_streak": self.current_streak,
            "longest_streak": self.longest_streak,
            "peaks_taken": self.peaks_taken,
            "cards_left": self.cards_left,
        }


def card_points(scheme: Scoring, n: int) -> int:
    """Points for the n-th card (from 1) of a streak."""
    if scheme is Scoring.CLASSIC:
        return n
    if scheme is Scoring.MSC:
        return 100 + 200 * (n - 1)
    return 0


def peak_bonus(scheme: Scoring, k: int, peaks: int) -> int:
    """Bonus for taking the k-th peak tip (from 1) of ``peaks``."""
    if scheme is Scoring.CLASSIC:
        return 30 if k == peaks else 15
    if scheme is Scoring.MSC:
        if k == peaks:
            return 5000
        return 1000 if k == peaks - 1 else 500
    return 0


def draw_cost(rules: Rules) -> int:
    return rules.draw_penalty if rules.scoring is Scoring.CLASSIC else 0


def initial_score(rules: Rules, cards_left: int) -> Score:
    cost = rules.deal_cost if rules.scoring is Scoring.CLASSIC else 0
    s = Score(scheme=rules.scoring, total=0, deal_cost=cost, cards_left=cards_left)
    return _with_total(s)


def after_play(score: Score, took_peak: bool, peaks: int) -> Score:
    n = score.current_streak + 1
    taken = score.peaks_taken + (1 if took_peak else 0)
    bonus = peak_bonus(score.scheme, taken, peaks) if took_peak else 0
    return _with_total(
        Score(
            scheme=score.scheme,
            total=0,
            streak_points=score.streak_points + card_points(score.scheme, n),
            bonus_points=score.bonus_points + bonus,
            draw_penalties=score.draw_penalties,
            deal_cost=score.deal_cost,
            current_streak=n,
            longest_streak=max(score.longest_streak, n),
            peaks_taken=taken,
            cards_left=score.cards_left - 1,
        )
    )


def after_draw(score: Score, rules: Rules) -> Score:
    return _with_total(
        Score(
            scheme=score.scheme,
            total=0,
            streak_points=score.streak_points,
            bonus_points=score.bonus_points,
            draw_penalties=score.draw_penalties + draw_cost(rules),
            deal_cost=score.deal_cost,
            current_streak=0,
            longest_streak=score.longest_streak,
            peaks_taken=score.peaks_taken,
            cards_left=score.cards_left,
        )
    )


def _with_total(s: Score) -> Score:
    if s.scheme is Scoring.CARDS_LEFT:
        total = s.cards_left
    else:
        total = s.streak_points + s.bonus_points - s.draw_penalties - s.deal_cost
    object.__setattr__(s, "total", total)
    return s
