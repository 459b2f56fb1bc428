"""A deal's difficulty: how often the hint, playing from the player's view alone, wins it.

The measure plays the deal ``playouts`` times from its start, each time with the server's
hint (``app.engine.hints.hint``) choosing every move that is a choice, from
``player_view`` only (it never sees a hidden card: a face-down card or the stock's order
is learnt as play reveals it, as a player learns it). The playouts differ by the hint's
sampling seeds (playout ``k``'s are drawn from ``random.Random(k)``), so they take
different lines where the hidden cards leave the choice open. The difficulty is the share
of playouts won, with its 95% Wilson interval, and a tier:

- ``easy``: at least ``EASY_FROM`` of the playouts won;
- ``hard``: fewer than ``HARD_BELOW`` won (a deal nobody can clear is hard: 0 won);
- ``medium`` between.

The thresholds are fixed numbers, the same for every layout and rule option: the terciles
of the share won on classic deals with wrap (``python -m bench difficulty``; the deals and
the figures: docs/difficulty.md), so that there the tiers are about a third of the deals
each, which is what Microsoft's daily challenges offer (three a day). A fixed number
keeps a tier's meaning ("the hint wins this deal four times in five") the same on every
layout, where terciles per layout would call hard a six-peaks deal the hint almost always
wins; so on six peaks nearly every deal is easy, and on golf most are hard.

The hint is run by node budgets (``samples`` samples, ``nodes`` nodes a sample search),
never by the clock: the same deal, rules and settings give the same difficulty on every
machine, however loaded, so a challenge drawn for a tier is the same on every server. The
``seconds`` budget only decides when to give up (answer None), never the answer.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from app.engine.calibration import wilson
from app.engine.cards import Card
from app.engine.game import apply, new_game
from app.engine.hints import hint
from app.engine.layouts import Layout, get_layout
from app.engine.rules import Rules
from app.engine.solver import SearchBudget
from app.engine.view import player_view

__all__ = [
    "EASY_FROM",
    "HARD_BELOW",
    "Difficulty",
    "DifficultySettings",
    "Tier",
    "difficulty",
    "tier_of",
]


class Tier(StrEnum):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


EASY_FROM: Final = 0.8
HARD_BELOW: Final = 0.25


@dataclass(frozen=True, slots=True)
class DifficultySettings:
    """How the difficulty is measured: ``playouts`` games, each move chosen by the hint
    on ``samples`` samples of ``nodes`` nodes each."""

    playouts: int = 24
    samples: int = 8
    nodes: int = 20_000


def tier_of(share: float) -> Tier:
    """The tier of a deal the hint wins ``share`` of the time."""
    if share >= EASY_FROM:
        return Tier.EASY
    if share < HARD_BELOW:
        return Tier.HARD
    return Tier.MEDIUM


@dataclass(frozen=True, slots=True)
class Difficulty:
    """``wins`` of ``playouts`` games won by the hint; the share's 95% interval; the tier."""

    wins: int
    playouts: int
    samples: int
    nodes: int

    @property
    def share(self) -> float:
        return self.wins / self.playouts

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.playouts)

    @property
    def tier(self) -> Tier:
        return tier_of(self.share)

    def to_dict(self) -> dict[str, Any]:
        low, high = self.interval
        return {
            "tier": self.tier.value,
            "share": round(self.share, 4),
            "low": round(low, 4),
            "high": round(high, 4),
            "wins": self.wins,
            "playouts": self.playouts,
            "samples": self.samples,
            "nodes": self.nodes,
        }


def playout(
    deal: Sequence[Card],
    rules: Rules,
    layout: Layout,
    k: int,
    settings: DifficultySettings,
    deadline: float | None = None,
) -> bool | None:
    """Playout ``k``: the hint plays the deal from its start; whether it won, or None when
    ``deadline`` (``time.perf_counter()``) passed first."""
    rng = random.Random(k)
    budget = SearchBudget(max_nodes=settings.nodes)
    state = new_game(deal, rules, layout)
    while not state.is_over:
        if deadline is not None and time.perf_counter() > deadline:
            return None
        view = player_view(state)
        moves = [m for m in view["legal_moves"] if m not in ("undo", "concede")]
        if len(moves) == 1:
            state = apply(state, moves[0])
            continue
        h = hint(
            view,
            rules,
            layout,
            seed=rng.getrandbits(32),
            time_budget=None,
            max_samples=settings.samples,
            sample_budget=budget,
        )
        assert h.move is not None  # a game not over has a move
        state = apply(state, h.move)
    return state.outcome.value == "won"


def _may_be(tier: Tier, wins: int, left: int, playouts: int) -> bool:
    """Whether a deal won ``wins`` times so far, with ``left`` playouts to go, may still
    end in ``tier``."""
    return any(tier_of(w / playouts) is tier for w in range(wins, wins + left + 1))


def difficulty(
    deal: Sequence[Card],
    rules: Rules,
    layout: Layout | None = None,
    settings: DifficultySettings | None = None,
    seconds: float | None = None,
    *,
    only: Tier | None = None,
) -> Difficulty | None:
    """The deal's difficulty under ``rules`` (module docstring), or None when ``seconds``
    ran out before the last playout ended. With ``only``, None as soon as the playouts
    so far rule that tier out (a search for a deal of a tier rejects most candidates after
    a few games); a deal that may still be of it is measured whole, the same answer."""
    lay = layout if layout is not None else get_layout(rules.layout)
    settings = settings or DifficultySettings()
    deadline = None if seconds is None else time.perf_counter() + seconds
    wins = 0
    for k in range(settings.playouts):
        if only is not None and not _may_be(only, wins, settings.playouts - k, settings.playouts):
            return None
        won = playout(deal, rules, lay, k, settings, deadline)
        if won is None:
            return None
        wins += won
    return Difficulty(wins, settings.playouts, settings.samples, settings.nodes)
