"""MkDocs hooks (mkdocs.yml): the API reference's tables, made from the committed spec while
the site is built, so that they are never kept by hand: every operation
(docs/api/index.md) and every problem type, from the spec's ``x-problem-types``
(docs/api/problems.md). The tests check the same functions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SPEC = Path(__file__).resolve().parents[1] / "openapi" / "openapi.json"
MARKER = "<!-- problem-types -->"
OPERATIONS = "<!-- operations -->"
METHODS = ("get", "post", "put", "patch", "delete")


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


def operation_table(spec: dict[str, Any]) -> str:
    """Every operation of ``spec``, in the spec's order: its id, method and path, summary,
    and the statuses it answers."""
    rows = ["| operation | call | what | answers |", "|---|---|---|---|"]
    for path, item in spec["paths"].items():
        for method in METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            statuses = ", ".join(sorted(operation["responses"]))
            cells = [
                f"`{operation['operationId']}`",
                f"`{method.upper()} {path}`",
                operation.get("summary", ""),
                statuses,
            ]
            rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    if MARKER not in markdown and OPERATIONS not in markdown:
        return markdown
    spec = json.loads(SPEC.read_text(encoding="utf-8"))
    markdown = markdown.replace(OPERATIONS, operation_table(spec))
    return markdown.replace(MARKER, problem_table(spec))
