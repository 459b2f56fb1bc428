"""What a hint's chance of winning is worth.

A hint solves samples of the hidden cards with every card known. The share of samples
its move wins (``sample_share``) is what a player who could see every card would win: it
overstates what a player following the hints wins, who cannot, and with a few dozen
samples it swings. ``calibrated`` maps it to the share of games a player following the
hints actually went on to win from positions where the hint said that share: a monotone
curve, linear between the knots of ``KNOTS``, fitted by isotonic regression (pooled
adjacent violators) on bot games (``python -m bench hints --fit``; the data and the
figures are in docs/research/hints.md). One curve per family of rules: classic TriPeaks with
wrap, without wrap, golf, and six peaks with wrap; any other layout or rule set uses the
curve of its wrap rule (no bot has measured it).

``interval`` is the 95% interval of the estimate: Wilson's interval of the sample share
with the number of samples, mapped through the same curve.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise
from typing import Final

from app.engine.layouts import Layout
from app.engine.rules import Rules

Knots = tuple[tuple[float, float], ...]

# (sample share, share of games won), the shares increasing. Fitted from
# ``python -m bench hints --fit`` (docs/research/hints.md): see there for the deals and the hint.
KNOTS: Final[dict[str, Knots]] = {
    # classic with wrap
    "wrap": (
        (0.0708, 0.0575),
        (0.4252, 0.3459),
        (0.6479, 0.5322),
        (0.7431, 0.6043),
        (0.815, 0.6317),
        (0.885, 0.672),
        (0.9214, 0.7065),
        (0.9372, 0.7104),
        (0.9529, 0.714),
        (0.9686, 0.7444),
        (0.9843, 0.7513),
        (1.0, 0.8954),
    ),
    # classic without wrap
    "nowrap": (
        (0.0, 0.0004),
        (0.0708, 0.057),
        (0.1811, 0.1351),
        (0.2816, 0.1715),
        (0.3987, 0.2198),
        (0.5171, 0.2985),
        (0.6086, 0.3525),
        (0.6708, 0.3787),
        (0.7177, 0.4309),
        (0.7637, 0.5036),
        (0.8298, 0.5329),
        (0.9537, 0.8264),
    ),
    # golf
    "golf": (
        (0.0, 0.0005),
        (0.0532, 0.0454),
        (0.1577, 0.1241),
        (0.2441, 0.1695),
        (0.3112, 0.2248),
        (0.3972, 0.3059),
        (0.4839, 0.356),
        (0.5787, 0.4098),
        (0.6834, 0.5092),
        (0.7774, 0.5775),
        (0.8974, 0.7295),
        (1.0, 0.9662),
    ),
    # six peaks with wrap
    "six_peaks": (
        (0.0761, 0.0),
        (0.544, 0.3871),
        (0.7218, 0.6061),
        (0.7812, 0.6316),
        (0.8154, 0.7407),
        (0.8735, 0.8028),
        (0.9067, 0.8451),
        (0.9311, 0.9079),
        (0.9529, 0.9081),
        (0.9687, 0.9427),
        (0.9844, 0.9555),
        (1.0, 0.9777),
    ),
}


def family(rules: Rules, layout: Layout) -> str:
    """The calibration curve a game's hints use."""
    if layout.name == "golf":
        return "golf"
    if layout.name == "six_peaks" and rules.wrap:
        return "six_peaks"
    return "wrap" if rules.wrap else "nowrap"


def calibrated(share: float, knots: Knots) -> float:
    """The curve at ``share``: linear between knots, flat beyond the first and last."""
    if share <= knots[0][0]:
        return knots[0][1]
    for (x0, y0), (x1, y1) in pairwise(knots):
        if share <= x1:
            return y0 if x1 == x0 else y0 + (y1 - y0) * (share - x0) / (x1 - x0)
    return knots[-1][1]


def wilson(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% for z = 1.96)."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def interval(wins: int, samples: int, knots: Knots) -> tuple[float, float]:
    """The 95% interval of the calibrated chance, from ``wins`` of ``samples``."""
    low, high = wilson(wins, samples)
    return (calibrated(low, knots), calibrated(high, knots))


def fit(pairs: Sequence[tuple[float, bool]], knots: int = 12) -> Knots:
    """The isotonic regression of the outcomes on the shares (pooled adjacent
    violators), given as at most ``knots`` knots: each the mean share and the pooled
    outcome of a run of pairs, equal shares kept together."""
    if not pairs:
        return ((0.0, 0.0), (1.0, 1.0))
    ordered = sorted(pairs)
    # Blocks of equal shares first: (sum of shares, sum of outcomes, count).
    blocks: list[list[float]] = []
    for share, won in ordered:
        if blocks and blocks[-1][3] == share:
            b = blocks[-1]
            b[0] += share
            b[1] += won
            b[2] += 1
        else:
            blocks.append([share, float(won), 1.0, share])
    pooled: list[list[float]] = []
    for b in blocks:
        pooled.append(b[:3])
        while len(pooled) > 1 and pooled[-2][1] / pooled[-2][2] >= pooled[-1][1] / pooled[-1][2]:
            top = pooled.pop()
            pooled[-1] = [pooled[-1][i] + top[i] for i in range(3)]
    # Merge neighbouring pools of the fewest pairs until at most ``knots`` are left
    # (merging monotone pools keeps them monotone).
    while len(pooled) > knots:
        i = min(range(len(pooled) - 1), key=lambda k: pooled[k][2] + pooled[k + 1][2])
        pooled[i : i + 2] = [[pooled[i][j] + pooled[i + 1][j] for j in range(3)]]
    return tuple((round(s / n, 4), round(w / n, 4)) for s, w, n in pooled)
