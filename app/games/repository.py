"""Every query of the service, and nothing else."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Table, bindparam, insert, select, update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from app.games.models import Game, GameStatus, Move
from app.kit.models import utcnow

# The statements of every move, built once: building a statement and its cache key costs
# more than running it. Writes are plain Core on the tables (the ORM's bulk paths only
# add cost); the SET and VALUES columns come from the parameters given at execution.
GAMES: Table = Game.__table__  # type: ignore[assignment]
MOVES: Table = Move.__table__  # type: ignore[assignment]
_GAME = select(Game).where(Game.id == bindparam("game_id"))
_MOVES = select(Move.move).where(Move.game_id == bindparam("game_id")).order_by(Move.seq)
_MOVES_UPTO = _MOVES.where(Move.seq <= bindparam("upto"))
_BUMP_VERSION = update(GAMES).where(
    GAMES.c.id == bindparam("b_id"), GAMES.c.version == bindparam("b_version")
)
_INSERT_MOVE = insert(MOVES)


class GameRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def get(self, game_id: str) -> Game | None:
        return self.session.scalars(_GAME, {"game_id": game_id}).one_or_none()

    def add(self, game: Game) -> None:
        self.session.add(game)
        self.session.flush()

    def moves(self, game_id: str, upto: int | None = None) -> Sequence[str]:
        """The game's move strings in order (the first ``upto`` of them if given)."""
        if upto is None:
            return self.session.scalars(_MOVES, {"game_id": game_id}).all()
        return self.session.scalars(_MOVES_UPTO, {"game_id": game_id, "upto": upto}).all()

    def move_rows(self, game_id: str, offset: int = 0, limit: int | None = None) -> Sequence[Move]:
        q = select(Move).where(Move.game_id == game_id).order_by(Move.seq).offset(offset)
        if limit is not None:
            q = q.limit(limit)
        return self.session.scalars(q).all()

    def by_idempotency_key(self, game_id: str, key: str) -> Move | None:
        q = select(Move).where(Move.game_id == game_id, Move.idempotency_key == key)
        return self.session.scalars(q).first()

    def append_move(
        self,
        game: Game,
        expected_version: int,
        move: str,
        *,
        status: GameStatus,
        score: int,
        cards_left: int,
        idempotency_key: str | None = None,
        request_hash: str | None = None,
    ) -> bool:
        """Bump the game's version from ``expected_version`` and record the move.

        Returns False, writing nothing, when another request moved the game first: the
        conditional UPDATE matches no row (on PostgreSQL it waits for the other
        transaction and then sees the new version).
        """
        now = utcnow()
        values = {
            "version": expected_version + 1,
            "status": status,
            "score": score,
            "cards_left": cards_left,
            "updated_at": now,
        }
        if status is not GameStatus.IN_PROGRESS:
            values["ended_at"] = now
        result = self.session.execute(
            _BUMP_VERSION, {"b_id": game.id, "b_version": expected_version, **values}
        )
        if result.rowcount != 1:  # type: ignore[attr-defined]
            return False
        self.session.execute(
            _INSERT_MOVE,
            {
                "game_id": game.id,
                "seq": expected_version + 1,
                "move": move,
                "idempotency_key": idempotency_key,
                "request_hash": request_hash,
                "created_at": now,
            },
        )
        # The loaded row takes the values just written, as if refreshed, without a query
        # (and, on SQLite, without a second BEGIN IMMEDIATE) after the commit.
        for key, value in values.items():
            set_committed_value(game, key, value)
        return True
