"""Configuration: every setting from the environment, a bad one refused at start with a
one-line message (never a traceback), and every setting in the configuration page's
table (docs/ops/configuration.md), with its default."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.ops.check import main
from app.settings import Settings, get_settings, load_settings
from tests.fixtures.servers import ROOT
from tests.ops.servers import entrypoint_env, run_entrypoint

BAD_VALUES = [
    ("PORT", "abc"),
    ("PORT", "70000"),
    ("HOST", ""),
    ("WORKERS", "0"),
    ("LOG_LEVEL", "loud"),
    ("LOG_FORMAT", "xml"),
    ("MAX_BODY_BYTES", "12"),
    ("HINT_BUDGET_MS", "-5"),
    ("DB_POOL_SIZE", "many"),
    ("DB_STATEMENT_TIMEOUT_MS", "1"),
    ("DB_TIMEOUT_S", "0"),
    ("MIGRATE_ON_START", "maybe"),
    ("SHUTDOWN_TIMEOUT_S", "0"),
    ("MAX_HEADER_BYTES", "100"),
    ("KEEP_ALIVE_TIMEOUT_S", "-1"),
    ("BODY_TIMEOUT_S", "0"),
    ("MAX_CONNECTIONS", "none"),
    ("PROMETHEUS_MULTIPROC_DIR", "/nonexistent/metrics"),
    ("DATABASE_URL", "mysql://root:hunter2@db/tripeaks"),
    ("DOCS_ENABLED", "perhaps"),
    ("METRICS_TOKEN", "hunter2"),  # too short; a secret, never echoed
    ("METRICS_TOKEN", "hunter2 hunter2 hunter2"),  # no spaces in a bearer token
]


@pytest.mark.parametrize(("name", "value"), BAD_VALUES)
def test_a_bad_value_is_named_in_one_line(
    name: str, value: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(name, value)
    assert main([]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"invalid configuration: {name}: "), err
    assert "\n" not in err and "Traceback" not in err
    assert "hunter2" not in err  # a database URL's password is never echoed


@pytest.mark.parametrize(
    ("env", "name"),
    [
        ({"SOLVER_BUDGET_MS": "60000"}, "SOLVER_BUDGET_MS"),  # twice the default 30 s
        ({"SOLVER_BUDGET_MS": "30000"}, "SOLVER_BUDGET_MS"),  # as long is not shorter
        ({"SHUTDOWN_TIMEOUT_S": "5", "HINT_BUDGET_MS": "5000"}, "HINT_BUDGET_MS"),
        ({"ANALYSIS_BUDGET_MS": "45000"}, "ANALYSIS_BUDGET_MS"),
        ({"DIFFICULTY_BUDGET_MS": "30000"}, "DIFFICULTY_BUDGET_MS"),
        ({"DB_TIMEOUT_S": "30"}, "DB_TIMEOUT_S"),
        ({"SHUTDOWN_TIMEOUT_S": "20", "DB_TIMEOUT_S": "25"}, "DB_TIMEOUT_S"),
        ({"BODY_TIMEOUT_S": "30"}, "BODY_TIMEOUT_S"),
    ],
)
def test_a_budget_not_shorter_than_the_shutdown_timeout_is_refused(
    env: dict[str, str],
    name: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A request may work (or wait for its body) for its whole budget: were that as long
    as the shutdown timeout, a stopping server would cut it off (it kills a worker still
    busy then)."""
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert main([]) == 2
    line = capsys.readouterr().err.strip()
    assert line.startswith(f"invalid configuration: {name}: must be shorter than "), line
    assert "SHUTDOWN_TIMEOUT_S" in line and "\n" not in line


def test_budgets_shorter_than_the_shutdown_timeout_are_accepted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name, value in {
        "SHUTDOWN_TIMEOUT_S": "5",
        "HINT_BUDGET_MS": "4999",
        "SOLVER_BUDGET_MS": "4999",
        "ANALYSIS_BUDGET_MS": "4999",
        "DIFFICULTY_BUDGET_MS": "4999",
        "DB_TIMEOUT_S": "4",
        "BODY_TIMEOUT_S": "4",
    }.items():
        monkeypatch.setenv(name, value)
    s = load_settings()
    assert (s.shutdown_timeout_s, s.hint_budget_ms, s.solver_budget_ms) == (5, 4999, 4999)
    assert s.analysis_budget_ms == s.difficulty_budget_ms == 4999
    assert s.db_timeout_s == s.body_timeout_s == 4


