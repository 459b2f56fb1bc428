"""Running and checking the Alembic migrations from code, and what revisions share."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from app import engine
from app.engine.equivalence import KeyScheme, game_key

ROOT = Path(__file__).resolve().parents[2]


def alembic_config(database_url: str) -> Config:
    cfg = Config(str(ROOT / "alembic.ini"))
    cfg.set_main_option("script_location", str(ROOT / "migrations"))
    cfg.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return cfg


def upgrade(database_url: str, revision: str = "head") -> None:
    command.upgrade(alembic_config(database_url), revision)


def downgrade(database_url: str, revision: str = "base") -> None:
    command.downgrade(alembic_config(database_url), revision)


@lru_cache(maxsize=1)
def head_revision() -> str | None:
    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    return script.get_current_head()


async def migration_status(
    engines: tuple[AsyncEngine, ...], timeout_s: float
) -> tuple[bool, str, str | None]:
    """(ready, reason, current revision) for /readyz: every engine the requests use
    reaches the database (within ``timeout_s``), and its migrations are at head (read
    through the last engine: the readers')."""
    current: str | None = None
    try:
        async with asyncio.timeout(timeout_s):
            for engine in engines:
                async with engine.connect() as conn:
                    await (await conn.execution_options(isolation_level="AUTOCOMMIT")).execute(
                        text("SELECT 1")
                    )
            async with engines[-1].connect() as conn:
                # Read the version table directly: MigrationContext logs at INFO on every call.
                if await conn.run_sync(lambda c: inspect(c).has_table("alembic_version")):
                    current = await conn.scalar(text("SELECT version_num FROM alembic_version"))
    except Exception as e:  # any failure to reach the database means "not ready"
        return False, f"database unreachable: {type(e).__name__}", None
    head = head_revision()
    if current != head:
        return False, f"migrations at {current or 'none'}, head is {head}", current
    return True, "database reachable, migrations at head", current


_CHALLENGES = sa.table(
    "challenges",
    sa.column("id", sa.String()),
    sa.column("deal", sa.Text()),
    sa.column("rules", sa.JSON()),
    sa.column("layout", sa.String()),
    sa.column("closes_at", sa.DateTime(timezone=True)),
    sa.column("deal_key", sa.String()),
)


def rekey_open_challenges(bind: Connection, scheme: KeyScheme) -> None:
    """``challenges.deal_key`` recomputed in ``scheme`` for the challenges still open that
    have a deal, the only ones create_game's copy check reads: a revision that changes
    the keys' meaning runs it with the scheme its code reads, up and down."""
    c = _CHALLENGES.c
    rows = bind.execute(
        sa.select(c.id, c.deal, c.rules, c.layout).where(
            c.closes_at > datetime.now(UTC), c.deal != ""
        )
    ).all()
    for challenge_id, deal, rules, layout in rows:
        key = game_key(
            engine.parse_cards(deal),
            engine.Rules.from_dict(rules),
            engine.get_layout(layout),
            scheme=scheme,
        )
        bind.execute(_CHALLENGES.update().where(c.id == challenge_id).values(deal_key=key))
