"""Rule options: every option of docs/rules.md, validated.

``Rules`` is a complete, validated set of options. Build one with ``Rules.for_layout``
(the layout's own defaults, then the options given) or ``Rules.from_dict`` (the stored
form). An impossible value or combination raises ``RulesError`` naming the option.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from app.engine.errors import LayoutError, RulesError
from app.engine.layouts import Layout, get_layout


class Scoring(StrEnum):
    CLASSIC = "classic"
    CARDS_LEFT = "cards_left"
    MSC = "msc"


MAX_JOKERS: Final = 2
MAX_REDEALS: Final = 9
MAX_POINTS_OPTION: Final = 1000


@dataclass(frozen=True, slots=True)
class Rules:
    layout: str = "tripeaks"
    wrap: bool = True
    king_stops: bool = False
    open_peaks: bool = False
    free_start: bool = False
    jokers: int = 0
    redeals: int = 0
    undo: bool = False
    scoring: Scoring = Scoring.CLASSIC
    draw_penalty: int = 5
    deal_cost: int = 0

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.type == "bool" and not isinstance(value, bool):
                raise RulesError(f.name, f"must be true or false, not {value!r}")
            if f.type == "int" and (isinstance(value, bool) or not isinstance(value, int)):
                raise RulesError(f.name, f"must be a whole number, not {value!r}")
        if not isinstance(self.layout, str) or not self.layout:
            raise RulesError("layout", f"must be a layout name, not {self.layout!r}")
        try:
            object.__setattr__(self, "scoring", Scoring(self.scoring))
        except ValueError:
            names = ", ".join(s.value for s in Scoring)
            raise RulesError("scoring", f"{self.scoring!r} is not one of {names}") from None
        if not 0 <= self.jokers <= MAX_JOKERS:
            raise RulesError("jokers", f"must be 0 to {MAX_JOKERS}, not {self.jokers}")
        if not 0 <= self.redeals <= MAX_REDEALS:
            raise RulesError("redeals", f"must be 0 to {MAX_REDEALS}, not {self.redeals}")
        for name in ("draw_penalty", "deal_cost"):
            value = getattr(self, name)
            if not 0 <= value <= MAX_POINTS_OPTION:
                raise RulesError(name, f"must be 0 to {MAX_POINTS_OPTION} points, not {value}")
            if self.scoring is not Scoring.CLASSIC and value != _DEFAULTS[name]:
                raise RulesError(
                    name, f"counts only under classic scoring, not under {self.scoring.value}"
                )
        if self.king_stops and self.wrap:
            raise RulesError(
                "king_stops",
                "needs wrap false: with wrap an Ace may go on a King, so a King cannot stop",
            )

    def to_dict(self) -> dict[str, Any]:
        # Shallow: every option is a scalar, which dataclasses.asdict would deep-copy (a
        # game's every answer holds its rules).
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["scoring"] = self.scoring.value
        return d

    @classmethod
    def for_layout(cls, layout: Layout | str = "tripeaks", **options: Any) -> Rules:
        """The layout's default rules with ``options`` on top."""
        lay = _resolve_layout(layout)
        unknown = sorted(set(options) - OPTION_NAMES)
        if unknown:
            raise RulesError(unknown[0], f"unknown rule option; known: {', '.join(OPTIONS)}")
        unknown = sorted(set(dict(lay.defaults)) - OPTION_NAMES)
        if unknown:
            raise RulesError(
                unknown[0], f"unknown rule option in the defaults of layout {lay.name!r}"
            )
        if "layout" in options and options["layout"] != lay.name:
            raise RulesError("layout", f"{options['layout']!r} contradicts {lay.name!r}")
        values: dict[str, Any] = {**_DEFAULTS, **dict(lay.defaults), **options}
        values["layout"] = lay.name
        return cls(**values)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], layout: Layout | None = None) -> Rules:
        """Rules from plain data; missing options take the layout's defaults."""
        if not isinstance(data, Mapping):
            raise RulesError("rules", "must be an object of rule options")
        options = dict(data)
        name = options.pop("layout", layout.name if layout is not None else "tripeaks")
        if layout is not None and name != layout.name:
            raise RulesError("layout", f"{name!r} contradicts {layout.name!r}")
        return cls.for_layout(layout if layout is not None else name, **options)


_DEFAULTS: Final[dict[str, Any]] = {
    f.name: f.default for f in dataclasses.fields(Rules) if f.name != "layout"
}
OPTIONS: Final = tuple(f.name for f in dataclasses.fields(Rules))
OPTION_NAMES: Final = frozenset(OPTIONS)


def _resolve_layout(layout: Layout | str) -> Layout:
    if isinstance(layout, Layout):
        return layout
    try:
        return get_layout(layout)
    except LayoutError as e:
        raise RulesError("layout", str(e)) from None
