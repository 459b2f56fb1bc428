"""A challenge (the server's daily one a layout and day, or one a player set), an entry a
player and challenge, and the leaderboard's buckets (how many results share each score and
move count) that ranks are read from."""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    Enum,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.engine import GameStatus
from app.engine.difficulty import Tier
from app.kit.models import Base, PlayerKind, UTCDateTime, kind_column, utcnow


class FairPlay(StrEnum):
    """A ranked result's fair-play status (``app.engine.fairplay``)."""

    PENDING = "pending"  # not measured yet: due within minutes of the result
    OK = "ok"  # measured, not flagged
    FLAGGED = "flagged"  # measured, flagged: ranked apart (``flagged_rank_score``)


class Side(StrEnum):
    """Where a ranked result stands: on its board (``rank_score``, counted), or ranked
    apart in the board's order, provisional (``provisional_rank_score``: a new account's
    result on a public board, until its measure says ok) or flagged
    (``flagged_rank_score``). An entry's result is on one side at most."""

    BOARD = "board"
    PROVISIONAL = "provisional"
    FLAGGED = "flagged"


class ChallengeKind(StrEnum):
    DAILY = "daily"  # the server's own, one a layout and UTC day
    SET = "set"  # set by a player for whoever they give its id
    ROUND = "round"  # a round of an event's edition (its id "<edition>.<round>")
    EDITION = "edition"  # an event's edition: no deal, its entrants ranked by their totals
    DUEL = "duel"  # a ranked duel's deal and its two entries (app.duels): read through it


class Challenge(Base):
    __tablename__ = "challenges"

    # "2026-12-01.tripeaks" for a daily; a random, unguessable id for one a player set.
    id: Mapped[str] = mapped_column(String(48), primary_key=True)
    kind: Mapped[ChallengeKind] = mapped_column(
        Enum(
            ChallengeKind,
            native_enum=False,
            length=8,
            values_callable=lambda e: [m.value for m in e],
        ),
        default=ChallengeKind.DAILY,
    )
    day: Mapped[date | None] = mapped_column(Date)  # a daily's; None for one a player set
    layout: Mapped[str] = mapped_column(String(32))
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    deal: Mapped[str] = mapped_column(Text)  # secret until the day is over
    salt: Mapped[str] = mapped_column(String(64))
    commitment: Mapped[str] = mapped_column(String(64))
    entries: Mapped[int] = mapped_column(Integer, default=0)
    # The best final score possible, computed once after the day; None until then, or
    # when the search ran out of budget (best_searched_at says it was tried). Where the
    # exact search cannot finish (six peaks) it is the best line found
    # (best_score_exact false) and best_score_bound a sound bound on it.
    best_score: Mapped[int | None] = mapped_column(Integer)
    best_score_bound: Mapped[int | None] = mapped_column(Integer)
    best_score_exact: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    best_searched_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # The tier its deal was drawn for (None: any deal), and the deal's difficulty
    # (engine.difficulty.Difficulty.to_dict): measured when it was drawn for a tier, else
    # once it has closed; None until then, or when the measure ran out of time
    # (difficulty_at says it was tried).
    tier: Mapped[Tier | None] = mapped_column(
        Enum(Tier, native_enum=False, length=8, values_callable=lambda e: [m.value for m in e])
    )
    difficulty: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    difficulty_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    # The window attempts may start in (a daily's: its UTC day). Closing a challenge early
    # moves closes_at to the moment it was closed, and an opening still ahead to it too:
    # a window never ends before it begins.
    opens_at: Mapped[datetime] = mapped_column(UTCDateTime())
    closes_at: Mapped[datetime] = mapped_column(UTCDateTime())
    attempts: Mapped[int] = mapped_column(Integer, default=1)  # a player's; the best counts
    # What a player set: a name, its creator (None once they deleted the account), the
    # entrants it takes (None: no bound, the daily), whether its deal was proved winnable,
    # and a short code to type in place of the id.
    name: Mapped[str | None] = mapped_column(String(32))
    creator_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="SET NULL")
    )
    max_entries: Mapped[int | None] = mapped_column(Integer)
    winnable_only: Mapped[bool] = mapped_column(Boolean, default=True)
    invite_code: Mapped[str | None] = mapped_column(String(16), unique=True)
    # The key of its deal's tableau's class under its rules (engine.equivalence): a game
    # asked for with a tableau of that class is refused while the challenge is open.
    deal_key: Mapped[str | None] = mapped_column(String(64))

    __table_args__ = (
        UniqueConstraint("day", "layout", name="uq_challenges_day_layout"),
        # A player's open challenges (how many they may have), and what they set, newest
        # first (list_my_challenges).
        Index("ix_challenges_creator_id_closes_at", "creator_id", "closes_at"),
        Index("ix_challenges_creator_id_created_at", "creator_id", "created_at", "id"),
        # The open challenges of a tableau's class (create_game's copy check).
        Index("ix_challenges_deal_key_closes_at", "deal_key", "closes_at"),
    )


