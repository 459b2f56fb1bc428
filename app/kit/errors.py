"""The service's errors: one base carrying its HTTP status and RFC 9457 problem type.

Services raise these; one handler in ``app.kit.problems`` turns them into
``application/problem+json``. Messages never carry a hidden card, a token or a seed.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, Field

PROBLEM_BASE = "/problems/"

# An extension member of a problem type, as pydantic's create_model takes a field: its
# type and its Field (a description; a default of None when it is not always sent).
Member = tuple[Any, Any]


class ValidationErrorItem(BaseModel):
    """One refused part of a request."""

    loc: list[str] = Field(
        description='Where: ["body", "rules", "wrap"], ["query", "limit"], ["header", '
        '"if-match"]; empty when the request as a whole was refused',
        examples=[["body", "rules", "king_stops"]],
    )
    msg: str = Field(description="Why, in words")
    type: str = Field(
        description='A stable code: "missing", "int_parsing", "rule_conflict"...',
        examples=["rule_conflict"],
    )


class ProblemError(Exception):
    status: ClassVar[int] = 400
    slug: ClassVar[str] = "bad-request"
    title: ClassVar[str] = "Bad request"
    # The headers this kind of problem is answered with, as OpenAPI header objects.
    response_headers: ClassVar[dict[str, dict[str, Any]]] = {}
    # Its extension members beside type, title, status, detail and instance: each
    # problem type has a schema of its own in the OpenAPI (app.kit.problems).
    members: ClassVar[dict[str, Member]] = {}
    # A detail for the example in its schema (by default its title).
    example_detail: ClassVar[str] = ""
    # When the server sends it, in words: the spec's catalogue of problem types
    # (``x-problem-types``) says it, and the docs' catalogue is made from that.
    when: ClassVar[str] = ""

    def __init__(self, detail: str, **extensions: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extensions = extensions
        self.headers: dict[str, str] = {}

    @classmethod
    def type_uri(cls) -> str:
        return PROBLEM_BASE + cls.slug


class UnauthorizedProblem(ProblemError):
    status = 401
    slug = "unauthorized"
    when = (
        "a call that needs a credential (a game's, `/v1/players/me…`, "
        "`start_challenge_game`, `around=me`) without one, or with a malformed one "
        "(`WWW-Authenticate: Bearer`)"
    )
    title = "Missing or malformed player token"
    response_headers: ClassVar[dict[str, dict[str, Any]]] = {
        "WWW-Authenticate": {
            "description": "The scheme to use: Bearer",
            "schema": {"type": "string", "example": 'Bearer realm="tripeaks"'},
        }
    }

    def __init__(self, detail: str, **extensions: Any) -> None:
        super().__init__(detail, **extensions)
        self.headers["WWW-Authenticate"] = 'Bearer realm="tripeaks"'


class MetricsUnauthorizedProblem(ProblemError):
    status = 401
    slug = "metrics-unauthorized"
    when = "`/metrics` without the right `METRICS_TOKEN`, when one is set"
    title = "Missing or wrong metrics token"

    def __init__(self, detail: str, **extensions: Any) -> None:
        super().__init__(detail, **extensions)
        self.headers["WWW-Authenticate"] = 'Bearer realm="metrics"'


class ForbiddenProblem(ProblemError):
    status = 403
    slug = "forbidden"
    when = "the token or player key does not open this game"
    title = "Wrong player token"


class NotFoundProblem(ProblemError):
    status = 404
    slug = "not-found"
    when = "no such game, player, layout, challenge (a past day nobody played) or path"
    title = "Not found"


class MethodNotAllowedProblem(ProblemError):
    status = 405
    slug = "method-not-allowed"
    when = "a method the path does not serve (`Allow` lists those it does)"
    title = "Method not allowed"


class PayloadTooLargeProblem(ProblemError):
    status = 413
    slug = "payload-too-large"
    when = "a body over `MAX_BODY_BYTES`, however it is framed"
    title = "Request body too large"


class RequestTimeoutProblem(ProblemError):
    status = 408
    slug = "request-timeout"
    when = (
        "a body that has not all arrived `BODY_TIMEOUT_S` after its head; the connection is closed"
    )
    title = "Request timeout"


class HeadersTooLargeProblem(ProblemError):
    status = 431
    slug = "headers-too-large"
    when = "a request head over `MAX_HEADER_BYTES`; the connection is closed"
    title = "Request header fields too large"


class ValidationProblem(ProblemError):
    """Every 422 has one shape: ``errors`` lists what was refused, each with where
    (``loc``), why (``msg``) and a stable ``type``, whether the framework refused the
    request's shape or the service refused its meaning."""

    status = 422
    slug = "validation"
    when = (
        "a body, path or query the schema refuses (`errors`); a refused rule option or "
        "combination (`option`, docs/rules.md); a deal that is not a deck; `deal` with "
        "`deal_number`, or either with `winnable_only`; a legal-move object whose fields "
        "disagree with its `move`; a cursor the server did not give; a body that is not "
        "JSON, names a key twice, holds an object of more than 64 keys or more than 16 "
        "objects (at most 20 `errors` listed, the rest counted in `more_errors`)"
    )
    title = "Invalid request"
    example_detail = "king_stops: needs wrap off (a king stops a streak only without wrap)"
    members: ClassVar[dict[str, Member]] = {
        "errors": (
            list[ValidationErrorItem],
            Field(
                description="Each part of the request that was refused (at least one)",
                examples=[
                    [
                        {
                            "loc": ["body", "rules", "king_stops"],
                            "msg": "needs wrap off",
                            "type": "rule_conflict",
                        }
                    ]
                ],
            ),
        ),
        "more_errors": (
            int | None,
            Field(
                None,
                description="How many more parts of the request were refused than errors "
                "lists (it lists at most 20), when there were more",
            ),
        ),
        "option": (
            str | None,
            Field(None, description="The rule option refused, when one was (rules' conflicts)"),
        ),
        "position": (
            int | None,
            Field(None, description="The tableau position whose card did not match, if any"),
        ),
    }

    def __init__(
        self,
        detail: str,
        *,
        loc: tuple[str | int, ...] = (),
        kind: str = "value_error",
        **extensions: Any,
    ) -> None:
        """``loc`` and ``kind`` make the one entry of ``errors`` when none are given."""
        if "errors" not in extensions:
            extensions["errors"] = [{"loc": [str(p) for p in loc], "msg": detail, "type": kind}]
        super().__init__(detail, **extensions)


class PreflightRefusedProblem(ProblemError):
    status = 400
    slug = "cors-refused"
    when = "a CORS preflight from an origin, method or header not allowed (`CORS_ORIGINS`)"
    title = "CORS preflight refused"


class ServiceUnavailableProblem(ProblemError):
    status = 503
    slug = "unavailable"
    when = (
        "the database does not answer (within `DB_TIMEOUT_S`); the solver's slots are all"
        " busy; no winnable deal was proved within the budget. `Retry-After` says when to"
        " retry"
    )
    title = "Service unavailable"
    response_headers: ClassVar[dict[str, dict[str, Any]]] = {
        "Retry-After": {
            "description": "Seconds to wait before trying again",
            "schema": {"type": "integer"},
        }
    }

    def __init__(self, detail: str, retry_after: int = 1, **extensions: Any) -> None:
        super().__init__(detail, **extensions)
        self.headers["Retry-After"] = str(retry_after)


class InternalProblem(ProblemError):
    status = 500
    slug = "internal"
    when = "never meant to be sent: the last resort for a bug, logged with its request id"
    title = "Internal error"