def test_good_values_are_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    env = {
        "DATABASE_URL": "postgres://u@db:5432/tripeaks",
        "HOST": "0.0.0.0",
        "PORT": "9000",
        "WORKERS": "4",
        "CORS_ORIGINS": "https://a.example, https://b.example",
        "LOG_LEVEL": "WARNING",
        "LOG_FORMAT": "Text",
        "MAX_BODY_BYTES": "2048",
        "HINT_BUDGET_MS": "500",
        "DB_POOL_SIZE": "7",
        "DB_STATEMENT_TIMEOUT_MS": "2000",
        "DB_TIMEOUT_S": "10",
        "MIGRATE_ON_START": "yes",
        "SHUTDOWN_TIMEOUT_S": "12",
        "FORWARDED_ALLOW_IPS": "10.0.0.1",
        "MAX_HEADER_BYTES": "8192",
        "KEEP_ALIVE_TIMEOUT_S": "65",
        "BODY_TIMEOUT_S": "8",
        "MAX_CONNECTIONS": "200",
    }
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    s = load_settings()
    assert s.database_url == "postgresql+psycopg://u@db:5432/tripeaks"
    assert (s.host, s.port, s.workers) == ("0.0.0.0", 9000, 4)
    assert s.cors_origins == ["https://a.example", "https://b.example"]
    assert (s.log_level, s.log_format) == ("warning", "text")
    assert (s.max_body_bytes, s.hint_budget_ms, s.db_pool_size) == (2048, 500, 7)
    assert (s.db_statement_timeout_ms, s.db_timeout_s) == (2000, 10)
    assert s.migrate_on_start is True
    assert s.shutdown_timeout_s == 12
    assert s.forwarded_allow_ips == "10.0.0.1"
    assert s.max_header_bytes == 8192
    assert (s.keep_alive_timeout_s, s.body_timeout_s, s.max_connections) == (65, 8, 200)


def test_the_app_refuses_to_start_on_a_bad_value(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.main import create_app

    monkeypatch.setenv("PORT", "eighty")
    get_settings.cache_clear()
    try:
        with pytest.raises(SystemExit, match=r"^invalid configuration: PORT: "):
            create_app()
    finally:
        get_settings.cache_clear()


def test_the_entrypoint_refuses_a_bad_value_before_migrating(tmp_path: Path) -> None:
    db = tmp_path / "never.sqlite3"
    env = entrypoint_env(
        f"sqlite:///{db}", tmp_path, PORT="abc", LOG_FORMAT="xml", MIGRATE_ON_START="true"
    )
    result = run_entrypoint(env, tmp_path / "x.log")
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("invalid configuration: PORT: ")
    assert "LOG_FORMAT: " in lines[0]
    assert not db.exists()  # nothing was migrated


def test_every_setting_is_in_the_configuration_table_with_its_default() -> None:
    page = (ROOT / "docs" / "ops" / "configuration.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `([A-Z][A-Z0-9_]*)` \| ([^|]*) \|", page, flags=re.MULTILINE))
    fields = {name.upper(): field for name, field in Settings.model_fields.items()}
    assert set(fields) <= set(rows), f"undocumented: {sorted(set(fields) - set(rows))}"
    unknown = sorted(set(rows) - set(fields))
    assert not unknown, f"documented, but no setting: {unknown}"
    for name, field in fields.items():
        # The default column says the default first: `value`, or "none" when it is unset.
        said = rows[name].strip()
        default = field.default if field.default_factory is None else field.default_factory()  # type: ignore[call-arg]
        if default in (None, "", [], ()):
            assert said.startswith("none"), f"{name}: the table says {said!r}, the default is unset"
            continue
        shown = str(default).lower() if isinstance(default, bool) else str(default)
        first = re.match(r"`([^`]*)`", said)
        assert first is not None and first[1] == shown, (
            f"{name}: the table says {said!r}, the default is {shown!r}"
        )
