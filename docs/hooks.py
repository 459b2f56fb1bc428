"""MkDocs hooks (mkdocs.yml): the problem catalogue of docs/api/problems.md, made from the
committed spec's ``x-problem-types`` while the site is built, so that it is never kept by
hand. ``problem_table`` is what the tests check too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SPEC = Path(__file__).resolve().parents[1] / "openapi" / "openapi.json"
MARKER = "<!-- problem-types -->"


def problem_table(spec: dict[str, Any]) -> str:
    """Every problem type of ``spec``: its type, status, title and when it is sent, and its
    schema's name where a route declares it."""
    rows = ["| `type` | status | title | sent when | schema |", "|---|---|---|---|---|"]
    for kind in spec["x-problem-types"]:
        schema = kind.get("schema", "").rsplit("/", 1)[-1]
        cells = [
            f"`{kind['type']}`",
            str(kind["status"]),
            kind["title"],
            kind["when"].replace("|", "\\|"),
            f"`{schema}`" if schema else "(at the edges)",
        ]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    if MARKER not in markdown:
        return markdown
    spec = json.loads(SPEC.read_text(encoding="utf-8"))
    return markdown.replace(MARKER, problem_table(spec))
