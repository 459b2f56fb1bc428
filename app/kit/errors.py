"""The service's errors: one base carrying its HTTP status and RFC 9457 problem type.

Services raise these; one handler in ``app.kit.problems`` turns them into
``application/problem+json``. Messages never carry a hidden card, a token or a seed.
"""

from __future__ import annotations

from typing import Any, ClassVar

PROBLEM_BASE = "/problems/"


class ProblemError(Exception):
    status: ClassVar[int] = 400
    slug: ClassVar[str] = "bad-request"
    title: ClassVar[str] = "Bad request"
    # The headers this kind of problem is answered with, as OpenAPI header objects.
    response_headers: ClassVar[dict[str, dict[str, Any]]] = {}

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
    title = "Missing or wrong metrics token"

    def __init__(self, detail: str, **extensions: Any) -> None:
        super().__init__(detail, **extensions)
        self.headers["WWW-Authenticate"] = 'Bearer realm="metrics"'


class ForbiddenProblem(ProblemError):
    status = 403
    slug = "forbidden"
    title = "Wrong player token"


class NotFoundProblem(ProblemError):
    status = 404
    slug = "not-found"
    title = "Not found"


class MethodNotAllowedProblem(ProblemError):
    status = 405
    slug = "method-not-allowed"
    title = "Method not allowed"


class RequestTimeoutProblem(ProblemError):
    status = 408
    slug = "request-timeout"
    title = "Request head not received in time"


class PayloadTooLargeProblem(ProblemError):
    status = 413
    slug = "payload-too-large"
    title = "Request body too large"


class HeadersTooLargeProblem(ProblemError):
    status = 431
    slug = "headers-too-large"
    title = "Request header fields too large"


class ValidationProblem(ProblemError):
    status = 422
    slug = "validation"
    title = "Invalid request"


class PreflightRefusedProblem(ProblemError):
    status = 400
    slug = "cors-refused"
    title = "CORS preflight refused"


class ServiceUnavailableProblem(ProblemError):
    status = 503
    slug = "unavailable"
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
    title = "Internal error"
