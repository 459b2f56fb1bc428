"""Secrets the server makes for itself where no setting gives one, kept in the database
(``server_secrets``) so that every replica and restart derives the same values from them
(the daily challenges' deals, the events' rounds)."""

from __future__ import annotations

import secrets
from datetime import datetime

from sqlalchemy import String, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Mapped, mapped_column

from app.kit.database import Sessions
from app.kit.models import Base, UTCDateTime, utcnow
from app.settings import HEX_PREFIX


class ServerSecret(Base):
    """A secret the server made for itself where no setting gives one (the challenges'),
    kept so that every replica and restart derives the same days."""

    __tablename__ = "server_secrets"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


async def server_secret(name: str, configured: str | None, sessions: Sessions) -> bytes:
    """``configured`` (a setting's value: its text's bytes, or with ``hex:`` the bytes its
    hexadecimal digits name, as a kept secret is read), or else the secret ``name`` the
    server keeps: made once, in a transaction of its own (it is the server's, not any
    request's); of processes racing to make it, the first kept is every process's."""
    if configured:
        if configured.startswith(HEX_PREFIX):
            return bytes.fromhex(configured.removeprefix(HEX_PREFIX))
        return configured.encode()
    async with sessions() as session:
        insert = (
            postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
        )
        await session.execute(
            insert(ServerSecret)
            .values(name=name, value=secrets.token_hex(32), created_at=utcnow())
            .on_conflict_do_nothing()
        )
        value: str = (
            await session.scalars(select(ServerSecret.value).where(ServerSecret.name == name))
        ).one()
        await session.commit()
    return bytes.fromhex(value)
