"""Every query of the players domain, and nothing else."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    Table,
    bindparam,
    case,
    column,
    delete,
    exists,
    func,
    or_,
    select,
    table,
    tuple_,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from app.engine import GameStatus
from app.kit.models import UTCDateTime
from app.players.models import ALL, DailyStreak, Follow, MonthlyWins, Player, PlayerStats

STATS: Table = PlayerStats.__table__  # type: ignore[assignment]
FOLLOWS: Table = Follow.__table__  # type: ignore[assignment]
STREAKS: Table = DailyStreak.__table__  # type: ignore[assignment]
WINS: Table = MonthlyWins.__table__  # type: ignore[assignment]
_PLAYER = select(Player).where(Player.id == bindparam("player_id"))
# FOR NO KEY UPDATE: a game's last move, whose statistics row refers to the player (a
# KEY SHARE lock on its row), is not blocked by it.
_PLAYER_FOR_UPDATE = _PLAYER.with_for_update(key_share=True)


def _upsert(dialect: str, into: Table = STATS) -> postgresql.Insert | sqlite.Insert:
    """An INSERT that can become ON CONFLICT ... DO UPDATE, in ``dialect``."""
    return postgresql.insert(into) if dialect == "postgresql" else sqlite.insert(into)


# Other domains' tables, as far as a player's retention reads them (their columns named
# here, not their models imported: the domains meet through their services only).
_ENTRIES = table("challenge_entries", column("player_id"))
_GAMES = table("games", column("player_id"), column("updated_at", UTCDateTime()))


def _extended(run: int, last: date | None, day: date) -> int:
    """A run of days that ended on ``last``, once ``day`` is counted: one longer when
    ``day`` follows ``last``, else a new run of one (a day was missed)."""
    return run + 1 if last is not None and (day - last).days == 1 else 1


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
        """Erase the player's statistics, streaks, badges and follows (both ways)."""
        for statement in (
            delete(PlayerStats).where(PlayerStats.player_id == player_id),
            delete(DailyStreak).where(DailyStreak.player_id == player_id),
            delete(MonthlyWins).where(MonthlyWins.player_id == player_id),
            delete(Follow).where(
                or_(Follow.follower_id == player_id, Follow.followed_id == player_id)
            ),
        ):
            await self.session.execute(statement)

    # -- following ------------------------------------------------------------------------
    async def follow(self, follower_id: str, followed_id: str, now: datetime) -> bool:
        """Whether the follow was made (False: it was there already)."""
        made = await self.session.execute(
            _upsert(self._dialect, FOLLOWS)
            .values(follower_id=follower_id, followed_id=followed_id, created_at=now)
            .on_conflict_do_nothing()
            .returning(FOLLOWS.c.followed_id)
        )
        return made.first() is not None

    async def unfollow(self, follower_id: str, followed_id: str) -> None:
        await self.session.execute(
            delete(Follow).where(
                Follow.follower_id == follower_id, Follow.followed_id == followed_id
            )
        )

    async def following_count(self, follower_id: str) -> int:
        count = await self.session.scalar(
            select(func.count()).select_from(FOLLOWS).where(FOLLOWS.c.follower_id == follower_id)
        )
        return int(count or 0)

    async def is_following(self, follower_id: str, followed_id: str) -> bool:
        found = await self.session.get(Follow, (follower_id, followed_id))
        return found is not None

    async def following(
        self, follower_id: str, limit: int, after: tuple[datetime, str] | None
    ) -> Sequence[Any]:
        """A page of whom ``follower_id`` follows, the latest first, with their names."""
        f = FOLLOWS.c
        q = (
            select(f.followed_id, f.created_at, Player.name, Player.kind, Player.deleted_at)
            .join(Player, Player.id == f.followed_id)
            .where(f.follower_id == follower_id)
            .order_by(f.created_at.desc(), f.followed_id.desc())
            .limit(limit)
        )
        if after is not None:
            at = (bindparam("a_at", after[0], type_=f.created_at.type), after[1])
            q = q.where(tuple_(f.created_at, f.followed_id) < tuple_(*at))
        return (await self.session.execute(q)).all()

    async def followed_ids(self, follower_id: str) -> list[str]:
        """The ids of whom ``follower_id`` follows (a primary-key range of ``follows``)."""
        found = await self.session.scalars(
            select(FOLLOWS.c.followed_id).where(FOLLOWS.c.follower_id == follower_id)
        )
        return list(found)

    async def names(self, player_ids: list[str]) -> dict[str, tuple[str | None, bool]]:
        """Each of these players' name and whether their account was deleted (by key)."""
        if not player_ids:
            return {}
        rows = await self.session.execute(
            select(Player.id, Player.name, Player.deleted_at).where(Player.id.in_(player_ids))
        )
        return {r.id: (r.name, r.deleted_at is not None) for r in rows}

    # -- the daily challenge's streaks and badges ------------------------------------------
    async def count_daily(self, player_id: str, layout: str, day: date, won: bool) -> None:
        """Count the daily of ``day`` (ended within it) in the player's runs of days, and
        a win in the month's wins. The streak row is made if missing, then locked and
        updated: a day's result arrives once (one attempt a daily, ended within its day,
        so in the order of the days)."""
        await self.session.execute(
            _upsert(self._dialect, STREAKS)
            .values(
                player_id=player_id,
                layout=layout,
                won_current=0,
                won_longest=0,
                played_current=0,
                played_longest=0,
            )
            .on_conflict_do_nothing()
        )
        streak = (
            await self.session.scalars(
                select(DailyStreak)
                .where(DailyStreak.player_id == player_id, DailyStreak.layout == layout)
                .with_for_update()
                .execution_options(populate_existing=True)
            )
        ).one()
        if streak.played_last is not None and day <= streak.played_last:
            return  # counted already
        streak.played_current = _extended(streak.played_current, streak.played_last, day)
        streak.played_longest = max(streak.played_longest, streak.played_current)
        streak.played_last = day
        if won:
            streak.won_current = _extended(streak.won_current, streak.won_last, day)
            streak.won_longest = max(streak.won_longest, streak.won_current)
            streak.won_last = day
            statement = _upsert(self._dialect, WINS).values(
                player_id=player_id, layout=layout, month=day.replace(day=1), wins=1
            )
            await self.session.execute(
                statement.on_conflict_do_update(
                    index_elements=[WINS.c.player_id, WINS.c.layout, WINS.c.month],
                    set_={"wins": WINS.c.wins + 1},
                )
            )
        await self.session.flush()

    async def streaks(self, player_id: str) -> Sequence[DailyStreak]:
        q = select(DailyStreak).where(DailyStreak.player_id == player_id)
        return (await self.session.scalars(q.order_by(DailyStreak.layout))).all()

    async def monthly_wins(self, player_id: str, at_least: int) -> Sequence[MonthlyWins]:
        """The months in which the player won ``at_least`` dailies of a layout, newest first."""
        q = select(MonthlyWins).where(
            MonthlyWins.player_id == player_id, MonthlyWins.wins >= at_least
        )
        return (
            await self.session.scalars(q.order_by(MonthlyWins.month.desc(), MonthlyWins.layout))
        ).all()

    @property
    def _dialect(self) -> str:
        return self.session.get_bind().dialect.name

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
