"""``python -m app.ops.migrate``: ``alembic upgrade head`` on DATABASE_URL, logging in
the server's format (JSON lines by default) instead of alembic's text."""

from __future__ import annotations

import logging

from alembic import command

from app.ops.check import command_settings
from app.ops.migrations import alembic_config, head_revision

log = logging.getLogger("app.migrate")


def main() -> int:
    settings = command_settings()
    if settings is None:
        return 2
    logging.getLogger("alembic").setLevel(logging.INFO)
    config = alembic_config(settings.database_url)
    config.attributes["configure_logger"] = False
    log.info("applying the migrations up to %s", head_revision())
    command.upgrade(config, "head")
    log.info("migrations at head")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
