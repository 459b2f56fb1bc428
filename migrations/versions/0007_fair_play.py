"""fair play

- ``challenge_entries.result_game_id``: the attempt whose result is ranked (filled with the
  latest attempt of the entries ranked already: the ranked one where a challenge allows
  one attempt, as the daily does).
- ``challenge_entries.fair_play`` (pending, ok, flagged) and the measure's figures
  (``fair_play_telling``, ``_resolved``, ``_expected``, ``_p``, ``_at``); a flagged result's
  place in the flagged board (``flagged_rank_score``), with its index; an index of the
  ranked results not measured yet. Every ranked result starts pending: the measure works
  through them newest challenge first.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_ENTRIES = sa.table(
    "challenge_entries",
    sa.column("game_id", sa.String()),
    sa.column("rank_score", sa.Integer()),
    sa.column("result_game_id", sa.String()),
)


def upgrade() -> None:
    with op.batch_alter_table("challenge_entries", schema=None) as batch_op:
        batch_op.add_column(sa.Column("result_game_id", sa.String(length=32), nullable=True))
        batch_op.add_column(
            sa.Column(
                "fair_play",
                sa.Enum("pending", "ok", "flagged", name="fairplay", native_enum=False, length=8),
                server_default="pending",
                nullable=False,
            )
        )
        batch_op.add_column(sa.Column("fair_play_telling", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("fair_play_resolved", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("fair_play_expected", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("fair_play_p", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("fair_play_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("flagged_rank_score", sa.Integer(), nullable=True))
        batch_op.create_foreign_key(
            "fk_challenge_entries_result_game_id_games",
            "games",
            ["result_game_id"],
            ["id"],
            ondelete="SET NULL",
        )
        batch_op.create_index(
            "ix_challenge_entries_flagged",
            ["challenge_id", "kind", "flagged_rank_score", "moves", "finished_at", "player_id"],
            unique=False,
            postgresql_where=sa.text("flagged_rank_score IS NOT NULL"),
            sqlite_where=sa.text("flagged_rank_score IS NOT NULL"),
        )
        batch_op.create_index(
            "ix_challenge_entries_unmeasured",
            ["challenge_id"],
            unique=False,
            postgresql_where=sa.text("fair_play = 'pending' AND rank_score IS NOT NULL"),
            sqlite_where=sa.text("fair_play = 'pending' AND rank_score IS NOT NULL"),
        )
    e = _ENTRIES.c
    op.get_bind().execute(
        _ENTRIES.update().where(e.rank_score.is_not(None)).values(result_game_id=e.game_id)
    )


def downgrade() -> None:
    with op.batch_alter_table("challenge_entries", schema=None) as batch_op:
        batch_op.drop_index("ix_challenge_entries_unmeasured")
        batch_op.drop_index("ix_challenge_entries_flagged")
        batch_op.drop_constraint("fk_challenge_entries_result_game_id_games", type_="foreignkey")
        batch_op.drop_column("flagged_rank_score")
        batch_op.drop_column("fair_play_at")
        batch_op.drop_column("fair_play_p")
        batch_op.drop_column("fair_play_expected")
        batch_op.drop_column("fair_play_resolved")
        batch_op.drop_column("fair_play_telling")
        batch_op.drop_column("fair_play")
        batch_op.drop_column("result_game_id")
