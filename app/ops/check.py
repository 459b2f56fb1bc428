"""``python -m app.ops.check``: validate every setting from the environment (the
container's entrypoint runs it first), and the settings of every command.

A bad value prints ``invalid configuration: NAME: reason`` on one line of stderr and the
command exits 2, without a traceback; a good configuration logs a summary in the
server's format.
"""

from __future__ import annotations

import argparse
import logging
import sys
from datetime import datetime

from pydantic import ValidationError

from app.kit.logs import FIELDS_ATTR, configure_logging
from app.kit.models import utcnow
from app.settings import Settings, describe_error


def command_settings() -> Settings | None:
    """For a command's entry point: the settings, with logging configured; or None after
    printing the one-line reason on stderr (the command then exits 2)."""
    try:
        settings = Settings()
    except ValidationError as e:
        print(describe_error(e), file=sys.stderr)
        return None
    configure_logging(settings.log_level, settings.log_format)
    return settings


def as_of(parser: argparse.ArgumentParser, value: datetime | None) -> datetime:
    """A command's ``--as-of`` (now without one); a time without a zone is its error."""
    now = value or utcnow()
    if now.tzinfo is None:
        parser.error("--as-of needs a time zone (e.g. +00:00)")
    return now


def main(argv: list[str]) -> int:
    """Validate the environment, log a summary; 2 on a bad value."""
    if argv:
        print("usage: python -m app.ops.check", file=sys.stderr)
        return 2
    settings = command_settings()
    if settings is None:
        return 2
    summary = {
        "database": settings.database_url.split(":", 1)[0],
        "host": settings.host,
        "port": settings.port,
        "workers": settings.workers,
        "migrate_on_start": settings.migrate_on_start,
    }
    logging.getLogger("app.settings").info("configuration ok", extra={FIELDS_ATTR: summary})
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
