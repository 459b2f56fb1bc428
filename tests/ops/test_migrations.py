"""Migrations: up, down to base and up again on both databases; models agree with them."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect

from app.models import Base
from app.ops.migrations import downgrade, head_revision, upgrade


def tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_upgrade_downgrade_upgrade(empty_database_url: str) -> None:
    url = empty_database_url
    upgrade(url)
    assert {"games", "moves", "alembic_version"} <= tables(url)
    downgrade(url, "base")
    assert tables(url) <= {"alembic_version"}
    upgrade(url)
    engine = create_engine(url)
    with engine.connect() as conn:
        assert MigrationContext.configure(conn).get_current_revision() == head_revision()
    engine.dispose()


def test_models_and_migrations_agree(empty_database_url: str) -> None:
    upgrade(empty_database_url)
    engine = create_engine(empty_database_url)
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        diff = compare_metadata(context, Base.metadata)
    engine.dispose()
    assert diff == [], f"models and migrations disagree: {diff}"
