"""a closed challenge's best score may be the best line found

- ``challenges.best_score_bound``: a sound bound on the deal's best score (no line scores
  more; cards_left: none leaves fewer), the best score itself when it is exact;
  ``challenges.best_score_exact``: whether ``best_score`` is the exact best. Where the exact
  search cannot finish (six peaks), ``best_score`` is the best line found
  (``solve_best(..., anytime=True)``, docs/research/best-score.md). Challenges searched before this
  revision kept a best score only when it was exact: theirs are marked so.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.add_column(sa.Column("best_score_bound", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column("best_score_exact", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    challenges = sa.table(
        "challenges",
        sa.column("best_score", sa.Integer()),
        sa.column("best_score_bound", sa.Integer()),
        sa.column("best_score_exact", sa.Boolean()),
    )
    op.execute(
        challenges.update()
        .where(challenges.c.best_score.is_not(None))
        .values(best_score_bound=challenges.c.best_score, best_score_exact=sa.true())
    )


def downgrade() -> None:
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.drop_column("best_score_exact")
        batch_op.drop_column("best_score_bound")
