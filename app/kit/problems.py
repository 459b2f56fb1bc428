"""RFC 9457 problem responses: every error the server answers is one of these."""

from __future__ import annotations

import logging
import re
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, Union

import psycopg
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import Field, create_model
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.kit.database import DatabaseTimeoutError
from app.kit.errors import (
    PROBLEM_BASE,
    InternalProblem,
    MethodNotAllowedProblem,
    NotFoundProblem,
    ProblemError,
    ServiceUnavailableProblem,
    ValidationProblem,
)
from app.kit.logs import current_request_id
from app.kit.schemas import Problem

PROBLEM_JSON = "application/problem+json"
log = logging.getLogger("app.problems")


def problem_json(
    problem: ProblemError, instance: str | None, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    """The problem as an answer: from a handler, from a middleware before or around the
    app, or written by the server itself for a request that never reached the app."""
    body: dict[str, Any] = {
        "type": problem.type_uri(),
        "title": problem.title,
        "status": problem.status,
        "detail": problem.detail,
        **({"instance": instance} if instance is not None else {}),
        **problem.extensions,
    }
    return JSONResponse(
        body,
        status_code=problem.status,
        media_type=PROBLEM_JSON,
        headers={**problem.headers, **(headers or {})},
    )


def problem_response(
    request: Request, problem: ProblemError, headers: dict[str, str] | None = None
) -> JSONResponse:
    extra = {"X-Request-ID": rid} if (rid := current_request_id()) else {}
    return problem_json(problem, request.url.path, {**(headers or {}), **extra})


_UNAVAILABLE = (
    DatabaseTimeoutError,  # no answer within DB_TIMEOUT_S
    OperationalError,  # sqlalchemy: server gone, connection refused, lock timeout...
    InterfaceError,
    PoolTimeoutError,
    psycopg.OperationalError,
    sqlite3.OperationalError,  # database is locked, or no such table (not migrated yet)
    # PostgreSQL's "not migrated yet" (a replica serving before its migration has run)
    psycopg.errors.UndefinedTable,
    psycopg.errors.UndefinedColumn,
)


def database_unavailable(exc: BaseException) -> bool:
    """True when ``exc``, or an error it was raised from, says the database is away
    (a lost or refused connection, a pool timeout, a lock timeout, a schema not migrated
    yet): a 503, not a 500."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, DBAPIError) and current.connection_invalidated:
            return True
        if isinstance(current, _UNAVAILABLE):
            return True
        current = current.__cause__ or current.__context__
    return False


def _unavailable(request: Request, exc: BaseException) -> JSONResponse:
    log.warning("database unavailable: %s", type(exc).__name__)
    return problem_response(
        request, ServiceUnavailableProblem("the database is unavailable; retry shortly")
    )


_SCHEMAS: dict[str, type[Problem]] = {}


def problem_schema(kind: type[ProblemError]) -> type[Problem]:
    """The schema of one problem type: ``type`` fixed to its URI, and its extension
    members (``kind.members``), named after the class (``IllegalMoveProblem``)."""
    known = _SCHEMAS.get(kind.type_uri())
    if known is not None:
        return known
    fields: dict[str, Any] = {
        "type": (Literal[kind.type_uri()], Field(description="This kind of problem")),
        **kind.members,
    }
    example: dict[str, Any] = {
        "type": kind.type_uri(),
        "title": kind.title,
        "status": kind.status,
        "detail": kind.example_detail or kind.title,
        "instance": "/v1/games/abc123",
    }
    for name, (_, field) in kind.members.items():
        if getattr(field, "examples", None):
            example[name] = field.examples[0]
    doc = f"{kind.title} (`{kind.type_uri()}`, {kind.status}): sent when {kind.when}."
    model: type[Problem] = create_model(
        kind.__name__,
        __base__=Problem,
        __doc__=doc,
        **fields,
    )
    model.model_config["json_schema_extra"] = {"example": example}
    _SCHEMAS[kind.type_uri()] = model
    return model


def problem_model(kinds: Sequence[type[ProblemError]]) -> Any:
    """The schema of an answer that may carry any of ``kinds``: the one, or a union of
    them told apart by ``type`` (an OpenAPI discriminator)."""
    if len(kinds) == 1:
        return problem_schema(kinds[0])
    union: Any = Union[tuple(problem_schema(k) for k in kinds)]  # noqa: UP007 - built at run time
    return Annotated[union, Field(discriminator="type")]


def problem_responses(*problems: type[ProblemError]) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses=`` entries declaring problem+json for each kind of problem a
    route raises, one entry a status naming every problem type it may carry."""
    by_status: dict[int, list[type[ProblemError]]] = {}
    for problem in problems:
        kinds = by_status.setdefault(problem.status, [])
        if problem not in kinds:
            kinds.append(problem)
    # FastAPI files the model's schema under application/json; the empty problem+json
    # entry marks the response for _problem_media_type, which moves the schema there.
    out: dict[int | str, dict[str, Any]] = {}
    for status, kinds in sorted(by_status.items()):
        entry: dict[str, Any] = {
            "model": problem_model(kinds),
            "description": "; ".join(f"{p.title} (`{p.type_uri()}`)" for p in kinds),
            "content": {PROBLEM_JSON: {}},
        }
        headers = {name: h for p in kinds for name, h in p.response_headers.items()}
        if headers:
            entry["headers"] = headers
        out[status] = entry
    return out


def _problem_media_type(spec: dict[str, Any]) -> dict[str, Any]:
    """Declare problem responses as what they are: application/problem+json with the
    Problem schema (and not application/json, which the server never sends for them), so
    that generated clients parse them into a typed Problem."""
    for item in spec.get("paths", {}).values():
        for operation in item.values():
            if not isinstance(operation, dict):
                continue
            for response in operation.get("responses", {}).values():
                content = response.get("content", {})
                if PROBLEM_JSON in content and "application/json" in content:
                    content[PROBLEM_JSON] = content.pop("application/json")
    return spec


def problem_types(base: type[ProblemError] = ProblemError) -> list[type[ProblemError]]:
    """Every kind of problem the server may send (each subclass of ``base`` the app's
    modules define), by status, then type."""
    found: set[type[ProblemError]] = set()
    for sub in base.__subclasses__():
        found |= {sub, *problem_types(sub)}
    return sorted(found, key=lambda kind: (kind.status, kind.type_uri()))


def _problem_catalogue(spec: dict[str, Any]) -> dict[str, Any]:
    """``x-problem-types``: every problem type the server sends, with its status and when
    it is sent, whether or not a route declares it (some come from the edges: a body
    too large, a method not allowed), and its schema where the spec has one."""
    schemas = spec.get("components", {}).get("schemas", {})
    spec["x-problem-types"] = [
        {
            "type": kind.type_uri(),
            "status": kind.status,
            "title": kind.title,
            "when": kind.when,
            **(
                {"schema": f"#/components/schemas/{kind.__name__}"}
                if kind.__name__ in schemas
                else {}
            ),
        }
        for kind in problem_types()
    ]
    return spec


def install_problem_openapi(app: FastAPI) -> None:
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        return _problem_catalogue(_problem_media_type(generate()))

    app.openapi = openapi  # type: ignore[method-assign]


# A 422 lists at most this many of the parts refused, and counts the rest (``more_errors``),
# and says at most MAX_ECHOED characters of each name the client chose (a key in ``loc``):
# an answer that grows with what the client sent would amplify it.
MAX_ERRORS_LISTED = 20
MAX_ECHOED = 64


def echoed(text: str) -> str:
    """``text``, from the request, as an answer may say it: cut to ``MAX_ECHOED``
    characters, the cut marked."""
    return text if len(text) <= MAX_ECHOED else text[: MAX_ECHOED - 1] + "…"


def _validation_errors(errors: Sequence[Any]) -> list[dict[str, Any]]:
    out = []
    for err in errors[:MAX_ERRORS_LISTED]:
        out.append(
            {
                "loc": [echoed(str(p)) for p in err.get("loc", ())],
                "msg": str(err.get("msg", "")),  # the server's words, not the client's
                "type": str(err.get("type", "")),
            }
        )
    return out


HTTP_METHODS = frozenset({"get", "put", "post", "delete", "options", "head", "patch", "trace"})


def _allowed_methods(request: Request) -> str:
    """Every method the API serves at this path, from its OpenAPI paths (the framework
    names only those of the one route that refused the request). A path the spec names
    as it is (``/v1/challenges/daily``) is that resource alone, not also one of a template
    it happens to fit (``/v1/challenges/{challenge_id}``: no challenge has that id)."""
    table: list[tuple[re.Pattern[str], bool, set[str]]] | None = getattr(
        request.app.state, "allow_table", None
    )
    if table is None:
        table = []
        for template, item in request.app.openapi()["paths"].items():
            pieces = re.split(r"\{[^/{}]+\}", template)
            pattern = re.compile("^" + "[^/]+".join(re.escape(p) for p in pieces) + "$")
            methods = {m.upper() for m in item if m in HTTP_METHODS}
            if "GET" in methods:
                methods.add("HEAD")
            table.append((pattern, len(pieces) == 1, methods))
        request.app.state.allow_table = table
    path = request.url.path
    matches = [(literal, methods) for pattern, literal, methods in table if pattern.match(path)]
    if any(literal for literal, _ in matches):
        matches = [(literal, methods) for literal, methods in matches if literal]
    return ", ".join(sorted(set().union(*(methods for _, methods in matches))))


def install_problem_handlers(app: FastAPI) -> None:
    install_problem_openapi(app)

    @app.exception_handler(ProblemError)
    async def _problem(request: Request, exc: ProblemError) -> JSONResponse:
        return problem_response(request, exc)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        refused = exc.errors()
        errors = _validation_errors(refused)
        first = errors[0] if errors else {"loc": [], "msg": "invalid request"}
        where = ".".join(first["loc"])
        message = str(first["msg"])
        detail = f"{where}: {message}" if where else message
        more = len(refused) - len(errors)
        problem = ValidationProblem(detail, errors=errors)
        loc = first["loc"]
        if len(loc) >= 3 and loc[:2] == ["body", "rules"]:
            # A rule option refused by its type or bounds, or unknown: named as a refused
            # combination names it (docs/rules.md).
            problem.extensions["option"] = loc[2]
        if more > 0:
            problem.extensions["more_errors"] = more
        return problem_response(request, problem)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        problem: ProblemError
        headers = dict(exc.headers or {})
        if exc.status_code == 404:
            problem = NotFoundProblem(f"no resource at {request.url.path}")
        elif exc.status_code == 405:
            problem = MethodNotAllowedProblem(f"{request.method} is not allowed here")
            headers["Allow"] = _allowed_methods(request) or headers.get("Allow", "")
        elif exc.status_code == 400:
            # The framework could not read the body (not UTF-8, say): an invalid request,
            # answered as every other invalid request is.
            problem = ValidationProblem(
                f"the request body could not be read: {exc.detail}", loc=("body",)
            )
        else:
            problem = ProblemError(str(exc.detail))
            problem.status = exc.status_code  # type: ignore[misc]
        return problem_response(request, problem, headers)

    @app.exception_handler(DatabaseTimeoutError)
    @app.exception_handler(OperationalError)
    @app.exception_handler(PoolTimeoutError)
    async def _database_down(request: Request, exc: Exception) -> JSONResponse:
        return _unavailable(request, exc)

    @app.exception_handler(DBAPIError)
    async def _database_error(request: Request, exc: DBAPIError) -> JSONResponse:
        if database_unavailable(exc):
            return _unavailable(request, exc)
        log.error("database error: %s", type(exc.orig).__name__, exc_info=exc)
        return problem_response(request, InternalProblem("an unexpected database error"))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        if database_unavailable(exc):  # e.g. psycopg's own error, or one raised from it
            return _unavailable(request, exc)
        log.exception("unhandled error")
        return problem_response(request, InternalProblem("an unexpected error; it was logged"))


__all__ = [
    "PROBLEM_BASE",
    "PROBLEM_JSON",
    "database_unavailable",
    "echoed",
    "install_problem_handlers",
    "problem_json",
    "problem_responses",
]
