"""A player row, and a statistics row per player for all games and per layout and scoring."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Integer, String
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
