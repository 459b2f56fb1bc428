"""the stock's evidence of a ranked result, and of its player's results summed

- ``challenge_entries.fair_play_stock_z`` and ``fair_play_stock_decisions``: the result's
  z of the stock's evidence (``app.engine.fairplay.stock_evidence``, docs/fairplay.md) and
  how many decisions it weighs; null for results measured before this revision, and for
  deals drawn by difficulty.
- ``challenge_entries.fair_play_player_z`` and ``fair_play_player_results``: the player's
  z summed over their last results with one (``FAIR_PLAY_STOCK_RESULTS``, this one
  included) when this one was measured, and how many.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("challenge_entries", schema=None) as batch_op:
        batch_op.add_column(sa.Column("fair_play_stock_z", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("fair_play_stock_decisions", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("fair_play_player_z", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("fair_play_player_results", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("challenge_entries", schema=None) as batch_op:
        batch_op.drop_column("fair_play_player_results")
        batch_op.drop_column("fair_play_player_z")
        batch_op.drop_column("fair_play_stock_decisions")
        batch_op.drop_column("fair_play_stock_z")
