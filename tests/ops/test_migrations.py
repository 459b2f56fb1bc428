"""Migrations: up, down to base and up again on both databases; models agree with them."""

from __future__ import annotations

from datetime import UTC, date, datetime

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text

from app.models import Base
from app.ops.migrations import downgrade, head_revision, upgrade


def tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_upgrade_downgrade_upgrade(empty_database_url: str) -> None:
    url = empty_database_url
    upgrade(url)
    assert {"games", "moves", "alembic_version"} <= tables(url)
    downgrade(url, "base")
    assert tables(url) <= {"alembic_version"}
    upgrade(url)
    engine = create_engine(url)
    with engine.connect() as conn:
        assert MigrationContext.configure(conn).get_current_revision() == head_revision()
    engine.dispose()


def test_models_and_migrations_agree(empty_database_url: str) -> None:
    upgrade(empty_database_url)
    engine = create_engine(empty_database_url)
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        diff = compare_metadata(context, Base.metadata)
    engine.dispose()
    assert diff == [], f"models and migrations disagree: {diff}"


def test_0002_fills_each_games_line_from_its_moves(empty_database_url: str) -> None:
    """Games stored before revision 0002 get their line: their moves, undone ones out."""
    url = empty_database_url
    upgrade(url, "0001")
    engine = create_engine(url)
    now = datetime.now(UTC)
    logs = {
        "g-undo": ["play 18", "draw", "undo", "play 19", "draw", "draw", "undo"],
        "g-plain": ["draw", "play 3"],
        "g-empty": [],
    }
    with engine.begin() as conn:
        for game_id, log in logs.items():
            conn.execute(
                text(
                    "INSERT INTO games (id, token_hash, layout, rules, deal, deal_chosen, salt, "
                    "commitment, status, version, score, cards_left, created_at, updated_at) "
                    "VALUES (:id, 'h', 'tripeaks', '{}', '', true, 's', 'c', 'in_progress', "
                    ":version, 0, 28, :now, :now)"
                ),
                {"id": game_id, "version": len(log), "now": now},
            )
            for seq, move in enumerate(log, start=1):
                conn.execute(
                    text(
                        "INSERT INTO moves (game_id, seq, move, created_at) "
                        "VALUES (:id, :seq, :move, :now)"
                    ),
                    {"id": game_id, "seq": seq, "move": move, "now": now},
                )
    upgrade(url)
    with engine.connect() as conn:
        lines = {row.id: row.line for row in conn.execute(text("SELECT id, line FROM games"))}
    engine.dispose()
    assert lines == {"g-undo": "play 18,play 19,draw", "g-plain": "draw,play 3", "g-empty": ""}


def test_0004_gives_each_daily_its_window_and_goes_back_without_set_challenges(
    empty_database_url: str,
) -> None:
    """Challenges stored before revision 0004 are dailies: their window is their UTC day.
    Going back to 0003, a challenge a player set (it has no day) goes, with its entries."""
    url = empty_database_url
    upgrade(url, "0003")
    engine = create_engine(url)
    now = datetime.now(UTC)
    challenge = (
        "INSERT INTO challenges (id, {day}layout, rules, deal, salt, commitment, entries, "
        "created_at{extra}) VALUES (:id, {day_value}'golf', '{{}}', '', 's', 'c', 0, :now{values})"
    )
    with engine.begin() as conn:
        conn.execute(
            text(challenge.format(day="day, ", day_value=":day, ", extra="", values="")),
            {"id": "2026-11-30.golf", "day": date(2026, 11, 30), "now": now},
        )
    upgrade(url)
    with engine.begin() as conn:
        row = conn.execute(
            text("SELECT kind, opens_at, closes_at, attempts, winnable_only FROM challenges")
        ).one()
        kind, opens, closes, attempts, winnable = row
        conn.execute(
            text(
                challenge.format(
                    day="",
                    day_value="",
                    extra=", kind, opens_at, closes_at, attempts, winnable_only",
                    values=", 'set', :now, :now, 2, false",
                )
            ),
            {"id": "AAAAAAAAAAAAAAAAAAAAAA", "now": now},
        )
    assert kind == "daily" and attempts == 1 and winnable in (True, 1)
    aware = [m if isinstance(m, datetime) else datetime.fromisoformat(m) for m in (opens, closes)]
    assert [m.replace(tzinfo=UTC) if m.tzinfo is None else m for m in aware] == [
        datetime(2026, 11, 30, tzinfo=UTC),
        datetime(2026, 12, 1, tzinfo=UTC),
    ]
    downgrade(url, "0003")
    with engine.connect() as conn:
        left = [r.id for r in conn.execute(text("SELECT id FROM challenges"))]
    engine.dispose()
    assert left == ["2026-11-30.golf"]
