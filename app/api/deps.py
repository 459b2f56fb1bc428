"""Dependencies shared by the routers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Header, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from app.errors import UnauthorizedProblem
from app.services.games import GameService

_bearer = HTTPBearer(auto_error=False, description="The player token returned by create_game")


async def get_session(request: Request) -> AsyncIterator[Session]:
    # Async, to spare two hops through the threadpool per request: making a session does
    # no I/O, nor does closing one with no transaction open (a move has committed). Only
    # ending an open transaction (a read's) waits on the database: that goes to a thread.
    session: Session = request.app.state.sessions()
    try:
        yield session
    finally:
        if session.in_transaction():
            await run_in_threadpool(session.close)
        else:
            session.close()


SessionDep = Annotated[Session, Depends(get_session)]


# No I/O below either, so async: a sync dependency costs a hop through the threadpool.
async def get_game_service(session: SessionDep, request: Request) -> GameService:
    return GameService(session, request.app.state.settings)


GameServiceDep = Annotated[GameService, Depends(get_game_service)]


async def get_token(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str:
    if credentials is None or not credentials.credentials:
        raise UnauthorizedProblem("this call needs the game's token: Authorization: Bearer <token>")
    return credentials.credentials


TokenDep = Annotated[str, Depends(get_token)]
GameIdPath = Annotated[str, Path(min_length=1, max_length=64, description="The game's id")]
IfMatchHeader = Annotated[
    str | None,
    Header(max_length=200, description="An ETag of the game; a stale one gets 412"),
]
IdempotencyKeyHeader = Annotated[
    str | None,
    Header(
        min_length=1,
        max_length=128,
        description="Retrying with the same key returns the first answer; nothing is applied twice",
    ),
]
