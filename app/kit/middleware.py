"""ASGI middleware for the edges of the HTTP contract, each answered as a problem.

- ``RequestBody`` reads the whole body before the app: over ``MAX_BODY_BYTES`` it is a
  413, whether the size was declared (Content-Length) or only found while reading
  (chunked); one that has not all arrived ``BODY_TIMEOUT_S`` after the head is a 408 (the
  server bounds the head's time, ``KEEP_ALIVE_TIMEOUT_S``, and this the body's: a client
  trickling either holds no connection for long); a JSON body that holds a key twice, at
  any depth, is a 422. JSON parsers keep the last of two equal keys, so
  ``{"move": "play 9", "move": "concede"}`` would concede while a client, a proxy or a
  log reading the first key saw a play: one place for every route refuses such a body
  outright. So is a JSON object of more than
  ``MAX_OBJECT_KEYS`` keys, more than any object of the API has: refused in one error,
  before the route's validation would list each unknown key (thousands of them cost the
  worker's event loop a tenth of a second, and a half-megabyte answer); and a body of
  more than ``MAX_BODY_OBJECTS`` objects, which bounds the check's own work.
- ``RefusedBudget``: a request refused (4xx) before its route spent a budget spends one
  of its client's ``refused`` budget; a client whose budget is spent is answered 429
  before its body is read (``app.kit.ratelimit``): refusals cost their sender a budget as
  every other request does, and a flood of them costs the worker a parse at most the
  budget's quota of times a window, then a few headers' reading each.
- ``HeadAsGet``: HEAD is served as GET without the body, on every route that serves GET
  (FastAPI's routes declare GET only, and the 405 would contradict ``Allow``).
- ``RelativeLocation``: a Location the server writes never names a host. Starlette's
  trailing-slash redirects build an absolute URL from the request's Host header, which a
  client chooses; a path alone sends the client back where it came from.
- ``ProblemCORSMiddleware``: a refused CORS preflight is a 400 problem, not text.
- ``VaryOrigin``: with CORS on, every answer carries ``Vary: Origin``.
- ``NoCORS``: with CORS off, in place of the two above: every preflight is refused as
  ``ProblemCORSMiddleware`` refuses one, and no answer says it varies by its origin
  (Starlette's CORS says so on every answer, whatever its origins).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.kit.errors import (
    HeadersTooLargeProblem,
    PayloadTooLargeProblem,
    PreflightRefusedProblem,
    RequestTimeoutProblem,
    ValidationProblem,
)
from app.kit.problems import echoed, problem_json
from app.kit.ratelimit import RateLimiter, budget_spent, client_of, rate_limited

CLOSE = {"Connection": "close"}


class HttpMiddleware:
    """A pure ASGI middleware for HTTP requests (``handle``); other scopes pass by."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self.handle(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        raise NotImplementedError


