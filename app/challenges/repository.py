"""Every query of the challenges domain, and nothing else.

The board is ``challenge_entries`` in the order of ``ix_challenge_entries_board``
(``rank_score``, then ``moves``, then ``finished_at``, then ``player_id``): a page is a range
of that index after a cursor (a row value), never an OFFSET. A rank is one plus the
results strictly better, read from ``leaderboard_buckets`` (one row per score and move
count, a few thousand at most) rather than counted over the entries ahead.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Table, func, select, tuple_, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.challenges.models import Challenge, ChallengeEntry, LeaderboardBucket, ServerSecret
from app.engine import GameStatus
from app.kit.models import PlayerKind, utcnow

CHALLENGES: Table = Challenge.__table__  # type: ignore[assignment]
ENTRIES: Table = ChallengeEntry.__table__  # type: ignore[assignment]
BUCKETS: Table = LeaderboardBucket.__table__  # type: ignore[assignment]
SECRETS: Table = ServerSecret.__table__  # type: ignore[assignment]

# A place on a board: (rank_score, moves, finished_at, player_id).
BoardKey = tuple[int, int, datetime, str]

_BOARD_ORDER = (
    ChallengeEntry.rank_score,
    ChallengeEntry.moves,
    ChallengeEntry.finished_at,
    ChallengeEntry.player_id,
)


def _insert(dialect: str, table: Table) -> postgresql.Insert | sqlite.Insert:
    return postgresql.insert(table) if dialect == "postgresql" else sqlite.insert(table)


class ChallengeRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    @property
    def _dialect(self) -> str:
        return self.session.get_bind().dialect.name

    # -- challenges -------------------------------------------------------------------
    def get(self, challenge_id: str) -> Challenge | None:
        return self.session.get(Challenge, challenge_id)

    def add_if_absent(self, values: dict[str, Any]) -> Challenge:
        """Insert the challenge unless another request did first; the one stored."""
        self.session.execute(
            _insert(self._dialect, CHALLENGES)
            .values(**values, entries=0, created_at=utcnow())
            .on_conflict_do_nothing()
        )
        challenge = self.session.scalars(
            select(Challenge)
            .where(Challenge.id == values["id"])
            .execution_options(populate_existing=True)
        ).one()
        return challenge

    def count_entry(self, challenge_id: str) -> None:
        self.session.execute(
            update(CHALLENGES)
            .where(CHALLENGES.c.id == challenge_id)
            .values(entries=CHALLENGES.c.entries + 1)
        )

    def set_best(self, challenge_id: str, best_score: int | None) -> None:
        """Keep the best score found (or that none was, in time) unless one was kept."""
        self.session.execute(
            update(CHALLENGES)
            .where(CHALLENGES.c.id == challenge_id, CHALLENGES.c.best_searched_at.is_(None))
            .values(best_score=best_score, best_searched_at=utcnow())
        )

    def secret(self, name: str, proposed: str) -> str:
        """The server secret ``name``: ``proposed`` when none was kept yet."""
        self.session.execute(
            _insert(self._dialect, SECRETS)
            .values(name=name, value=proposed, created_at=utcnow())
            .on_conflict_do_nothing()
        )
        value: str = self.session.scalars(
            select(ServerSecret.value).where(ServerSecret.name == name)
        ).one()
        return value

    # -- entries ----------------------------------------------------------------------
    def add_entry(self, challenge_id: str, player_id: str, kind: PlayerKind, now: datetime) -> bool:
        """The player's entry, unless they have one (two racing: one wins); whether it
        was made."""
        made = self.session.execute(
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

    def entry(self, challenge_id: str, player_id: str) -> ChallengeEntry | None:
        return self.session.get(ChallengeEntry, (challenge_id, player_id))

    def set_entry_game(self, challenge_id: str, player_id: str, game_id: str) -> None:
        self.session.execute(
            update(ENTRIES)
            .where(ENTRIES.c.challenge_id == challenge_id, ENTRIES.c.player_id == player_id)
            .values(game_id=game_id)
        )

    def finish_entry(
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
        done = self.session.execute(
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
        ).first()
        if done is None or rank_score is None:
            return
        statement = _insert(self._dialect, BUCKETS).values(
            challenge_id=done.challenge_id,
            kind=done.kind,
            rank_score=rank_score,
            moves=moves,
            entries=1,
        )
        self.session.execute(
            statement.on_conflict_do_update(
                index_elements=[
                    BUCKETS.c.challenge_id,
                    BUCKETS.c.kind,
                    BUCKETS.c.rank_score,
                    BUCKETS.c.moves,
                ],
                set_={"entries": BUCKETS.c.entries + 1},
            )
        )

    # -- the board ----------------------------------------------------------------------
    def _board(self, challenge_id: str, kind: PlayerKind) -> Any:
        return select(ChallengeEntry).where(
            ChallengeEntry.challenge_id == challenge_id,
            ChallengeEntry.kind == kind,
            ChallengeEntry.rank_score.is_not(None),
        )

    def board_after(
        self, challenge_id: str, kind: PlayerKind, after: BoardKey | None, limit: int
    ) -> Sequence[ChallengeEntry]:
        """``limit`` results in board order, after ``after`` (from the top without)."""
        q = self._board(challenge_id, kind)
        if after is not None:
            q = q.where(tuple_(*_BOARD_ORDER) > tuple_(*after))
        rows: Sequence[ChallengeEntry] = self.session.scalars(
            q.order_by(*_BOARD_ORDER).limit(limit)
        ).all()
        return rows

    def board_before(
        self, challenge_id: str, kind: PlayerKind, before: BoardKey, limit: int
    ) -> Sequence[ChallengeEntry]:
        """``limit`` results just before ``before``, in board order."""
        q = self._board(challenge_id, kind).where(tuple_(*_BOARD_ORDER) < tuple_(*before))
        rows = self.session.scalars(
            q.order_by(*(c.desc() for c in _BOARD_ORDER)).limit(limit)
        ).all()
        return list(reversed(rows))

    def better_than(self, challenge_id: str, kind: PlayerKind, rank_score: int, moves: int) -> int:
        """How many ranked results are strictly better than (rank_score, moves)."""
        total = self.session.scalar(
            select(func.coalesce(func.sum(LeaderboardBucket.entries), 0)).where(
                LeaderboardBucket.challenge_id == challenge_id,
                LeaderboardBucket.kind == kind,
                tuple_(LeaderboardBucket.rank_score, LeaderboardBucket.moves)
                < tuple_(rank_score, moves),
            )
        )
        return int(total or 0)

    def buckets_between(
        self, challenge_id: str, kind: PlayerKind, first: tuple[int, int], last: tuple[int, int]
    ) -> list[tuple[int, int, int]]:
        """The buckets from ``first`` to ``last`` (score, moves), in board order."""
        key = tuple_(LeaderboardBucket.rank_score, LeaderboardBucket.moves)
        rows = self.session.execute(
            select(LeaderboardBucket.rank_score, LeaderboardBucket.moves, LeaderboardBucket.entries)
            .where(
                LeaderboardBucket.challenge_id == challenge_id,
                LeaderboardBucket.kind == kind,
                key >= tuple_(*first),
                key <= tuple_(*last),
            )
            .order_by(LeaderboardBucket.rank_score, LeaderboardBucket.moves)
        ).all()
        return [(r.rank_score, r.moves, r.entries) for r in rows]

    def ranked(self, challenge_id: str, kind: PlayerKind) -> int:
        total = self.session.scalar(
            select(func.coalesce(func.sum(LeaderboardBucket.entries), 0)).where(
                LeaderboardBucket.challenge_id == challenge_id, LeaderboardBucket.kind == kind
            )
        )
        return int(total or 0)
