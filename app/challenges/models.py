"""A challenge a layout and day, an entry a player and challenge, and the leaderboard's
buckets (how many results share each score and move count) that ranks are read from."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Date,
    Enum,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.engine import GameStatus
from app.kit.models import Base, PlayerKind, UTCDateTime, kind_column, utcnow


class Challenge(Base):
    __tablename__ = "challenges"

    id: Mapped[str] = mapped_column(String(48), primary_key=True)  # "2026-12-01.tripeaks"
    day: Mapped[date] = mapped_column(Date)
    layout: Mapped[str] = mapped_column(String(32))
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    deal: Mapped[str] = mapped_column(Text)  # secret until the day is over
    salt: Mapped[str] = mapped_column(String(64))
    commitment: Mapped[str] = mapped_column(String(64))
    entries: Mapped[int] = mapped_column(Integer, default=0)
    # The best final score possible, computed once after the day; None until then, or
    # when the search ran out of budget (best_searched_at says it was tried).
    best_score: Mapped[int | None] = mapped_column(Integer)
    best_searched_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    __table_args__ = (UniqueConstraint("day", "layout", name="uq_challenges_day_layout"),)


class ChallengeEntry(Base):
    """A player's one ranked attempt at a challenge. ``rank_score`` orders the board
    whatever the scheme (the score negated where higher is better): None until the game
    ends, and for good when it ends after the day (then it is not ranked)."""

    __tablename__ = "challenge_entries"

    challenge_id: Mapped[str] = mapped_column(
        String(48), ForeignKey("challenges.id", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    game_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="SET NULL"), unique=True
    )
    kind: Mapped[PlayerKind] = mapped_column(kind_column())
    status: Mapped[GameStatus] = mapped_column(
        Enum(
            GameStatus, native_enum=False, length=16, values_callable=lambda e: [m.value for m in e]
        )
    )
    score: Mapped[int | None] = mapped_column(Integer)
    moves: Mapped[int | None] = mapped_column(Integer)
    rank_score: Mapped[int | None] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    __table_args__ = (
        # The board, in its order: a page is a range of this index.
        Index(
            "ix_challenge_entries_board",
            "challenge_id",
            "kind",
            "rank_score",
            "moves",
            "finished_at",
            "player_id",
            postgresql_where=text("rank_score IS NOT NULL"),
            sqlite_where=text("rank_score IS NOT NULL"),
        ),
    )


class LeaderboardBucket(Base):
    """How many ranked results of a board have this score and move count: a rank is one
    plus the entries of the better buckets, found without counting the rows ahead."""

    __tablename__ = "leaderboard_buckets"

    challenge_id: Mapped[str] = mapped_column(
        String(48), ForeignKey("challenges.id", ondelete="CASCADE"), primary_key=True
    )
    kind: Mapped[PlayerKind] = mapped_column(kind_column(), primary_key=True)
    rank_score: Mapped[int] = mapped_column(Integer, primary_key=True)
    moves: Mapped[int] = mapped_column(Integer, primary_key=True)
    entries: Mapped[int] = mapped_column(Integer, default=0)


class LeaderboardScore(Base):
    """How many ranked results of a board have this score, whatever their move count:
    the sum over the scores ahead is a few hundred rows where the buckets' would be
    thousands."""

    __tablename__ = "leaderboard_scores"

    challenge_id: Mapped[str] = mapped_column(
        String(48), ForeignKey("challenges.id", ondelete="CASCADE"), primary_key=True
    )
    kind: Mapped[PlayerKind] = mapped_column(kind_column(), primary_key=True)
    rank_score: Mapped[int] = mapped_column(Integer, primary_key=True)
    entries: Mapped[int] = mapped_column(Integer, default=0)


class ServerSecret(Base):
    """A secret the server made for itself where no setting gives one (the challenges'),
    kept so that every replica and restart derives the same days."""

    __tablename__ = "server_secrets"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
