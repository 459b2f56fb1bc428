"""Logs and request ids, in process: one JSON object a line with the request's id, route,
status, duration and game id; X-Request-ID taken or made and always returned; text for
humans; an unexpected error is a logged 500 problem, a lost database a 503."""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError

from app.kit.logs import JsonFormatter, TextFormatter, configure_logging, new_request_id
from app.main import create_app
from app.settings import Settings
from tests.fixtures.games import new_game_id
from tests.ops.servers import entrypoint_server

HEX32 = re.compile(r"[0-9a-f]{32}")


def request_lines(err: str) -> list[dict[str, Any]]:
    out = []
    for line in err.splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            if record["logger"] == "app.request":
                out.append(record)
    return out


def test_x_request_id_is_taken_when_plain_and_made_otherwise(client: TestClient) -> None:
    assert client.get("/healthz", headers={"X-Request-ID": "lb-7f3a.1:2_x"}).headers[
        "x-request-id"
    ] == ("lb-7f3a.1:2_x")
    for bad in ("two words", "x" * 129, "a\x1b[31mb", "a;b", ""):
        rid = client.get("/healthz", headers={"X-Request-ID": bad}).headers["x-request-id"]
        assert HEX32.fullmatch(rid), rid
    ids = {client.get("/healthz").headers["x-request-id"] for _ in range(5)}
    assert len(ids) == 5 and all(HEX32.fullmatch(i) for i in ids)


def test_every_answer_carries_the_request_id(client: TestClient) -> None:
    answers = [
        client.get("/v1/games/nope", headers={"X-Request-ID": "r1"}),  # 401
        client.get("/v1/games/nope", headers={"X-Request-ID": "r2", "Authorization": "Bearer x"}),
        client.post("/v1/games", json={"layout": 5}, headers={"X-Request-ID": "r3"}),  # 422
        client.post(
            "/v1/games",
            content=b"{" + b" " * 70000 + b"}",
            headers={"X-Request-ID": "r4", "Content-Type": "application/json"},
        ),  # 413, refused before any route
        client.get("/nowhere", headers={"X-Request-ID": "r5"}),
    ]
    assert [a.status_code for a in answers] == [401, 404, 422, 413, 404]
    assert [a.headers["x-request-id"] for a in answers] == ["r1", "r2", "r3", "r4", "r5"]


def test_one_json_line_a_request(client: TestClient, capsys: pytest.CaptureFixture[str]) -> None:
    # Logging as the served app set it up: an earlier test in this process may have made
    # an app (or run a command) that set another level.
    configure_logging("info", "json")
    capsys.readouterr()
    r = client.post("/v1/games", json={}, headers={"X-Request-ID": "create-1"})
    game = r.json()
    auth = {"Authorization": f"Bearer {game['token']}", "X-Request-ID": "draw-1"}
    assert client.post(f"/v1/games/{game['id']}/draw", headers=auth).status_code == 200
    lines = {line["request_id"]: line for line in request_lines(capsys.readouterr().err)}
    created, drawn = lines["create-1"], lines["draw-1"]
    assert created["level"] == "info" and created["message"] == "request"
    assert (created["method"], created["route"], created["status"]) == ("POST", "/v1/games", 201)
    assert created["game_id"] == game["id"]  # from the Location of the new game
    assert (drawn["route"], drawn["status"]) == ("/v1/games/{game_id}/draw", 200)
    assert drawn["game_id"] == game["id"]
    for line in (created, drawn):
        assert isinstance(line["duration_ms"], float) and line["duration_ms"] >= 0
        assert line["ts"].endswith("+00:00")


