"""deal keys

- ``challenges.deal_key``: the key of the class of same games its deal belongs to under its
  rules (``app.engine.equivalence``), with an index for a new game's copy check; filled for
  the challenges still open, the only ones the check reads.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.engine.equivalence import KeyScheme
from app.ops.migrations import rekey_open_challenges

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.add_column(sa.Column("deal_key", sa.String(length=64), nullable=True))
        batch_op.create_index(
            "ix_challenges_deal_key_closes_at", ["deal_key", "closes_at"], unique=False
        )
    # The scheme of this revision's code: revision 0012 moves the keys to the tableau's.
    rekey_open_challenges(op.get_bind(), KeyScheme.WHOLE_DEAL)


def downgrade() -> None:
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.drop_index("ix_challenges_deal_key_closes_at")
        batch_op.drop_column("deal_key")
