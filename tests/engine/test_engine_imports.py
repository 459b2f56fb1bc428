"""The engine imports nothing outside the standard library (and itself)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import app.engine

ENGINE_DIR = Path(app.engine.__file__).parent
MODULES = sorted(ENGINE_DIR.rglob("*.py"))


def _imported_modules(path: Path) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(alias.name, 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            out.append((node.module or "", node.level))
    return out


def test_there_are_engine_modules() -> None:
    names = {p.stem for p in MODULES}
    assert {"cards", "deals", "game", "layouts", "moves", "rules", "scoring", "view"} <= names


def test_engine_imports_only_the_standard_library() -> None:
    for path in MODULES:
        for module, level in _imported_modules(path):
            if level > 0:  # a relative import stays inside app.engine
                continue
            top = module.split(".")[0]
            allowed = (
                top in sys.stdlib_module_names
                or module == "app.engine"
                or module.startswith("app.engine.")
            )
            assert allowed, f"{path.name} imports {module}, which is not in the standard library"
