"""Every query of the players domain, and nothing else."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Table, bindparam, case, column, delete, exists, select, table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from app.engine import GameStatus
from app.kit.models import UTCDateTime
from app.players.models import ALL, Player, PlayerStats

STATS: Table = PlayerStats.__table__  # type: ignore[assignment]
_PLAYER = select(Player).where(Player.id == bindparam("player_id"))
# FOR NO KEY UPDATE: a game's last move, whose statistics row refers to the player (a
# KEY SHARE lock on its row), is not blocked by it.
_PLAYER_FOR_UPDATE = _PLAYER.with_for_update(key_share=True)


def _upsert(dialect: str) -> postgresql.Insert | sqlite.Insert:
    """An INSERT that can become ON CONFLICT ... DO UPDATE, in ``dialect``."""
    return postgresql.insert(STATS) if dialect == "postgresql" else sqlite.insert(STATS)


# Other domains' tables, as far as a player's retention reads them (their columns named
# here, not their models imported: the domains meet through their services only).
_ENTRIES = table("challenge_entries", column("player_id"))
_GAMES = table("games", column("player_id"), column("updated_at", UTCDateTime()))


class PlayerRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def get(self, player_id: str, *, for_update: bool = False) -> Player | None:
        statement = _PLAYER_FOR_UPDATE if for_update else _PLAYER
        return (await self.session.scalars(statement, {"player_id": player_id})).one_or_none()

    async def add(self, player: Player) -> None:
        self.session.add(player)
        await self.session.flush()

    async def stats(self, player_id: str) -> Sequence[PlayerStats]:
        q = select(PlayerStats).where(PlayerStats.player_id == player_id)
        return (
            await self.session.scalars(q.order_by(PlayerStats.layout, PlayerStats.scoring))
        ).all()

    async def delete_idle(self, idle_since: datetime, limit: int) -> int:
        """Delete at most ``limit`` players made before ``idle_since`` who never entered a
        challenge and have no game moved since (``player_stats`` goes with them; their
        games lose their player). The rows are locked first, then checked again: a game
        made for one of them meanwhile (its reference waits for the lock) keeps it."""
        idle = [
            Player.created_at < idle_since,
            ~exists().where(_ENTRIES.c.player_id == Player.id),
            ~exists().where(_GAMES.c.player_id == Player.id, _GAMES.c.updated_at >= idle_since),
        ]
        chosen = select(Player.id).where(*idle).order_by(Player.created_at).limit(limit)
        ids = (await self.session.scalars(chosen.with_for_update())).all()
        if not ids:
            return 0
        result = await self.session.execute(
            delete(Player).where(Player.id.in_(ids), *idle),
            execution_options={"synchronize_session": False},
        )
        return int(result.rowcount)  # type: ignore[attr-defined]

    async def delete_stats(self, player_id: str) -> None:
        await self.session.execute(delete(PlayerStats).where(PlayerStats.player_id == player_id))

    async def count_result(
        self,
        player_id: str,
        layout: str,
        scoring: str,
        status: GameStatus,
        score: int,
        *,
        lower_is_better: bool,
    ) -> None:
        """Count one ended game in the player's line for ``layout``/``scoring`` and in the
        ``*`` line, as increments made by the database (an upsert each): two games of the
        player ending at once both count, on either database."""
        dialect = self.session.get_bind().dialect.name
        won = status is GameStatus.WON
        for line_layout, line_scoring, best in (
            (layout, scoring, score),
            (ALL, ALL, None),  # schemes mix here: no best score
        ):
            statement = _upsert(dialect).values(
                player_id=player_id,
                layout=line_layout,
                scoring=line_scoring,
                played=1,
                won=int(won),
                lost=int(status is GameStatus.LOST),
                conceded=int(status is GameStatus.CONCEDED),
                score_sum=score,
                best_score=best,
                current_run=int(won),
                longest_run=int(won),
            )
            new = statement.excluded
            c = STATS.c
            better = (
                new.best_score < c.best_score if lower_is_better else new.best_score > c.best_score
            )
            updates: dict[str, Any] = {
                "played": c.played + 1,
                "won": c.won + new.won,
                "lost": c.lost + new.lost,
                "conceded": c.conceded + new.conceded,
                "score_sum": c.score_sum + new.score_sum,
                "best_score": case(
                    (c.best_score.is_(None), new.best_score),
                    (better, new.best_score),
                    else_=c.best_score,
                ),
                "current_run": c.current_run + 1 if won else 0,
                "longest_run": case(
                    (c.current_run + 1 > c.longest_run, c.current_run + 1), else_=c.longest_run
                )
                if won
                else c.longest_run,
            }
            await self.session.execute(
                statement.on_conflict_do_update(
                    index_elements=[c.player_id, c.layout, c.scoring], set_=updates
                )
            )
