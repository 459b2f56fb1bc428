"""The games repository against both databases: the constraints decide which move lands."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine, delete, func, select, update
from sqlalchemy.orm import Session

from app.engine import GameStatus
from app.games.errors import ConflictProblem
from app.games.models import Game, Move
from app.games.repository import GameRepository
from app.kit.database import make_engine, make_sessionmaker, statements_commit_alone
from app.kit.errors import NotFoundProblem
from app.settings import Settings


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(Settings(database_url=database_url))
    yield engine
    engine.dispose()


def _game(session: Session, game_id: str) -> Game:
    row = Game(
        id=game_id,
        token_hash="0" * 64,
        layout="tripeaks",
        rules={},
        deal="",
        deal_number=None,
        deal_chosen=True,
        salt="s",
        commitment="c",
        status=GameStatus.IN_PROGRESS,
        version=0,
        score=0,
        cards_left=28,
    )
    GameRepository(session).add(row)
    return row


def _append(repo: GameRepository, row: Game, version: int, key: str | None) -> bool:
    return repo.append_move(
        row,
        version,
        "draw",
        now=datetime.now(UTC),
        line="draw",
        status=GameStatus.IN_PROGRESS,
        score=0,
        cards_left=28,
        idempotency_key=key,
        request_hash="h" if key else None,
    )


def _moves(session: Session, game_id: str) -> int:
    return (
        session.scalar(select(func.count()).select_from(Move).where(Move.game_id == game_id)) or 0
    )


@pytest.mark.parametrize("taken", ["sequence number", "idempotency key"])
def test_a_move_that_meets_a_constraint_writes_nothing_and_raises_nothing(
    engine: Engine, taken: str, request: pytest.FixtureRequest
) -> None:
    """The unique constraints on (game, seq) and (game, idempotency key) refuse the second
    move where the insert is made: append_move answers False, the game keeps its version,
    and the transaction can go on (no error aborted it)."""
    game_id = f"repo-{request.node.callspec.id.replace(' ', '-')}"[:32]
    sessions = make_sessionmaker(engine)
    with sessions() as session:
        row = _game(session, game_id)
        repo = GameRepository(session)
        assert _append(repo, row, 0, "k1")
        session.commit()
    with sessions() as session:
        repo = GameRepository(session)
        loaded = repo.get(game_id)
        assert loaded is not None and loaded.version == 1
        row = loaded
        if taken == "sequence number":  # a racer that loaded the game at version 0
            assert not _append(repo, row, 0, "k2")
        else:  # the key again, on the next move
            assert not _append(repo, row, 1, "k1")
        assert _moves(session, game_id) == 1
        assert _append(repo, row, 1, "k3")  # the transaction is still usable
        session.commit()
    with sessions() as session:
        final = GameRepository(session).get(game_id)
        assert final is not None and final.version == 2
        assert _moves(session, game_id) == 2


def test_a_game_changed_outside_the_server_refuses_the_move_and_keeps_nothing(
    engine: Engine,
) -> None:
    """The move's number is free but the game is not at the version the move expects (its
    row was changed by hand): a conflict, and the inserted move is rolled back with it."""
    game_id = f"repo-outside-{engine.dialect.name}"
    sessions = make_sessionmaker(engine)
    with sessions() as session:
        row = _game(session, game_id)
        session.execute(update(Game).where(Game.id == game_id).values(version=5))
        session.commit()
        with pytest.raises(ConflictProblem):
            _append(GameRepository(session), row, 0, None)  # the row still says 0
        session.rollback()
        assert _moves(session, game_id) == 0
        assert session.scalar(select(Game.version).where(Game.id == game_id)) == 5


def test_the_move_that_ends_a_game_stamps_its_end(engine: Engine) -> None:
    game_id = f"repo-ended-{engine.dialect.name}"
    sessions = make_sessionmaker(engine)
    with sessions() as session:
        row = _game(session, game_id)
        now = datetime.now(UTC)
        assert GameRepository(session).append_move(
            row, 0, "concede", now=now, line="concede", status=GameStatus.CONCEDED,
            score=0, cards_left=28,
        )  # fmt: skip
        session.commit()
    with sessions() as session:
        stored = session.get(Game, game_id)
        assert stored is not None and stored.status is GameStatus.CONCEDED
        assert stored.ended_at == now and stored.version == 1


def _commit_alone(engine: Engine) -> Session:
    """A session whose statements commit as they return, as a move's on PostgreSQL (on
    SQLite a move's read and write share its transaction's write lock)."""
    if engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL's statements that commit alone")
    session = make_sessionmaker(engine)()
    statements_commit_alone(session)
    return session


def test_a_move_whose_statement_commits_alone_lands_when_it_returns(engine: Engine) -> None:
    game_id = f"repo-alone-{engine.dialect.name}"
    alone = _commit_alone(engine)
    with make_sessionmaker(engine)() as session:
        _game(session, game_id)
        session.commit()
    with alone as session, make_sessionmaker(engine)() as other:
        repo = GameRepository(session)
        row = repo.get(game_id)
        assert row is not None
        assert _append(repo, row, 0, "k1")
        assert _moves(other, game_id) == 1  # seen by another connection, not yet committed
        assert not _append(repo, row, 0, "k2")  # the racer's view: the number is taken
        assert _moves(other, game_id) == 1


def test_a_game_changed_outside_the_server_keeps_nothing_of_a_move_that_committed_alone(
    engine: Engine,
) -> None:
    game_id = f"repo-outside-alone-{engine.dialect.name}"
    alone = _commit_alone(engine)
    with make_sessionmaker(engine)() as session:
        row = _game(session, game_id)
        session.execute(update(Game).where(Game.id == game_id).values(version=5))
        session.commit()
    with alone as session:
        with pytest.raises(ConflictProblem):
            _append(GameRepository(session), row, 0, None)  # the row still says 0
        session.rollback()
        assert _moves(session, game_id) == 0
        assert session.scalar(select(Game.version).where(Game.id == game_id)) == 5


def test_a_game_deleted_after_it_was_read_is_not_found_and_nothing_is_written(
    engine: Engine,
) -> None:
    """A purge deleted the game between the move's read and its write (a move takes no
    lock when it reads): a 404, not a database error."""
    game_id = f"repo-deleted-{engine.dialect.name}"
    alone = _commit_alone(engine)
    with make_sessionmaker(engine)() as session:
        _game(session, game_id)
        session.commit()
    with alone as session:
        row = GameRepository(session).get(game_id)
        assert row is not None
        with make_sessionmaker(engine)() as purge:
            purge.execute(delete(Game).where(Game.id == game_id))
            purge.commit()
        with pytest.raises(NotFoundProblem):
            _append(GameRepository(session), row, 0, None)
        session.rollback()
        assert _moves(session, game_id) == 0
