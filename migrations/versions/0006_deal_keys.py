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
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

from app import engine
from app.engine.equivalence import game_key

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_CHALLENGES = sa.table(
    "challenges",
    sa.column("id", sa.String()),
    sa.column("deal", sa.Text()),
    sa.column("rules", sa.JSON()),
    sa.column("layout", sa.String()),
    sa.column("closes_at", sa.DateTime(timezone=True)),
    sa.column("deal_key", sa.String()),
)


def upgrade() -> None:
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.add_column(sa.Column("deal_key", sa.String(length=64), nullable=True))
        batch_op.create_index(
            "ix_challenges_deal_key_closes_at", ["deal_key", "closes_at"], unique=False
        )
    bind = op.get_bind()
    c = _CHALLENGES.c
    rows = bind.execute(
        sa.select(c.id, c.deal, c.rules, c.layout).where(
            c.closes_at > datetime.now(UTC), c.deal != ""
        )
    ).all()
    for challenge_id, deal, rules, layout in rows:
        key = game_key(
            engine.parse_cards(deal), engine.Rules.from_dict(rules), engine.get_layout(layout)
        )
        bind.execute(_CHALLENGES.update().where(c.id == challenge_id).values(deal_key=key))


def downgrade() -> None:
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.drop_index("ix_challenges_deal_key_closes_at")
        batch_op.drop_column("deal_key")
