"""No measured figures in the code: they rot there. A docstring keeps the rule and why it
holds; what was measured (a size in memory, a speed-up, a time or a share to the decimal,
a rate) goes to docs/ with the bench command that measures it again (the house style:
"Figures belong in docs/performance.md, not in code comments").

This check reads the comments and docstrings of ``app/`` (Python, and the C sources'
comments) for such figures: a size in KB, MB or GB; a share or a time with decimals
(``58.2%``, ``0.35 s``); a speed-up (``3x faster``, ``ten times``: by digits); a rate
(``1,200 req/s``). A rule's own numbers (``at most 100 ms``, ``95%``, ``2^23 slots``)
pass. Run by ``make lint``: ``python -m tools.no_figures [ROOT]`` prints each figure found
and exits 1 when there is one.
"""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

FIGURE = re.compile(
    r"\b\d+(?:[.,]\d+)?\s?(?:[KMGT]i?B|kB)\b"  # a size
    r"|\b\d+\.\d+\s?%"  # a share to the decimal
    r"|\b\d+\.\d+\s?(?:ns|µs|us|ms|s|seconds?|minutes?)\b"  # a time to the decimal
    r"|\b\d+(?:\.\d+)?\s?(?:x|×|times)\s(?:faster|slower|quicker|as fast|the speed)"
    r"|\b\d[\d,.]*\s?(?:req/s|requests/s|ops/s|nodes/s|games/s)",  # a rate
    re.IGNORECASE,
)
# Files that still hold a figure, each with the reason. Empty is the aim.
KNOWN: dict[str, str] = {
    "app/games/service.py": "the state cache's sizes: issue 49 reworks app/games",
}
_C_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Figure:
    path: str
    line: int
    text: str

    def __str__(self) -> str:
        return (
            f"{self.path}:{self.line}: {self.text!r} is a measured figure: keep the rule "
            "here, the figure in docs/ with the bench command that measures it"
        )


def _python_prose(source: str) -> list[tuple[int, str]]:
    """The comments and docstrings of a Python module: (first line, text)."""
    prose = [
        (token.start[0], token.string)
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body
        ):
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                prose.append((first.lineno, first.value.value))
    return prose


def _c_prose(source: str) -> list[tuple[int, str]]:
    """The comments of a C source: (first line, text)."""
    return [(source.count("\n", 0, m.start()) + 1, m.group()) for m in _C_COMMENT.finditer(source)]


def check(root: Path) -> list[Figure]:
    """Every measured figure in the prose of ``root``'s app/."""
    found = []
    for path in sorted((root / "app").rglob("*")):
        if path.suffix not in (".py", ".c", ".h") or "__pycache__" in path.parts:
            continue
        name = path.relative_to(root).as_posix()
        if name in KNOWN:
            continue
        source = path.read_text(encoding="utf-8")
        prose = _python_prose(source) if path.suffix == ".py" else _c_prose(source)
        for line, text in prose:
            for match in FIGURE.finditer(text):
                at = line + text.count("\n", 0, match.start())
                found.append(Figure(name, at, match.group()))
    return found


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else Path()
    figures = check(root)
    for figure in figures:
        print(figure)
    return 1 if figures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
