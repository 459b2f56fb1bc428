"""ranked duels: duels, ratings per player and pool, their counts and changes

- ``duels``: two players on one deal (held by a challenge of kind ``duel``), matched by
  rating; indexes for matching (the waiting duels of a pool and kind of host by rating,
  and those that take the other kind too), the scheduled
  job (open duels by their next deadline, decided duels still to settle), a player's
  duels (hosted, taken) and a game's duel.
- ``ratings``: OpenSkill's mu and sigma per player and pool, with the board's index.
- ``rating_counts``: how many players of a pool and kind have each rating (ranks).
- ``rating_changes``: each duel's change to a rating, and whether it was taken back.

``challenges.kind`` takes ``duel`` with no change (a string column without a check).
Going back drops the four tables and the duels' challenges (a kind the code before this
revision cannot read), with their entries and counts; their games stay, as ordinary
games with nothing kept secret.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "rating_counts",
        sa.Column("pool", sa.String(length=48), nullable=False),
        sa.Column(
            "kind",
            sa.Enum("human", "bot", name="playerkind", native_enum=False, length=8),
            nullable=False,
        ),
        sa.Column("rating", sa.Integer(), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("pool", "kind", "rating", name=op.f("pk_rating_counts")),
    )
    op.create_table(
        "ratings",
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("pool", sa.String(length=48), nullable=False),
        sa.Column(
            "kind",
            sa.Enum("human", "bot", name="playerkind", native_enum=False, length=8),
            nullable=False,
        ),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("rating", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("losses", sa.Integer(), nullable=False),
        sa.Column("draws", sa.Integer(), nullable=False),
        sa.Column("last_opponent_id", sa.String(length=32), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_ratings_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("player_id", "pool", name=op.f("pk_ratings")),
    )
    with op.batch_alter_table("ratings", schema=None) as batch_op:
        batch_op.create_index(
            "ix_ratings_board", ["pool", "kind", "rating", "player_id"], unique=False
        )

    op.create_table(
        "duels",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("pool", sa.String(length=48), nullable=False),
        sa.Column("challenge_id", sa.String(length=48), nullable=True),
        sa.Column("commitment", sa.String(length=64), nullable=False),
        sa.Column("tier", sa.String(length=8), nullable=True),
        sa.Column(
            "status",
            sa.Enum(
                "waiting", "matched", "finished", "expired", name="duelstatus", native_enum=False
            ),
            nullable=False,
        ),
        sa.Column(
            "host_kind",
            sa.Enum("human", "bot", name="playerkind", native_enum=False, length=8),
            nullable=False,
        ),
        sa.Column("mixed", sa.Boolean(), nullable=False),
        sa.Column("match_rating", sa.Integer(), nullable=False),
        sa.Column("host_id", sa.String(length=32), nullable=True),
        sa.Column("host_game_id", sa.String(length=32), nullable=True),
        sa.Column("host_provisional", sa.Boolean(), nullable=False),
        sa.Column("challenger_id", sa.String(length=32), nullable=True),
        sa.Column(
            "challenger_kind",
            sa.Enum("human", "bot", name="playerkind", native_enum=False, length=8),
            nullable=True,
        ),
        sa.Column("challenger_rating", sa.Integer(), nullable=True),
        sa.Column("challenger_provisional", sa.Boolean(), nullable=False),
        sa.Column("challenger_game_id", sa.String(length=32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("opened_minute", sa.Integer(), nullable=False),
        sa.Column("decide_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("host_due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("matched_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("challenger_due_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("host_score", sa.Integer(), nullable=True),
        sa.Column("host_rank_score", sa.Integer(), nullable=True),
        sa.Column("host_moves", sa.Integer(), nullable=True),
        sa.Column("host_finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("host_forfeit", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("challenger_score", sa.Integer(), nullable=True),
        sa.Column("challenger_rank_score", sa.Integer(), nullable=True),
        sa.Column("challenger_moves", sa.Integer(), nullable=True),
        sa.Column("challenger_finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("challenger_forfeit", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column(
            "outcome",
            sa.Enum(
                "host", "challenger", "draw", "void", name="outcome", native_enum=False, length=12
            ),
            nullable=True,
        ),
        sa.Column("host_flagged", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("challenger_flagged", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("settled", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.ForeignKeyConstraint(
            ["challenge_id"],
            ["challenges.id"],
            name=op.f("fk_duels_challenge_id_challenges"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["challenger_game_id"],
            ["games.id"],
            name=op.f("fk_duels_challenger_game_id_games"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["challenger_id"],
            ["players.id"],
            name=op.f("fk_duels_challenger_id_players"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["host_game_id"],
            ["games.id"],
            name=op.f("fk_duels_host_game_id_games"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["host_id"], ["players.id"], name=op.f("fk_duels_host_id_players"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_duels")),
    )
    with op.batch_alter_table("duels", schema=None) as batch_op:
        batch_op.create_index("ix_duels_challenge_id", ["challenge_id"], unique=False)
        batch_op.create_index(
            "ix_duels_challenger_id_created_at", ["challenger_id", "created_at", "id"], unique=False
        )
        batch_op.create_index(
            "ix_duels_host_id_created_at", ["host_id", "created_at", "id"], unique=False
        )
        batch_op.create_index(
            "ix_duels_open_decide_at",
            ["decide_at"],
            unique=False,
            postgresql_where=sa.text("status IN ('waiting', 'matched')"),
            sqlite_where=sa.text("status IN ('waiting', 'matched')"),
        )
        batch_op.create_index(
            "ix_duels_unsettled",
            ["ended_at"],
            unique=False,
            postgresql_where=sa.text("status = 'finished' AND NOT settled"),
            sqlite_where=sa.text("status = 'finished' AND NOT settled"),
        )
        batch_op.create_index(
            "ix_duels_waiting",
            ["pool", "host_kind", "match_rating"],
            unique=False,
            postgresql_where=sa.text("status = 'waiting'"),
            sqlite_where=sa.text("status = 'waiting'"),
        )
        batch_op.create_index(
            "ix_duels_waiting_mixed",
            ["pool", "host_kind", "match_rating"],
            unique=False,
            postgresql_where=sa.text("status = 'waiting' AND mixed"),
            sqlite_where=sa.text("status = 'waiting' AND mixed"),
        )

    op.create_table(
        "rating_changes",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("pool", sa.String(length=48), nullable=False),
        sa.Column("duel_id", sa.String(length=32), nullable=False),
        sa.Column("before", sa.Integer(), nullable=False),
        sa.Column("after", sa.Integer(), nullable=False),
        sa.Column("mu_change", sa.Float(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("taken_back_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["duel_id"],
            ["duels.id"],
            name=op.f("fk_rating_changes_duel_id_duels"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_rating_changes_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rating_changes")),
    )
    with op.batch_alter_table("rating_changes", schema=None) as batch_op:
        batch_op.create_index("ix_rating_changes_duel_id", ["duel_id"], unique=False)
        batch_op.create_index(
            "ix_rating_changes_player", ["player_id", "pool", "at", "id"], unique=False
        )


_CHALLENGES = sa.table("challenges", sa.column("id", sa.String()), sa.column("kind", sa.String()))
_GAMES = sa.table(
    "games",
    sa.column("challenge_id", sa.String()),
    sa.column("reveal_after", sa.DateTime(timezone=True)),
)
# What hangs from a challenge (their foreign keys cascade, but SQLite's are not enforced
# on every connection): deleted first.
_OF_A_CHALLENGE = ("challenge_entries", "leaderboard_buckets", "leaderboard_scores")


def downgrade() -> None:
    duels = sa.select(_CHALLENGES.c.id).where(_CHALLENGES.c.kind == "duel").scalar_subquery()
    op.execute(
        _GAMES.update()
        .where(_GAMES.c.challenge_id.in_(duels))
        .values(challenge_id=None, reveal_after=None)
    )
    for name in _OF_A_CHALLENGE:
        hanging = sa.table(name, sa.column("challenge_id", sa.String()))
        op.execute(hanging.delete().where(hanging.c.challenge_id.in_(duels)))
    with op.batch_alter_table("rating_changes", schema=None) as batch_op:
        batch_op.drop_index("ix_rating_changes_player")
        batch_op.drop_index("ix_rating_changes_duel_id")

    op.drop_table("rating_changes")
    with op.batch_alter_table("duels", schema=None) as batch_op:
        batch_op.drop_index(
            "ix_duels_waiting_mixed",
            postgresql_where=sa.text("status = 'waiting' AND mixed"),
            sqlite_where=sa.text("status = 'waiting' AND mixed"),
        )
        batch_op.drop_index(
            "ix_duels_waiting",
            postgresql_where=sa.text("status = 'waiting'"),
            sqlite_where=sa.text("status = 'waiting'"),
        )
        batch_op.drop_index(
            "ix_duels_unsettled",
            postgresql_where=sa.text("status = 'finished' AND NOT settled"),
            sqlite_where=sa.text("status = 'finished' AND NOT settled"),
        )
        batch_op.drop_index(
            "ix_duels_open_decide_at",
            postgresql_where=sa.text("status IN ('waiting', 'matched')"),
            sqlite_where=sa.text("status IN ('waiting', 'matched')"),
        )
        batch_op.drop_index("ix_duels_host_id_created_at")
        batch_op.drop_index("ix_duels_challenger_id_created_at")
        batch_op.drop_index("ix_duels_challenge_id")

    op.drop_table("duels")
    with op.batch_alter_table("ratings", schema=None) as batch_op:
        batch_op.drop_index("ix_ratings_board")

    op.drop_table("ratings")
    op.drop_table("rating_counts")
    op.execute(_CHALLENGES.delete().where(_CHALLENGES.c.kind == "duel"))
