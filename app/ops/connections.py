"""The production server's HTTP/1.1 protocol: uvicorn's, with the guards it lacks.

uvicorn reads a request head of any size (an 8 MiB header was read whole and served),
gives a connection as long as it likes to send its head (an idle connection, or one
dripping a byte a second, stays open forever: the slowloris attack), and its
``limit_concurrency`` answers ``503 text/plain`` (and counts the connection it is
answering, so its limit is one short). uvicorn takes its protocol as a class
(``uvicorn.run(http=...)``), so these guards are a subclass of its httptools protocol (the
one it would pick itself) rather than a patch or a second server in front:

- ``MAX_HEADER_BYTES``: a head (request line and headers) over it is a 431 problem. It is
  counted as bytes arrive, so that no more than the limit and one read (at most 256 KiB)
  is ever held for a head, and exactly once the head is parsed.
- ``HEADER_TIMEOUT_S``: a client that has not sent its whole head that long after it
  connected (or after the first byte of its next request on a kept-alive connection) is
  answered 408 and disconnected; one that sent nothing is disconnected quietly.
- ``MAX_CONNECTIONS``: a request on a connection beyond it (in this worker) is a 503
  problem (Retry-After), and its connection is closed.
- A request that cannot be parsed is a 400 problem instead of uvicorn's text.

``KEEP_ALIVE_TIMEOUT_S`` is uvicorn's own ``timeout_keep_alive`` (see app/ops/serve.py).
These answers are written before any application sees the request: they carry no
request id and are not counted in /metrics, but they are logged.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
from uvicorn.server import ServerState

from app.kit.errors import (
    HeadersTooLargeProblem,
    ProblemError,
    RequestTimeoutProblem,
    ServiceUnavailableProblem,
)
from app.kit.problems import problem_json
from app.settings import get_settings

log = logging.getLogger("app.connections")


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        settings = get_settings()  # each worker reads the same environment
        self.max_head_bytes = settings.max_header_bytes
        self.head_timeout = float(settings.header_timeout_s)
        self.max_connections = settings.max_connections
        self.head_timer: asyncio.TimerHandle | None = None
        self.head_bytes = 0  # of the head being read, as received
        self.reading_head = True
        self.refused = False  # answered here: whatever else the client sends is ignored

    # -- the connection -----------------------------------------------------------------
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._start_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.refused:
            return
        if self.reading_head:
            self.head_bytes += len(data)
            if self.head_timer is None:  # the first bytes of the next request's head
                self._start_head_timer()
        super().data_received(data)
        if self.reading_head and not self.refused and self.head_bytes > self.max_head_bytes:
            self._refuse(HeadersTooLargeProblem(self._too_large()))

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to bytes that are no HTTP/1.1 request, as a problem."""
        if not self.refused:
            self._refuse(ProblemError(f"the request could not be parsed: {msg}"))

    # -- the parser's callbacks ---------------------------------------------------------
    def on_headers_complete(self) -> None:
        if self.refused:
            return
        self.reading_head = False
        self._stop_head_timer()
        size = len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers)
        if size > self.max_head_bytes:
            self._refuse(HeadersTooLargeProblem(self._too_large()))
        elif len(self.connections) > self.max_connections:
            log.warning("over MAX_CONNECTIONS (%d): answered 503", self.max_connections)
            self._refuse(ServiceUnavailableProblem("the server has too many connections"))
        else:
            super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        if not self.refused:
            super().on_body(body)

    def on_message_complete(self) -> None:
        if self.refused:
            return
        super().on_message_complete()
        self.reading_head = True  # what comes next is the next request's head
        self.head_bytes = 0

    # -- the guards ---------------------------------------------------------------------
    def _too_large(self) -> str:
        return f"the request head is over MAX_HEADER_BYTES ({self.max_head_bytes} bytes)"

    def _start_head_timer(self) -> None:
        self._stop_head_timer()
        self.head_timer = self.loop.call_later(self.head_timeout, self._head_timed_out)

    def _stop_head_timer(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def _head_timed_out(self) -> None:
        self.head_timer = None
        if self.refused or self.transport.is_closing():
            return
        if self.head_bytes == 0 and not self._answering():
            self.transport.close()  # it never began a request: nothing to answer
            return
        self._refuse(RequestTimeoutProblem(f"the request head took over {self.head_timeout:g} s"))

    def _answering(self) -> bool:
        return self.cycle is not None and not self.cycle.response_complete

    def _refuse(self, problem: ProblemError) -> None:
        """Answer ``problem`` and close the connection; nothing more is read from it."""
        self.refused = True
        self._stop_head_timer()
        if problem.status in (408, 431):  # uvicorn logs a 400, the caller a 503
            log.warning("connection refused: %s %s", problem.status, problem.detail)
        if self._answering():
            # The answer to an earlier request is being written: it is let finish, and the
            # connection closes after it.
            self.cycle.keep_alive = False
            return
        response = problem_json(problem, None, {"Connection": "close"})
        head = [STATUS_LINE[problem.status]]
        for name, value in [*self.server_state.default_headers, *response.raw_headers]:
            head += [name, b": ", value, b"\r\n"]
        self.transport.write(b"".join([*head, b"\r\n", response.body]))
        self.transport.close()
