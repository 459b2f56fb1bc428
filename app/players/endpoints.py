"""The player endpoints (under /v1/players): accounts by key and their statistics. A
player's games are the games domain's (``list_my_games``, in ``app.games.endpoints``),
listed between ``router`` and ``profile_router`` (``app.main``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request, Response, status

from app.kit.deps import ReadSessionDep, SessionDep
from app.kit.errors import NotFoundProblem, ValidationProblem
from app.kit.events import ListenersDep
from app.kit.headers import LOCATION, NO_STORE
from app.kit.problems import problem_responses
from app.kit.ratelimit import RATE_LIMIT_HEADERS, Budget, RateLimitedProblem, issued, rate_limit
from app.players.schemas import (
    PlayerCreate,
    PlayerCreated,
    PlayerKeyRead,
    PlayerRead,
    PlayerUpdate,
)
from app.players.service import (
    PLAYER_PROBLEMS,
    PlayerForRead,
    PlayerForWrite,
    PlayerService,
    Profile,
)

router = APIRouter(prefix="/v1/players", tags=["players"])
profile_router = APIRouter(prefix="/v1/players", tags=["players"])

ME_PROBLEMS = (*PLAYER_PROBLEMS, ValidationProblem, RateLimitedProblem)
OK_HEADERS = {"headers": RATE_LIMIT_HEADERS}


async def get_players(session: SessionDep, listeners: ListenersDep) -> PlayerService:
    return PlayerService(session, listeners)


async def get_read_players(session: ReadSessionDep) -> PlayerService:
    return PlayerService(session)


PlayersDep = Annotated[PlayerService, Depends(get_players)]
ReadPlayersDep = Annotated[PlayerService, Depends(get_read_players)]


def player_out(profile: Profile) -> dict[str, Any]:
    p = profile.player
    return {
        "id": p.id,
        "name": p.name,
        "kind": p.kind,
        "created_at": p.created_at,
        "stats": profile.stats,
    }


@router.post(
    "",
    operation_id="create_player",
    status_code=status.HTTP_201_CREATED,
    # Whatever the request carries: a made-up bearer per request would be a new client.
    dependencies=[rate_limit(Budget.CREATE, by_address=True)],
    response_model=PlayerCreated,
    responses={
        201: {"headers": {**RATE_LIMIT_HEADERS, **LOCATION, **NO_STORE}},
        **problem_responses(ValidationProblem, RateLimitedProblem),
    },
    summary="Create a player: an account without e-mail or password, known by its key",
)
async def create_player(
    body: PlayerCreate, players: PlayersDep, request: Request, response: Response
) -> PlayerCreated:
    """Creates a player and returns its key once; the server keeps only a hash. Send the key as
    `Authorization: Bearer` to create games that belong to the player and to read its account.
    """
    player, key = await players.create(body)
    issued(request, key)
    response.headers["Location"] = f"/v1/players/{player.id}"
    response.headers["Cache-Control"] = "no-store"
    return PlayerCreated.model_validate({**player_out(await players.profile(player)), "key": key})


@router.get(
    "/me",
    operation_id="get_me",
    dependencies=[rate_limit(Budget.READ, needs_key=True)],
    response_model=PlayerRead,
    responses={200: OK_HEADERS, **problem_responses(*ME_PROBLEMS)},
    summary="The caller's account and statistics",
)
async def get_me(player: PlayerForRead, players: ReadPlayersDep) -> PlayerRead:
    """The account of the player whose key is sent: its name, kind and statistics."""
    return PlayerRead.model_validate(player_out(await players.profile(player)))


@router.patch(
    "/me",
    operation_id="update_me",
    dependencies=[rate_limit(Budget.MOVE, needs_key=True)],
    response_model=PlayerRead,
    responses={200: OK_HEADERS, **problem_responses(*ME_PROBLEMS)},
    summary="Rename the caller",
)
async def update_me(body: PlayerUpdate, player: PlayerForWrite, players: PlayersDep) -> PlayerRead:
    """Changes the caller's display name."""
    await players.rename(player, body.name)
    return PlayerRead.model_validate(player_out(await players.profile(player)))


@router.post(
    "/me/key",
    operation_id="rotate_key",
    dependencies=[rate_limit(Budget.CREATE, needs_key=True)],
    response_model=PlayerKeyRead,
    responses={
        200: {"headers": {**RATE_LIMIT_HEADERS, **NO_STORE}},
        **problem_responses(*ME_PROBLEMS),
    },
    summary="A new player key; the old one stops working at once",
)
async def rotate_key(
    player: PlayerForWrite, players: PlayersDep, request: Request, response: Response
) -> PlayerKeyRead:
    """Issues a new player key and returns it once; the old key stops working at once."""
    response.headers["Cache-Control"] = "no-store"
    key = await players.rotate_key(player)
    issued(request, key)
    return PlayerKeyRead(key=key)


@router.delete(
    "/me",
    operation_id="delete_me",
    status_code=status.HTTP_204_NO_CONTENT,
    dependencies=[rate_limit(Budget.MOVE, needs_key=True)],
    responses={204: OK_HEADERS, **problem_responses(*ME_PROBLEMS)},
    summary="Delete the caller's account",
    description=(
        "The name, key and statistics are erased and the player's games are unlinked from "
        "the account: the games themselves, and their places on past leaderboards, stay "
        "(as a deleted player's)."
    ),
)
async def delete_me(player: PlayerForWrite, players: PlayersDep) -> Response:
    await players.delete(player)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@profile_router.get(
    "/{player_id}",
    operation_id="get_player",
    dependencies=[rate_limit(Budget.READ)],
    response_model=PlayerRead,
    responses={
        200: OK_HEADERS,
        **problem_responses(NotFoundProblem, ValidationProblem, RateLimitedProblem),
    },
    summary="A player's public profile: name, kind, since when, statistics",
)
async def get_player(
    player_id: Annotated[
        str,
        Path(
            max_length=64,
            description="The player's id (a game's player_id, a leaderboard entry's)",
            examples=["p8Yc1vQmS0aLk3XwZ2rNbg"],
        ),
    ],
    players: ReadPlayersDep,
) -> PlayerRead:
    """Any player's public profile by id: name, kind, since when, and statistics; never its key."""
    player = await players.get(player_id)
    if player is None:
        raise NotFoundProblem(f"no player {player_id[:32]!r}")
    return PlayerRead.model_validate(player_out(await players.profile(player)))
