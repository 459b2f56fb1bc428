"""The games repository against both databases: the constraints decide which move lands."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, delete, func, inspect, select, update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from app.engine import GameStatus
from app.games.errors import ConflictProblem
from app.games.models import Game, Move
from app.games.repository import GameRepository, move_write
from app.kit.database import (
    RequestSession,
    make_engine,
    make_read_sessionmaker,
    make_sessionmaker,
    statements_commit_alone,
)
from app.kit.errors import NotFoundProblem
from app.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(Settings(database_url=database_url))
    yield engine
    engine.dispose()


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


def _game(session: Session, game_id: str) -> Game:
    row = _new_game(game_id)
    GameRepository(session).add(row)
    return row


def _append(repo: GameRepository, row: Game, version: int, key: str | None) -> bool:
    return repo.append_move(
        move_write(
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
            move_write(
                row, 0, "concede", now=now, line="concede", status=GameStatus.CONCEDED,
                score=0, cards_left=28,
            )
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


def test_on_sqlite_the_driver_s_statements_are_the_session_s_transaction(
    engine: Engine,
) -> None:
    """SQLite: the driver sends a move's statements on the session's own connection,
    under its BEGIN IMMEDIATE: nobody sees the move before the session commits, and its
    rollback takes the move back."""
    if engine.dialect.name != "sqlite":
        pytest.skip("SQLite's transaction around a move")
    game_id = "repo-driver-sqlite-transaction"
    with make_sessionmaker(engine)() as session:
        _game(session, game_id)
        session.commit()
    with _driven(engine) as session, make_read_sessionmaker(engine)() as other:
        repo = GameRepository(session)
        row = repo.get(game_id)
        assert row is not None and inspect(row).session is None
        assert _append(repo, row, 0, "k1") and row.version == 1
        assert session.in_transaction()
        assert _moves(other, game_id) == 0
        other.rollback()
        session.rollback()
        assert _moves(other, game_id) == 0
        other.rollback()
        row = repo.get(game_id)
        assert row is not None and row.version == 0
        assert _append(repo, row, 0, "k1")
        session.commit()
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


# -- the driver's statements: what a move's and a read's sessions run ---------------------
def _driven(engine: Engine) -> Session:
    """A session whose hot statements the driver sends (``statements_commit_alone``): on
    PostgreSQL each commits as it returns, on SQLite in the session's transaction."""
    session = make_sessionmaker(engine)()
    statements_commit_alone(session)
    return session


def _committed_alone(engine: Engine, session: Session) -> None:
    """The driver's statements so far are committed: alone on PostgreSQL (the session has
    nothing open), by the session's commit on SQLite (they ran in its transaction)."""
    if engine.dialect.name == "postgresql":
        assert not session.in_transaction()
    else:
        assert session.in_transaction()
        session.commit()


def _columns(row: Game) -> dict[str, object]:
    return {column.key: getattr(row, column.key) for column in Game.__table__.columns}


def test_a_row_the_driver_reads_is_the_row_the_orm_reads(engine: Engine) -> None:
    """Every column, processed by the same types (the status an enum member, timestamps
    aware, the rules a dict), and the row in no session: nothing ran through it."""
    game_id = f"repo-driver-read-{engine.dialect.name}"
    alone = _driven(engine)
    ended = datetime(2026, 12, 1, 9, 30, 15, 123456, tzinfo=UTC)
    with make_sessionmaker(engine)() as session:
        row = _game(session, game_id)
        row.rules = {"layout": "tripeaks", "redeals": 2, "wrap": False}
        row.deal_number = 2**40 + 1
        row.status = GameStatus.WON
        row.ended_at = row.reveal_after = ended
        row.line = "draw,play 27"
        session.commit()
    with make_sessionmaker(engine)() as session:
        orm = GameRepository(session).get(game_id)
        assert orm is not None
        expected = _columns(orm)
    with alone as session:
        driven = GameRepository(session).get(game_id)
        assert driven is not None
        assert _columns(driven) == expected
        assert driven.status is GameStatus.WON and driven.ended_at == ended
        assert inspect(driven).session is None
        assert GameRepository(session).get(f"{game_id}-none") is None
        _committed_alone(engine, session)


