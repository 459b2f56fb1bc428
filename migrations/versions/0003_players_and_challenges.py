"""players and challenges

- ``players`` (accounts known by a key) and ``player_stats`` (each player's record, all
  games and per layout and scoring);
- ``challenges`` (one deal a layout and UTC day), ``challenge_entries`` (a player's ranked
  attempt), ``leaderboard_buckets`` and ``leaderboard_scores`` (results counted by score
  and moves, and by score, to rank without counting the rows ahead), ``server_secrets``
  (where the challenges' secret is kept when no setting gives one);
- ``games.player_id``, ``games.challenge_id`` and ``games.reveal_after``, and an index
  for a player's games.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "challenges",
        sa.Column("id", sa.String(length=48), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("layout", sa.String(length=32), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("deal", sa.Text(), nullable=False),
        sa.Column("salt", sa.String(length=64), nullable=False),
        sa.Column("commitment", sa.String(length=64), nullable=False),
        sa.Column("entries", sa.Integer(), nullable=False),
        sa.Column("best_score", sa.Integer(), nullable=True),
        sa.Column("best_searched_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_challenges")),
        sa.UniqueConstraint("day", "layout", name="uq_challenges_day_layout"),
    )
    op.create_table(
        "players",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=32), nullable=True),
        sa.Column(
            "kind",
            sa.Enum("human", "bot", name="playerkind", native_enum=False, length=8),
            nullable=False,
        ),
        sa.Column("key_hash", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
    )
    op.create_table(
        "server_secrets",
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("value", sa.String(length=128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_server_secrets")),
    )
    op.create_table(
        "leaderboard_buckets",
        sa.Column("challenge_id", sa.String(length=48), nullable=False),
        sa.Column(
            "kind",
            sa.Enum("human", "bot", name="playerkind", native_enum=False, length=8),
            nullable=False,
        ),
        sa.Column("rank_score", sa.Integer(), nullable=False),
        sa.Column("moves", sa.Integer(), nullable=False),
        sa.Column("entries", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["challenge_id"],
            ["challenges.id"],
            name=op.f("fk_leaderboard_buckets_challenge_id_challenges"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "challenge_id", "kind", "rank_score", "moves", name=op.f("pk_leaderboard_buckets")
        ),
    )
    op.create_table(
        "leaderboard_scores",
        sa.Column("challenge_id", sa.String(length=48), nullable=False),
        sa.Column(
            "kind",
            sa.Enum("human", "bot", name="playerkind", native_enum=False, length=8),
            nullable=False,
        ),
        sa.Column("rank_score", sa.Integer(), nullable=False),
        sa.Column("entries", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["challenge_id"],
            ["challenges.id"],
            name=op.f("fk_leaderboard_scores_challenge_id_challenges"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "challenge_id", "kind", "rank_score", name=op.f("pk_leaderboard_scores")
        ),
    )
    op.create_table(
        "player_stats",
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("layout", sa.String(length=32), nullable=False),
        sa.Column("scoring", sa.String(length=16), nullable=False),
        sa.Column("played", sa.Integer(), nullable=False),
        sa.Column("won", sa.Integer(), nullable=False),
        sa.Column("lost", sa.Integer(), nullable=False),
        sa.Column("conceded", sa.Integer(), nullable=False),
        sa.Column("score_sum", sa.BigInteger(), nullable=False),
        sa.Column("best_score", sa.Integer(), nullable=True),
        sa.Column("current_run", sa.Integer(), nullable=False),
        sa.Column("longest_run", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_player_stats_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("player_id", "layout", "scoring", name=op.f("pk_player_stats")),
    )
    op.create_table(
        "challenge_entries",
        sa.Column("challenge_id", sa.String(length=48), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("game_id", sa.String(length=32), nullable=True),
        sa.Column(
            "kind",
            sa.Enum("human", "bot", name="playerkind", native_enum=False, length=8),
            nullable=False,
        ),
        sa.Column(
            "status",
            sa.Enum(
                "in_progress",
                "won",
                "lost",
                "conceded",
                name="gamestatus",
                native_enum=False,
                length=16,
            ),
            nullable=False,
        ),
        sa.Column("score", sa.Integer(), nullable=True),
        sa.Column("moves", sa.Integer(), nullable=True),
        sa.Column("rank_score", sa.Integer(), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["challenge_id"],
            ["challenges.id"],
            name=op.f("fk_challenge_entries_challenge_id_challenges"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_challenge_entries_game_id_games"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_challenge_entries_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("challenge_id", "player_id", name=op.f("pk_challenge_entries")),
        sa.UniqueConstraint("game_id", name=op.f("uq_challenge_entries_game_id")),
    )
    with op.batch_alter_table("challenge_entries", schema=None) as batch_op:
        batch_op.create_index(
            "ix_challenge_entries_board",
            ["challenge_id", "kind", "rank_score", "moves", "finished_at", "player_id"],
            unique=False,
            postgresql_where=sa.text("rank_score IS NOT NULL"),
            sqlite_where=sa.text("rank_score IS NOT NULL"),
        )

    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("player_id", sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column("challenge_id", sa.String(length=48), nullable=True))
        batch_op.add_column(sa.Column("reveal_after", sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index(
            "ix_games_player_id_created_at", ["player_id", "created_at", "id"], unique=False
        )
        batch_op.create_foreign_key(
            batch_op.f("fk_games_player_id_players"),
            "players",
            ["player_id"],
            ["id"],
            ondelete="SET NULL",
        )
        batch_op.create_foreign_key(
            batch_op.f("fk_games_challenge_id_challenges"),
            "challenges",
            ["challenge_id"],
            ["id"],
            ondelete="SET NULL",
        )


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_games_challenge_id_challenges"), type_="foreignkey")
        batch_op.drop_constraint(batch_op.f("fk_games_player_id_players"), type_="foreignkey")
        batch_op.drop_index("ix_games_player_id_created_at")
        batch_op.drop_column("reveal_after")
        batch_op.drop_column("challenge_id")
        batch_op.drop_column("player_id")

    with op.batch_alter_table("challenge_entries", schema=None) as batch_op:
        batch_op.drop_index(
            "ix_challenge_entries_board",
            postgresql_where=sa.text("rank_score IS NOT NULL"),
            sqlite_where=sa.text("rank_score IS NOT NULL"),
        )

    op.drop_table("challenge_entries")
    op.drop_table("player_stats")
    op.drop_table("leaderboard_scores")
    op.drop_table("leaderboard_buckets")
    op.drop_table("server_secrets")
    op.drop_table("players")
    op.drop_table("challenges")
