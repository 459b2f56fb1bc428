"""Every query of the duels domain: the duels (matching, claims, deadlines, a player's
list), the ratings, their counts by value (the board's ranks) and their changes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import (
    Table,
    and_,
    bindparam,
    func,
    literal,
    or_,
    select,
    text,
    tuple_,
    union_all,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from app.duels import ratings
from app.duels.models import Duel, DuelStatus, Rating, RatingChange, RatingCount
from app.kit.models import PlayerKind

DUELS: Table = Duel.__table__  # type: ignore[assignment]
RATINGS: Table = Rating.__table__  # type: ignore[assignment]
COUNTS: Table = RatingCount.__table__  # type: ignore[assignment]
CHANGES: Table = RatingChange.__table__  # type: ignore[assignment]
OPEN = (DuelStatus.WAITING, DuelStatus.MATCHED)


def minute_of(moment: datetime) -> int:
    """Whole minutes since the epoch: matching's arithmetic on waiting time, the same in
    every database."""
    return int(moment.timestamp()) // 60


class DuelRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    @property
    def _dialect(self) -> str:
        return self.session.get_bind().dialect.name

    # -- duels --------------------------------------------------------------------------
    async def add(self, duel: Duel) -> None:
        self.session.add(duel)
        await self.session.flush()

    async def get(self, duel_id: str, *, for_update: bool = False) -> Duel | None:
        q = select(Duel).where(Duel.id == duel_id)
        if for_update:
            q = q.with_for_update()
        return (await self.session.execute(q)).scalar_one_or_none()

    async def of_challenge(self, challenge_id: str) -> Duel | None:
        """The duel whose deal the challenge holds, locked (its result is written next)."""
        q = select(Duel).where(Duel.challenge_id == challenge_id).with_for_update()
        return (await self.session.execute(q)).scalar_one_or_none()

    async def nearest_waiting(
        self,
        pool: str,
        rating: int,
        player_id: str,
        kind: PlayerKind,
        mixes: bool,
        now: datetime,
        widening: tuple[int, int, int],
        excluded: Sequence[str],
    ) -> list[str]:
        """The waiting duels ``player_id`` may take, nearest rating first: of each kind
        of host they may meet (their own; the other's duels that take it, when they take
        it too), one above and one below their rating, each the nearest whose range,
        widened by its wait, reaches them; never their own, nor one of ``excluded``
        hosts', nor one whose host last played them (read from the host's rating). Each
        a range of a waiting duels' index (by pool, host's kind and rating; the mixed
        ones' apart)."""
        other = PlayerKind.BOT if kind is PlayerKind.HUMAN else PlayerKind.HUMAN
        kinds = [(kind, False)] + ([(other, True)] if mixes else [])
        found: list[tuple[int, datetime, str]] = []
        for host_kind, mixed_only in kinds:
            for above in (True, False):
                q = self._nearest(
                    pool, rating, player_id, host_kind, mixed_only, above, now, widening
                )
                if excluded:
                    q = q.where(DUELS.c.host_id.not_in(list(excluded)))
                row = (await self.session.execute(q)).first()
                if row is not None:
                    found.append((abs(row.match_rating - rating), row.created_at, row.id))
        # The nearest rating first, then the longest waiting.
        return [duel_id for _, _, duel_id in sorted(found)]

    @staticmethod
    def _nearest(
        pool: str,
        rating: int,
        player_id: str,
        host_kind: PlayerKind,
        mixed_only: bool,
        above: bool,
        now: datetime,
        widening: tuple[int, int, int],
    ) -> Any:
        start, per_minute, most = widening
        d = DUELS.c
        r = RATINGS.c
        # Written out as the partial indexes say them.
        where: list[Any] = [
            text("duels.status = 'waiting'"),
            d.pool == pool,
            d.host_kind == host_kind,
            d.host_id != player_id,
            # The range widened by the wait reaches the caller's rating.
            func.abs(d.match_rating - rating) - start
            <= literal(per_minute) * (literal(minute_of(now)) - d.opened_minute),
            or_(r.last_opponent_id.is_(None), r.last_opponent_id != player_id),
        ]
        if mixed_only:
            where.append(text("duels.mixed"))
        if above:
            where.append(d.match_rating.between(rating, rating + most))
            order: tuple[Any, ...] = (d.match_rating, d.created_at)
        else:
            where.append(d.match_rating.between(rating - most, rating - 1))
            order = (d.match_rating.desc(), d.created_at)
        return (
            select(d.id, d.match_rating, d.created_at)
            .select_from(DUELS.outerjoin(RATINGS, and_(r.player_id == d.host_id, r.pool == d.pool)))
            .where(*where)
            .order_by(*order)
            .limit(1)
        )

    async def claim(self, duel_id: str, values: dict[str, Any]) -> bool:
        """Take the waiting duel for a challenger: of two requests at once, one does."""
        d = DUELS.c
        taken = await self.session.execute(
            update(DUELS)
            .where(d.id == duel_id, d.status == DuelStatus.WAITING)
            .values(status=DuelStatus.MATCHED, **values)
            .returning(d.id)
        )
        return taken.first() is not None

    async def unfinished_game(self, player_id: str) -> Duel | None:
        """A duel of the player's whose game they have not finished, if any."""
        d = Duel
        q = (
            select(Duel)
            .where(
                d.status.in_(OPEN),
                or_(
                    and_(
                        d.host_id == player_id,
                        d.host_finished_at.is_(None),
                        d.host_forfeit.is_(False),
                    ),
                    and_(
                        d.challenger_id == player_id,
                        d.challenger_finished_at.is_(None),
                        d.challenger_forfeit.is_(False),
                    ),
                ),
            )
            .limit(1)
        )
        return (await self.session.execute(q)).scalar_one_or_none()

    async def waiting_count(self, player_id: str) -> int:
        q = select(func.count()).where(
            DUELS.c.host_id == player_id, DUELS.c.status == DuelStatus.WAITING
        )
        return int((await self.session.execute(q)).scalar_one())

    async def due(self, now: datetime, limit: int) -> list[str]:
        """Open duels past a deadline (expiry, a player's time to finish), the oldest
        first."""
        d = DUELS.c
        q = (
            select(d.id)
            .where(d.status.in_(OPEN), d.decide_at <= now)
            .order_by(d.decide_at)
            .limit(limit)
        )
        return list((await self.session.execute(q)).scalars())

    async def unsettled(self, limit: int) -> list[str]:
        """Finished duels whose results' fair-play measures are not all in, the oldest
        first."""
        d = DUELS.c
        q = (
            select(d.id)
            .where(d.status == DuelStatus.FINISHED, d.settled.is_(False))
            .order_by(d.ended_at)
            .limit(limit)
        )
        return list((await self.session.execute(q)).scalars())

    async def of_player(
        self, player_id: str, limit: int, after: tuple[datetime, str] | None
    ) -> list[Duel]:
        """``limit`` duels of the player's, newest first, after the one ``after`` names:
        a range of each of the two indexes (hosted, taken), merged."""
        rows: list[Duel] = []
        for column in (Duel.host_id, Duel.challenger_id):
            q = (
                select(Duel)
                .where(column == player_id)
                .order_by(Duel.created_at.desc(), Duel.id.desc())
                .limit(limit)
            )
            if after is not None:
                q = q.where(
                    tuple_(Duel.created_at, Duel.id)
                    < tuple_(bindparam("a_at", after[0], type_=DUELS.c.created_at.type), after[1])
                )
            rows.extend((await self.session.execute(q)).scalars())
        rows.sort(key=lambda duel: (duel.created_at, duel.id), reverse=True)
        return rows[:limit]

    async def of_deleted_player(self, player_id: str) -> list[Duel]:
        """The open duels of a player deleting their account, locked."""
        q = (
            select(Duel)
            .where(
                Duel.status.in_(OPEN),
                or_(Duel.host_id == player_id, Duel.challenger_id == player_id),
            )
            .with_for_update()
        )
        return list((await self.session.execute(q)).scalars())

    # -- ratings ------------------------------------------------------------------------
    async def rating(self, player_id: str, pool: str, *, for_update: bool = False) -> Rating | None:
        q = select(Rating).where(Rating.player_id == player_id, Rating.pool == pool)
        if for_update:
            q = q.with_for_update()
        return (await self.session.execute(q)).scalar_one_or_none()

    async def ratings_of(self, player_id: str) -> list[Rating]:
        q = select(Rating).where(Rating.player_id == player_id).order_by(Rating.pool)
        return list((await self.session.execute(q)).scalars())

    async def add_rating_if_absent(
        self, player_id: str, pool: str, kind: PlayerKind, now: datetime
    ) -> bool:
        """A new rating for the player in the pool, unless one was made first (two of
        their duels decided at once); whether this one made it."""
        insert = (postgresql.insert if self._dialect == "postgresql" else sqlite.insert)(RATINGS)
        start = ratings.NEW
        made = await self.session.execute(
            insert.values(
                player_id=player_id,
                pool=pool,
                kind=kind,
                mu=start.mu,
                sigma=start.sigma,
                rating=start.rating,
                games=0,
                wins=0,
                losses=0,
                draws=0,
                updated_at=now,
            )
            .on_conflict_do_nothing(index_elements=[RATINGS.c.player_id, RATINGS.c.pool])
            .returning(RATINGS.c.player_id)
        )
        return made.first() is not None

    async def count(self, pool: str, kind: PlayerKind, rating: int, by: int) -> None:
        """``by`` more (or fewer) players of the pool and kind have ``rating``."""
        insert = (postgresql.insert if self._dialect == "postgresql" else sqlite.insert)(COUNTS)
        c = COUNTS.c
        await self.session.execute(
            insert.values(pool=pool, kind=kind, rating=rating, players=by).on_conflict_do_update(
                index_elements=[c.pool, c.kind, c.rating],
                set_={"players": c.players + by},
            )
        )

    async def delete_ratings(self, player_id: str) -> list[Rating]:
        ratings = await self.ratings_of(player_id)
        for rating in ratings:
            await self.session.delete(rating)
        await self.session.flush()
        return ratings

    async def add_change(self, change: RatingChange) -> None:
        self.session.add(change)
        await self.session.flush()

    async def changes_of_duel(self, duel_id: str) -> list[RatingChange]:
        return await self.changes_of_duels([duel_id])

    async def changes_of_duels(self, duel_ids: list[str]) -> list[RatingChange]:
        """The rating changes these duels made (one statement for a page of duels)."""
        if not duel_ids:
            return []
        q = select(RatingChange).where(RatingChange.duel_id.in_(duel_ids))
        return list((await self.session.execute(q)).scalars())

    async def history(
        self, player_id: str, pool: str, limit: int, after: tuple[datetime, int] | None
    ) -> list[RatingChange]:
        c = RatingChange
        q = (
            select(c)
            .where(c.player_id == player_id, c.pool == pool)
            .order_by(c.at.desc(), c.id.desc())
            .limit(limit)
        )
        if after is not None:
            q = q.where(
                tuple_(c.at, c.id)
                < tuple_(bindparam("h_at", after[0], type_=CHANGES.c.at.type), after[1])
            )
        return list((await self.session.execute(q)).scalars())

    # -- the rating board ---------------------------------------------------------------
    async def board_after(
        self, pool: str, kind: PlayerKind, limit: int, after: tuple[int, str] | None
    ) -> list[Any]:
        """A page of the board from the top, or after the place ``after`` names: the
        highest rating first (ties by player id, descending: one direction of the
        index)."""
        q = _board(pool, kind).order_by(RATINGS.c.rating.desc(), RATINGS.c.player_id.desc())
        if after is not None:
            q = q.where(tuple_(RATINGS.c.rating, RATINGS.c.player_id) < tuple_(*after))
        return list((await self.session.execute(q.limit(limit))).all())

    async def board_around(
        self, pool: str, kind: PlayerKind, limit: int, place: tuple[int, str]
    ) -> list[Any]:
        """The ``limit`` places either side of ``place`` and the place itself, in the
        board's order: one statement of the index's two ranges."""
        r = RATINGS.c
        key = tuple_(r.rating, r.player_id)
        above = (
            _board(pool, kind).where(key > tuple_(*place)).order_by(r.rating, r.player_id)
        ).limit(limit)
        below = (
            _board(pool, kind)
            .where(key <= tuple_(*place))
            .order_by(r.rating.desc(), r.player_id.desc())
        ).limit(limit + 1)
        both = union_all(select(above.subquery()), select(below.subquery()))
        rows = list((await self.session.execute(both)).all())
        rows.sort(key=lambda row: (row.rating, row.player_id), reverse=True)
        return rows

    async def among(self, pool: str, kind: PlayerKind, player_ids: list[str]) -> list[Any]:
        """These players' ratings of the pool and kind, in the board's order: looked up by
        primary key (player, pool), the kind kept after. With the kind in the statement,
        SQLite's planner (no statistics) took the board's index for pool and kind and read
        every rating of the pool."""
        r = RATINGS.c
        q = (
            select(r.player_id, r.rating, r.sigma, r.games, r.kind)
            .where(r.pool == pool, r.player_id.in_(player_ids))
            .order_by(r.rating.desc(), r.player_id.desc())
        )
        return [row for row in (await self.session.execute(q)).all() if row.kind == kind]

    async def counts_from(
        self, pool: str, kind: PlayerKind, lowest: int, highest: int
    ) -> tuple[int, int, dict[int, int]]:
        """How many players of the pool and kind are rated, how many rate above
        ``highest``, and how many have each rating from ``lowest`` to ``highest``: the
        ranks of a page (one plus the players above). One statement."""
        c = COUNTS.c
        where = [c.pool == pool, c.kind == kind]
        total = func.coalesce(func.sum(c.players), 0)
        parts = union_all(
            select(literal(0).label("part"), literal(0).label("rating"), total.label("n")).where(
                *where
            ),
            select(literal(1), literal(0), total).where(*where, c.rating > highest),
            select(literal(2), c.rating, c.players).where(
                *where, c.rating.between(lowest, highest)
            ),
        )
        rated, above, counts = 0, 0, {}
        for part, rating, n in (await self.session.execute(parts)).all():
            if part == 0:
                rated = int(n)
            elif part == 1:
                above = int(n)
            else:
                counts[int(rating)] = int(n)
        return rated, above, counts


def _board(pool: str, kind: PlayerKind) -> Any:
    r = RATINGS.c
    return select(r.player_id, r.rating, r.sigma, r.games).where(r.pool == pool, r.kind == kind)
