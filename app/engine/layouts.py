"""Layouts as data: where the tableau cards lie, what covers what, what is dealt face up.

A layout is a list of positions. Each position has its place on the table (``row`` and a
horizontal offset ``x`` in half-card widths, so a card spans ``x`` to ``x + 2``), the
positions that cover it, whether it is dealt face up, and whether it is a peak tip. The
engine knows nothing else of a layout's shape: a new layout is a new value of this type,
built here or from a plain dictionary (``Layout.from_dict``), and needs no engine code.

Invariants checked when a layout is made: positions are numbered 0..n-1 in order, a card
is covered only by positions that come after it (so covering can never form a cycle and
the deal order fills the table top row first), and a card that nothing covers is dealt
face up (it is free from the start, so it must be visible).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.engine.errors import LayoutError


@dataclass(frozen=True, slots=True)
class Position:
    index: int
    row: int
    x: int
    covered_by: tuple[int, ...]
    face_up: bool
    peak: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "row": self.row,
            "x": self.x,
            "covered_by": list(self.covered_by),
            "face_up": self.face_up,
            "peak": self.peak,
        }


@dataclass(frozen=True, slots=True)
class Layout:
    """A tableau shape. ``defaults`` are rule options that differ from the usual ones
    for this layout (golf plays without wrap and counts the cards left)."""

    name: str
    title: str
    decks: int
    positions: tuple[Position, ...]
    defaults: tuple[tuple[str, Any], ...] = ()
    description: str = ""
    # Derived, filled in __post_init__.
    covers: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)
    peaks: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.name or not self.name.replace("_", "").isalnum():
            raise LayoutError(f"layout name {self.name!r} must be letters, digits and '_'")
        if self.decks not in (1, 2):
            raise LayoutError(f"layout {self.name}: decks must be 1 or 2, not {self.decks}")
        n = len(self.positions)
        if n == 0:
            raise LayoutError(f"layout {self.name}: it has no positions")
        if n > 52 * self.decks - 1:
            raise LayoutError(f"layout {self.name}: {n} positions do not fit in the deck")
        covers: list[list[int]] = [[] for _ in range(n)]
        for i, pos in enumerate(self.positions):
            if pos.index != i:
                raise LayoutError(f"layout {self.name}: position {i} is numbered {pos.index}")
            for c in pos.covered_by:
                if not (i < c < n):
                    raise LayoutError(
                        f"layout {self.name}: position {i} is covered by {c}, which is not "
                        f"a later position (covering positions come after the covered one)"
                    )
                covers[c].append(i)
            if len(set(pos.covered_by)) != len(pos.covered_by):
                raise LayoutError(f"layout {self.name}: position {i} names a cover twice")
            if not pos.covered_by and not pos.face_up:
                raise LayoutError(
                    f"layout {self.name}: position {i} is covered by nothing, so it must be "
                    f"dealt face up"
                )
        object.__setattr__(self, "covers", tuple(tuple(c) for c in covers))
        object.__setattr__(self, "peaks", tuple(p.index for p in self.positions if p.peak))

    @property
    def size(self) -> int:
        return len(self.positions)

    @property
    def width(self) -> int:
        """Width of the table in half-card units."""
        return max(p.x for p in self.positions) + 2

    @property
    def rows(self) -> int:
        return max(p.row for p in self.positions) + 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "decks": self.decks,
            "width": self.width,
            "rows": self.rows,
            "peaks": list(self.peaks),
            "defaults": dict(self.defaults),
            "positions": [p.to_dict() for p in self.positions],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Layout:
        """Build a layout from plain data (the shape ``to_dict`` writes)."""
        try:
            positions = tuple(
                Position(
                    index=int(p["index"]),
                    row=int(p["row"]),
                    x=int(p["x"]),
                    covered_by=tuple(int(c) for c in p.get("covered_by", ())),
                    face_up=_flag(p["face_up"], "face_up"),
                    peak=_flag(p.get("peak", False), "peak"),
                )
                for p in data["positions"]
            )
            return cls(
                name=str(data["name"]),
                title=str(data.get("title", data["name"])),
                decks=int(data.get("decks", 1)),
                positions=positions,
                defaults=tuple(sorted(dict(data.get("defaults", {})).items())),
                description=str(data.get("description", "")),
            )
        except LayoutError:
            raise
        except (KeyError, TypeError, ValueError) as e:
            raise LayoutError(f"layout data is incomplete or malformed: {e}") from e


def _flag(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise LayoutError(f"{name} must be true or false, not {value!r}")
    return value


def _tripeaks_positions(offset: int = 0, x0: int = 0) -> list[Position]:
    """The classic 28-card table of docs/rules.md, positions numbered from ``offset``."""
    out: list[Position] = []

    def add(i: int, row: int, x: int, covered_by: tuple[int, ...]) -> None:
        out.append(
            Position(
                index=offset + i,
                row=row,
                x=x0 + x,
                covered_by=tuple(offset + c for c in covered_by),
                face_up=row == 3,
                peak=row == 0,
            )
        )

    for p in range(3):  # tips 0-2, covered by 3+2p and 4+2p
        add(p, 0, 3 + 6 * p, (3 + 2 * p, 4 + 2 * p))
    for p in range(3):  # row two, two cards under each tip
        add(3 + 2 * p, 1, 2 + 6 * p, (9 + 3 * p, 10 + 3 * p))
        add(4 + 2 * p, 1, 4 + 6 * p, (10 + 3 * p, 11 + 3 * p))
    out.sort(key=lambda pos: pos.index)
    for j in range(9):  # row three
        add(9 + j, 2, 1 + 2 * j, (18 + j, 19 + j))
    for j in range(10):  # bottom row, covered by nothing
        add(18 + j, 3, 2 * j, ())
    return out


def _golf_positions() -> list[Position]:
    """Seven columns of five, all face up, numbered row by row; row r covers row r-1."""
    columns, depth = 7, 5
    return [
        Position(
            index=r * columns + c,
            row=r,
            x=2 * c,
            covered_by=((r + 1) * columns + c,) if r + 1 < depth else (),
            face_up=True,
        )
        for r in range(depth)
        for c in range(columns)
    ]


TRIPEAKS = Layout(
    name="tripeaks",
    title="TriPeaks",
    decks=1,
    positions=tuple(_tripeaks_positions()),
    description="Three overlapping peaks of 28 cards; the bottom row of 10 dealt face up.",
)

SIX_PEAKS = Layout(
    name="six_peaks",
    title="Six Peaks (Double TriPeaks)",
    decks=2,
    positions=tuple(_tripeaks_positions() + _tripeaks_positions(offset=28, x0=21)),
    description="Two classic tables side by side, 56 cards, played with two decks.",
)

GOLF = Layout(
    name="golf",
    title="Golf",
    decks=1,
    positions=tuple(_golf_positions()),
    defaults=(("scoring", "cards_left"), ("wrap", False)),
    description="Seven columns of five, all face up; only the bottom card of a column is free.",
)

LAYOUTS: dict[str, Layout] = {lay.name: lay for lay in (TRIPEAKS, SIX_PEAKS, GOLF)}


def get_layout(name: str) -> Layout:
    try:
        return LAYOUTS[name]
    except (KeyError, TypeError):  # TypeError: an unhashable name from untrusted data
        raise LayoutError(
            f"unknown layout {name!r}: expected one of {', '.join(sorted(LAYOUTS))}"
        ) from None
