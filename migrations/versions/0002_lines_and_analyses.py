"""a game's line, and analyses stored once

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01

- ``games.line``: the game's moves with every undone move taken out, comma-separated.
  A game is rehydrated by replaying its line, not its whole log, so its cost no longer
  grows with draw/undo pairs. Filled here from each game's moves.
- ``analyses``: a finished game's analysis, computed once and kept.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 500


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("line", sa.Text(), server_default="", nullable=False))
    _fill_lines()
    op.create_table(
        "analyses",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("body", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_analyses_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_analyses")),
    )


def _fill_lines() -> None:
    """Each game's line from its stored moves (an undo takes the last move off; the moves
    are stored in their canonical form, so "undo" is spelt one way). Written here rather
    than imported from the engine, so that this revision never changes."""
    bind = op.get_bind()
    games = sa.table("games", sa.column("id", sa.String), sa.column("line", sa.Text))
    moves = sa.table(
        "moves", sa.column("game_id", sa.String), sa.column("seq", sa.Integer), sa.column("move")
    )
    after = ""
    while True:
        ids = (
            bind.execute(
                sa.select(games.c.id).where(games.c.id > after).order_by(games.c.id).limit(BATCH)
            )
            .scalars()
            .all()
        )
        if not ids:
            return
        rows = bind.execute(
            sa.select(moves.c.game_id, moves.c.move)
            .where(moves.c.game_id.in_(ids))
            .order_by(moves.c.game_id, moves.c.seq)
        ).all()
        lines: dict[str, list[str]] = {}
        for game_id, move in rows:
            line = lines.setdefault(game_id, [])
            if move == "undo":
                if line:
                    line.pop()
            else:
                line.append(move)
        for game_id, line in lines.items():
            bind.execute(sa.update(games).where(games.c.id == game_id).values(line=",".join(line)))
        after = ids[-1]


def downgrade() -> None:
    op.drop_table("analyses")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("line")
