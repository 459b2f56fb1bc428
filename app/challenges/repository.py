"""Every query of the challenges domain, and nothing else.

The board is ``challenge_entries`` in the order of ``ix_challenge_entries_board``
(``rank_score``, then ``moves``, then ``finished_at``, then ``player_id``): a page is a range
of that index after a cursor (a row value), never an OFFSET. A rank is one plus the
results strictly better, read from two tables of counts rather than counted over the
entries ahead: ``leaderboard_scores`` (one row a score: a few hundred) for the scores
ahead, and ``leaderboard_buckets`` (one row a score and move count) for the better move
counts of the same score.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Table, bindparam, column, func, select, table, tuple_, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from app.challenges.models import (
    Challenge,
    ChallengeEntry,
    LeaderboardBucket,
    LeaderboardScore,
    ServerSecret,
)
from app.engine import GameStatus
from app.kit.models import PlayerKind, utcnow

CHALLENGES: Table = Challenge.__table__  # type: ignore[assignment]
ENTRIES: Table = ChallengeEntry.__table__  # type: ignore[assignment]
BUCKETS: Table = LeaderboardBucket.__table__  # type: ignore[assignment]
SCORES: Table = LeaderboardScore.__table__  # type: ignore[assignment]
SECRETS: Table = ServerSecret.__table__  # type: ignore[assignment]

# The players' table, read for the names on a board (in the same statement as its rows).
PLAYERS = table("players", column("id"), column("name"), column("deleted_at"))

# A place on a board: (rank_score, moves, finished_at, player_id).
BoardKey = tuple[int, int, datetime, str]
_BOARD_KEY = (ENTRIES.c.rank_score, ENTRIES.c.moves, ENTRIES.c.finished_at, ENTRIES.c.player_id)


@dataclass(frozen=True, slots=True)
class Place:
    """A ranked result as a board shows it."""

    player_id: str
    score: int
    moves: int
    finished_at: datetime
    rank_score: int
    rank: int
    name: str | None
    deleted: bool

    @property
    def key(self) -> BoardKey:
        return (self.rank_score, self.moves, self.finished_at, self.player_id)


def _insert(dialect: str, table: Table) -> postgresql.Insert | sqlite.Insert:
    return postgresql.insert(table) if dialect == "postgresql" else sqlite.insert(table)


class ChallengeRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    @property
    def _dialect(self) -> str:
        return self.session.get_bind().dialect.name

    # -- challenges -------------------------------------------------------------------
    async def get(self, challenge_id: str) -> Challenge | None:
        return await self.session.get(Challenge, challenge_id)

    async def add_if_absent(self, values: dict[str, Any]) -> Challenge:
        """Insert the challenge unless another request did first; the one stored."""
        await self.session.execute(
            _insert(self._dialect, CHALLENGES)
            .values(**values, entries=0, created_at=utcnow())
            .on_conflict_do_nothing()
        )
        challenge = await self.session.scalars(
            select(Challenge)
            .where(Challenge.id == values["id"])
            .execution_options(populate_existing=True)
        )
        return challenge.one()

    async def count_entry(self, challenge_id: str) -> None:
        await self.session.execute(
            update(CHALLENGES)
            .where(CHALLENGES.c.id == challenge_id)
            .values(entries=CHALLENGES.c.entries + 1)
        )

    async def set_best(self, challenge_id: str, best_score: int | None) -> None:
        """Keep the best score found (or that none was, in time) unless one was kept."""
        await self.session.execute(
            update(CHALLENGES)
            .where(CHALLENGES.c.id == challenge_id, CHALLENGES.c.best_searched_at.is_(None))
            .values(best_score=best_score, best_searched_at=utcnow())
        )

    async def secret(self, name: str, proposed: str) -> str:
        """The server secret ``name``: ``proposed`` when none was kept yet."""
        await self.session.execute(
            _insert(self._dialect, SECRETS)
            .values(name=name, value=proposed, created_at=utcnow())
            .on_conflict_do_nothing()
        )
        value: str = (
            await self.session.scalars(select(ServerSecret.value).where(ServerSecret.name == name))
        ).one()
        return value

    # -- entries ----------------------------------------------------------------------
    async def add_entry(
        self, challenge_id: str, player_id: str, kind: PlayerKind, now: datetime
    ) -> bool:
        """The player's entry, unless they have one (two racing: one wins); whether it
        was made."""
        made = await self.session.execute(
            _insert(self._dialect, ENTRIES)
            .values(
                challenge_id=challenge_id,
                player_id=player_id,
                kind=kind,
                status=GameStatus.IN_PROGRESS,
                started_at=now,
            )
            .on_conflict_do_nothing()
            .returning(ENTRIES.c.player_id)
        )
        return made.first() is not None

    async def entry(self, challenge_id: str, player_id: str) -> ChallengeEntry | None:
        return await self.session.get(ChallengeEntry, (challenge_id, player_id))

    async def set_entry_game(self, challenge_id: str, player_id: str, game_id: str) -> None:
        await self.session.execute(
            update(ENTRIES)
            .where(ENTRIES.c.challenge_id == challenge_id, ENTRIES.c.player_id == player_id)
            .values(game_id=game_id)
        )

    async def finish_entry(
        self,
        game_id: str,
        status: GameStatus,
        score: int,
        moves: int,
        finished_at: datetime,
        rank_score: int | None,
    ) -> None:
        """Enter the result of the game ``game_id``, and count it in its board's bucket
        when it is ranked (``rank_score`` given)."""
        done = (
            await self.session.execute(
                update(ENTRIES)
                .where(ENTRIES.c.game_id == game_id)
                .values(
                    status=status,
                    score=score,
                    moves=moves,
                    finished_at=finished_at,
                    rank_score=rank_score,
                )
                .returning(ENTRIES.c.challenge_id, ENTRIES.c.kind)
            )
        ).first()
        if done is None or rank_score is None:
            return
        place = {"challenge_id": done.challenge_id, "kind": done.kind, "rank_score": rank_score}
        for counts, values in ((BUCKETS, {**place, "moves": moves}), (SCORES, place)):
            statement = _insert(self._dialect, counts).values(**values, entries=1)
            await self.session.execute(
                statement.on_conflict_do_update(
                    index_elements=[counts.c[name] for name in values],
                    set_={"entries": counts.c.entries + 1},
                )
            )

    # -- the board ----------------------------------------------------------------------
    async def board_after(
        self, challenge_id: str, kind: PlayerKind, after: BoardKey | None, limit: int
    ) -> tuple[list[Place], int]:
        """``limit`` results in board order after ``after`` (from the top without), and
        how many are ranked on the board: one statement."""
        board = {"challenge_id": challenge_id, "kind": kind, "limit": limit}
        if after is None:
            rows = (await self.session.execute(_FIRST, board)).all()
        else:
            rows = (await self.session.execute(_AFTER, {**board, **_key_params(after)})).all()
        ranked = int(rows[0].ranked) if rows else await self.ranked(challenge_id, kind)
        return [_place(r) for r in rows], ranked

    async def place_of(self, challenge_id: str, kind: PlayerKind, player_id: str) -> Place | None:
        """The player's ranked result on the board, with its rank (None without one)."""
        row = (
            await self.session.execute(
                _MINE, {"challenge_id": challenge_id, "kind": kind, "player_id": player_id}
            )
        ).first()
        return _place(row) if row is not None else None

    async def board_before(
        self, challenge_id: str, kind: PlayerKind, before: BoardKey, limit: int
    ) -> list[Place]:
        """``limit`` results just before ``before``, in board order."""
        rows = (
            await self.session.execute(
                _BEFORE,
                {"challenge_id": challenge_id, "kind": kind, "limit": limit, **_key_params(before)},
            )
        ).all()
        return [_place(r) for r in reversed(rows)]

    async def ranked(self, challenge_id: str, kind: PlayerKind) -> int:
        ranked = await self.session.scalar(
            select(_RANKED), {"challenge_id": challenge_id, "kind": kind}
        )
        return int(ranked or 0)


