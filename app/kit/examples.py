"""Examples in the OpenAPI spec exactly as the schemas give them, nulls included.

FastAPI writes its spec with ``exclude_none``, which also drops every ``null`` inside the
examples a model declares (``json_schema_extra={"examples": [...]}``): a face-down card's
``"card": null`` would vanish, and the example would no longer fit its own schema (the
field is required). This puts each model's declared examples back as written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel


def _models(base: type[BaseModel] = BaseModel) -> Iterator[type[BaseModel]]:
    for sub in base.__subclasses__():
        yield sub
        yield from _models(sub)


def declared_examples() -> dict[str, list[Any]]:
    """Each model's own declared examples, by model name (a name two models share with
    different examples is left out: its component could be either)."""
    found: dict[str, list[Any]] = {}
    clashes: set[str] = set()
    for model in _models():
        extra = model.model_config.get("json_schema_extra")
        if not isinstance(extra, dict) or "examples" not in extra:
            continue
        examples = extra["examples"]
        if not isinstance(examples, list):
            continue
        name = model.__name__
        if name in found and found[name] != examples:
            clashes.add(name)
        found[name] = examples
    return {name: examples for name, examples in found.items() if name not in clashes}


def keep_example_nulls(app: FastAPI) -> None:
    """Wrap ``app.openapi`` so that component schemas carry their models' examples whole."""
    generate: Callable[[], dict[str, Any]] = app.openapi

    def openapi() -> dict[str, Any]:
        spec = generate()
        schemas = spec.get("components", {}).get("schemas", {})
        for name, examples in declared_examples().items():
            if name in schemas and "examples" in schemas[name]:
                schemas[name]["examples"] = examples
        return spec

    app.openapi = openapi  # type: ignore[method-assign]
