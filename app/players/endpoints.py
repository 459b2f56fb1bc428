"""The player endpoints (under /v1/players): accounts by key and their statistics. A
player's games are the games domain's (``list_my_games``, in ``app.games.endpoints``),
listed between ``router`` and ``profile_router`` (``app.main``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request, Response, status
from pydantic import TypeAdapter

from app.kit.clock import ClockDep
from app.kit.deps import ReadSessionDep, SessionDep
from app.kit.errors import NotFoundProblem, ValidationProblem
from app.kit.events import ListenersDep
from app.kit.headers import LOCATION, NO_STORE
from app.kit.ids import is_id
from app.kit.paging import (
    PAGE_HEADERS,
    CursorParam,
    RowId,
    UtcTime,
    decode_cursor,
    encode_cursor,
    link_next,
)
from app.kit.problems import problem_responses
from app.kit.ratelimit import RATE_LIMIT_HEADERS, Budget, RateLimitedProblem, issued, rate_limit
from app.players.errors import FollowingLimitProblem, FollowSelfProblem
from app.players.schemas import (
    FollowingRead,
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


async def get_players(
    session: SessionDep, listeners: ListenersDep, request: Request
) -> PlayerService:
    hours = request.app.state.settings.challenge_account_min_hours
    return PlayerService(session, listeners, account_min_hours=hours)


async def get_read_players(session: ReadSessionDep, request: Request) -> PlayerService:
    hours = request.app.state.settings.challenge_account_min_hours
    return PlayerService(session, account_min_hours=hours)


PlayersDep = Annotated[PlayerService, Depends(get_players)]
ReadPlayersDep = Annotated[PlayerService, Depends(get_read_players)]


def player_out(profile: Profile) -> dict[str, Any]:
    p = profile.player
    return {
        "id": p.id,
        "name": p.name,
        "kind": p.kind,
        "created_at": p.created_at,
        "provisional_until": profile.provisional_until,
        "challenges_from": profile.provisional_until,
        "stats": profile.stats,
        "daily": profile.daily,
        "badges": profile.badges,
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
    body: PlayerCreate, players: PlayersDep, clock: ClockDep, request: Request, response: Response
) -> PlayerCreated:
    """Creates a player and returns its key once; the server keeps only a hash. Send the key as
    `Authorization: Bearer` to create games that belong to the player and to read its account.
    """
    player, key = await players.create(body)
    issued(request, key)
    response.headers["Location"] = f"/v1/players/{player.id}"
    response.headers["Cache-Control"] = "no-store"
    profile = await players.profile(player, clock())
    return PlayerCreated.model_validate({**player_out(profile), "key": key})


@router.get(
    "/me",
    operation_id="get_me",
    dependencies=[rate_limit(Budget.READ, needs_key=True)],
    response_model=PlayerRead,
    responses={200: OK_HEADERS, **problem_responses(*ME_PROBLEMS)},
    summary="The caller's account and statistics",
)
async def get_me(player: PlayerForRead, players: ReadPlayersDep, clock: ClockDep) -> PlayerRead:
    """The account of the player whose key is sent: its name, kind, statistics, daily
    streaks and badges."""
    return PlayerRead.model_validate(player_out(await players.profile(player, clock())))


@router.patch(
    "/me",
    operation_id="update_me",
    dependencies=[rate_limit(Budget.MOVE, needs_key=True)],
    response_model=PlayerRead,
    responses={200: OK_HEADERS, **problem_responses(*ME_PROBLEMS)},
    summary="Rename the caller",
)
async def update_me(
    body: PlayerUpdate, player: PlayerForWrite, players: PlayersDep, clock: ClockDep
) -> PlayerRead:
    """Changes the caller's display name."""
    await players.rename(player, body.name)
    return PlayerRead.model_validate(player_out(await players.profile(player, clock())))


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


async def followed_of_path(
    player_id: Annotated[
        str,
        Path(
            max_length=64,
            description="The id of the player to follow (a leaderboard entry's player_id)",
            examples=["Jq3rT7uVw0xYz1aBc2dEfg"],
        ),
    ],
) -> str:
    """The id, or a 404 before anything else is looked at for one that cannot be an id."""
    if not is_id(player_id):
        raise NotFoundProblem(f"no player {player_id[:32]!r}")
    return player_id


PlayerIdPath = Annotated[str, Depends(followed_of_path)]
FOLLOW_PROBLEMS = (*ME_PROBLEMS, NotFoundProblem, FollowSelfProblem, FollowingLimitProblem)
# The following list's cursor: when the last one was followed, and their id.
FOLLOWING_CURSOR = TypeAdapter(tuple[UtcTime, RowId])


@router.put(
    "/me/following/{player_id}",
    operation_id="follow_player",
    status_code=status.HTTP_204_NO_CONTENT,
    dependencies=[rate_limit(Budget.MOVE, needs_key=True)],
    responses={204: OK_HEADERS, **problem_responses(*FOLLOW_PROBLEMS)},
    summary="Follow a player: their results show on the caller's boards among=following",
    description=(
        "No approval: following shows only what is public already. Following again changes "
        "nothing (204). A player cannot follow themselves (409 follow-self) nor more "
        "players than the server's bound (409 following-limit, 500 by default); an id "
        "that names no player (or a deleted one): 404."
    ),
)
async def follow_player(
    player_id: PlayerIdPath,
    player: PlayerForWrite,
    players: PlayersDep,
    request: Request,
    clock: ClockDep,
) -> Response:
    limit = request.app.state.settings.following_max
    await players.follow(player, player_id, limit, clock())
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.delete(
    "/me/following/{player_id}",
    operation_id="unfollow_player",
    status_code=status.HTTP_204_NO_CONTENT,
    dependencies=[rate_limit(Budget.MOVE, needs_key=True)],
    responses={204: OK_HEADERS, **problem_responses(*ME_PROBLEMS, NotFoundProblem)},
    summary="Stop following a player",
    description="204 also when the caller did not follow them: the answer is the same.",
)
async def unfollow_player(
    player_id: PlayerIdPath, player: PlayerForWrite, players: PlayersDep
) -> Response:
    await players.unfollow(player, player_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get(
    "/me/following",
    operation_id="list_following",
    dependencies=[rate_limit(Budget.READ, needs_key=True)],
    response_model=FollowingRead,
    responses={200: PAGE_HEADERS, **problem_responses(*ME_PROBLEMS)},
    summary="The players the caller follows, the latest followed first",
    description=(
        "With their names and kinds and when the caller followed them; `count` is how many "
        "in all. Pages follow `next` (or the Link header)."
    ),
)
async def list_following(
    player: PlayerForRead,
    players: ReadPlayersDep,
    request: Request,
    response: Response,
    limit: Annotated[
        int, Query(ge=1, le=100, description="Most players on a page, 1-100 (default 50)")
    ] = 50,
    cursor: CursorParam = None,
) -> FollowingRead:
    after = decode_cursor(cursor, FOLLOWING_CURSOR) if cursor is not None else None
    page = await players.following(player, limit, after)
    next_cursor = (
        encode_cursor([page.next[0].isoformat(), page.next[1]]) if page.next is not None else None
    )
    link_next(request, response, next_cursor)
    return FollowingRead(following=page.followed, count=page.count, next=next_cursor)


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
    clock: ClockDep,
) -> PlayerRead:
    """Any player's public profile by id: name, kind, since when, statistics, daily
    streaks and badges; never its key."""
    player = await players.get(player_id)
    if player is None:
        raise NotFoundProblem(f"no player {player_id[:32]!r}")
    return PlayerRead.model_validate(player_out(await players.profile(player, clock())))
