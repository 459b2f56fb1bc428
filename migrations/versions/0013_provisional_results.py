"""provisional results, measured soon after they are entered; scheduled jobs

- ``challenge_entries.provisional``: the entry was made by an account newer than the
  challenge, or younger than CHALLENGE_ACCOUNT_MIN_HOURS (false for every entry made
  before this revision: such accounts were refused then).
- ``challenge_entries.provisional_rank_score``: a provisional result of a public board,
  ranked apart until its measure says ok, with its index in the board's order.
- ``challenge_entries.measure_due_at``: when a ranked result is due to be measured (every
  ranked result still pending is due at once), and ``measure_claimed_until``: until when a
  measure holds it; an index of each (the queue, and a player's results being measured).
  They replace ``ix_challenge_entries_unmeasured`` (results were measured once their
  challenge had closed).
- ``scheduled_jobs``: a job's next run, taken by one server process of all of them.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_ENTRIES = sa.table(
    "challenge_entries",
    sa.column("challenge_id", sa.String()),
    sa.column("fair_play", sa.String()),
    sa.column("rank_score", sa.Integer()),
    sa.column("measure_due_at", sa.DateTime(timezone=True)),
)
_CHALLENGES = sa.table("challenges", sa.column("id", sa.String()), sa.column("kind", sa.String()))
_DUE = sa.text("measure_due_at IS NOT NULL")
_CLAIMED = sa.text("measure_claimed_until IS NOT NULL")


def upgrade() -> None:
    op.create_table(
        "scheduled_jobs",
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("next_run_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_started_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_scheduled_jobs")),
    )
    with op.batch_alter_table("challenge_entries", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("provisional", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        batch_op.add_column(sa.Column("provisional_rank_score", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("measure_due_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(
            sa.Column("measure_claimed_until", sa.DateTime(timezone=True), nullable=True)
        )
        batch_op.drop_index(
            "ix_challenge_entries_unmeasured",
            postgresql_where=sa.text("fair_play = 'pending' AND rank_score IS NOT NULL"),
            sqlite_where=sa.text("fair_play = 'pending' AND rank_score IS NOT NULL"),
        )
        batch_op.create_index(
            "ix_challenge_entries_provisional",
            ["challenge_id", "kind", "provisional_rank_score", "moves", "finished_at", "player_id"],
            unique=False,
            postgresql_where=sa.text("provisional_rank_score IS NOT NULL"),
            sqlite_where=sa.text("provisional_rank_score IS NOT NULL"),
        )
        batch_op.create_index(
            "ix_challenge_entries_measure_due",
            ["measure_due_at"],
            unique=False,
            postgresql_where=_DUE,
            sqlite_where=_DUE,
        )
        batch_op.create_index(
            "ix_challenge_entries_player_measure_claimed",
            ["player_id", "measure_claimed_until"],
            unique=False,
            postgresql_where=_CLAIMED,
            sqlite_where=_CLAIMED,
        )
    # The ranked results still pending (an edition's totals aside: they follow their
    # rounds'), due now.
    e, c = _ENTRIES.c, _CHALLENGES.c
    editions = sa.select(c.id).where(c.kind == "edition")
    op.get_bind().execute(
        _ENTRIES.update()
        .where(
            e.fair_play == "pending",
            e.rank_score.is_not(None),
            e.challenge_id.not_in(editions.scalar_subquery()),
        )
        .values(measure_due_at=datetime.now(UTC))
    )


def downgrade() -> None:
    _provisional_onto_their_boards()
    with op.batch_alter_table("challenge_entries", schema=None) as batch_op:
        batch_op.drop_index(
            "ix_challenge_entries_player_measure_claimed",
            postgresql_where=_CLAIMED,
            sqlite_where=_CLAIMED,
        )
        batch_op.drop_index(
            "ix_challenge_entries_measure_due", postgresql_where=_DUE, sqlite_where=_DUE
        )
        batch_op.drop_index(
            "ix_challenge_entries_provisional",
            postgresql_where=sa.text("provisional_rank_score IS NOT NULL"),
            sqlite_where=sa.text("provisional_rank_score IS NOT NULL"),
        )
        batch_op.create_index(
            "ix_challenge_entries_unmeasured",
            ["challenge_id"],
            unique=False,
            postgresql_where=sa.text("fair_play = 'pending' AND rank_score IS NOT NULL"),
            sqlite_where=sa.text("fair_play = 'pending' AND rank_score IS NOT NULL"),
        )
        batch_op.drop_column("measure_claimed_until")
        batch_op.drop_column("measure_due_at")
        batch_op.drop_column("provisional_rank_score")
        batch_op.drop_column("provisional")
    op.drop_table("scheduled_jobs")


_PLACES = sa.table(
    "challenge_entries",
    sa.column("challenge_id", sa.String()),
    sa.column("player_id", sa.String()),
    sa.column("kind", sa.String()),
    sa.column("moves", sa.Integer()),
    sa.column("rank_score", sa.Integer()),
    sa.column("provisional_rank_score", sa.Integer()),
)
_BUCKETS = sa.table(
    "leaderboard_buckets",
    sa.column("challenge_id", sa.String()),
    sa.column("kind", sa.String()),
    sa.column("rank_score", sa.Integer()),
    sa.column("moves", sa.Integer()),
    sa.column("entries", sa.Integer()),
)
_SCORES = sa.table(
    "leaderboard_scores",
    sa.column("challenge_id", sa.String()),
    sa.column("kind", sa.String()),
    sa.column("rank_score", sa.Integer()),
    sa.column("entries", sa.Integer()),
)


def _provisional_onto_their_boards() -> None:
    """Before this revision every result was on its board: the provisional ones go back
    onto theirs, counted, so that no result is lost."""
    bind = op.get_bind()
    p = _PLACES.c
    rows = bind.execute(
        sa.select(p.challenge_id, p.player_id, p.kind, p.moves, p.provisional_rank_score).where(
            p.provisional_rank_score.is_not(None)
        )
    ).all()
    for challenge_id, player_id, kind, moves, rank_score in rows:
        bind.execute(
            _PLACES.update()
            .where(p.challenge_id == challenge_id, p.player_id == player_id)
            .values(rank_score=rank_score, provisional_rank_score=None)
        )
        place = {"challenge_id": challenge_id, "kind": kind, "rank_score": rank_score}
        for counts, values in ((_BUCKETS, {**place, "moves": moves}), (_SCORES, place)):
            where = [counts.c[name] == value for name, value in values.items()]
            added = bind.execute(counts.update().where(*where).values(entries=counts.c.entries + 1))
            if added.rowcount == 0:
                bind.execute(counts.insert().values(**values, entries=1))
