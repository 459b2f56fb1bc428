"""The request's sessions end at its boundary on every kind of route: committed when the
route returned, rolled back when it raised or was refused, and their connections given
back to the pool either way (``app.kit.deps``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

import pytest
from fastapi import APIRouter, Depends, FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Engine, event, text

from app.kit.database import make_engine, make_read_sessionmaker, make_sessionmaker
from app.kit.deps import OneHopRoute, ReadSessionDep, SessionDep
from app.settings import Settings


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(Settings(database_url=database_url))
    yield engine
    engine.dispose()


@pytest.fixture
def ends(engine: Engine) -> list[str]:
    """How each transaction on ``engine`` ended, in order."""
    seen: list[str] = []
    event.listen(engine, "commit", lambda _c: seen.append("commit"))
    event.listen(engine, "rollback", lambda _c: seen.append("rollback"))
    return seen


def opened(session: ReadSessionDep) -> int:
    """A sync dependency that reads before the endpoint runs (its own trip)."""
    return int(session.execute(text("SELECT 1")).scalar_one())


@pytest.fixture
def client(engine: Engine) -> TestClient:
    hop = APIRouter(prefix="/hop", route_class=OneHopRoute)
    plain = APIRouter(prefix="/plain")
    for router in (hop, plain):

        @router.post("/write")
        def write(session: SessionDep) -> int:
            return int(session.execute(text("SELECT 1")).scalar_one())

        @router.post("/write-async")
        async def write_async(session: SessionDep) -> bool:
            session.execute(text("SELECT 1"))  # blocking, acceptable in a test
            return session.in_transaction()

        @router.post("/fail")
        def fail(session: SessionDep) -> int:
            session.execute(text("SELECT 1"))
            raise RuntimeError("the route failed after its read")

        @router.get("/refused")
        def refused(one: Annotated[int, Depends(opened)], required: int) -> int:
            return one + required

    app = FastAPI()
    app.state.sessions = make_sessionmaker(engine)
    app.state.read_sessions = make_read_sessionmaker(engine)
    app.include_router(hop)
    app.include_router(plain)
    return TestClient(app, raise_server_exceptions=False)


ROUTES = ("/hop", "/plain")


@pytest.mark.parametrize("prefix", ROUTES)
@pytest.mark.parametrize("path", ["/write", "/write-async"])
def test_a_route_that_returned_commits(
    client: TestClient, engine: Engine, ends: list[str], prefix: str, path: str
) -> None:
    assert client.post(prefix + path).status_code == 200
    assert "commit" in ends
    assert engine.pool.checkedout() == 0  # type: ignore[attr-defined]


@pytest.mark.parametrize("prefix", ROUTES)
def test_a_route_that_raised_rolls_back(
    client: TestClient, engine: Engine, ends: list[str], prefix: str
) -> None:
    assert client.post(prefix + "/fail").status_code == 500
    assert ends and "commit" not in ends
    assert engine.pool.checkedout() == 0  # type: ignore[attr-defined]


@pytest.mark.parametrize("prefix", ROUTES)
def test_a_request_refused_after_a_dependency_read_gives_its_connection_back(
    client: TestClient, engine: Engine, ends: list[str], prefix: str
) -> None:
    assert client.get(prefix + "/refused").status_code == 422  # no ?required=
    assert ends and "commit" not in ends
    assert engine.pool.checkedout() == 0  # type: ignore[attr-defined]
    assert client.get(prefix + "/refused", params={"required": 2}).json() == 3
