"""Logging: one JSON object a line (LOG_FORMAT=json) or plain text for humans.

Every record made while a request is served carries that request's id (a context
variable the request middleware sets). The request log line is made by
``app.ops.middleware``: it names the route template, the status, the duration and the game
id, and never a header, a body or a query string, so no token and no card is ever logged.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import uuid
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, TextIO

REQUEST_ID: ContextVar[str | None] = ContextVar("request_id", default=None)

# An incoming X-Request-ID is kept only when it is short and plain (no log injection).
_REQUEST_ID_RE = re.compile(r"[A-Za-z0-9._:\-]{1,128}")

# Extra fields a record may carry (``log.info(..., extra={"fields": {...}})``).
FIELDS_ATTR = "fields"


def new_request_id(incoming: str | None = None) -> str:
    """The incoming X-Request-ID when it is acceptable, else a new random one."""
    if incoming is not None and _REQUEST_ID_RE.fullmatch(incoming):
        return incoming
    return uuid.uuid4().hex


def current_request_id() -> str | None:
    return REQUEST_ID.get()


class JsonFormatter(logging.Formatter):
    """``{"ts", "level", "logger", "message", "request_id"?, ...fields, "exc"?}``."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = getattr(record, "request_id", None) or REQUEST_ID.get()
        if request_id:
            out["request_id"] = request_id
        fields = getattr(record, FIELDS_ATTR, None)
        if isinstance(fields, dict):
            out.update(fields)
        if record.exc_info:
            out["exc_type"] = record.exc_info[0].__name__ if record.exc_info[0] else None
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """``2026-01-01T12:00:00.000+00:00 INFO app.request [rid] message key=value ...``."""

    def format(self, record: logging.LogRecord) -> str:
        ts = datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")
        request_id = getattr(record, "request_id", None) or REQUEST_ID.get()
        line = f"{ts} {record.levelname:<7} {record.name}"
        if request_id:
            line += f" [{request_id}]"
        line += f" {record.getMessage()}"
        fields = getattr(record, FIELDS_ATTR, None)
        if isinstance(fields, dict):
            line += "".join(f" {k}={v}" for k, v in fields.items() if v is not None)
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


class _StderrHandler(logging.StreamHandler[TextIO]):
    """Writes to whatever ``sys.stderr`` is at the time (test runners swap it)."""

    _installed_by_app = True

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, _value: TextIO) -> None:
        pass


def configure_logging(level: str = "info", fmt: str = "json") -> None:
    """Send every log record (the app's and uvicorn's) to stderr in one format.

    Idempotent: calling it again replaces the handler it installed before and leaves
    other handlers (a test runner's) alone. uvicorn's access log is silenced: the request
    middleware writes a better one.
    """
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_installed_by_app", False):
            root.removeHandler(handler)
    handler = _StderrHandler()
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root.addHandler(handler)
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error"):
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
    access = logging.getLogger("uvicorn.access")
    access.handlers.clear()
    access.addHandler(logging.NullHandler())
    access.propagate = False
