"""Migrations: up, down to base and up again on both databases; models agree with them."""

from __future__ import annotations

from datetime import UTC, date, datetime

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from fastapi.testclient import TestClient
from sqlalchemy import JSON, DateTime, column, create_engine, insert, inspect, table, text

from app.engine import Rules, format_deal, get_layout, numbered_deal
from app.engine.equivalence import game_key
from app.main import create_app
from app.models import Base
from app.ops.migrations import downgrade, head_revision, upgrade
from app.settings import Settings


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


# numbered_deal(0)'s key under tripeaks' default rules as the code of revisions 0006 to
# 0011 computed it (the whole deal keyed), pinned: going back must write what it reads.
WHOLE_DEAL_KEY_OF_DEAL_0 = "08e2a39a63a176a5befd6c0258b4b91b6a4d4f87e8c22441fb38b0e36151a365"


def test_0012_keys_the_open_challenges_tableaux_and_goes_back_to_whole_deals(
    empty_database_url: str,
) -> None:
    """An open challenge's key becomes its tableau's, and going back to 0011 gives it the
    whole deal's key that 0011's copy check looks up; a closed one's is left alone."""
    url = empty_database_url
    upgrade(url, "0011")
    engine = create_engine(url)
    deal = numbered_deal(0)
    rules = Rules.for_layout("tripeaks")
    challenges = table(
        "challenges",
        *(column(name) for name in ("id", "kind", "layout", "deal", "salt", "commitment")),
        *(column(name) for name in ("entries", "attempts", "winnable_only", "deal_key")),
        column("rules", JSON()),
        *(column(name, DateTime(timezone=True)) for name in ("created_at", "opens_at")),
        column("closes_at", DateTime(timezone=True)),
    )
    row = {
        "kind": "set",
        "layout": "tripeaks",
        "rules": rules.to_dict(),
        "deal": format_deal(deal),
        "salt": "s",
        "commitment": "c",
        "entries": 0,
        "attempts": 1,
        "winnable_only": True,
        "deal_key": WHOLE_DEAL_KEY_OF_DEAL_0,
        "created_at": datetime(2020, 1, 1, tzinfo=UTC),
        "opens_at": datetime(2020, 1, 1, tzinfo=UTC),
    }
    with engine.begin() as conn:
        conn.execute(
            insert(challenges),
            [
                {**row, "id": "open", "closes_at": datetime(2099, 1, 1, tzinfo=UTC)},
                {**row, "id": "closed", "closes_at": datetime(2020, 1, 2, tzinfo=UTC)},
            ],
        )

    def keys() -> dict[str, str]:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT id, deal_key FROM challenges"))
            return {row.id: row.deal_key for row in rows}

    upgrade(url, "0012")
    tableau_key = game_key(deal, rules, get_layout("tripeaks"))
    assert tableau_key != WHOLE_DEAL_KEY_OF_DEAL_0
    assert keys() == {"open": tableau_key, "closed": WHOLE_DEAL_KEY_OF_DEAL_0}
    downgrade(url, "0011")
    assert keys() == {"open": WHOLE_DEAL_KEY_OF_DEAL_0, "closed": WHOLE_DEAL_KEY_OF_DEAL_0}
    engine.dispose()


def test_0014_empties_the_window_of_a_challenge_closed_before_it_opened(
    empty_database_url: str,
) -> None:
    """A round of a cancelled event that had not opened was closed with its opening still
    ahead; revision 0014 moves its opening to its closing. A window that had opened stays."""
    url = empty_database_url
    upgrade(url, "0013")
    engine = create_engine(url)
    opened, cancelled, ahead = (
        datetime(2042, 1, 3, tzinfo=UTC),
        datetime(2042, 1, 3, 2, tzinfo=UTC),
        datetime(2042, 1, 4, tzinfo=UTC),
    )
    with engine.begin() as conn:
        for challenge_id, opens_at in (("ev.0.1", opened), ("ev.0.2", ahead)):
            conn.execute(
                text(
                    "INSERT INTO challenges (id, kind, layout, rules, deal, salt, commitment, "
                    "entries, created_at, opens_at, closes_at, attempts, winnable_only) VALUES "
                    "(:id, 'round', 'tripeaks', '{}', '', 's', 'c', 0, :at, :opens, :closes, "
                    "1, true)"
                ),
                {"id": challenge_id, "at": opened, "opens": opens_at, "closes": cancelled},
            )
    upgrade(url)
    with engine.connect() as conn:
        rows = conn.execute(
            text("SELECT id, opens_at, closes_at FROM challenges ORDER BY id")
        ).all()
    engine.dispose()

    def utc(moment: datetime | str) -> datetime:
        read = moment if isinstance(moment, datetime) else datetime.fromisoformat(moment)
        return read.replace(tzinfo=UTC) if read.tzinfo is None else read.astimezone(UTC)

    windows = {challenge_id: [utc(o), utc(c)] for challenge_id, o, c in rows}
    assert windows == {"ev.0.1": [opened, cancelled], "ev.0.2": [cancelled, cancelled]}


def test_0015_goes_back_without_the_duels_challenges(
    empty_database_url: str, settings: Settings
) -> None:
    """Going back from 0015 deletes the duels' challenges (a kind the code before it
    cannot read) with their entries; their games stay, ordinary and revealed."""
    url = empty_database_url
    upgrade(url)
    app = create_app(settings.model_copy(update={"database_url": url}))
    with TestClient(app) as client:
        made = client.post("/v1/players", json={"name": "Host"})
        auth = {"Authorization": f"Bearer {made.json()['key']}"}
        duel = client.post("/v1/duels", json={}, headers=auth)
        assert duel.status_code == 201, duel.text
    game_id = duel.json()["game_id"]
    downgrade(url, "0014")
    engine = create_engine(url)
    with engine.connect() as conn:
        kinds = conn.execute(text("SELECT kind FROM challenges")).scalars().all()
        entries = conn.execute(text("SELECT count(*) FROM challenge_entries")).scalar()
        game = conn.execute(
            text("SELECT challenge_id, reveal_after FROM games WHERE id = :g"), {"g": game_id}
        ).one()
    engine.dispose()
    assert "duel" not in kinds and entries == 0
    assert tuple(game) == (None, None)
    upgrade(url)
