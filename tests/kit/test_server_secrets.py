"""The secrets the server keeps for itself (app.kit.server_secrets), on SQLite and
PostgreSQL: made once and the same for every later reader, and movable into the setting
without changing what derives from them (CHALLENGE_SECRET=hex:<the kept value>)."""

from __future__ import annotations

import asyncio
import secrets

import pytest
from pydantic import ValidationError
from sqlalchemy import select

from app.kit.database import make_database
from app.kit.server_secrets import ServerSecret, server_secret
from app.settings import Settings


def test_a_kept_secret_moved_into_the_setting_gives_the_same_bytes(database_url: str) -> None:
    name = f"test-{secrets.token_hex(4)}"

    async def work() -> tuple[bytes, bytes, bytes, bytes, str]:
        database = make_database(Settings(database_url=database_url))
        try:
            kept = await server_secret(name, None, database.sessions)
            again = await server_secret(name, None, database.sessions)
            async with database.sessions() as session:
                value = (
                    await session.scalars(
                        select(ServerSecret.value).where(ServerSecret.name == name)
                    )
                ).one()
            moved = await server_secret(name, f"hex:{value}", database.sessions)
            as_text = await server_secret(name, value, database.sessions)
            return kept, again, moved, as_text, value
        finally:
            await database.dispose()

    kept, again, moved, as_text, value = asyncio.run(work())
    assert kept == again == moved == bytes.fromhex(value)
    assert len(kept) == 32
    # The kept value as plain text is another secret: its text's bytes.
    assert as_text == value.encode() != kept


@pytest.mark.parametrize(
    ("given", "why"),
    [
        ("hex:" + "zz" * 32, "hexadecimal digits"),
        ("hex:" + "ab" * 15 + "a", "hexadecimal digits"),
        ("hex:" + "ab" * 15 + "abc", "hexadecimal digits"),
        ("hex:" + "ab" * 15 + "  ", "hexadecimal digits"),
        ("hex:" + "ab" * 14, "32 hexadecimal digits or more"),
    ],
)
def test_a_challenge_secret_in_hex_must_be_hex_and_long_enough(given: str, why: str) -> None:
    with pytest.raises(ValidationError, match=why):
        Settings(challenge_secret=given)


def test_a_challenge_secret_in_hex_of_16_bytes_or_more_is_taken() -> None:
    value = "hex:" + secrets.token_hex(32)
    assert Settings(challenge_secret=value).challenge_secret == value
    assert Settings(challenge_secret="hex:" + "0f" * 16).challenge_secret is not None
