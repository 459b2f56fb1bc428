"""the game's fair-play measure of a player's last results, combined

- ``challenge_entries.fair_play_player_p`` and ``fair_play_player_p_results``: the
  p-values of the game's measure of the player's last results with one
  (``FAIR_PLAY_RESULTS``, this one included), combined by Fisher's method
  (``app.engine.fairplay.combined``, docs/fairplay.md) when this one was measured, and
  how many; null for results measured before this revision.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("challenge_entries", schema=None) as batch_op:
        batch_op.add_column(sa.Column("fair_play_player_p", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("fair_play_player_p_results", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("challenge_entries", schema=None) as batch_op:
        batch_op.drop_column("fair_play_player_p_results")
        batch_op.drop_column("fair_play_player_p")