def test_a_game_the_driver_inserts_reads_back_whole(engine: Engine) -> None:
    game_id = f"repo-driver-insert-{engine.dialect.name}"
    alone = _driven(engine)
    now = datetime.now(UTC)
    with alone as session:
        row = _new_game(
            game_id,
            token_hash="1" * 64,
            rules={"scoring": "golf"},
            deal="Ac 2c",
            deal_chosen=False,
            line="",
            created_at=now,
            updated_at=now,
        )
        GameRepository(session).add(row)
        assert inspect(row).session is None
        _committed_alone(engine, session)
        written = _columns(row)
    with make_sessionmaker(engine)() as session:
        stored = GameRepository(session).get(game_id)
        assert stored is not None and _columns(stored) == written


def test_the_driver_s_errors_are_sqlalchemy_s_and_a_broken_connection_is_replaced(
    engine: Engine,
) -> None:
    game_id = f"repo-driver-errors-{engine.dialect.name}"
    alone = _driven(engine)
    with make_sessionmaker(engine)() as session:
        row = _game(session, game_id)
        session.commit()
        twin = Game(**{**_columns(row), "line": ""})
    with alone as session:
        with pytest.raises(IntegrityError):  # the same id twice
            GameRepository(session).add(twin)
        # Still usable: in autocommit (PostgreSQL), or only the statement failed (SQLite).
        assert GameRepository(session).get(game_id) is not None
        if engine.dialect.name != "postgresql":
            return  # sqlite3's connection cannot break apart from the file it opened
        assert isinstance(session, RequestSession)
        driver = session.driver()
        assert driver is not None
        driver.close()  # as a server that went away leaves it
        with pytest.raises(OperationalError) as failed:
            GameRepository(session).get(game_id)
        assert failed.value.connection_invalidated
    again = _driven(engine)  # the pool gives a working connection
    with again as session:
        assert GameRepository(session).get(game_id) is not None


def test_a_fresh_process_s_first_read_is_the_driver_s(database_url: str) -> None:
    """A server's first use of the ORM may be a row the driver read (a move on a worker
    that has done nothing else): the mappers are configured by then."""
    if not database_url.startswith("postgresql"):
        pytest.skip("PostgreSQL's statements that commit alone")
    game_id = "repo-driver-fresh"
    engine = make_engine(Settings(database_url=database_url))
    try:
        with make_sessionmaker(engine)() as session:
            _game(session, game_id)
            session.commit()
    finally:
        engine.dispose()
    script = (
        "import sys\n"
        "from app.settings import Settings\n"
        "from app.kit.database import make_engine, make_sessionmaker, statements_commit_alone\n"
        "from app.games.repository import GameRepository\n"
        "engine = make_engine(Settings(database_url=sys.argv[1]))\n"
        "with make_sessionmaker(engine)() as session:\n"
        "    statements_commit_alone(session)\n"
        "    row = GameRepository(session).get(sys.argv[2])\n"
        "    print(row.status.value, row.version)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, database_url, game_id],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["in_progress", "0"]


def test_a_move_log_and_an_idempotency_key_read_by_the_driver(engine: Engine) -> None:
    """What an idempotent retry reads on a session whose statements commit alone."""
    game_id = f"repo-driver-log-{engine.dialect.name}"
    alone = _driven(engine)
    with make_sessionmaker(engine)() as session:
        _game(session, game_id)
        session.commit()
    with alone as session:
        repo = GameRepository(session)
        row = repo.get(game_id)
        assert row is not None
        assert _append(repo, row, 0, "k1") and _append(repo, row, 1, "k2")
        assert repo.moves(game_id) == ["draw", "draw"]
        assert repo.moves(game_id, upto=1) == ["draw"]
        first = repo.by_idempotency_key(game_id, "k2")
        assert first is not None and (first.seq, first.request_hash) == (2, "h")
        assert repo.by_idempotency_key(game_id, "k3") is None
        assert inspect(first).session is None  # all of it by the driver
        _committed_alone(engine, session)
    with make_sessionmaker(engine)() as session:
        assert GameRepository(session).moves(game_id) == ["draw", "draw"]
