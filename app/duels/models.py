"""A duel (two players, one deal: a challenge of kind ``duel`` holds the deal), a player's
rating in a pool, the ratings' counts by value (the rating board's ranks), and each
change a duel made to a rating (its history)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import (
    BigInteger,
    Boolean,
    Enum,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    false,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.kit.models import Base, PlayerKind, UTCDateTime, kind_column, utcnow


class DuelStatus(StrEnum):
    WAITING = "waiting"  # its host plays (or has played); no challenger yet
    MATCHED = "matched"  # both players have the deal; one or both still to finish
    FINISHED = "finished"  # both results in (or a forfeit): a winner, or a draw
    EXPIRED = "expired"  # nobody was matched within DUEL_MATCH_HOURS: no rating change


class Outcome(StrEnum):
    HOST = "host"
    CHALLENGER = "challenger"
    DRAW = "draw"
    VOID = "void"  # neither finished in time: no rating change


def _enum(cls: type[StrEnum], length: int) -> Enum:
    return Enum(
        cls, native_enum=False, length=length, values_callable=lambda e: [m.value for m in e]
    )


class Duel(Base):
    __tablename__ = "duels"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    # The layout and rules preset ("tripeaks.standard"): whom it may match, whose
    # ratings it changes.
    pool: Mapped[str] = mapped_column(String(48))
    # The challenge of kind duel that holds the deal, its commitment and both entries
    # (secrecy until it ends, no hints, results entered by the server, the fair-play
    # measure). Its commitment is kept here too.
    challenge_id: Mapped[str | None] = mapped_column(
        String(48), ForeignKey("challenges.id", ondelete="SET NULL")
    )
    commitment: Mapped[str] = mapped_column(String(64))
    tier: Mapped[str | None] = mapped_column(String(8))
    status: Mapped[DuelStatus] = mapped_column(_enum(DuelStatus, 8))
    # Who may take it: its host's kind, and whether it takes the other kind too (a bot's
    # does when a human opted in; a human's when they opted in).
    host_kind: Mapped[PlayerKind] = mapped_column(kind_column())
    mixed: Mapped[bool] = mapped_column(Boolean, default=False)
    # Its host's rating when it was opened: what matching compares.
    match_rating: Mapped[int] = mapped_column(Integer)
    host_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="SET NULL")
    )
    host_game_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="SET NULL")
    )
    host_provisional: Mapped[bool] = mapped_column(Boolean, default=False)
    challenger_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="SET NULL")
    )
    challenger_kind: Mapped[PlayerKind | None] = mapped_column(kind_column())
    challenger_rating: Mapped[int | None] = mapped_column(Integer)
    challenger_provisional: Mapped[bool] = mapped_column(Boolean, default=False)
    challenger_game_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    # Its opening in whole minutes since the epoch: how long it has waited, in the
    # matching statement's arithmetic (the same in every database).
    opened_minute: Mapped[int] = mapped_column(Integer)
    # When the scheduled job looks at it next: its expiry while it waits, then the
    # earliest time to finish of a player who has not finished.
    decide_at: Mapped[datetime] = mapped_column(UTCDateTime())
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())  # unmatched by then: expired
    host_due_at: Mapped[datetime] = mapped_column(UTCDateTime())  # unfinished by then: lost
    matched_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    challenger_due_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # Each side's result: its score, its rank score (lower is better whatever the
    # scoring), its moves; "forfeit" set for one who did not finish in time.
    host_score: Mapped[int | None] = mapped_column(Integer)
    host_rank_score: Mapped[int | None] = mapped_column(Integer)
    host_moves: Mapped[int | None] = mapped_column(Integer)
    host_finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    host_forfeit: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    challenger_score: Mapped[int | None] = mapped_column(Integer)
    challenger_rank_score: Mapped[int | None] = mapped_column(Integer)
    challenger_moves: Mapped[int | None] = mapped_column(Integer)
    challenger_finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    challenger_forfeit: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    outcome: Mapped[Outcome | None] = mapped_column(_enum(Outcome, 12))
    # The fair-play measure of each side's result (its challenge entry's): flagged
    # loses the duel and gives back its rating's gain; the opponent gets back a loss.
    host_flagged: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    challenger_flagged: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # True once both results' measures are in (or there was nothing to measure).
    settled: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())

    __table_args__ = (
        # Matching: the waiting duels of a pool and kind of host, by their host's rating;
        # and those that take the other kind too (mixed), apart.
        Index(
            "ix_duels_waiting",
            "pool",
            "host_kind",
            "match_rating",
            postgresql_where=text("status = 'waiting'"),
            sqlite_where=text("status = 'waiting'"),
        ),
        Index(
            "ix_duels_waiting_mixed",
            "pool",
            "host_kind",
            "match_rating",
            postgresql_where=text("status = 'waiting' AND mixed"),
            sqlite_where=text("status = 'waiting' AND mixed"),
        ),
        # The duels past a deadline (expiry, forfeits), and those still to settle.
        Index(
            "ix_duels_open_decide_at",
            "decide_at",
            postgresql_where=text("status IN ('waiting', 'matched')"),
            sqlite_where=text("status IN ('waiting', 'matched')"),
        ),
        Index(
            "ix_duels_unsettled",
            "ended_at",
            postgresql_where=text("status = 'finished' AND NOT settled"),
            sqlite_where=text("status = 'finished' AND NOT settled"),
        ),
        # A player's duels, newest first (list_my_duels: one range of each index).
        Index("ix_duels_host_id_created_at", "host_id", "created_at", "id"),
        Index("ix_duels_challenger_id_created_at", "challenger_id", "created_at", "id"),
        # A game's duel (the game-end listener).
        Index("ix_duels_challenge_id", "challenge_id"),
    )


class Rating(Base):
    """A player's rating in a pool: OpenSkill's ``mu`` and ``sigma``, the rating shown
    (``mu`` rounded) and what matching and the board read."""

    __tablename__ = "ratings"

    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    pool: Mapped[str] = mapped_column(String(48), primary_key=True)
    kind: Mapped[PlayerKind] = mapped_column(kind_column())
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    rating: Mapped[int] = mapped_column(Integer)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    losses: Mapped[int] = mapped_column(Integer, default=0)
    draws: Mapped[int] = mapped_column(Integer, default=0)
    # Whom their last duel in the pool was against: never the same twice in a row.
    last_opponent_id: Mapped[str | None] = mapped_column(String(32))
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    __table_args__ = (
        # The board, in its order: a page is a range of this index.
        Index("ix_ratings_board", "pool", "kind", "rating", "player_id"),
    )


class RatingCount(Base):
    """How many players of a pool and kind have this rating: a rank is one plus the
    counts above it (a few thousand rows at most), not a count of the rows ahead."""

    __tablename__ = "rating_counts"

    pool: Mapped[str] = mapped_column(String(48), primary_key=True)
    kind: Mapped[PlayerKind] = mapped_column(kind_column(), primary_key=True)
    rating: Mapped[int] = mapped_column(Integer, primary_key=True)
    players: Mapped[int] = mapped_column(Integer, default=0)


class RatingChange(Base):
    """What a duel did to a player's rating, and whether it was taken back (the fair-play
    measure flagged the duel)."""

    __tablename__ = "rating_changes"

    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    )
    player_id: Mapped[str] = mapped_column(String(32), ForeignKey("players.id", ondelete="CASCADE"))
    pool: Mapped[str] = mapped_column(String(48))
    duel_id: Mapped[str] = mapped_column(String(32), ForeignKey("duels.id", ondelete="CASCADE"))
    before: Mapped[int] = mapped_column(Integer)
    after: Mapped[int] = mapped_column(Integer)
    mu_change: Mapped[float] = mapped_column(Float)
    at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    taken_back_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    __table_args__ = (
        # A player's history in a pool, newest first.
        Index("ix_rating_changes_player", "player_id", "pool", "at", "id"),
        Index("ix_rating_changes_duel_id", "duel_id"),
    )
