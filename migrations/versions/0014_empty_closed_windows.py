"""a challenge closed before it opened: its window emptied

- ``challenges.opens_at``: a round of a cancelled event that had not opened was closed at
  the cancellation with its opening left ahead, so that its window ended before it began
  (read as closed by some routes, as not open yet by others); its opening is moved to its
  closing, as closing now does (an empty window: closed everywhere).

Going back changes nothing: the earlier code reads an empty window as closed too.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_CHALLENGES = sa.table(
    "challenges",
    sa.column("opens_at", sa.DateTime(timezone=True)),
    sa.column("closes_at", sa.DateTime(timezone=True)),
)


def upgrade() -> None:
    c = _CHALLENGES.c
    op.execute(_CHALLENGES.update().where(c.closes_at < c.opens_at).values(opens_at=c.closes_at))


def downgrade() -> None:
    pass