def _key_params(key: BoardKey) -> dict[str, Any]:
    rank_score, moves, finished_at, player_id = key
    return {
        "k_score": rank_score,
        "k_moves": moves,
        "k_finished": finished_at,
        "k_player": player_id,
    }


def _page(where: list[Any], *, descending: bool, limit: bool = True) -> Any:
    """Board rows with their ranks and their players' names: the rank of each row is one
    plus two sums read from the counts' tables (see the module's doc), the name comes from
    the players' table. Built once (with bind parameters): building a statement this size
    costs more than running it."""
    e = ENTRIES.c
    scores_ahead = (
        select(func.coalesce(func.sum(SCORES.c.entries), 0))
        .where(
            SCORES.c.challenge_id == e.challenge_id,
            SCORES.c.kind == e.kind,
            SCORES.c.rank_score < e.rank_score,
        )
        .scalar_subquery()
    )
    moves_ahead = (
        select(func.coalesce(func.sum(BUCKETS.c.entries), 0))
        .where(
            BUCKETS.c.challenge_id == e.challenge_id,
            BUCKETS.c.kind == e.kind,
            BUCKETS.c.rank_score == e.rank_score,
            BUCKETS.c.moves < e.moves,
        )
        .scalar_subquery()
    )
    statement = (
        select(
            e.player_id,
            e.score,
            e.moves,
            e.finished_at,
            e.rank_score,
            (1 + scores_ahead + moves_ahead).label("rank"),
            PLAYERS.c.name,
            PLAYERS.c.deleted_at,
        )
        .select_from(ENTRIES.outerjoin(PLAYERS, PLAYERS.c.id == e.player_id))
        .where(
            e.challenge_id == bindparam("challenge_id"),
            e.kind == bindparam("kind"),
            e.rank_score.is_not(None),
            *where,
        )
        .order_by(*(c.desc() for c in _BOARD_KEY) if descending else _BOARD_KEY)
    )
    return statement.limit(bindparam("limit")) if limit else statement


