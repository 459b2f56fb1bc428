"""tableau keys

- ``challenges.deal_key`` now keys the class of a deal's tableau alone, whatever its waste
  card and stock (``app.engine.equivalence.KEY_SCHEME``): recomputed for the challenges
  still open, the only ones the copy check reads. Going back recomputes them in the older
  scheme, of the whole deal (``KeyScheme.WHOLE_DEAL``, the same key function), so that the
  older code's check still finds an exact copy of an open challenge's deal.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

from app.engine.equivalence import KEY_SCHEME, KeyScheme
from app.ops.migrations import rekey_open_challenges

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    rekey_open_challenges(op.get_bind(), KEY_SCHEME)


def downgrade() -> None:
    rekey_open_challenges(op.get_bind(), KeyScheme.WHOLE_DEAL)
