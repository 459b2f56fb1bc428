"""The player endpoints (under /v1/players): accounts by key, their games and statistics."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request, Response, status

from app.engine import GameStatus
from app.games.service import GameService
from app.kit.deps import ReadSessionDep, SessionDep
from app.kit.errors import NotFoundProblem, ValidationProblem
from app.kit.headers import LOCATION, NO_STORE
from app.kit.paging import PAGE_HEADERS, CursorParam, decode_cursor, encode_cursor, link_next
from app.kit.problems import problem_responses
from app.kit.ratelimit import RATE_LIMIT_HEADERS, Budget, RateLimitedProblem, rate_limit
from app.kit.schemas import LayoutName
from app.players.access import PlayerForRead, PlayerForWrite
from app.players.schemas import (
    GameSummaryList,
    GameSummaryRead,
    PlayerCreate,
    PlayerCreated,
    PlayerKeyRead,
    PlayerRead,
    PlayerUpdate,
)
from app.players.service import PLAYER_PROBLEMS, PlayerService, Profile

router = APIRouter(prefix="/v1/players", tags=["players"])

ME_PROBLEMS = (*PLAYER_PROBLEMS, ValidationProblem, RateLimitedProblem)
OK_HEADERS = {"headers": RATE_LIMIT_HEADERS}


async def get_players(session: SessionDep) -> PlayerService:
    return PlayerService(session)


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
    dependencies=[rate_limit(Budget.CREATE)],
    response_model=PlayerCreated,
    responses={
        201: {"headers": {**RATE_LIMIT_HEADERS, **LOCATION, **NO_STORE}},
        **problem_responses(ValidationProblem, RateLimitedProblem),
    },
    summary="Create a player: an account without e-mail or password, known by its key",
)
def create_player(body: PlayerCreate, players: PlayersDep, response: Response) -> PlayerCreated:
    """Creates a player and returns its key once; the server keeps only a hash. Send the key as
    `Authorization: Bearer` to create games that belong to the player and to read its account.
    """
    player, key = players.create(body)
    response.headers["Location"] = f"/v1/players/{player.id}"
    response.headers["Cache-Control"] = "no-store"
    return PlayerCreated.model_validate({**player_out(players.profile(player)), "key": key})


@router.get(
    "/me",
    operation_id="get_me",
    dependencies=[rate_limit(Budget.READ)],
    response_model=PlayerRead,
    responses={200: OK_HEADERS, **problem_responses(*ME_PROBLEMS)},
    summary="The caller's account and statistics",
)
def get_me(player: PlayerForRead, players: ReadPlayersDep) -> PlayerRead:
    """The account of the player whose key is sent: its name, kind and statistics."""
    return PlayerRead.model_validate(player_out(players.profile(player)))


@router.patch(
    "/me",
    operation_id="update_me",
    dependencies=[rate_limit(Budget.MOVE)],
    response_model=PlayerRead,
    responses={200: OK_HEADERS, **problem_responses(*ME_PROBLEMS)},
    summary="Rename the caller",
)
def update_me(body: PlayerUpdate, player: PlayerForWrite, players: PlayersDep) -> PlayerRead:
    """Changes the caller's display name."""
    players.rename(player, body.name)
    return PlayerRead.model_validate(player_out(players.profile(player)))


@router.post(
    "/me/key",
    operation_id="rotate_key",
    dependencies=[rate_limit(Budget.CREATE)],
    response_model=PlayerKeyRead,
    responses={
        200: {"headers": {**RATE_LIMIT_HEADERS, **NO_STORE}},
        **problem_responses(*ME_PROBLEMS),
    },
    summary="A new player key; the old one stops working at once",
)
def rotate_key(player: PlayerForWrite, players: PlayersDep, response: Response) -> PlayerKeyRead:
    """Issues a new player key and returns it once; the old key stops working at once."""
    response.headers["Cache-Control"] = "no-store"
    return PlayerKeyRead(key=players.rotate_key(player))


@router.delete(
    "/me",
    operation_id="delete_me",
    status_code=status.HTTP_204_NO_CONTENT,
    dependencies=[rate_limit(Budget.MOVE)],
    responses={204: OK_HEADERS, **problem_responses(*ME_PROBLEMS)},
    summary="Delete the caller's account",
    description=(
        "The name, key and statistics are erased and the player's games are unlinked from "
        "the account: the games themselves, and their places on past leaderboards, stay "
        "(as a deleted player's)."
    ),
)
def delete_me(
    player: PlayerForWrite, players: PlayersDep, session: SessionDep, request: Request
) -> Response:
    players.delete(player)
    GameService(session, request.app.state.settings).unlink_player(player.id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


def _after(cursor: str | None) -> tuple[datetime, str] | None:
    """The place a list_my_games cursor names: a game's creation time and id."""
    if cursor is None:
        return None
    created, game_id = decode_cursor(cursor, 2)
    try:
        return datetime.fromisoformat(str(created)), str(game_id)
    except ValueError:
        raise ValidationProblem(
            "cursor: not a cursor this server gave", loc=("query", "cursor")
        ) from None


@router.get(
    "/me/games",
    operation_id="list_my_games",
    dependencies=[rate_limit(Budget.READ)],
    response_model=GameSummaryList,
    responses={200: PAGE_HEADERS, **problem_responses(*ME_PROBLEMS)},
    summary="The caller's games, newest first, a page at a time",
)
def list_my_games(
    player: PlayerForRead,
    session: ReadSessionDep,
    request: Request,
    response: Response,
    status_: Annotated[
        GameStatus | None,
        Query(alias="status", description="Only games with this status. Default: every game"),
    ] = None,
    layout: Annotated[
        LayoutName | None,
        Query(description="Only games on this layout. Default: every layout", examples=["golf"]),
    ] = None,
    limit: Annotated[
        int, Query(ge=1, le=100, description="Most games on a page, 1-100 (default 20)")
    ] = 20,
    cursor: CursorParam = None,
) -> GameSummaryList:
    """The caller's games, newest first; filter by `status` or `layout`, and follow `next` (or the
    `Link` header) for the next page.
    """
    rows = GameService(session, request.app.state.settings).list_for_player(
        player.id, limit + 1, _after(cursor), status_, layout
    )
    games = [
        GameSummaryRead(
            id=g.id,
            layout=g.layout,
            scoring=g.rules["scoring"],
            status=g.status,
            score=g.score,
            cards_left=g.cards_left,
            version=g.version,
            challenge_id=g.challenge_id,
            created_at=g.created_at,
            updated_at=g.updated_at,
            ended_at=g.ended_at,
        )
        for g in rows[:limit]
    ]
    last = games[-1] if len(rows) > limit else None
    next_cursor = encode_cursor([last.created_at.isoformat(), last.id]) if last else None
    link_next(request, response, next_cursor)
    return GameSummaryList(games=games, next=next_cursor)


@router.get(
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
def get_player(
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
    player = players.get(player_id)
    if player is None:
        raise NotFoundProblem(f"no player {player_id[:32]!r}")
    return PlayerRead.model_validate(player_out(players.profile(player)))
