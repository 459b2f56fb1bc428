"""The production server: ``python -m app.ops.serve`` (the container's command).

Granian, a kept server whose HTTP is Rust's hyper, with ``WORKERS`` worker processes on
``HOST:PORT``, every setting from the environment (validated first: a bad one exits 2
with ``invalid configuration: ...``), and Granian's public options alone (its README,
"Options", "Backpressure", "Workers and threads"):

- HTTP/1.1 only (``http=1``), as the app is served: no HTTP/2, no websockets.
- ``KEEP_ALIVE_TIMEOUT_S`` is hyper's header read timeout (``http1_settings``'
  ``header_read_timeout``): a connection has that long, from its opening or from its
  last answer, to send a whole request head, however it trickles it in, or hyper closes
  it. One timer bounds both an idle kept-alive connection and a slow head (slowloris):
  no connection ever holds a worker's place without sending requests.
- ``MAX_CONNECTIONS`` is Granian's ``backpressure``: the connections a worker holds at
  once. One more is not refused: it waits in the listening socket's backlog until one
  of them closes. A connection waiting for its head costs the worker's Python nothing:
  hyper reads heads, and the app sees a request only once its head is whole.
- A request head over ``MAX_HEADER_BYTES`` is a 431 problem
  (``app.kit.middleware.HeadSize``); a body that does not arrive within
  ``BODY_TIMEOUT_S`` is a 408 problem (``app.kit.middleware.RequestBody``).
- ``X-Forwarded-For``/``-Proto`` are taken from ``FORWARDED_ALLOW_IPS`` alone, by
  Granian's proxy wrapper, installed by ``app.main.create_app``.

A port something already listens on is refused (exit 1), as Granian's SO_REUSEPORT
would not. Granian restarts a worker that dies (``respawn_failed_workers``). On SIGTERM
or SIGINT each worker stops accepting connections and lets the requests in flight
finish, then runs the app's lifespan shutdown (the scheduled jobs stop there) and exits;
a worker still busy after ``SHUTDOWN_TIMEOUT_S`` is killed (``workers_kill_timeout``),
and the server exits 0.
Every wait of a request is bounded below ``SHUTDOWN_TIMEOUT_S`` (the budgets, the
database's timeout and ``BODY_TIMEOUT_S`` are validated so), so a request in flight is
answered before that. Granian's own log records go through the app's logging (JSON
lines, ``LOG_FORMAT``); its access log is off: the app's request log is better. It does
not migrate: the entrypoint does that when ``MIGRATE_ON_START`` is true.
"""

from __future__ import annotations

import logging
import socket
import sys
from typing import Any

from granian import Granian
from granian.constants import HTTPModes, Interfaces
from granian.http import HTTP1Settings
from granian.log import LogLevels

from app.ops.check import command_settings

log = logging.getLogger("app.serve")

# Granian's own loggers handed to the root logger, where the app's handler writes every
# record in one format (``configure_logging``); its access log writes nothing.
GRANIAN_LOGGING: dict[str, Any] = {
    "loggers": {
        "_granian": {"handlers": [], "propagate": True},
        "granian.access": {"handlers": [], "propagate": False},
    }
}


APP = "app.main:create_app"


def main(argv: list[str]) -> int:
    """Serve ``APP`` (or the app factory named by the one argument: the bench serves its
    own, the real app with routes added, through the same server) until stopped."""
    if len(argv) > 1:
        print("usage: python -m app.ops.serve [module:factory]", file=sys.stderr)
        return 2
    settings = command_settings()
    if settings is None:
        return 2
    if settings.workers > 1 and not settings.prometheus_multiproc_dir:
        log.warning(
            "WORKERS=%d without PROMETHEUS_MULTIPROC_DIR: /metrics shows one worker's counts",
            settings.workers,
        )
    if not _port_free(settings.host, settings.port):
        log.error("%s:%d is in use: another server listens there", settings.host, settings.port)
        return 1
    server = Granian(
        argv[0] if argv else APP,
        factory=True,
        address=settings.host,
        port=settings.port,
        interface=Interfaces.ASGI,
        workers=settings.workers,
        http=HTTPModes.http1,
        websockets=False,
        backpressure=settings.max_connections,
        http1_settings=HTTP1Settings(header_read_timeout=settings.keep_alive_timeout_s * 1000),
        respawn_failed_workers=True,
        workers_kill_timeout=settings.shutdown_timeout_s,
        log_level=LogLevels(settings.log_level),
        log_dictconfig=GRANIAN_LOGGING,
        log_access=False,
    )
    server.serve()
    return 0


def _port_free(host: str, port: int) -> bool:
    """Whether nothing listens on ``host:port``. Granian binds its sockets with
    SO_REUSEPORT (so that its workers share the port), which would let a second server on
    a busy port start and silently take part of the first one's connections: a probe
    without that option fails instead, as a server on a busy port should."""
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        socket.create_server((host, port), family=family).close()
    except OSError:
        return False
    return True


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