class HeadSize(HttpMiddleware):
    """431 for a request head over ``max_bytes``: its request line and every header,
    counted as they were sent (``name: value`` and the line's end)."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        super().__init__(app)
        self.max_bytes = max_bytes

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        size = len(scope["raw_path"] if scope.get("raw_path") else scope["path"]) + len(
            scope["query_string"]
        )
        size += sum(len(name) + len(value) + 4 for name, value in scope["headers"])
        if size > self.max_bytes:
            problem = HeadersTooLargeProblem(
                f"the request head is over MAX_HEADER_BYTES ({self.max_bytes} bytes)"
            )
            await problem_json(problem, None, CLOSE)(scope, receive, send)
            return
        await self.app(scope, receive, send)


class RefusedBudget(HttpMiddleware):
    """Counts refusals against the client's ``refused`` budget, and answers a client
    barred for them before anything of its request is read, after ``delay_s``
    (``REFUSED_DELAY_MS``): a client that ignores Retry-After and sends again at once then
    sends no more requests than it holds connections each ``delay_s``, and the wait costs
    the server no CPU (a flood of cheap 429s would cost it a core). The ``exempt`` paths
    (health and readiness probes) pass untouched."""

    def __init__(
        self, app: ASGIApp, limiter: RateLimiter, exempt: frozenset[str], delay_s: float
    ) -> None:
        super().__init__(app)
        self.limiter = limiter
        self.exempt = exempt
        self.delay_s = delay_s

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["path"] in self.exempt:
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        client = client_of(request, self.limiter)
        barred = self.limiter.barred.get(client)
        if barred is not None:
            # Its body is not read: the connection closes, as after a body over the limit
            # (no unread body is left on it for the server to skip, and a client that
            # ignores the 429 pays a new connection for each request it sends).
            problem = rate_limited(barred)
            await asyncio.sleep(self.delay_s)
            await problem_json(problem, scope["path"], CLOSE)(scope, receive, send)
            return
        status = 0

        async def watched(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        await self.app(scope, receive, watched)
        if 400 <= status < 500 and not budget_spent(request):
            await self.limiter.refused(client)


class RequestBody(HttpMiddleware):
    """Reads the body first: 413 over ``max_bytes``, 408 when it has not all come within
    ``timeout_s``, 422 for a JSON key given twice."""

    def __init__(self, app: ASGIApp, max_bytes: int, timeout_s: float) -> None:
        super().__init__(app)
        self.max_bytes = max_bytes
        self.timeout_s = timeout_s

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        too_large = PayloadTooLargeProblem(f"the request body is over {self.max_bytes} bytes")
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_bytes:
            await problem_json(too_large, scope["path"], CLOSE)(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        try:
            async with asyncio.timeout(self.timeout_s):
                while more:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return  # the client left: nobody to answer
                    chunk: bytes = message.get("body", b"")
                    size += len(chunk)
                    if size > self.max_bytes:  # the rest is not read: the connection closes
                        await problem_json(too_large, scope["path"], CLOSE)(scope, receive, send)
                        return
                    chunks.append(chunk)
                    more = message.get("more_body", False)
        except TimeoutError:
            # The rest is not waited for: the connection closes, and with it the worker's
            # place it held (a stopping server waits for it, too).
            slow = RequestTimeoutProblem(
                f"the request body did not arrive within BODY_TIMEOUT_S ({self.timeout_s:g} s)"
            )
            await problem_json(slow, scope["path"], CLOSE)(scope, receive, send)
            return
        body = b"".join(chunks)
        if body and _may_be_json(headers.get("content-type")):
            refused = _refused_json(body)
            if refused is not None:
                message_text, kind = refused
                problem = ValidationProblem(
                    f"body: {message_text}",
                    errors=[{"loc": ["body"], "msg": message_text, "type": kind}],
                )
                await problem_json(problem, scope["path"])(scope, receive, send)
                return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()  # waits for the client's disconnect, as before
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


def _may_be_json(content_type: str | None) -> bool:
    """Whether FastAPI would parse the body as JSON: no content type, or a JSON one."""
    if not content_type:
        return True
    kind, _, subtype = content_type.partition(";")[0].strip().lower().partition("/")
    return kind == "application" and (subtype == "json" or subtype.endswith("+json"))


# More keys than any object of the API has (its largest, the rules, has about twenty),
# and more objects than any body holds (two: itself and its rules): tests/kit/
# test_http_edges.py checks every request schema of the spec against both.
MAX_OBJECT_KEYS = 64
MAX_BODY_OBJECTS = 16


class _RefusedJSON(Exception):
    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind


class _CheckedPairs:
    """The parser's hook for each object, in the order it ends: refuses a key given
    twice, an object of too many keys, and a body of too many objects. The last bounds
    the check's own work (one call of this hook an object) to a few calls more than any
    body of the API needs, whatever the body holds, and stops the parse there."""

    def __init__(self) -> None:
        self.objects = 0

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        self.objects += 1
        if self.objects > MAX_BODY_OBJECTS:
            raise _RefusedJSON(
                f"a JSON body of more than {MAX_BODY_OBJECTS} objects: none here holds "
                "more than two",
                "json_too_many_objects",
            )
        if len(pairs) > MAX_OBJECT_KEYS:
            raise _RefusedJSON(
                f"a JSON object of {len(pairs)} keys: no object here has more than "
                f"{MAX_OBJECT_KEYS}",
                "json_too_many_keys",
            )
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                raise _RefusedJSON(
                    f"the key {echoed(key)!r} is given twice in one JSON object",
                    "json_duplicate_key",
                )
            out[key] = value
        return out


def _refused_json(body: bytes) -> tuple[str, str] | None:
    """Why the JSON ``body`` is refused before the route (a key found twice in one
    object, an object of too many keys, a body of too many objects), as a message and an
    error type; None when it is not, or when the body is no JSON at all (the route's own
    parsing refuses that)."""
    try:
        json.loads(body, object_pairs_hook=_CheckedPairs())
    except _RefusedJSON as e:
        return e.message, e.kind
    except (ValueError, RecursionError):  # not JSON, not UTF-8, or too deep to parse
        return None
    return None


class HeadAsGet(HttpMiddleware):
    """HEAD on a route that serves GET: the GET answer's status and headers, no body."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        # The scope is changed in place, not copied: the outer middleware reads the route
        # the router records in it, and the server must see HEAD again when it writes
        # (it then sends the headers only, Content-Length included).
        async def bodiless(message: Message) -> None:
            if message["type"] == "http.response.start":
                scope["method"] = "HEAD"
            elif message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        scope["method"] = "GET"
        try:
            await self.app(scope, receive, bodiless)
        finally:
            scope["method"] = "HEAD"


