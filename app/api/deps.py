"""Dependencies shared by the routers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Header, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session

from app.errors import UnauthorizedProblem
from app.services.games import GameService

_bearer = HTTPBearer(auto_error=False, description="The player token returned by create_game")


def get_session(request: Request) -> Iterator[Session]:
    session: Session = request.app.state.sessions()
    try:
        yield session
    finally:
        session.close()


SessionDep = Annotated[Session, Depends(get_session)]


def get_game_service(session: SessionDep) -> GameService:
    return GameService(session)


GameServiceDep = Annotated[GameService, Depends(get_game_service)]


def get_token(
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
