"""Dependencies shared by the routers: the request's database session and its bearer token."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from app.kit.errors import UnauthorizedProblem

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


async def get_token(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str:
    if credentials is None or not credentials.credentials:
        raise UnauthorizedProblem("this call needs the game's token: Authorization: Bearer <token>")
    return credentials.credentials


TokenDep = Annotated[str, Depends(get_token)]
