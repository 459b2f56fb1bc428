"""a deal's difficulty

- ``challenges.tier``: the tier a challenge's deal was drawn for (null: any deal);
  ``challenges.difficulty``: the deal's difficulty (the hint's share of games won on it,
  app.engine.difficulty), measured when it was drawn for a tier or else once the challenge
  has closed, and ``difficulty_at``, when that measure was made (null: not yet). Challenges
  closed before this revision are measured at their next read, as a closed one is.
- ``events.tier``: the tier of every round's deal (null: any deal).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _tier() -> sa.Enum:
    return sa.Enum("easy", "medium", "hard", name="tier", native_enum=False, length=8)


def upgrade() -> None:
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.add_column(sa.Column("tier", _tier(), nullable=True))
        batch_op.add_column(sa.Column("difficulty", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("difficulty_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("events", schema=None) as batch_op:
        batch_op.add_column(sa.Column("tier", _tier(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("events", schema=None) as batch_op:
        batch_op.drop_column("tier")
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.drop_column("difficulty_at")
        batch_op.drop_column("difficulty")
        batch_op.drop_column("tier")
