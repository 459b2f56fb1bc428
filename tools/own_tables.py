"""Each domain's repositories query its own tables: another domain's data comes through
that domain's service (the house style: "A domain's repository queries its own tables").

The import contracts (``lint-imports``) see a model imported from another domain, but not a
table named in SQL (``table("players", ...)``, ``text("SELECT ... FROM games")``). This
check reads every domain's ``models.py`` for the tables it declares (``__tablename__``),
then every module of a domain whose name ends in ``repository`` for another domain's
table named: the first argument of a ``table(...)`` or ``Table(...)`` call, or SQL in a
string that reads one (``FROM``, ``JOIN``, ``INTO``, ``UPDATE`` followed by its name).
Docstrings are prose and are not read. Run by ``make lint``:
``python -m tools.own_tables [ROOT]`` prints each violation and exits 1 when there is one.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

# Repositories that still read another domain's table, each with the reason. Empty is the
# aim: a line here is a debt, not a permission. The players' retention deletes idle
# accounts in one statement whose NOT EXISTS re-checks idleness under the rows' locks;
# asked through the services (players may not import the challenges' service: the import
# contracts forbid the cycle) it becomes a read, then a delete that can race; the games'
# read waits on issue 49, which reworks app/games.
KNOWN: dict[tuple[str, str], str] = {
    ("app/games/repository.py", "challenges"): (
        "a deal's challenge window, read with the game (issue 49 reworks app/games)"
    ),
    ("app/players/repository.py", "challenge_entries"): (
        "retention: an idle player has no entry, checked in the statement that deletes"
    ),
    ("app/players/repository.py", "games"): (
        "retention: an idle player has no recent game, checked in the statement that deletes"
    ),
}
_SQL = r"\b(?:from|join|into|update)\s+[\"`]?{name}\b"


@dataclass(frozen=True, slots=True)
class Violation:
    path: str
    line: int
    domain: str
    table: str
    owner: str

    def __str__(self) -> str:
        return (
            f"{self.path}:{self.line}: the {self.domain} domain's repository names the "
            f"{self.owner} domain's table {self.table!r}: read it through "
            f"app.{self.owner}.service"
        )


def _tables(models: Path) -> set[str]:
    """The ``__tablename__`` values a models module declares."""
    names = set()
    for node in ast.walk(ast.parse(models.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == "__tablename__":
                    names.add(str(node.value.value))
    return names


def owners(app: Path) -> dict[str, str]:
    """Each domain's tables: table name -> domain (a package of ``app`` with models)."""
    owned = {}
    for models in sorted(app.glob("*/models.py")):
        domain = models.parent.name
        if domain == "kit":  # what every domain shares is nobody's to guard
            continue
        for name in _tables(models):
            owned[name] = domain
    return owned


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and its functions."""
    found = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body
        ):
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _named_tables(tree: ast.AST) -> set[int]:
    """The ids of the string nodes that name a table: ``table("name", ...)``,
    ``Table("name", ...)`` (called by any path: ``sa.table``)."""
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in ("table", "Table") and isinstance(node.args[0], ast.Constant):
            found.add(id(node.args[0]))
    return found


def check(root: Path) -> list[Violation]:
    """Every string in a domain's repository modules that names another domain's table."""
    app = root / "app"
    owned = owners(app)
    found = []
    for module in sorted(app.glob("*/*repository*.py")):
        domain = module.parent.name
        path = module.relative_to(root).as_posix()
        tree = ast.parse(module.read_text(encoding="utf-8"))
        prose = _docstrings(tree)
        named = _named_tables(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
                continue
            if id(node) in prose:
                continue
            for table, owner in owned.items():
                if owner == domain or (path, table) in KNOWN:
                    continue
                text = node.value
                sql = re.search(_SQL.format(name=re.escape(table)), text, re.IGNORECASE)
                if (id(node) in named and text == table) or sql:
                    found.append(Violation(path, node.lineno, domain, table, owner))
    return found


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else Path()
    violations = check(root)
    for violation in violations:
        print(violation)
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
