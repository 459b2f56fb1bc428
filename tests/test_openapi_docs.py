"""The committed contract documents itself: every field and parameter is described, and
every example validates against the schema it illustrates.

The walk covers schema ``examples`` (a list) and ``example`` (one), a media type's and a
parameter's ``example`` and named ``examples``, wherever they sit in
``openapi/openapi.json``; ``$ref``s resolve inside the spec itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from app.openapi import SPEC_PATH

SPEC_URI = "urn:tripeaks:openapi"
SPEC: dict[str, Any] = json.loads(SPEC_PATH.read_text(encoding="utf-8"))
REGISTRY: Registry[Any] = Registry().with_resource(
    SPEC_URI, Resource.from_contents(SPEC, default_specification=DRAFT202012)
)
# Keys under which a schema holds schemas, not data: walked into; every other key of a
# schema (enum, default, examples, ...) holds data and is not.
SCHEMA_MAPS = ("properties", "$defs", "patternProperties")
SCHEMA_LISTS = ("anyOf", "allOf", "oneOf", "prefixItems")
SCHEMA_ONES = ("items", "additionalProperties", "not", "contains", "if", "then", "else")


def _pointer(path: tuple[str, ...]) -> str:
    return "/" + "/".join(p.replace("~", "~0").replace("/", "~1") for p in path)


def _schema_examples(schema: Any, path: tuple[str, ...]) -> Iterator[tuple[str, str, Any]]:
    """(where, pointer of the schema, example) for every example in ``schema``."""
    if not isinstance(schema, dict):
        return
    for i, example in enumerate(schema.get("examples", [])):
        yield f"{_pointer(path)}/examples/{i}", _pointer(path), example
    if "example" in schema:
        yield f"{_pointer(path)}/example", _pointer(path), schema["example"]
    for key in SCHEMA_MAPS:
        for name, sub in schema.get(key, {}).items():
            yield from _schema_examples(sub, (*path, key, name))
    for key in SCHEMA_LISTS:
        for i, sub in enumerate(schema.get(key, [])):
            yield from _schema_examples(sub, (*path, key, str(i)))
    for key in SCHEMA_ONES:
        if key in schema:
            yield from _schema_examples(schema[key], (*path, key))


def _holder_examples(holder: Any, path: tuple[str, ...]) -> Iterator[tuple[str, str, Any]]:
    """Examples of a media type or a parameter (against its ``schema``), and its schema's."""
    if not isinstance(holder, dict) or "schema" not in holder:
        return
    schema_path = (*path, "schema")
    if "example" in holder:
        yield f"{_pointer(path)}/example", _pointer(schema_path), holder["example"]
    for name, example in holder.get("examples", {}).items():
        if "value" in example:
            where = f"{_pointer(path)}/examples/{name}"
            yield where, _pointer(schema_path), example["value"]
    yield from _schema_examples(holder["schema"], schema_path)


def all_examples() -> list[tuple[str, str, Any]]:
    found: list[tuple[str, str, Any]] = []
    for name, schema in SPEC["components"]["schemas"].items():
        found += _schema_examples(schema, ("components", "schemas", name))
    for route, item in SPEC["paths"].items():
        for method, op in item.items():
            base = ("paths", route, method)
            for i, parameter in enumerate(op.get("parameters", [])):
                found += _holder_examples(parameter, (*base, "parameters", str(i)))
            for media, holder in op.get("requestBody", {}).get("content", {}).items():
                found += _holder_examples(holder, (*base, "requestBody", "content", media))
            for status, response in op.get("responses", {}).items():
                for media, holder in response.get("content", {}).items():
                    where = (*base, "responses", status, "content", media)
                    found += _holder_examples(holder, where)
                for header, spec in response.get("headers", {}).items():
                    found += _holder_examples(spec, (*base, "responses", status, "headers", header))
    return found


EXAMPLES = all_examples()


def test_the_contract_has_examples_of_bodies_and_answers() -> None:
    where = {w for w, _, _ in EXAMPLES}
    for schema in ("MoveCreate", "PlayCreate", "GameRead", "GameCreated"):
        assert any(w.startswith(f"/components/schemas/{schema}/examples/") for w in where), schema
    create = SPEC["paths"]["/v1/games"]["post"]["requestBody"]["content"]["application/json"]
    assert len(create["examples"]) >= 5


@pytest.mark.parametrize(("where", "schema", "example"), EXAMPLES, ids=[w for w, _, _ in EXAMPLES])
def test_example_validates_against_its_schema(where: str, schema: str, example: Any) -> None:
    validator = Draft202012Validator({"$ref": f"{SPEC_URI}#{schema}"}, registry=REGISTRY)
    errors = [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in validator.iter_errors(example)
    ]
    assert not errors, f"{where} does not fit {schema}: {errors[:3]}"


def test_a_wrong_example_is_caught() -> None:
    """The check can fail: a game state without its token is no GameCreated."""
    validator = Draft202012Validator(
        {"$ref": f"{SPEC_URI}#/components/schemas/GameCreated"}, registry=REGISTRY
    )
    game = SPEC["components"]["schemas"]["GameRead"]["examples"][0]
    assert not validator.is_valid(game)
    assert validator.is_valid({**game, "token": "t"})


def test_every_field_and_parameter_is_described() -> None:
    undescribed = []
    for name, schema in SPEC["components"]["schemas"].items():
        for field, spec in schema.get("properties", {}).items():
            if not spec.get("description"):
                undescribed.append(f"{name}.{field}")
    for route, item in SPEC["paths"].items():
        for method, op in item.items():
            for parameter in op.get("parameters", []):
                if not parameter.get("description"):
                    undescribed.append(f"{method.upper()} {route} {parameter['name']}")
    assert not undescribed, f"no description: {undescribed}"
