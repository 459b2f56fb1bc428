"""Every query of the games domain, and nothing else.

A move's statements are built once (building a statement and its cache key costs more
than running it): plain Core on the tables, the SET and VALUES columns named by
parameters. The ORM loads a game's row (a mapped instance the service reads and whose
new values ``record_move`` sets as loaded, without a query); the writes are Core.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from psycopg.errors import ForeignKeyViolation
from sqlalchemy import (
    Select,
    Table,
    and_,
    bindparam,
    column,
    delete,
    exists,
    func,
    or_,
    select,
    table,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.sql.dml import Delete, ReturningInsert, Update

from app.engine import GameStatus
from app.games.errors import ConflictProblem
from app.games.models import Analysis, Game, Move
from app.kit.errors import NotFoundProblem
from app.kit.models import UTCDateTime, utcnow

GAMES: Table = Game.__table__  # type: ignore[assignment]
MOVES: Table = Move.__table__  # type: ignore[assignment]
_GAME = select(Game).where(Game.id == bindparam("game_id"))
# The challenges' table, as far as a new game's copy check reads it (its columns named
# here, not its model imported: the domains meet through their services only).
_CHALLENGES = table("challenges", column("deal_key"), column("closes_at", UTCDateTime()))
_MOVES = select(Move.move).where(Move.game_id == bindparam("game_id")).order_by(Move.seq)
_MOVES_UPTO = _MOVES.where(Move.seq <= bindparam("upto"))
_GAME_COLUMNS = ("version", "line", "status", "score", "cards_left", "updated_at")


def _bumped(ended: bool) -> Update:
    """SQLite: the game's UPDATE, answering its id if it ran."""
    columns = (*_GAME_COLUMNS, "ended_at") if ended else _GAME_COLUMNS
    return (
        update(GAMES)
        .where(GAMES.c.id == bindparam("b_id"), GAMES.c.version == bindparam("b_version"))
        .values({name: bindparam(name) for name in columns})
        .returning(GAMES.c.id)
    )


_BUMPED = {False: _bumped(False), True: _bumped(True)}
# A move whose sequence number or idempotency key the game already has is not inserted
# (and raises nothing): the unique constraints decide which of two racing moves lands.
# RETURNING tells whether it was (psycopg reports no row count for it).
_INSERT_MOVE: dict[str, ReturningInsert[tuple[int]]] = {
    "sqlite": sqlite.insert(MOVES).on_conflict_do_nothing().returning(MOVES.c.seq),
    "postgresql": postgresql.insert(MOVES).on_conflict_do_nothing().returning(MOVES.c.seq),
}
_MOVE_COLUMNS = ("game_id", "seq", "move", "idempotency_key", "request_hash", "created_at")


def _move_and_bump(ended: bool) -> Select[int, int]:
    """PostgreSQL: the move's INSERT and the game's UPDATE in one statement (one round
    trip): the UPDATE runs only when the INSERT did, and the answer says which ran."""
    inserted = (
        postgresql.insert(MOVES)
        # Named apart from the games' columns: a parameter named as a column of the
        # UPDATE's table would be SET by it too.
        .values({name: bindparam(f"m_{name}") for name in _MOVE_COLUMNS})
        .on_conflict_do_nothing()
        .returning(MOVES.c.seq)
        .cte("inserted")
    )
    columns = (*_GAME_COLUMNS, "ended_at") if ended else _GAME_COLUMNS
    bumped = (
        update(GAMES)
        .where(
            GAMES.c.id == bindparam("b_id"),
            GAMES.c.version == bindparam("b_version"),
            exists(select(inserted.c.seq)),
        )
        .values({name: bindparam(name) for name in columns})
        .returning(GAMES.c.id)
        .cte("bumped")
    )
    return select(
        select(func.count()).select_from(inserted).scalar_subquery(),
        select(func.count()).select_from(bumped).scalar_subquery(),
    )


_MOVE_AND_BUMP = {False: _move_and_bump(False), True: _move_and_bump(True)}


def _deleted_meanwhile(game: Game, error: IntegrityError) -> None:
    if isinstance(error.orig, ForeignKeyViolation):
        # The game's row was deleted (a purge) after this request read it: the statement
        # failed whole, and there is no game left to move.
        raise NotFoundProblem(f"no game {game.id!r}: it was deleted") from None


def _changed_outside() -> ConflictProblem:
    return ConflictProblem("the stored game changed under this move; reload it")


ANALYSES: Table = Analysis.__table__  # type: ignore[assignment]
_INSERT_ANALYSIS = {
    "sqlite": sqlite.insert(ANALYSES).on_conflict_do_nothing(),
    "postgresql": postgresql.insert(ANALYSES).on_conflict_do_nothing(),
}


class GameRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    @property
    def _dialect(self) -> str:
        return self.session.get_bind().dialect.name

    async def get(self, game_id: str) -> Game | None:
        """The game's row. A move takes no lock on it: its write is checked against the
        version read (``record_move``), and a racing move, or a purge, waits for that
        write's lock, then finds the row changed."""
        result = await self.session.scalars(_GAME, {"game_id": game_id})
        return result.one_or_none()

    async def add(self, game: Game) -> None:
        self.session.add(game)
        await self.session.flush()

    async def moves(self, game_id: str, upto: int | None = None) -> Sequence[str]:
        """The game's move strings in order (the first ``upto`` of them if given)."""
        if upto is None:
            result = await self.session.scalars(_MOVES, {"game_id": game_id})
        else:
            result = await self.session.scalars(_MOVES_UPTO, {"game_id": game_id, "upto": upto})
        return result.all()

    async def move_rows(
        self, game_id: str, offset: int = 0, limit: int | None = None, after: int | None = None
    ) -> Sequence[Move]:
        """The game's moves in order: from ``offset``, or after the move numbered
        ``after`` (a range of the (game, seq) key: a deep page costs what the first does)."""
        q = select(Move).where(Move.game_id == game_id).order_by(Move.seq)
        q = q.where(Move.seq > after) if after is not None else q.offset(offset)
        if limit is not None:
            q = q.limit(limit)
        return (await self.session.scalars(q)).all()

    async def analysis(self, game_id: str) -> Analysis | None:
        return await self.session.get(Analysis, game_id)

    async def add_analysis(self, analysis: Analysis) -> Analysis:
        """Insert ``analysis`` unless the game has one; answer the one stored."""
        await self.session.execute(
            _INSERT_ANALYSIS[self._dialect],
            {"game_id": analysis.game_id, "body": analysis.body, "created_at": utcnow()},
        )
        stored = await self.session.scalars(
            select(Analysis).where(Analysis.game_id == analysis.game_id)
        )
        return stored.one()

    async def by_idempotency_key(self, game_id: str, key: str) -> Move | None:
        q = select(Move).where(Move.game_id == game_id, Move.idempotency_key == key)
        return (await self.session.scalars(q)).first()

    async def record_move(
        self,
        game: Game,
        version: int,
        move: str,
        *,
        line: str,
        status: GameStatus,
        score: int,
        cards_left: int,
        now: datetime,
        idempotency_key: str | None = None,
        request_hash: str | None = None,
    ) -> bool:
        """A move's one write, in the session's transaction: ``move`` recorded as number
        ``version + 1`` of ``game`` (read at ``version``), and the game's summary bumped
        to it (its line, status, score, cards left; its end when ``status`` ends it).

        Returns False, writing nothing, when another request got there first: its move
        holds that number, or this idempotency key (on PostgreSQL the insert waits for
        the other request's transaction, then finds its row). The move goes in first so
        that the constraints, not a check made earlier, decide the race. On PostgreSQL
        both writes are one statement (``_move_and_bump``, one round trip); SQLite has no
        INSERT in a WITH, and its round trips cost little. Once written, the loaded row
        holds the new values, as if refreshed, without a query.
        """
        row: dict[str, object] = {
            "game_id": game.id,
            "seq": version + 1,
            "move": move,
            "idempotency_key": idempotency_key,
            "request_hash": request_hash,
            "created_at": now,
        }
        values: dict[str, object] = {
            "version": version + 1,
            "line": line,
            "status": status,
            "score": score,
            "cards_left": cards_left,
            "updated_at": now,
        }
        ended = status is not GameStatus.IN_PROGRESS
        if ended:
            values["ended_at"] = now
        bump = {"b_id": game.id, "b_version": version, **values}
        try:
            if self._dialect == "postgresql":
                moved = {f"m_{name}": value for name, value in row.items()}
                result = await self.session.execute(_MOVE_AND_BUMP[ended], {**moved, **bump})
                inserted, bumped = result.one()
            else:
                inserted = len((await self.session.execute(_INSERT_MOVE["sqlite"], row)).all())
                if not inserted:
                    return False
                bumped = len((await self.session.execute(_BUMPED[ended], bump)).all())
        except IntegrityError as e:
            _deleted_meanwhile(game, e)
            raise
        if not inserted:
            return False
        if bumped != 1:
            # The game holds no move number version + 1, yet is not at that version: its
            # row changed outside the server. Raised, so that the request's transaction
            # (and the move inserted above) is rolled back.
            raise _changed_outside()
        for name, value in values.items():
            set_committed_value(game, name, value)
        return True

    async def _deleted(self, statement: Delete) -> int:
        """Run a DELETE of games (the session's loaded rows left as they are); how many."""
        result = await self.session.execute(
            statement, execution_options={"synchronize_session": False}
        )
        return int(result.rowcount)  # type: ignore[attr-defined]

    async def delete_stale(
        self,
        statuses: Sequence[GameStatus],
        untouched_since: datetime,
        limit: int,
        *,
        players_too: bool,
    ) -> int:
        """Delete at most ``limit`` games in ``statuses`` not changed since
        ``untouched_since`` (their moves and analyses go with them); how many went.

        The conditions stand on the DELETE itself, not only on the query that picks the
        ids: a game moved meanwhile is re-checked on its new row (PostgreSQL waits for
        the move's lock, then sees its new ``updated_at``) and kept.
        """
        stale = [
            Game.status.in_(statuses),
            Game.updated_at < untouched_since,
            Game.challenge_id.is_(None),
        ]
        if not players_too:
            stale.append(Game.player_id.is_(None))
        ids = select(Game.id).where(*stale).order_by(Game.updated_at).limit(limit)
        return await self._deleted(delete(Game).where(Game.id.in_(ids.scalar_subquery()), *stale))

    async def delete_unfinished_of_closed_challenges(self, now: datetime, limit: int) -> int:
        """Delete at most ``limit`` unfinished attempts at challenges whose day is over
        (they can no longer be ranked; the entry stays, without its game)."""
        stale = [
            Game.challenge_id.is_not(None),
            Game.status == GameStatus.IN_PROGRESS,
            Game.reveal_after < now,
        ]
        ids = select(Game.id).where(*stale).order_by(Game.updated_at).limit(limit)
        return await self._deleted(delete(Game).where(Game.id.in_(ids.scalar_subquery()), *stale))

    async def open_challenge_closing(self, keys: frozenset[str], now: datetime) -> datetime | None:
        """When the last open challenge whose deal key is one of ``keys`` closes; None
        when no open challenge has one (by ``ix_challenges_deal_key_closes_at``)."""
        c = _CHALLENGES.c
        closes: datetime | None = await self.session.scalar(
            select(func.max(c.closes_at)).where(c.deal_key.in_(sorted(keys)), c.closes_at > now)
        )
        return closes  # aware: the column is typed as UTCDateTime

    async def reveal_challenge_games(self, challenge_id: str, at: datetime) -> None:
        """The attempts at ``challenge_id`` stay secret until ``at`` only; the rows this
        session holds say so too (a duel ends with the move of its last game, whose
        answer then reveals the deal)."""
        await self.session.execute(
            update(Game)
            .where(Game.challenge_id == challenge_id, Game.reveal_after > at)
            .values(reveal_after=at),
            execution_options={"synchronize_session": "fetch"},
        )

    async def delete_beyond_cap(self, cap: int, limit: int) -> int:
        """Delete at most ``limit`` of players' finished games beyond the newest ``cap`` of
        each player's (a finished game changes no more: nothing races this)."""
        finished = Game.status.in_([GameStatus.WON, GameStatus.LOST, GameStatus.CONCEDED])
        newest_first = func.row_number().over(
            partition_by=Game.player_id, order_by=(Game.updated_at.desc(), Game.id.desc())
        )
        ranked = (
            select(Game.id, newest_first.label("k"))
            .where(Game.player_id.is_not(None), finished)
            .subquery()
        )
        ids = select(ranked.c.id).where(ranked.c.k > cap).limit(limit)
        return await self._deleted(delete(Game).where(Game.id.in_(ids.scalar_subquery())))

    async def for_player(
        self,
        player_id: str,
        limit: int,
        after: tuple[datetime, str] | None,
        status: GameStatus | None,
        layout: str | None,
    ) -> Sequence[Game]:
        q = select(Game).where(Game.player_id == player_id)
        if after is not None:
            created, game_id = after
            q = q.where(
                or_(Game.created_at < created, and_(Game.created_at == created, Game.id < game_id))
            )
        if status is not None:
            q = q.where(Game.status == status)
        if layout is not None:
            q = q.where(Game.layout == layout)
        q = q.order_by(Game.created_at.desc(), Game.id.desc()).limit(limit)
        return (await self.session.scalars(q)).all()

    async def unlink_player(self, player_id: str) -> None:
        await self.session.execute(
            update(GAMES).where(GAMES.c.player_id == player_id).values(player_id=None)
        )
