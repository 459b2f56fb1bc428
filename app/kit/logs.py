"""Logging: one JSON object a line (LOG_FORMAT=json) or plain text for humans.

Every record made while a request is served carries that request's id (a context
variable the request middleware sets). The request log line is made by
``app.ops.middleware``: it names the route template, the status, the duration and the game
id, and never a header, a body or a query string, so no token and no card is ever logged.

What a client sends can still reach a record (a game id in a path, an exception's
message): the text format escapes control characters in the message and every field, so
that one record is one line and no client can write a line that passes for another
record (or move a terminal's cursor). The JSON format's encoder escapes them already.
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


# C0 controls, DEL, C1 controls, and the line and paragraph separators some viewers break
# lines at.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_control(match: re.Match[str]) -> str:
    char = match.group()
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    return f"\\x{ord(char):02x}" if ord(char) <= 0xFF else f"\\u{ord(char):04x}"


def escape_controls(text: object) -> str:
    """``text`` with each control character written as its Python escape (``\\n``)."""
    return _CONTROL.sub(_escape_control, str(text))


class TextFormatter(logging.Formatter):
    """``2026-01-01T12:00:00.000+00:00 INFO app.request [rid] message key=value ...``.

    One line a record, whatever its message and fields hold; a traceback follows on lines
    of its own, each indented, so that only a record's first line starts at column 0.
    """

    def format(self, record: logging.LogRecord) -> str:
        ts = datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")
        request_id = getattr(record, "request_id", None) or REQUEST_ID.get()
        line = f"{ts} {record.levelname:<7} {escape_controls(record.name)}"
        if request_id:
            line += f" [{escape_controls(request_id)}]"
        line += f" {escape_controls(record.getMessage())}"
        fields = getattr(record, FIELDS_ATTR, None)
        if isinstance(fields, dict):
            line += "".join(
                f" {escape_controls(k)}={escape_controls(v)}"
                for k, v in fields.items()
                if v is not None
            )
        if record.exc_info:
            trace = self.formatException(record.exc_info).split("\n")
            line += "".join(f"\n    {escape_controls(part)}" for part in trace)
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
    """Send every log record (the app's and the server's: ``app.ops.serve`` hands
    Granian's loggers to the root) to stderr in one format.

    Idempotent: calling it again replaces the handler it installed before and leaves
    other handlers (a test runner's) alone.
    """
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_installed_by_app", False):
            root.removeHandler(handler)
    handler = _StderrHandler()
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root.addHandler(handler)
    root.setLevel(level.upper())
    # aiosqlite's debug records name each call with its arguments: a statement's
    # parameters (a deal, a token's hash) would reach the log.
    logging.getLogger("aiosqlite").setLevel(max(logging.INFO, root.level))
