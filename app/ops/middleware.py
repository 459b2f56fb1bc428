"""The outermost ASGI middleware: request id, request log line and HTTP metrics.

- Request id: ``X-Request-ID`` when the caller sends a plain one (1-128 of
  ``A-Za-z0-9._:-``), else a new random one; set for every log record made while the
  request is served and returned in the ``X-Request-ID`` response header.
- One log line a request (logger ``app.request``): method, route template, status,
  duration and game id. Health, readiness and metrics probes log at debug level.
- Metrics: requests by method, route template and status; latency by method and route;
  requests in progress by method.

The route template is the one the router chose (``scope["route"]``, set while the request
is routed), so a raw path never becomes a label; a request no route matched is
``unmatched``.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.ops import metrics
from app.ops.logs import FIELDS_ATTR, REQUEST_ID, new_request_id

log = logging.getLogger("app.request")

UNMATCHED = "unmatched"
PROBES = frozenset({"/healthz", "/readyz", "/metrics"})
GAMES_PREFIX = "/v1/games/"


def _route_of(scope: Scope) -> str:
    """The template of the route that served the request (after routing)."""
    route = scope.get("route")
    template = getattr(route, "path_format", None) or getattr(route, "path", None)
    return template if isinstance(template, str) else UNMATCHED


class RequestObservability:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        incoming = None
        for name, value in scope.get("headers", []):
            if name == b"x-request-id":
                incoming = value.decode("latin-1")
                break
        request_id = new_request_id(incoming)
        reset = REQUEST_ID.set(request_id)
        method: str = scope.get("method", "GET")
        game_id: str | None = None
        status: int | None = None
        start = time.perf_counter()
        in_progress = metrics.HTTP_IN_PROGRESS.labels(method=method)
        in_progress.inc()
        done = False
        error: BaseException | None = None

        def finish() -> None:
            nonlocal done, status
            if done:
                return
            done = True
            in_progress.dec()
            if status is None:  # no response started: it failed or the client went away
                status = _status_of_error(error)
            self._record(
                method,
                _route_of(scope),
                status,
                time.perf_counter() - start,
                scope.get("path_params", {}).get("game_id") or game_id,
                error,
            )

        async def send_with_id(message: Message) -> None:
            nonlocal status, game_id
            if message["type"] == "http.response.start":
                status = int(message["status"])
                headers = MutableHeaders(scope=message)
                headers["X-Request-ID"] = request_id
                location = headers.get("location")
                if game_id is None and location and location.startswith(GAMES_PREFIX):
                    game_id = location.removeprefix(GAMES_PREFIX).split("/", 1)[0]
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                # Counted and logged before the last byte leaves: a client that has its
                # answer then always finds it in /metrics.
                finish()
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except BaseException as e:
            error = e
            raise
        finally:
            finish()
            if error is None:
                # On an error the id stays set (this request's context only) so that
                # the 500 answer the server error handler makes outside still has it.
                REQUEST_ID.reset(reset)

    @staticmethod
    def _record(
        method: str,
        route: str,
        status: int,
        duration: float,
        game_id: str | None,
        error: BaseException | None,
    ) -> None:
        metrics.HTTP_REQUESTS.labels(method=method, route=route, status=str(status)).inc()
        metrics.HTTP_LATENCY.labels(method=method, route=route).observe(duration)
        fields: dict[str, Any] = {
            "method": method,
            "route": route,
            "status": status,
            "duration_ms": round(duration * 1000, 2),
        }
        if game_id is not None:
            fields["game_id"] = game_id
        if error is not None:
            fields["error"] = type(error).__name__
        if status >= 500:
            level = logging.WARNING if status == 503 else logging.ERROR
        elif route in PROBES:
            level = logging.DEBUG
        else:
            level = logging.INFO
        log.log(level, "request", extra={FIELDS_ATTR: fields})


def _status_of_error(error: BaseException | None) -> int:
    if error is None or not isinstance(error, Exception):
        return 499  # cancelled: the client closed the connection, or the server stopped
    from app.kit.problems import database_unavailable

    return 503 if database_unavailable(error) else 500