class RelativeLocation(HttpMiddleware):
    """Cuts an absolute Location down to its path, query and fragment."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:

        async def relative(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                location = headers.get("location")
                if location is not None:
                    headers["location"] = relative_location(location)
            await send(message)

        await self.app(scope, receive, relative)


class VaryOrigin(HttpMiddleware):
    """Every answer says it varies by ``Origin`` (its CORS headers depend on the caller's
    origin, so a shared cache keeps one answer per origin), as the spec says: Starlette's
    CORS says so on some answers only, which ones depending on its version. Installed only
    with CORS on: without it no answer depends on the origin."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:

        async def vary(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                said = {v.strip().lower() for v in ",".join(headers.getlist("vary")).split(",")}
                if not said & {"origin", "*"}:
                    headers.append("Vary", "Origin")
            await send(message)

        await self.app(scope, receive, vary)


def relative_location(location: str) -> str:
    parts = urlsplit(location)
    if not (parts.scheme or parts.netloc or parts.path.startswith("//")):
        return location
    # One leading slash: "//host/x" would be read as another host (scheme-relative).
    path = "/" + parts.path.lstrip("/")
    return urlunsplit(("", "", path, parts.query, parts.fragment))


class ProblemCORSMiddleware(CORSMiddleware):
    """Starlette's CORS, with a refused preflight answered as a problem."""

    def preflight_response(self, request_headers: Headers) -> Response:
        response = super().preflight_response(request_headers)
        if response.status_code < 400:
            return response
        # Starlette's text names what was refused: "Disallowed CORS origin, method".
        problem = PreflightRefusedProblem(bytes(response.body).decode())
        kept = {
            name: value
            for name, value in response.headers.items()
            if name not in ("content-type", "content-length")
        }
        return problem_json(problem, None, kept)


class NoCORS(HttpMiddleware):
    """Without CORS: a preflight is answered 400 cors-refused (the answer it had from the
    CORS middleware with no origin allowed); any other request passes untouched."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        preflight = "origin" in headers and "access-control-request-method" in headers
        if scope["method"] == "OPTIONS" and preflight:
            problem = PreflightRefusedProblem("CORS is off on this server: no origin is allowed")
            await problem_json(problem, None)(scope, receive, send)
            return
        await self.app(scope, receive, send)


class WithHeaders:
    """``app``'s answers (static files, say) with ``headers`` added, in place of any of the
    same names."""

    def __init__(self, app: ASGIApp, headers: dict[str, str]) -> None:
        self.app = app
        self.raw = [(k.lower().encode(), v.encode()) for k, v in headers.items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name for name, _ in self.raw}
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in names]
                message = {**message, "headers": [*kept, *self.raw]}
            await send(message)

        await self.app(scope, receive, send_with_headers)
