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
- ``move_on_loop``: PostgreSQL's plain move (the game's token, no Idempotency-Key, a
  move that does not end the game), read and written on the event loop, each statement
  committing as it returns; None hands everything else to ``load_for_move``.
- ``load_for_move``: rehydrated in a writing session (on SQLite, inside its transaction,
  under its write lock, which the move's writes then join; on PostgreSQL by a statement
  that commits alone, as the move's one write does: no BEGIN, no COMMIT), in the move's
  one trip through the threadpool (``app.games.endpoints.GameToMove``).
- ``GameRowForRead``: the row alone, for routes that read more of it (the move history).

An id is checked against the shape of the ids the server makes before any query: one
that cannot exist is a 404 without reaching the database (PostgreSQL refuses some bytes
of text outright, a NUL for one, which would otherwise be an error rather than a miss).

The load is I/O: each dependency of a read hands it to ``in_hop``, which does it in the
endpoint's trip through the threadpool (a sync endpoint of a ``OneHopRoute`` router), or
else in a trip of its own; a move's session makes one trip, load, move and commit.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any

import anyio
from fastapi import Depends, Path, Request
from sqlalchemy.orm import Session

from app.games.models import Game
from app.games.repository import append_move_on_loop, game_on_loop
from app.games.service import (
    GameService,
    LoadedGame,
    MoveResult,
    moved,
    plan_move,
    raced,
    rehydrate,
)
from app.kit import headers as entity_tags
from app.kit.auth import BearerDep, OptionalBearerDep, secret_matches
from app.kit.database import LoopStatements, statements_commit_alone
from app.kit.deps import ReadSessionDep, in_hop, release
from app.kit.errors import ForbiddenProblem, NotFoundProblem, ProblemError, UnauthorizedProblem
from app.kit.ids import MAX_ID_LENGTH, is_id
from app.ops import metrics
from app.players.service import Player, PlayerService, is_player_key
from app.settings import Settings

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


async def move_on_loop(
    statements: LoopStatements,
    game_id: str,
    credential: str,
    move_text: str,
    *,
    if_match: str | None,
    expect: dict[str, Any] | None,
    settings: Settings,
    clock: Callable[[], datetime],
) -> MoveResult | None:
    """PostgreSQL, on the event loop: the game read, opened by its token, and the move
    planned and written, each statement committing as it returns, as in a writing
    session's trip (``load_for_move``, ``GameService.move``) but without the trip. None
    for anything but a plain move that lands, which the session's way then does whole,
    with the same answer or problem as ever: a key, a game that is not there, a
    credential that does not open it, a stale If-Match, a move refused, and the move
    that ends a game (its listeners write with it, in one transaction). Once the move
    is sent its outcome is the answer: the race lost (409), the game changed outside the
    server (409) or deleted meanwhile (404), or the database's error (503)."""
    if not is_id(game_id) or is_player_key(credential):
        return None
    async with statements.connection() as connection:
        row = await game_on_loop(statements, connection, game_id)
        if row is None or not secret_matches(credential, row.token_hash):
            return None
        if if_match is not None and not entity_tags.if_match(if_match, row.version):
            return None  # a 412, counted where it is raised
        try:
            planned = plan_move(
                rehydrate(row),
                move_text,
                if_match=None,
                expect=expect,
                limit=settings.max_moves_per_game,
            )
        except ProblemError:
            return None
        if planned.new.is_over:
            return None
        write = planned.write(clock())
        # Sent, it lands or not whatever becomes of the request: its answer is awaited
        # (within the statement's bound), so that the connection goes back clean.
        with anyio.CancelScope(shield=True):
            appended = await append_move_on_loop(statements, connection, write)
    if not appended:
        raise raced()
    metrics.moved_on_loop()
    return moved(planned)


def load_for_move(service: GameService, game_id: str, credential: str) -> LoadedGame:
    """A move's game, in ``service``'s writing session (I/O: in the move's trip through
    the threadpool, ``app.games.endpoints.GameToMove.move``)."""
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
