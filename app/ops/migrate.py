"""``python -m app.ops.migrate``: ``alembic upgrade head`` on DATABASE_URL, logging in
the server's format (JSON lines by default) instead of alembic's text."""

from __future__ import annotations

import logging
import sys

from alembic import command
from pydantic import ValidationError

from app.db.migrations import alembic_config, head_revision
from app.ops.logs import configure_logging
from app.settings import Settings, describe_error

log = logging.getLogger("app.migrate")


def main() -> int:
    try:
        settings = Settings()
    except ValidationError as e:
        print(describe_error(e), file=sys.stderr)
        return 2
    configure_logging(settings.log_level, settings.log_format)
    logging.getLogger("alembic").setLevel(logging.INFO)
    config = alembic_config(settings.database_url)
    config.attributes["configure_logger"] = False
    log.info("applying the migrations up to %s", head_revision())
    command.upgrade(config, "head")
    log.info("migrations at head")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
