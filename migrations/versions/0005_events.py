"""events

- ``events`` (what operators run: rules, rounds, schedule, cohorts), ``event_editions``
  (each occurrence, made on first need) and ``event_changes`` (every change, by whom);
- ``challenge_entries.number`` and ``cohort`` (an entrant's place in an edition's join
  order and its cohort), with an index for a cohort's board.

An edition's rounds and board are challenges (kinds ``round`` and ``edition``): the
challenges' kind column takes the new values as it is (a string, no constraint).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _enum(name: str, *values: str, length: int) -> sa.Enum:
    return sa.Enum(*values, name=name, native_enum=False, length=length)


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=True),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("layout", sa.String(length=32), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column(
            "entrants", _enum("entrants", "humans", "bots", "both", length=8), nullable=False
        ),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column(
            "round_opening",
            _enum("roundopening", "all_at_once", "one_per_day", length=16),
            nullable=False,
        ),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("max_size", sa.Integer(), nullable=True),
        sa.Column("join_required", sa.Boolean(), nullable=False),
        sa.Column("cohort_size", sa.Integer(), nullable=False),
        sa.Column("winnable_only", sa.Boolean(), nullable=False),
        sa.Column(
            "schedule",
            _enum("schedule", "once", "daily", "weekly", "monthly", length=8),
            nullable=False,
        ),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ends_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finishes_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("status", _enum("eventstatus", "active", "cancelled", length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
        sa.UniqueConstraint("key", name=op.f("uq_events_key")),
    )
    with op.batch_alter_table("events", schema=None) as batch_op:
        batch_op.create_index("ix_events_starts_at", ["starts_at", "id"], unique=False)
    op.create_table(
        "event_editions",
        sa.Column("id", sa.String(length=48), nullable=False),
        sa.Column("event_id", sa.String(length=32), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["event_id"],
            ["events.id"],
            name=op.f("fk_event_editions_event_id_events"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_event_editions")),
    )
    with op.batch_alter_table("event_editions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_event_editions_event_id"), ["event_id"], unique=False)
    op.create_table(
        "event_changes",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("event_id", sa.String(length=32), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("changes", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["event_id"],
            ["events.id"],
            name=op.f("fk_event_changes_event_id_events"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_event_changes")),
    )
    with op.batch_alter_table("event_changes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_event_changes_event_id"), ["event_id"], unique=False)
    with op.batch_alter_table("challenge_entries", schema=None) as batch_op:
        batch_op.add_column(sa.Column("number", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("cohort", sa.Integer(), nullable=True))
        batch_op.create_index(
            "ix_challenge_entries_cohort",
            ["challenge_id", "cohort", "player_id"],
            unique=False,
            postgresql_where=sa.text("cohort IS NOT NULL"),
            sqlite_where=sa.text("cohort IS NOT NULL"),
        )


def downgrade() -> None:
    # The rounds and boards of editions have no event to belong to any more.
    op.execute("DELETE FROM challenges WHERE kind IN ('round', 'edition')")
    with op.batch_alter_table("challenge_entries", schema=None) as batch_op:
        batch_op.drop_index("ix_challenge_entries_cohort")
        batch_op.drop_column("cohort")
        batch_op.drop_column("number")
    with op.batch_alter_table("event_changes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_event_changes_event_id"))
    op.drop_table("event_changes")
    with op.batch_alter_table("event_editions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_event_editions_event_id"))
    op.drop_table("event_editions")
    with op.batch_alter_table("events", schema=None) as batch_op:
        batch_op.drop_index("ix_events_starts_at")
    op.drop_table("events")
