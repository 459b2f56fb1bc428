"""The layouts use cases: the engine's layouts, which are data (no table holds them)."""

from __future__ import annotations

from app import engine
from app.kit.errors import NotFoundProblem


def list_layouts() -> list[engine.Layout]:
    return list(engine.LAYOUTS.values())


def get_layout(name: str) -> engine.Layout:
    layout = engine.LAYOUTS.get(name)
    if layout is None:
        raise NotFoundProblem(f"no layout {name!r}; see list_layouts")
    return layout
