"""``GET /metrics``: the instruments of ``app.kit.metrics`` in Prometheus' text format (kept
out of the OpenAPI schema).

With ``PROMETHEUS_MULTIPROC_DIR`` set (several workers), ``/metrics`` adds up what every
worker wrote there, whichever worker answers.

With ``METRICS_TOKEN`` set, a scrape must send ``Authorization: Bearer <token>``: the
counts say how busy the server is and which routes fail, which is nobody's business
outside. Missing or wrong, it is one 401 (a scraper needs no more to know its
configuration is wrong); the token is compared by its hash, in constant time. Without a
token, ``METRICS_PUBLIC`` says whether anyone may read them (the default) or nobody: the
image sets it false, so that a deployment shows no metrics until it gives a token.
"""

from __future__ import annotations

import os

from fastapi import APIRouter, Request
from fastapi.responses import Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    generate_latest,
    multiprocess,
)

from app.kit.auth import hash_secret, secret_matches
from app.kit.errors import MetricsUnauthorizedProblem, NotFoundProblem


def multiprocess_dir() -> str | None:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


def render() -> bytes:
    """The exposition text: this process's metrics, or every worker's in multiprocess mode."""
    if multiprocess_dir():
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry)
    return generate_latest(REGISTRY)


def mark_process_dead() -> None:
    """A worker that stops drops its live gauges (requests in progress) from the sum."""
    if multiprocess_dir():
        multiprocess.mark_process_dead(os.getpid())  # type: ignore[no-untyped-call]


router = APIRouter()


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request) -> Response:
    settings = request.app.state.settings
    token: str | None = settings.metrics_token
    if token is None and not settings.metrics_public:
        raise NotFoundProblem("/metrics is served only with METRICS_TOKEN set")
    if token is not None:
        scheme, _, presented = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not secret_matches(presented.strip(), hash_secret(token)):
            raise MetricsUnauthorizedProblem("/metrics needs Authorization: Bearer <METRICS_TOKEN>")
    return Response(render(), media_type=CONTENT_TYPE_LATEST)
