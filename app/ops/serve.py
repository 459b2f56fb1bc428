"""The production server: ``python -m app.ops.serve`` (the container's command).

uvicorn with ``WORKERS`` worker processes on ``HOST:PORT``, every setting from the
environment (validated first: a bad one exits 2 with ``invalid configuration: ...``), and
only uvicorn's public options: the keep-alive timeout (``KEEP_ALIVE_TIMEOUT_S``), the
connections and requests a worker serves at once (``MAX_CONNECTIONS``, uvicorn's
``limit_concurrency``: one more is answered ``503`` by uvicorn itself), its HTTP/1.1
protocol (httptools). A request head over ``MAX_HEADER_BYTES`` is a 431 problem
(``app.kit.middleware.HeadSize``). What uvicorn has no option for (the time a client may
take to send its head or its body: slow clients) is the reverse proxy's (``deploy/``).
uvicorn's supervisor restarts a worker that dies; on SIGTERM or SIGINT each worker stops
accepting connections, lets the requests in flight finish (up to ``SHUTDOWN_TIMEOUT_S``;
uvicorn then cancels what is left, and ``CancelledAsUnavailable`` answers it with a 503
problem) and exits, then the supervisor exits 0. Logs are JSON lines (``LOG_FORMAT``); the access
log is the app's own request log. It does not migrate: the entrypoint does that when
``MIGRATE_ON_START`` is true.
"""

from __future__ import annotations

import logging
import signal
from types import FrameType

import uvicorn

from app.ops.check import command_settings

log = logging.getLogger("app.serve")


def main() -> int:
    settings = command_settings()
    if settings is None:
        return 2
    if settings.workers > 1 and not settings.prometheus_multiproc_dir:
        log.warning(
            "WORKERS=%d without PROMETHEUS_MULTIPROC_DIR: /metrics shows one worker's counts",
            settings.workers,
        )
    # uvicorn re-raises SIGTERM/SIGINT once it has shut down gracefully; with these
    # handlers in place that ends here, and the process exits 0 (as with several workers).
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _stopped)
    uvicorn.run(
        "app.main:create_app",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        timeout_graceful_shutdown=settings.shutdown_timeout_s,
        http="httptools",
        timeout_keep_alive=settings.keep_alive_timeout_s,
        # uvicorn refuses a request once this many connections or requests are open,
        # the one refused counted: MAX_CONNECTIONS are served.
        limit_concurrency=settings.max_connections + 1,
        proxy_headers=True,
        forwarded_allow_ips=settings.forwarded_allow_ips,
        log_config=None,  # the app's JSON/text logging, set up above and in each worker
        log_level=settings.log_level,
        access_log=False,
        server_header=False,
        timeout_worker_healthcheck=30,  # a busy machine starts workers slowly
    )
    return 0


def _stopped(sig: int, _frame: FrameType | None) -> None:
    log.info("stopped by %s", signal.Signals(sig).name)


if __name__ == "__main__":
    raise SystemExit(main())
