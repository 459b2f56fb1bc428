"""The database's own bounds, as the connections carry them: DB_TIMEOUT_S is SQLite's
wait for the write lock, and PostgreSQL's connect timeout and TCP user timeout, next to
keepalives that find a dead peer of an idle pooled connection. (A database that stops
answering without going away is tested through a server: tests/ops/test_freeze.py.)"""

from __future__ import annotations

from sqlalchemy import text

from app.kit.database import make_engine
from app.settings import Settings


def test_the_connections_carry_the_database_timeout(database_url: str) -> None:
    engine = make_engine(Settings(database_url=database_url, db_timeout_s=7))
    try:
        with engine.connect() as connection:
            if engine.dialect.name == "sqlite":
                assert connection.scalar(text("PRAGMA busy_timeout")) == 7000
                return
            dsn = connection.connection.driver_connection.info.dsn  # type: ignore[union-attr]
    finally:
        engine.dispose()
    options = dict(item.split("=", 1) for item in dsn.split())
    assert options["connect_timeout"] == "7"
    assert options["tcp_user_timeout"] == "7000"
    assert options["keepalives"] == "1"
    assert {"keepalives_idle", "keepalives_interval", "keepalives_count"} <= options.keys()
