"""Who may open a game: the dependencies that hand a route its game, loaded and checked.

A route on a game never sees the caller's secret: it declares ``GameForRead``,
``GameRowForRead`` (or, for a move, ``GameToMoveDep``) and receives the game once the credential in
``Authorization: Bearer`` was shown to open it (401 without one, 404 for no such game, 403
for a credential that does not open it). The credential is the game's own token or, for a
player's game, the player's key (``app.players.service``).

- ``GameForRead``: rehydrated in a reading session whose transaction ends as soon as the
  game is loaded, so that what the route does next (a response, a solver search) holds no
  transaction, no lock and no pooled connection. On PostgreSQL its one statement commits
  alone: one round trip, not three (BEGIN READ ONLY, the row, COMMIT).
- ``load_for_move``: rehydrated in the request's writing session (on SQLite, inside its
  transaction, under its write lock, which the move's writes then join; on PostgreSQL by
  a statement that commits alone, as the move's one write does: no BEGIN, no COMMIT),
  for the move routes' one dependency (``app.games.endpoints.game_to_move``).
- ``GameRowForRead``: the row alone, for routes that read more of it (the move history).

An id is checked against the shape of the ids the server makes before any query: one
that cannot exist is a 404 without reaching the database (PostgreSQL refuses some bytes
of text outright, a NUL for one, which would otherwise be an error rather than a miss).

The load is I/O: each dependency hands it to ``in_hop``, which does it in the endpoint's
trip through the threadpool (a sync endpoint of a ``OneHopRoute`` router: a move is one
trip, load, move and commit), or else in a trip of its own.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path, Request
from sqlalchemy.orm import Session

from app.games.models import Game
from app.games.service import GameService, LoadedGame
from app.kit.auth import BearerDep, OptionalBearerDep, secret_matches
from app.kit.database import statements_commit_alone
from app.kit.deps import ReadSessionDep, in_hop, release
from app.kit.errors import ForbiddenProblem, NotFoundProblem, UnauthorizedProblem
from app.kit.ids import MAX_ID_LENGTH, is_id
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


def game_service(session: Session, request: Request) -> GameService:
    return GameService(session, request.app.state.settings, clock=request.app.state.clock)


def _checked_row(service: GameService, game_id: str, credential: str) -> Game:
    row = service.get(game_id) if is_id(game_id) else None
    if row is None:
        raise NotFoundProblem(f"no game {game_id[:MAX_ID_LENGTH]!r}")
    if is_player_key(credential):
        player = PlayerService(service.session).authenticate(credential)
        if player is None or row.player_id != player.id:
            raise ForbiddenProblem("the player key does not open this game")
    elif not secret_matches(credential, row.token_hash):
        raise ForbiddenProblem("the token does not open this game")
    return row


async def game_row_for_read(
    game_id: GameIdPath, credential: BearerDep, session: ReadSessionDep, request: Request
) -> Game:
    service = game_service(session, request)
    return await in_hop(request, lambda: _checked_row(service, game_id, credential))


async def game_for_read(
    game_id: GameIdPath, credential: BearerDep, session: ReadSessionDep, request: Request
) -> LoadedGame:
    service = game_service(session, request)

    def load() -> LoadedGame:
        # Its one statement needs no transaction (PostgreSQL: no BEGIN, no COMMIT).
        statements_commit_alone(session)
        game = service.load(_checked_row(service, game_id, credential))
        release(session)
        return game

    return await in_hop(request, load)


def load_for_move(service: GameService, game_id: str, credential: str) -> LoadedGame:
    """A move's game, in ``service``'s writing session (I/O: in the endpoint's trip; the
    dependency of the move routes, ``app.games.endpoints.game_to_move``, hands it there)."""
    statements_commit_alone(service.session)
    return service.load(_checked_row(service, game_id, credential))


async def optional_player(
    credential: OptionalBearerDep, session: ReadSessionDep, request: Request
) -> Player | None:
    """For create_game: the player whose key the request carries, or None without a
    credential (a credential that is no working player key is refused). An anonymous
    game, the usual one, costs no I/O for this."""
    if credential is None:
        return None

    def resolve() -> Player:
        player = PlayerService(session).resolve(credential)
        release(session)
        return player

    return await in_hop(request, resolve)


GameForRead = Annotated[LoadedGame, Depends(game_for_read)]
GameRowForRead = Annotated[Game, Depends(game_row_for_read)]
OptionalPlayer = Annotated[Player | None, Depends(optional_player)]
