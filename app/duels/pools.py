"""A duel's pool: a layout and a rules preset ("tripeaks.standard"). Duels match within
a pool, and each pool has its ratings; what a preset plays is fixed here, so that every
duel of a pool is played under the same rules."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from app import engine


class Preset(StrEnum):
    STANDARD = "standard"  # the layout's own rules, undo off (as the daily challenge)
    NO_WRAP = "no-wrap"  # the same without wrapping King-Ace: a harder game


PRESETS: dict[Preset, dict[str, Any]] = {
    Preset.STANDARD: {"undo": False},
    Preset.NO_WRAP: {"undo": False, "wrap": False},
}


def pool_of(layout: str, preset: Preset) -> str:
    return f"{layout}.{preset.value}"


def pool_parts(pool: str) -> tuple[str, Preset] | None:
    """The layout and preset a pool's name holds; None for a name that is no pool."""
    layout, _, preset = pool.partition(".")
    if layout not in engine.LAYOUTS or preset not in set(Preset):
        return None
    return layout, Preset(preset)


def pool_rules(layout: str, preset: Preset) -> engine.Rules:
    return engine.Rules.for_layout(layout, **PRESETS[preset])


def all_pools() -> list[str]:
    return [pool_of(layout, preset) for layout in engine.LAYOUTS for preset in Preset]
