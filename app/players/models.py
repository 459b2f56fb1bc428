"""A player row, a statistics row per player for all games and per layout and scoring,
whom a player follows, and their daily challenges' streaks and monthly wins."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import BigInteger, Date, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.kit.models import Base, PlayerKind, UTCDateTime, kind_column, utcnow

# The statistics row of all of a player's games, whatever their layout and scoring.
ALL = "*"


class Player(Base):
    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    # Erased when the player deletes the account; not unique (the id is).
    name: Mapped[str | None] = mapped_column(String(32))
    kind: Mapped[PlayerKind] = mapped_column(kind_column())
    # SHA-256 of the key's secret part; None once the account is deleted.
    key_hash: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class PlayerStats(Base):
    """A player's record over the games that ended, for one layout and scoring scheme
    (``*``/``*``: every game). Kept up to date in the transaction of each game's last
    move, by increments, so that two games ending at once both count."""

    __tablename__ = "player_stats"

    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    layout: Mapped[str] = mapped_column(String(32), primary_key=True)
    scoring: Mapped[str] = mapped_column(String(16), primary_key=True)
    played: Mapped[int] = mapped_column(Integer, default=0)
    won: Mapped[int] = mapped_column(Integer, default=0)
    lost: Mapped[int] = mapped_column(Integer, default=0)
    conceded: Mapped[int] = mapped_column(Integer, default=0)
    score_sum: Mapped[int] = mapped_column(BigInteger, default=0)
    # The best final score (for cards_left the fewest cards); None on the ``*`` row,
    # where schemes mix.
    best_score: Mapped[int | None] = mapped_column(Integer)
    current_run: Mapped[int] = mapped_column(Integer, default=0)  # games won in a row, now
    longest_run: Mapped[int] = mapped_column(Integer, default=0)


class Follow(Base):
    """A player follows another: nothing to approve, since following shows only what is
    public already (their places on the boards)."""

    __tablename__ = "follows"

    follower_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    followed_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    # Who follows a player (a deleted account's follows are removed both ways).
    __table_args__ = (Index("ix_follows_followed_id", "followed_id"),)


class DailyStreak(Base):
    """A player's runs of UTC days on one layout's daily challenge: days with a daily won,
    and days with one played (ended within its day), each the current run (ending on its
    ``*_last`` day) and the longest. Kept in the transaction of each daily game's end."""

    __tablename__ = "daily_streaks"

    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    layout: Mapped[str] = mapped_column(String(32), primary_key=True)
    won_current: Mapped[int] = mapped_column(Integer, default=0)
    won_longest: Mapped[int] = mapped_column(Integer, default=0)
    won_last: Mapped[date | None] = mapped_column(Date)
    played_current: Mapped[int] = mapped_column(Integer, default=0)
    played_longest: Mapped[int] = mapped_column(Integer, default=0)
    played_last: Mapped[date | None] = mapped_column(Date)


class MonthlyWins(Base):
    """Dailies a player won on one layout in one calendar month (``month``: its first
    day): the month's badge is read from it (bronze 10, silver 20, gold every day)."""

    __tablename__ = "monthly_wins"

    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    layout: Mapped[str] = mapped_column(String(32), primary_key=True)
    month: Mapped[date] = mapped_column(Date, primary_key=True)
    wins: Mapped[int] = mapped_column(Integer, default=0)