class ChallengeEntry(Base):
    """A player's entry in a challenge: their attempts (``game_id`` the latest, one at a
    time) and the best result among them. ``rank_score`` orders the board whatever the
    scheme (the score negated where higher is better): None until an attempt ends within
    the window (one that ends after it is not ranked)."""

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
    attempts: Mapped[int] = mapped_column(Integer, default=1)  # games started
    # An edition's entrant: their place in its join order (from 1) and their cohort.
    number: Mapped[int | None] = mapped_column(Integer)
    cohort: Mapped[int | None] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # The attempt whose result is ranked (the best of them), for its fair-play measure.
    result_game_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="SET NULL")
    )
    # Made by an account newer than the challenge (made after it opened) or younger than
    # CHALLENGE_ACCOUNT_MIN_HOURS when it entered: its result is provisional. On a public
    # board (the daily, an event's) a provisional result is ranked apart
    # (``provisional_rank_score``, in the board's order) until its measure says ok; on a
    # challenge a player set it ranks with the others, marked.
    provisional: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    provisional_rank_score: Mapped[int | None] = mapped_column(Integer)
    # When the ranked result is due to be measured: set as it is entered, None once
    # measured (or never measured: an edition's total follows its rounds'); and until
    # when a measure holds it (a lease: a measure that dies leaves it to the next once
    # it runs out).
    measure_due_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    measure_claimed_until: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # The fair-play measure of the ranked result, soon after it was entered (an
    # edition's entry: flagged when a round's is, ok once every round's is measured).
    # A flagged result leaves the board (``rank_score`` None, its counts taken back) for
    # the flagged one, in the same order (``flagged_rank_score``): ranked apart, kept.
    fair_play: Mapped[FairPlay] = mapped_column(
        Enum(FairPlay, native_enum=False, length=8, values_callable=lambda e: [m.value for m in e]),
        default=FairPlay.PENDING,
        server_default=FairPlay.PENDING.value,
    )
    fair_play_telling: Mapped[int | None] = mapped_column(Integer)
    fair_play_resolved: Mapped[int | None] = mapped_column(Integer)
    fair_play_expected: Mapped[float | None] = mapped_column(Float)
    fair_play_p: Mapped[float | None] = mapped_column(Float)
    fair_play_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # The stock's evidence (app.engine.fairplay.stock_evidence): this result's z and its
    # decisions, None where the deal was drawn by difficulty (the test needs deals drawn
    # at random); and the player's, summed over their last results with one (this one
    # included): how many, and the sum. A result is flagged when the sum passes the
    # setting FAIR_PLAY_STOCK_Z, as when its own p-value is under FAIR_PLAY_THRESHOLD.
    fair_play_stock_z: Mapped[float | None] = mapped_column(Float)
    fair_play_stock_decisions: Mapped[int | None] = mapped_column(Integer)
    fair_play_player_z: Mapped[float | None] = mapped_column(Float)
    fair_play_player_results: Mapped[int | None] = mapped_column(Integer)
    # The game's measure of the player's last results with one (this one included),
    # combined (app.engine.fairplay.combined), and how many: a result that leans the
    # clairvoyant way itself is flagged when the combination is under FAIR_PLAY_THRESHOLD.
    fair_play_player_p: Mapped[float | None] = mapped_column(Float)
    fair_play_player_p_results: Mapped[int | None] = mapped_column(Integer)
    flagged_rank_score: Mapped[int | None] = mapped_column(Integer)

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
        # The flagged board, in the board's order.
        Index(
            "ix_challenge_entries_flagged",
            "challenge_id",
            "kind",
            "flagged_rank_score",
            "moves",
            "finished_at",
            "player_id",
            postgresql_where=text("flagged_rank_score IS NOT NULL"),
            sqlite_where=text("flagged_rank_score IS NOT NULL"),
        ),
        # The provisional results of a public board, in the board's order.
        Index(
            "ix_challenge_entries_provisional",
            "challenge_id",
            "kind",
            "provisional_rank_score",
            "moves",
            "finished_at",
            "player_id",
            postgresql_where=text("provisional_rank_score IS NOT NULL"),
            sqlite_where=text("provisional_rank_score IS NOT NULL"),
        ),
        # The results due to be measured, the longest due first (the measure's queue).
        Index(
            "ix_challenge_entries_measure_due",
            "measure_due_at",
            postgresql_where=text("measure_due_at IS NOT NULL"),
            sqlite_where=text("measure_due_at IS NOT NULL"),
        ),
        # A player's results being measured: one of theirs at a time (each sums their
        # last ones).
        Index(
            "ix_challenge_entries_player_measure_claimed",
            "player_id",
            "measure_claimed_until",
            postgresql_where=text("measure_claimed_until IS NOT NULL"),
            sqlite_where=text("measure_claimed_until IS NOT NULL"),
        ),
        # A player's entries (list_my_challenges; retention asks whether there are any).
        Index("ix_challenge_entries_player_id", "player_id", "challenge_id"),
        # An edition's cohort (its board among itself).
        Index(
            "ix_challenge_entries_cohort",
            "challenge_id",
            "cohort",
            "player_id",
            postgresql_where=text("cohort IS NOT NULL"),
            sqlite_where=text("cohort IS NOT NULL"),
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
