"""Every query of the service, and nothing else."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from app.db.models import Game, GameStatus, Move, utcnow


class GameRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def get(self, game_id: str) -> Game | None:
        return self.session.get(Game, game_id)

    def add(self, game: Game) -> None:
        self.session.add(game)
        self.session.flush()

    def moves(self, game_id: str, upto: int | None = None) -> Sequence[str]:
        """The game's move strings in order (the first ``upto`` of them if given)."""
        q = select(Move.move).where(Move.game_id == game_id).order_by(Move.seq)
        if upto is not None:
            q = q.where(Move.seq <= upto)
        return self.session.scalars(q).all()

    def move_rows(self, game_id: str, offset: int = 0, limit: int | None = None) -> Sequence[Move]:
        q = select(Move).where(Move.game_id == game_id).order_by(Move.seq).offset(offset)
        if limit is not None:
            q = q.limit(limit)
        return self.session.scalars(q).all()

    def count_moves(self, game_id: str) -> int:
        q = select(func.count()).select_from(Move).where(Move.game_id == game_id)
        return int(self.session.scalar(q) or 0)

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
            update(Game)
            .where(Game.id == game.id, Game.version == expected_version)
            .values(**values)
            .execution_options(synchronize_session=False)
        )
        if result.rowcount != 1:  # type: ignore[attr-defined]
            return False
        self.session.add(
            Move(
                game_id=game.id,
                seq=expected_version + 1,
                move=move,
                idempotency_key=idempotency_key,
                request_hash=request_hash,
                created_at=now,
            )
        )
        self.session.flush()
        return True
