"""deploy/compose.yaml read as a file (tests/image/test_compose.py starts it): the servers'
environment is made of the server's settings, with valid values; PostgreSQL's password
is required, not defaulted; only the proxy publishes a port."""

from __future__ import annotations

import ipaddress
import re
from typing import Any

import pytest
import yaml

from app.events.service import read_events_file
from app.settings import Settings
from tests.fixtures.servers import ROOT

COMPOSE = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
SERVICES: dict[str, dict[str, Any]] = COMPOSE["services"]
SERVERS = ("migrate", "server-1", "server-2")


def interpolate(value: str, **env: str) -> str:
    """Compose's ${NAME}, ${NAME:-default} and ${NAME:?error}, for the test's values."""

    def one(m: re.Match[str]) -> str:
        name, op, arg = m.group(1), m.group(2), m.group(3)
        if name in env:
            return env[name]
        assert op == ":-", f"{name} is required"
        return arg

    return re.sub(r"\$\{(\w+)(?:(:[-?])([^}]*))?\}", one, value)


@pytest.mark.parametrize("service", SERVERS)
def test_the_servers_environment_is_valid_settings(
    service: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {
        k: interpolate(str(v), POSTGRES_PASSWORD="pw")
        for k, v in SERVICES[service]["environment"].items()
    }
    assert not {k for k in env if k.lower() not in Settings.model_fields}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    settings = Settings()
    assert settings.database_url == "postgresql+psycopg://tripeaks:pw@db:5432/tripeaks"
    assert settings.rate_limit_storage_url == "redis://redis:6379/0"


def test_the_database_password_has_no_default() -> None:
    db = SERVICES["db"]["environment"]["POSTGRES_PASSWORD"]
    with pytest.raises(AssertionError, match="POSTGRES_PASSWORD is required"):
        interpolate(db)
    url = SERVICES["server-1"]["environment"]["DATABASE_URL"]
    with pytest.raises(AssertionError, match="POSTGRES_PASSWORD is required"):
        interpolate(url)


def test_only_the_proxy_publishes_a_port() -> None:
    published = {name for name, s in SERVICES.items() if s.get("ports")}
    assert published == {"proxy"}


def test_the_servers_wait_for_the_migration_and_the_proxy_for_the_servers() -> None:
    for server in ("server-1", "server-2"):
        assert SERVICES[server]["depends_on"]["migrate"] == {
            "condition": "service_completed_successfully"
        }
        assert SERVICES[server]["depends_on"]["db"] == {"condition": "service_healthy"}
        assert SERVICES["proxy"]["depends_on"][server] == {"condition": "service_healthy"}
    assert SERVICES["migrate"]["command"] == ["python", "-m", "app.ops.migrate"]


def test_the_servers_believe_the_proxy_alone() -> None:
    """X-Forwarded-For is taken from the proxy's fixed address in the stack's own subnet,
    never from any peer ("*")."""
    [subnet] = COMPOSE["networks"]["default"]["ipam"]["config"]
    proxy = SERVICES["proxy"]["networks"]["default"]["ipv4_address"]
    assert ipaddress.ip_address(proxy) in ipaddress.ip_network(subnet["subnet"])
    for service in SERVERS:
        assert SERVICES[service]["environment"]["FORWARDED_ALLOW_IPS"] == proxy


def test_the_servers_run_the_example_events() -> None:
    """A fresh stack runs an event out of the box: the servers read examples/events.toml
    (mounted read-only where EVENTS_FILE says), which holds events the API would accept."""
    for service in ("server-1", "server-2"):
        where = SERVICES[service]["environment"]["EVENTS_FILE"]
        mounts = [m.split(":") for m in SERVICES[service]["volumes"]]
        assert [
            (ROOT / "deploy" / source).resolve() for source, target, _ in mounts if target == where
        ] == [ROOT / "examples" / "events.toml"]
    declared = read_events_file(ROOT / "examples" / "events.toml")
    assert {event.schedule.value for _, event in declared} >= {"daily", "weekly"}
