"""The import graph of ``app``: no circles, and domains that meet only through services.

Every ``import`` in every module of ``app`` counts, those inside functions included (a
function-level import is how a circle usually hides). The rules:

- no module reaches itself again by following imports (no circle, however long);
- a domain (``app.games``, ``app.layouts``, ...) may import from another domain only that
  domain's ``service`` module;
- ``app.kit`` and ``app.engine`` import no domain (they are the floors domains stand on),
  and ``app.engine`` imports nothing of ``app`` outside itself.
"""

from __future__ import annotations

import ast
from pathlib import Path

import app

APP_DIR = Path(app.__file__).parent
DOMAINS = ("games", "layouts", "players", "challenges")


def _module_name(path: Path) -> str:
    parts = path.relative_to(APP_DIR.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(APP_DIR.rglob("*.py"))}


def _resolve(name: str) -> str | None:
    """The module of ``app`` that ``name`` (a module, or a name inside one) refers to."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _imports(module: str) -> set[str]:
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            # "from app.games import service" names a module; "from x import Name" a name.
            names = [f"{base}.{alias.name}" for alias in node.names] or [base]
        else:
            continue
        for name in names:
            target = _resolve(name)
            if target is not None and target != module:
                found.add(target)
    return found


GRAPH = {module: _imports(module) for module in MODULES}


def _domain(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in DOMAINS else None


def test_the_graph_sees_the_packages() -> None:
    assert {"app.games.service", "app.games.endpoints", "app.kit.problems"} <= set(MODULES)
    assert "app.games.service" in GRAPH["app.games.endpoints"]


def test_no_module_imports_itself_through_others() -> None:
    # Tarjan's strongly connected components: any component of two or more is a circle.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in GRAPH[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for module in GRAPH:
        if module not in index:
            visit(module)
    assert circles == [], f"import circles: {circles}"


def test_domains_reach_each_other_only_through_their_services() -> None:
    wrong = [
        f"{module} imports {target}"
        for module, targets in GRAPH.items()
        for target in targets
        if (source := _domain(module)) is not None
        and (other := _domain(target)) is not None
        and source != other
        and target != f"app.{other}.service"
    ]
    assert wrong == []


def test_the_floors_import_no_domain() -> None:
    wrong = [
        f"{module} imports {target}"
        for module, targets in GRAPH.items()
        if module.startswith(("app.kit", "app.engine"))
        for target in targets
        if _domain(target) is not None
        or (module.startswith("app.engine") and not target.startswith("app.engine"))
    ]
    assert wrong == []
