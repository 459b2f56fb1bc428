"""The production server: ``python -m app.ops.serve`` (the container's command).

uvicorn with ``WORKERS`` worker processes on ``HOST:PORT``, every setting from the
environment (validated first: a bad one exits 2 with ``invalid configuration: ...``).
Each connection is guarded (app/ops/connections.py): the request head's size
(``MAX_HEADER_BYTES``) and the time to send it (``HEADER_TIMEOUT_S``), the keep-alive
timeout (``KEEP_ALIVE_TIMEOUT_S``) and the connections a worker serves at once
(``MAX_CONNECTIONS``).
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

from app.ops.connections import GuardedHttpToolsProtocol
from app.settings import command_settings

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
        # The head's size and time limits and the connection limit live in the protocol
        # (app/ops/connections.py: uvicorn has no option for the first two, and answers
        # its own limit_concurrency in text); the keep-alive timeout is uvicorn's own.
        http=GuardedHttpToolsProtocol,
        timeout_keep_alive=settings.keep_alive_timeout_s,
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
