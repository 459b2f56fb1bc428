"""docker/entrypoint.sh run as the container would run it, outside Docker: on a fresh
SQLite file (one worker) and a fresh PostgreSQL database (two workers) it migrates,
serves /readyz 200, passes the image's HEALTHCHECK, adds /metrics up across workers and
writes JSON log lines that hold no token and no card. Without MIGRATE_ON_START it serves
but is not ready."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.engine.cards import RANKS
from app.ops.migrations import head_revision
from tests.fixtures.postgres import new_postgres_database
from tests.ops.servers import HEALTHCHECK, Server, entrypoint_server, metric_value

pytestmark = pytest.mark.slow

CARD_CODES = {f"{r}{s}" for r in RANKS for s in "cdhs"} | {"JK"}
ID_FIELDS = ("request_id", "game_id", "ts")


def healthcheck(server: Server) -> subprocess.CompletedProcess[str]:
    port = server.base.rsplit(":", 1)[1]
    return subprocess.run(
        [sys.executable, str(HEALTHCHECK)],
        env={"PORT": port, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """The entrypoint on a fresh database with MIGRATE_ON_START=true."""
    tmp = tmp_path_factory.mktemp(f"entrypoint-{request.param}")
    env = {"MIGRATE_ON_START": "true", "LOG_LEVEL": "debug", "LOG_FORMAT": "json"}
    if request.param == "sqlite":
        with entrypoint_server(f"sqlite:///{tmp / 'fresh.sqlite3'}", tmp, **env) as server:
            yield server
    else:
        with (
            new_postgres_database() as url,
            entrypoint_server(url, tmp, WORKERS="2", **env) as server,
        ):
            yield server
            server.stop()  # before the database is dropped


def test_it_migrates_and_is_ready(served: Server) -> None:
    r = httpx.get(f"{served.base}/readyz", timeout=10)
    assert r.status_code == 200, r.text
    assert r.json()["revision"] == head_revision()
    check = healthcheck(served)
    assert check.returncode == 0, check.stderr
    log = served.log()
    assert "applying the migrations" in log and "migrations at head" in log


def test_metrics_add_up_across_workers(served: Server) -> None:
    route = "/v1/layouts"

    def count() -> float:
        # A new connection each time: with two workers any of them may answer.
        text = httpx.get(f"{served.base}/metrics", timeout=10).text
        return metric_value(text, "tripeaks_http_requests_total", route=route, status="200")

    before = count()
    for _ in range(24):
        assert httpx.get(f"{served.base}{route}", timeout=10).status_code == 200
    seen = {count() for _ in range(8)}
    assert seen == {before + 24}, seen


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def test_logs_are_json_lines_without_tokens_or_cards(served: Server) -> None:
    c = httpx.Client(base_url=served.base, timeout=30)
    sent_ids: list[str] = []

    def call(method: str, url: str, **kw: Any) -> httpx.Response:
        rid = f"t-{len(sent_ids)}"
        sent_ids.append(rid)
        headers = {**kw.pop("headers", {}), "X-Request-ID": rid}
        return c.request(method, url, headers=headers, **kw)

    created = call("POST", "/v1/games", json={}).json()
    token, url = created["token"], f"/v1/games/{created['id']}"
    auth = {"Authorization": f"Bearer {token}"}
    wrong = "wrong-" + token[::-1]
    call("GET", url, headers=auth)
    call("GET", url, headers={"Authorization": f"Bearer {wrong}"})
    call("POST", f"{url}/moves", json={"move": "play 0"}, headers=auth)  # illegal: covered
    for _ in range(6):
        moves = call("GET", f"{url}/legal-moves", headers=auth).json()["legal_moves"]
        move = next(m for m in moves if m["kind"] != "concede")
        call("POST", f"{url}/moves", json=move, headers={**auth, "Idempotency-Key": move["move"]})
    call("POST", f"{url}/draw", headers={**auth, "If-Match": '"v0"'})  # stale
    call("GET", f"{url}/score", headers=auth)
    call("GET", f"{url}/moves", headers=auth)
    ended = call("POST", f"{url}/concede", headers=auth).json()
    deal, salt = ended["reveal"]["deal"], ended["reveal"]["salt"]
    c.close()

    deadline = time.monotonic() + 10
    while True:  # the workers write each line as it is made; give the last one a moment
        records = [json.loads(x) for x in served.log().splitlines() if x.strip()]
        requests = {r.get("request_id"): r for r in records if r["logger"] == "app.request"}
        if set(sent_ids) <= set(requests) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert set(sent_ids) <= set(requests), sorted(set(sent_ids) - set(requests))
    for rid in sent_ids:
        line = requests[rid]
        assert {"ts", "level", "route", "status", "duration_ms", "method"} <= set(line)
        if line["route"] != "/v1/games":
            assert line["game_id"] == created["id"]
    statuses = [requests[rid]["status"] for rid in sent_ids]
    assert 403 in statuses and 400 in statuses and 412 in statuses

    text = served.log()
    assert token not in text and wrong not in text and salt not in text
    assert " ".join(deal) not in text
    for record in records:
        for key, value in record.items():
            if key in ID_FIELDS:
                continue
            for s in _strings(value):
                words = set(re.split(r"[^0-9A-Za-z]+", s))
                assert not words & CARD_CODES, (key, s)


def test_without_migrate_on_start_it_serves_but_is_not_ready(tmp_path: Path) -> None:
    db = tmp_path / "fresh.sqlite3"
    with entrypoint_server(f"sqlite:///{db}", tmp_path, MIGRATE_ON_START="false") as server:
        r = httpx.get(f"{server.base}/readyz", timeout=10)
        assert r.status_code == 503
        assert r.json()["reason"].startswith("migrations at none")
        check = healthcheck(server)
        assert check.returncode == 1
        assert "migrations at none" in check.stderr
        assert server.stop() == 0
