"""challenges players set, practice, follows, streaks and badges

- ``challenges``: its kind (``daily`` or ``set``), its window (``opens_at``, ``closes_at``:
  a daily's filled in from its day), attempts a player, and what a player sets (name,
  creator, entry bound, winnable_only, invite code); ``day`` may be null (a set one's);
  indexes for a player's open challenges and for what they set, newest first;
- ``challenge_entries.attempts`` (games started; the best counts) and an index for a
  player's entries;
- ``games.practice_of``, ``practice_rank`` and ``practice_ranked`` (an unranked game of a
  closed challenge's deal, and where its result would have ranked), and an index for a
  challenge's games;
- ``follows``, ``daily_streaks`` and ``monthly_wins``.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_CHALLENGES = sa.table(
    "challenges",
    sa.column("id", sa.String()),
    sa.column("day", sa.Date()),
    sa.column("kind", sa.String()),
    sa.column("opens_at", sa.DateTime(timezone=True)),
    sa.column("closes_at", sa.DateTime(timezone=True)),
)


def _fill_daily_windows() -> None:
    """Every challenge so far is a daily: its window is its UTC day."""
    bind = op.get_bind()
    for challenge_id, day in bind.execute(sa.select(_CHALLENGES.c.id, _CHALLENGES.c.day)).all():
        start = datetime.combine(
            day if isinstance(day, date) else date.fromisoformat(day), time(), tzinfo=UTC
        )
        bind.execute(
            _CHALLENGES.update()
            .where(_CHALLENGES.c.id == challenge_id)
            .values(kind="daily", opens_at=start, closes_at=start + timedelta(days=1))
        )


def upgrade() -> None:
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.add_column(sa.Column("kind", sa.String(length=8), nullable=True))
        batch_op.add_column(sa.Column("opens_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("closes_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("attempts", sa.Integer(), nullable=False, server_default="1"))
        batch_op.add_column(sa.Column("name", sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column("creator_id", sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column("max_entries", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column("winnable_only", sa.Boolean(), nullable=False, server_default=sa.true())
        )
        batch_op.add_column(sa.Column("invite_code", sa.String(length=16), nullable=True))
    _fill_daily_windows()
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.alter_column(
            "kind",
            existing_type=sa.String(length=8),
            type_=sa.Enum("daily", "set", name="challengekind", native_enum=False, length=8),
            nullable=False,
        )
        batch_op.alter_column("opens_at", existing_type=sa.DateTime(timezone=True), nullable=False)
        batch_op.alter_column("closes_at", existing_type=sa.DateTime(timezone=True), nullable=False)
        batch_op.alter_column("attempts", existing_type=sa.Integer(), server_default=None)
        batch_op.alter_column("winnable_only", existing_type=sa.Boolean(), server_default=None)
        batch_op.alter_column("day", existing_type=sa.Date(), nullable=True)
        batch_op.create_unique_constraint(batch_op.f("uq_challenges_invite_code"), ["invite_code"])
        batch_op.create_foreign_key(
            batch_op.f("fk_challenges_creator_id_players"),
            "players",
            ["creator_id"],
            ["id"],
            ondelete="SET NULL",
        )
        batch_op.create_index(
            "ix_challenges_creator_id_closes_at", ["creator_id", "closes_at"], unique=False
        )
        batch_op.create_index(
            "ix_challenges_creator_id_created_at",
            ["creator_id", "created_at", "id"],
            unique=False,
        )

    with op.batch_alter_table("challenge_entries", schema=None) as batch_op:
        batch_op.add_column(sa.Column("attempts", sa.Integer(), nullable=False, server_default="1"))
    with op.batch_alter_table("challenge_entries", schema=None) as batch_op:
        batch_op.alter_column("attempts", existing_type=sa.Integer(), server_default=None)
        batch_op.create_index(
            "ix_challenge_entries_player_id", ["player_id", "challenge_id"], unique=False
        )

    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("practice_of", sa.String(length=48), nullable=True))
        batch_op.add_column(sa.Column("practice_rank", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("practice_ranked", sa.Integer(), nullable=True))
        batch_op.create_index("ix_games_challenge_id", ["challenge_id"], unique=False)
        batch_op.create_foreign_key(
            batch_op.f("fk_games_practice_of_challenges"),
            "challenges",
            ["practice_of"],
            ["id"],
            ondelete="SET NULL",
        )

    op.create_table(
        "follows",
        sa.Column("follower_id", sa.String(length=32), nullable=False),
        sa.Column("followed_id", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["followed_id"],
            ["players.id"],
            name=op.f("fk_follows_followed_id_players"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["follower_id"],
            ["players.id"],
            name=op.f("fk_follows_follower_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("follower_id", "followed_id", name=op.f("pk_follows")),
    )
    with op.batch_alter_table("follows", schema=None) as batch_op:
        batch_op.create_index("ix_follows_followed_id", ["followed_id"], unique=False)
    op.create_table(
        "daily_streaks",
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("layout", sa.String(length=32), nullable=False),
        sa.Column("won_current", sa.Integer(), nullable=False),
        sa.Column("won_longest", sa.Integer(), nullable=False),
        sa.Column("won_last", sa.Date(), nullable=True),
        sa.Column("played_current", sa.Integer(), nullable=False),
        sa.Column("played_longest", sa.Integer(), nullable=False),
        sa.Column("played_last", sa.Date(), nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_daily_streaks_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("player_id", "layout", name=op.f("pk_daily_streaks")),
    )
    op.create_table(
        "monthly_wins",
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("layout", sa.String(length=32), nullable=False),
        sa.Column("month", sa.Date(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_monthly_wins_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("player_id", "layout", "month", name=op.f("pk_monthly_wins")),
    )


def downgrade() -> None:
    op.drop_table("monthly_wins")
    op.drop_table("daily_streaks")
    with op.batch_alter_table("follows", schema=None) as batch_op:
        batch_op.drop_index("ix_follows_followed_id")
    op.drop_table("follows")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_games_practice_of_challenges"), type_="foreignkey")
        batch_op.drop_index("ix_games_challenge_id")
        batch_op.drop_column("practice_ranked")
        batch_op.drop_column("practice_rank")
        batch_op.drop_column("practice_of")
    with op.batch_alter_table("challenge_entries", schema=None) as batch_op:
        batch_op.drop_index("ix_challenge_entries_player_id")
        batch_op.drop_column("attempts")
    # A challenge a player set has no day: it cannot outlive the revision that made it
    # (its entries, buckets and games' links go with it, by their foreign keys' cascades).
    op.execute("DELETE FROM challenges WHERE kind = 'set'")
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.drop_index("ix_challenges_creator_id_created_at")
        batch_op.drop_index("ix_challenges_creator_id_closes_at")
        batch_op.drop_constraint(batch_op.f("fk_challenges_creator_id_players"), type_="foreignkey")
        batch_op.drop_constraint(batch_op.f("uq_challenges_invite_code"), type_="unique")
        batch_op.alter_column("day", existing_type=sa.Date(), nullable=False)
        batch_op.drop_column("invite_code")
        batch_op.drop_column("winnable_only")
        batch_op.drop_column("max_entries")
        batch_op.drop_column("creator_id")
        batch_op.drop_column("name")
        batch_op.drop_column("attempts")
        batch_op.drop_column("closes_at")
        batch_op.drop_column("opens_at")
        batch_op.drop_column("kind")
