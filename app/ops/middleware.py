"""The outermost ASGI middleware: request id, request log line and HTTP metrics.

- Request id: ``X-Request-ID`` when the caller sends a plain one (1-128 of
  ``A-Za-z0-9._:-``), else a new random one; set for every log record made while the
  request is served and returned in the ``X-Request-ID`` response header.
- One log line a request (logger ``app.request``): method, route template, status,
  duration and game id. Health, readiness and metrics probes log at debug level.
- Metrics: requests by method, route template and status; latency by method and route;
  requests in progress by method.

The route template is that of the app's route that matches the request (Starlette's
public ``BaseRoute.matches``, asked once the request is answered), so a raw path never
becomes a label; a request no route matched is ``unmatched``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

from starlette.datastructures import MutableHeaders
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.kit import metrics
from app.kit.logs import FIELDS_ATTR, REQUEST_ID, new_request_id

log = logging.getLogger("app.request")

UNMATCHED = "unmatched"
PROBES = frozenset({"/healthz", "/readyz", "/metrics"})
GAMES_PREFIX = "/v1/games/"


def _template(route: BaseRoute) -> str | None:
    template = getattr(route, "path_format", None) or getattr(route, "path", None)
    return template if isinstance(template, str) else None


def templated(routes: Sequence[BaseRoute]) -> list[tuple[BaseRoute, str]]:
    """Each route with a template of its own, with it. A route without one is left out
    before any request: an included router (a route of the app in FastAPI's newer
    versions) would be matched, walking all of its routes, on every request, to be passed
    over; its routes are in ``routes`` themselves."""
    return [(route, t) for route in routes if (t := _template(route)) is not None]


def route_of(routes: Sequence[tuple[BaseRoute, str]], scope: Scope) -> tuple[str, dict[str, Any]]:
    """The template of the route the request matches, and its path parameters: the
    route that serves it, else the first whose path matches with another method (a 405,
    or a HEAD answered as GET)."""
    partial: tuple[str, dict[str, Any]] | None = None
    for route, template in routes:
        match, child = route.matches(scope)
        if match is Match.NONE:
            continue
        if match is Match.FULL:
            return template, child.get("path_params", {})
        partial = partial or (template, child.get("path_params", {}))
    return partial or (UNMATCHED, {})


class RequestObservability:
    def __init__(self, app: ASGIApp, routes: Sequence[BaseRoute]) -> None:
        self.app = app
        self.routes = templated(routes)

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
            route, params = route_of(self.routes, scope)
            self._record(
                method,
                route,
                status,
                time.perf_counter() - start,
                params.get("game_id") or game_id,
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