def _place(r: Any) -> Place:
    return Place(
        player_id=r.player_id,
        score=r.score,
        moves=r.moves,
        finished_at=_aware(r.finished_at),
        rank_score=r.rank_score,
        rank=int(r.rank),
        name=r.name,
        deleted=r.deleted_at is not None,
    )


# How many results a board ranks: the sum of its scores' counts (a few hundred rows).
_RANKED = (
    select(func.coalesce(func.sum(SCORES.c.entries), 0))
    .where(SCORES.c.challenge_id == bindparam("challenge_id"), SCORES.c.kind == bindparam("kind"))
    .scalar_subquery()
    .label("ranked")
)
# A place given by a cursor, typed as the columns it is compared with (a timestamp is
# stored as UTC text on SQLite: the column's type writes the parameter the same way).
_AT = tuple_(
    *(
        bindparam(name, type_=c.type)
        for name, c in zip(
            ("k_score", "k_moves", "k_finished", "k_player"), _BOARD_KEY, strict=True
        )
    )
)
_FIRST = _page([], descending=False).add_columns(_RANKED)
_AFTER = _page([tuple_(*_BOARD_KEY) > _AT], descending=False).add_columns(_RANKED)
_BEFORE = _page([tuple_(*_BOARD_KEY) < _AT], descending=True)
_MINE = _page([ENTRIES.c.player_id == bindparam("player_id")], descending=False, limit=False)


def _aware(moment: datetime) -> datetime:
    """Core rows skip the ORM's type: SQLite gives back naive UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
