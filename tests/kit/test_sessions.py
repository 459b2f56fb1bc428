"""The request's sessions end at its boundary (``app.kit.deps``): committed when the route
returned, before the answer is sent; rolled back when it raised or was refused; their
connections given back to the pool either way."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Annotated, Any

import pytest
from fastapi import Depends, FastAPI, Request, Response
from fastapi.testclient import TestClient
from sqlalchemy import event, text

from app.kit.database import Database, make_database
from app.kit.deps import ReadSessionDep, SessionDep
from app.settings import Settings


@pytest.fixture
def database(database_url: str) -> Database:
    return make_database(Settings(database_url=database_url))


@pytest.fixture
def ends(database: Database) -> list[str]:
    """How each transaction of a writing session ended, in order."""
    seen: list[str] = []
    engine = database.writer.sync_engine
    event.listen(engine, "commit", lambda _c: seen.append("commit"))
    event.listen(engine, "rollback", lambda _c: seen.append("rollback"))
    return seen


async def opened(session: ReadSessionDep) -> int:
    """A dependency that reads before the endpoint runs."""
    return int((await session.execute(text("SELECT 1"))).scalar_one())


@pytest.fixture
def client(database: Database, ends: list[str]) -> Iterator[TestClient]:
    app = FastAPI()
    app.state.database = database

    @app.middleware("http")
    async def seen_at_answer(request: Request, call_next: Callable[..., Any]) -> Response:
        response: Response = await call_next(request)  # its head is about to be sent
        response.headers["X-Ended"] = ",".join(ends)
        return response

    @app.post("/write")
    async def write(session: SessionDep) -> list[str]:
        await session.execute(text("SELECT 1"))
        return list(ends)  # what had ended when the route returned

    @app.post("/fail")
    async def fail(session: SessionDep) -> int:
        await session.execute(text("SELECT 1"))
        raise RuntimeError("the route failed after its read")

    @app.get("/refused")
    async def refused(one: Annotated[int, Depends(opened)], required: int) -> int:
        return one + required

    with TestClient(app, raise_server_exceptions=False) as client:
        yield client
        client.portal.call(database.dispose)  # type: ignore[union-attr]


def checked_out(database: Database) -> int:
    return int(database.writer.pool.checkedout() + database.reader.pool.checkedout())  # type: ignore[attr-defined]


def test_a_route_that_returned_commits_before_its_answer(
    client: TestClient, database: Database, ends: list[str]
) -> None:
    r = client.post("/write")
    assert r.status_code == 200
    assert r.json() == []  # nothing had ended while the route ran...
    assert r.headers["X-Ended"] == "commit"  # ...and it had committed before its answer
    assert ends == ["commit"]
    assert checked_out(database) == 0


def test_a_route_that_raised_rolls_back(
    client: TestClient, database: Database, ends: list[str]
) -> None:
    r = client.post("/fail")
    assert r.status_code == 500
    assert ends == ["rollback"]
    assert checked_out(database) == 0


def test_a_request_refused_after_a_dependency_read_gives_its_connection_back(
    client: TestClient, database: Database, ends: list[str]
) -> None:
    assert client.get("/refused").status_code == 422  # no ?required=
    assert "commit" not in ends
    assert checked_out(database) == 0
    assert client.get("/refused", params={"required": 2}).json() == 3
