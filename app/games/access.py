"""Who may open a game: the dependencies that hand a route its game, loaded and checked.

A route on a game never sees the caller's secret: it declares ``GameForRead``,
``GameRowForRead`` or, for a move, ``GameToMoveDep``, and receives the game once the
credential in ``Authorization: Bearer`` was shown to open it (401 without one, 404 for no
such game, 403 for a credential that does not open it). The credential is the game's own
token or, for a player's game, the player's key (``app.players.service``). That check is
``opened_row``, the one place it is written.

- ``GameForRead``: rehydrated from a reading session (one statement, committed as it
  returns), so that what the route does next (a response, a solver search) holds no
  transaction, no lock and no connection.
- ``GameToMoveDep``: rehydrated in the request's writing session, whose transaction the
  move's writes then join (on SQLite under its write lock, taken by that first read), with
  the games service that moves it.
- ``GameRowForRead``: the row alone, for routes that read more of it (the move history).

An id is checked against the shape of the ids the server makes before any query: one
that cannot exist is a 404 without reaching the database (PostgreSQL refuses some bytes
of text outright, a NUL for one, which would otherwise be an error rather than a miss).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Path, Request
from sqlalchemy.ext.asyncio import AsyncSession

from app.games.models import Game
from app.games.service import GameService, LoadedGame, rehydrate
from app.kit.auth import BearerDep, OptionalBearerDep, secret_matches
from app.kit.deps import ReadSessionDep, SessionDep
from app.kit.errors import ForbiddenProblem, NotFoundProblem, UnauthorizedProblem
from app.kit.events import ListenersDep
from app.kit.ids import MAX_ID_LENGTH, is_id
from app.kit.ratelimit import verified
from app.players.service import Player, PlayerService, is_player_key

# What opening a game may answer instead of the game.
ACCESS_PROBLEMS = (UnauthorizedProblem, ForbiddenProblem, NotFoundProblem)

GameIdPath = Annotated[
    str,
    Path(
        min_length=1,
        max_length=64,
        description="The game's id, as create_game answered it",
        examples=["hV3kq9X0b1LrT2mYp8dQzw"],
    ),
]


def game_service(session: AsyncSession, request: Request) -> GameService:
    """The games service on ``session``, with the app's settings and clock."""
    state = request.app.state
    return GameService(session, state.settings, clock=state.clock)


async def opened_row(service: GameService, game_id: str, credential: str) -> Game:
    """The game's row, once ``credential`` was shown to open it."""
    row = await service.get(game_id) if is_id(game_id) else None
    if row is None:
        raise NotFoundProblem(f"no game {game_id[:MAX_ID_LENGTH]!r}")
    if is_player_key(credential):
        player = await PlayerService(service.session).authenticate(credential)
        if player is None or row.player_id != player.id:
            raise ForbiddenProblem("the player key does not open this game")
    elif not secret_matches(credential, row.token_hash):
        raise ForbiddenProblem("the token does not open this game")
    return row


async def game_row_for_read(
    game_id: GameIdPath, credential: BearerDep, session: ReadSessionDep, request: Request
) -> Game:
    row = await opened_row(game_service(session, request), game_id, credential)
    verified(request)
    return row


async def game_for_read(game: Annotated[Game, Depends(game_row_for_read)]) -> LoadedGame:
    return rehydrate(game)


@dataclass(frozen=True, slots=True)
class GameToMove:
    """What a move route works with: its game, opened in the request's writing session,
    and the service that moves it (whose listeners follow the game's end)."""

    service: GameService
    game: LoadedGame


async def game_to_move(
    game_id: GameIdPath,
    credential: BearerDep,
    session: SessionDep,
    listeners: ListenersDep,
    request: Request,
) -> GameToMove:
    service = game_service(session, request)
    service.on_end = listeners.game_ended
    row = await opened_row(service, game_id, credential)
    verified(request)
    return GameToMove(service, rehydrate(row))


async def optional_player(
    credential: OptionalBearerDep, session: ReadSessionDep, request: Request
) -> Player | None:
    """For create_game: the player whose key the request carries, or None without a
    credential (a credential that is no working player key is refused). An anonymous
    game, the usual one, costs no query for this."""
    if credential is None:
        return None
    player = await PlayerService(session).resolve(credential)
    verified(request)
    return player


GameForRead = Annotated[LoadedGame, Depends(game_for_read)]
GameRowForRead = Annotated[Game, Depends(game_row_for_read)]
GameToMoveDep = Annotated[GameToMove, Depends(game_to_move)]
OptionalPlayer = Annotated[Player | None, Depends(optional_player)]
