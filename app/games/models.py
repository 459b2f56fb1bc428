"""SQLAlchemy 2.0 typed models: a game row and a move row per move."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Enum,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.engine import GameStatus
from app.kit.models import Base, UTCDateTime, utcnow


class Game(Base):
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64))
    layout: Mapped[str] = mapped_column(String(32))
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    # The explicit card order, so that a change of dealing algorithm never changes a game.
    deal: Mapped[str] = mapped_column(Text)
    deal_number: Mapped[int | None] = mapped_column(BigInteger)
    deal_chosen: Mapped[bool] = mapped_column(Boolean)  # number or cards given by the player
    salt: Mapped[str] = mapped_column(String(64))
    commitment: Mapped[str] = mapped_column(String(64))
    status: Mapped[GameStatus] = mapped_column(
        Enum(
            GameStatus, native_enum=False, length=16, values_callable=lambda e: [m.value for m in e]
        )
    )
    version: Mapped[int] = mapped_column(Integer)
    score: Mapped[int] = mapped_column(Integer)
    cards_left: Mapped[int] = mapped_column(Integer)
    # The moves that make the current state: the log with every undone move taken out
    # (engine.line_after), comma-separated. Rehydrating replays this, not the whole log.
    line: Mapped[str] = mapped_column(Text, server_default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # The player whose game it is (created with their key); None for an anonymous game,
    # and once the player deleted the account.
    player_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="SET NULL")
    )
    # The daily challenge it is the ranked attempt at, if any, and the end of that day:
    # until then its deal stays secret even once the game is over (a player who finished
    # could hand it to one who has not started), hints are off, and it can be ranked.
    challenge_id: Mapped[str | None] = mapped_column(
        String(48), ForeignKey("challenges.id", ondelete="SET NULL")
    )
    reveal_after: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # The closed challenge whose deal it practises (unranked), and, once it ended, where
    # its result would have ranked on that board and how many results the board ranks.
    practice_of: Mapped[str | None] = mapped_column(
        String(48), ForeignKey("challenges.id", ondelete="SET NULL")
    )
    practice_rank: Mapped[int | None] = mapped_column(Integer)
    practice_ranked: Mapped[int | None] = mapped_column(Integer)

    moves: Mapped[list[Move]] = relationship(
        back_populates="game", lazy="raise", order_by="Move.seq", passive_deletes=True
    )

    __table_args__ = (
        Index("ix_games_status_updated_at", "status", "updated_at"),
        # A player's games, newest first (list_my_games pages through it).
        Index("ix_games_player_id_created_at", "player_id", "created_at", "id"),
        # A challenge's attempts (closing it early ends their secrecy with it).
        Index("ix_games_challenge_id", "challenge_id"),
    )


class Move(Base):
    __tablename__ = "moves"

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)  # 1, 2, ... per game
    move: Mapped[str] = mapped_column(String(32))
    idempotency_key: Mapped[str | None] = mapped_column(String(128))
    request_hash: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    game: Mapped[Game] = relationship(back_populates="moves", lazy="raise")

    __table_args__ = (
        UniqueConstraint("game_id", "idempotency_key", name="uq_moves_game_id_idempotency_key"),
    )


class Analysis(Base):
    """A finished game's analysis, computed once (outside any transaction) and kept, so
    that every later call answers the same at once."""

    __tablename__ = "analyses"

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    body: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
