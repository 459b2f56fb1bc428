"""The games repository against both databases: the constraints decide which move lands,
a game changed or deleted under a move refuses it and keeps nothing of it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any, TypeVar

import pytest
from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.engine import GameStatus
from app.games.errors import ConflictProblem
from app.games.models import Game, Move
from app.games.repository import GameRepository
from app.kit.database import Database, make_database
from app.kit.errors import NotFoundProblem
from app.settings import Settings

T = TypeVar("T")


def run(database_url: str, work: Callable[[Database], Awaitable[T]]) -> T:
    async def with_database() -> T:
        database = make_database(Settings(database_url=database_url))
        try:
            return await work(database)
        finally:
            await database.dispose()

    return asyncio.run(with_database())


def _new_game(game_id: str, **changes: Any) -> Game:
    values: dict[str, Any] = {
        "id": game_id,
        "token_hash": "0" * 64,
        "layout": "tripeaks",
        "rules": {},
        "deal": "",
        "deal_number": None,
        "deal_chosen": True,
        "salt": "s",
        "commitment": "c",
        "status": GameStatus.IN_PROGRESS,
        "version": 0,
        "score": 0,
        "cards_left": 28,
    }
    return Game(**{**values, **changes})


async def _game(session: AsyncSession, game_id: str) -> Game:
    row = _new_game(game_id)
    await GameRepository(session).add(row)
    return row


async def _append(repo: GameRepository, row: Game, version: int, key: str | None) -> bool:
    return await repo.record_move(
        row,
        version,
        "draw",
        line="draw",
        status=GameStatus.IN_PROGRESS,
        score=0,
        cards_left=28,
        now=datetime.now(UTC),
        idempotency_key=key,
        request_hash="h" if key else None,
    )


async def _moves(session: AsyncSession, game_id: str) -> int:
    count = select(func.count()).select_from(Move).where(Move.game_id == game_id)
    return int(await session.scalar(count) or 0)


@asynccontextmanager
async def committed(database: Database) -> AsyncIterator[AsyncSession]:
    async with database.sessions() as session:
        yield session
        await session.commit()


@pytest.mark.parametrize("taken", ["sequence number", "idempotency key"])
def test_a_move_that_meets_a_constraint_writes_nothing_and_raises_nothing(
    database_url: str, taken: str, request: pytest.FixtureRequest
) -> None:
    """The unique constraints on (game, seq) and (game, idempotency key) refuse the second
    move where the insert is made: record_move answers False, the game keeps its version,
    and the transaction can go on (no error aborted it)."""
    game_id = f"repo-{request.node.callspec.id.replace(' ', '-')}"[:32]

    async def work(database: Database) -> None:
        async with committed(database) as session:
            row = await _game(session, game_id)
            assert await _append(GameRepository(session), row, 0, "k1")
        async with committed(database) as session:
            repo = GameRepository(session)
            loaded = await repo.get(game_id)
            assert loaded is not None and loaded.version == 1
            if taken == "sequence number":  # a racer that loaded the game at version 0
                assert not await _append(repo, loaded, 0, "k2")
            else:  # the key again, on the next move
                assert not await _append(repo, loaded, 1, "k1")
            assert await _moves(session, game_id) == 1
            assert await _append(repo, loaded, 1, "k3")  # the transaction is still usable
        async with database.read_sessions() as session:
            final = await GameRepository(session).get(game_id)
            assert final is not None and final.version == 2
            assert await _moves(session, game_id) == 2
            assert await GameRepository(session).moves(game_id) == ["draw", "draw"]
            assert await GameRepository(session).moves(game_id, upto=1) == ["draw"]
            first = await GameRepository(session).by_idempotency_key(game_id, "k3")
            assert first is not None and (first.seq, first.request_hash) == (2, "h")

    run(database_url, work)


def test_a_game_changed_outside_the_server_refuses_the_move_and_keeps_nothing(
    database_url: str,
) -> None:
    """The move's number is free but the game is not at the version the move expects (its
    row was changed by hand): a conflict, and the inserted move is rolled back with it."""

    async def work(database: Database) -> None:
        game_id = f"repo-outside-{database.dialect}"
        async with committed(database) as session:
            row = await _game(session, game_id)
            await session.execute(update(Game).where(Game.id == game_id).values(version=5))
        async with database.sessions() as session:
            with pytest.raises(ConflictProblem):
                await _append(GameRepository(session), row, 0, None)  # the row still says 0
            await session.rollback()
            assert await _moves(session, game_id) == 0
            assert await session.scalar(select(Game.version).where(Game.id == game_id)) == 5

    run(database_url, work)


def test_the_move_that_ends_a_game_stamps_its_end(database_url: str) -> None:
    now = datetime.now(UTC)

    async def work(database: Database) -> None:
        game_id = f"repo-ended-{database.dialect}"
        async with committed(database) as session:
            row = await _game(session, game_id)
            assert await GameRepository(session).record_move(
                row, 0, "concede", line="concede", status=GameStatus.CONCEDED, score=0,
                cards_left=28, now=now,
            )  # fmt: skip
            assert row.version == 1  # the loaded row took the values written
        async with database.read_sessions() as session:
            stored = await session.get(Game, game_id)
            assert stored is not None and stored.status is GameStatus.CONCEDED
            assert stored.ended_at == now and stored.version == 1

    run(database_url, work)


def test_a_game_deleted_after_it_was_read_is_not_found_and_nothing_is_written(
    postgresql_url: str,
) -> None:
    """A purge deleted the game between the move's read and its write (on PostgreSQL a
    move takes no lock when it reads; on SQLite the purge waits for the move's write
    lock): a 404, not a database error."""

    async def work(database: Database) -> None:
        game_id = "repo-deleted"
        async with committed(database) as session:
            await _game(session, game_id)
        async with database.sessions() as session:
            row = await GameRepository(session).get(game_id)
            assert row is not None
            async with committed(database) as purge:
                await purge.execute(delete(Game).where(Game.id == game_id))
            with pytest.raises(NotFoundProblem):
                await _append(GameRepository(session), row, 0, None)
            await session.rollback()
            assert await _moves(session, game_id) == 0

    run(postgresql_url, work)
