"""The calibration of the hint's chance: the curve, its fit and its interval."""

from __future__ import annotations

import random

import pytest

from app.engine import Rules, get_layout
from app.engine.calibration import KNOTS, calibrated, family, fit, interval, wilson


def test_the_curve_is_linear_between_knots_and_flat_beyond() -> None:
    knots = ((0.1, 0.05), (0.5, 0.25), (0.9, 0.85))
    assert calibrated(0.0, knots) == 0.05
    assert calibrated(0.3, knots) == pytest.approx(0.15)
    assert calibrated(0.7, knots) == pytest.approx(0.55)
    assert calibrated(1.0, knots) == 0.85


def test_the_shipped_curves_are_monotone_and_in_range() -> None:
    for knots in KNOTS.values():
        xs = [x for x, _ in knots]
        ys = [y for _, y in knots]
        assert xs == sorted(xs) and ys == sorted(ys)
        assert all(0 <= v <= 1 for v in xs + ys)


def test_each_game_gets_the_curve_of_its_rules() -> None:
    tripeaks, golf = get_layout("tripeaks"), get_layout("golf")
    assert family(Rules.for_layout(tripeaks, wrap=True), tripeaks) == "wrap"
    assert family(Rules.for_layout(tripeaks, wrap=False), tripeaks) == "nowrap"
    assert family(Rules.for_layout(golf), golf) == "golf"
    six = get_layout("six_peaks")
    assert family(Rules.for_layout(six), six) == "six_peaks"
    assert family(Rules.for_layout(six, wrap=False), six) == "nowrap"  # not measured


def test_the_fit_recovers_a_known_curve() -> None:
    # Outcomes drawn with chance share**2: the fit is monotone and close to it.
    rng = random.Random(3)
    pairs = []
    for _ in range(20_000):
        share = rng.random()
        pairs.append((share, rng.random() < share * share))
    knots = fit(pairs)
    assert len(knots) <= 12
    assert [y for _, y in knots] == sorted(y for _, y in knots)
    for x in (0.2, 0.5, 0.8):
        assert calibrated(x, knots) == pytest.approx(x * x, abs=0.06)


def test_the_fit_pools_what_goes_down() -> None:
    # Higher shares that won less are pooled with the lower ones: never a falling curve.
    pairs = [(0.2, True), (0.2, True), (0.8, False), (0.8, False), (0.9, True)]
    knots = fit(pairs)
    assert [y for _, y in knots] == sorted(y for _, y in knots)
    assert knots[0][1] == pytest.approx(0.5)
    assert fit([]) == ((0.0, 0.0), (1.0, 1.0))


def test_the_interval_holds_the_estimate_and_narrows_with_samples() -> None:
    knots = ((0.0, 0.0), (1.0, 0.7))
    low, high = interval(48, 64, knots)
    assert low < calibrated(48 / 64, knots) < high
    low2, high2 = interval(480, 640, knots)
    assert low < low2 < high2 < high
    assert wilson(0, 0) == (0.0, 1.0)