@pytest.fixture
def failing_app(settings: Settings) -> Iterator[TestClient]:
    app: FastAPI = create_app(settings)

    def boom() -> None:
        raise RuntimeError("something broke")

    def lost() -> None:
        raise psycopg.OperationalError("server closed the connection unexpectedly")

    def lost_wrapped() -> None:
        try:
            raise OperationalError("SELECT 1", {}, psycopg.OperationalError("gone"))
        except OperationalError as e:
            raise ValueError("while loading") from e

    app.add_api_route("/test/boom", boom)
    app.add_api_route("/test/lost", lost)
    app.add_api_route("/test/lost-wrapped", lost_wrapped)
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def test_an_unexpected_error_is_a_logged_500_problem_with_the_request_id(
    failing_app: TestClient, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    r = failing_app.get("/test/boom", headers={"X-Request-ID": "boom-1"})
    assert r.status_code == 500
    assert r.headers["content-type"] == "application/problem+json"
    assert r.headers["x-request-id"] == "boom-1"
    assert r.json()["type"] == "/problems/internal"
    err = capsys.readouterr().err
    records = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    mine = [rec for rec in records if rec.get("request_id") == "boom-1"]
    assert {"app.request", "app.problems"} <= {rec["logger"] for rec in mine}
    request = next(rec for rec in mine if rec["logger"] == "app.request")
    assert (request["status"], request["error"], request["level"]) == (
        500,
        "RuntimeError",
        "error",
    )
    problem = next(rec for rec in mine if rec["logger"] == "app.problems")
    assert problem["exc_type"] == "RuntimeError" and "something broke" in problem["exc"]


def test_a_lost_database_connection_is_a_503_however_it_is_raised(
    failing_app: TestClient,
) -> None:
    for path in ("/test/lost", "/test/lost-wrapped"):
        r = failing_app.get(path)
        assert r.status_code == 503, (path, r.text)
        assert r.headers["content-type"] == "application/problem+json"
        assert r.json()["type"] == "/problems/unavailable"
        assert r.headers["retry-after"] == "1"


def test_text_format_for_humans(settings: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        with TestClient(create_app(settings.model_copy(update={"log_format": "text"}))) as c:
            capsys.readouterr()
            c.get("/v1/layouts", headers={"X-Request-ID": "txt-1"})
            err = capsys.readouterr().err
    finally:
        configure_logging(settings.log_level, settings.log_format)
    line = next(x for x in err.splitlines() if "[txt-1]" in x)
    assert not line.startswith("{")
    assert " INFO    app.request [txt-1] request method=GET route=/v1/layouts status=200" in line


# A line that would pass for a record of its own, were a line break let through.
FORGED = "2026-01-01T00:00:00.000+00:00 ERROR   app.forged"
TEXT_LINE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00 [A-Z]+ ")


@pytest.mark.slow
def test_text_logs_escape_control_characters_so_no_line_can_be_forged(tmp_path: Path) -> None:
    """With LOG_FORMAT=text, a game id (a field) and a message carrying a line break, a
    carriage return or an escape sequence stay on their record's line, escaped."""
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    env = {"LOG_FORMAT": "text", "LOG_LEVEL": "info", "MIGRATE_ON_START": "true"}
    with entrypoint_server(url, tmp_path, **env) as server:
        with httpx.Client(base_url=server.base, timeout=30) as c:
            _, auth = new_game_id(c)
            forged_id = "x%0A" + FORGED.replace(" ", "%20") + "%0D%1B[2Jy"
            assert c.get(f"/v1/games/{forged_id}", headers=auth).status_code == 404
        assert server.stop() == 0
        log = server.log()
    lines = log.rstrip("\n").split("\n")
    for line in lines:  # each line a record of its own (or a traceback's, indented)
        assert TEXT_LINE.match(line) or line.startswith(" "), line
        assert not line.startswith(FORGED[:23]), line
        assert "\x1b" not in line and "\r" not in line, line
    mine = [line for line in lines if "forged" in line]
    assert len(mine) == 1, mine  # the request's one line, the id escaped in it
    assert "route=/v1/games/{game_id} status=404" in mine[0]
    assert f"game_id=x\\n{FORGED}\\r\\x1b[2Jy" in mine[0]


def test_text_format_escapes_the_message_and_every_field() -> None:
    record = logging.LogRecord("app.x", logging.INFO, __file__, 1, "a\nb %s", ("c\rd",), None)
    record.fields = {"game_id": "e\x1bf\u2028g", "n\nk": 1}
    line = TextFormatter().format(record)
    assert "\n" not in line and "\r" not in line and "\x1b" not in line and "\u2028" not in line
    assert line.endswith(" app.x a\\nb c\\rd game_id=e\\x1bf\\u2028g n\\nk=1"), line
    try:
        raise ValueError("boom\n" + FORGED)
    except ValueError:
        record.exc_info = sys.exc_info()
    lines = TextFormatter().format(record).splitlines()
    assert TEXT_LINE.match(lines[0]) and all(line.startswith("    ") for line in lines[1:])


def test_json_formatter_keeps_fields_and_exceptions() -> None:
    record = logging.LogRecord("app.x", logging.WARNING, __file__, 1, "hello %s", ("you",), None)
    record.fields = {"game_id": "g1", "status": 409}
    out = json.loads(JsonFormatter().format(record))
    assert out["message"] == "hello you"
    assert (out["level"], out["logger"], out["game_id"], out["status"]) == (
        "warning",
        "app.x",
        "g1",
        409,
    )
    assert new_request_id("abc") == "abc"
    assert HEX32.fullmatch(new_request_id("a b"))
