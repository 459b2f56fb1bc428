"""The duel endpoints: asking for a ranked duel and reading it (under /v1/duels), a
player's duels (under /v1/players/me), ratings and their history (under /v1/players), and
a pool's rating board (under /v1/ratings)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Request, Response, status

from app.duels.errors import (
    DuelGameInProgressProblem,
    NoRatingProblem,
    TooManyWaitingDuelsProblem,
)
from app.duels.schemas import (
    DuelCreate,
    DuelCreated,
    DuelRead,
    MyDuelsRead,
    PlayerRatingsRead,
    RatingBoardRead,
    RatingHistoryRead,
)
from app.duels.service import DuelService, DuelUseCases
from app.games.service import game_created
from app.kit.auth import OptionalBearerDep
from app.kit.clock import ClockDep
from app.kit.deps import ReadSessionDep, SessionDep
from app.kit.errors import NotFoundProblem, ServiceUnavailableProblem, ValidationProblem
from app.kit.headers import LOCATION, NO_STORE
from app.kit.ids import is_id
from app.kit.models import PlayerKind
from app.kit.paging import PAGE_HEADERS, CursorParam, link_next
from app.kit.problems import problem_responses
from app.kit.ratelimit import RATE_LIMIT_HEADERS, Budget, RateLimitedProblem, issued, rate_limit
from app.kit.workload import SolverDep
from app.players.service import PLAYER_PROBLEMS, PlayerForRead, player_when_needed

router = APIRouter(prefix="/v1/duels", tags=["duels"])
player_duels_router = APIRouter(prefix="/v1/players", tags=["duels"])
ratings_router = APIRouter(prefix="/v1/ratings", tags=["duels"])

OK_HEADERS = {"headers": RATE_LIMIT_HEADERS}
PoolPath = Annotated[
    str,
    Path(
        max_length=64,
        description="A pool: a layout and a rules preset",
        examples=["tripeaks.standard"],
    ),
]
PlayerPath = Annotated[
    str,
    Path(
        max_length=64,
        description="The player's id (a duel's or a board entry's player_id)",
        examples=["p8Yc1vQmS0aLk3XwZ2rNbg"],
    ),
]


async def get_use_cases(writing: SessionDep, solver: SolverDep, request: Request) -> DuelUseCases:
    return DuelUseCases(DuelService(writing, request.app.state.settings), solver)


async def get_read_duels(session: ReadSessionDep, request: Request) -> DuelService:
    return DuelService(session, request.app.state.settings)


async def duel_of_path(
    duel_id: Annotated[
        str,
        Path(max_length=64, description="The duel's id", examples=["Qm3xT8vLk2YpN4rW7sZ1bA"]),
    ],
) -> str:
    """The duel's id, or a 404 before anything else is looked at (the caller's key
    included) for an id that can name no duel."""
    if not is_id(duel_id):
        raise NotFoundProblem(f"no duel {duel_id[:32]!r}")
    return duel_id


DuelOfPath = Annotated[str, Depends(duel_of_path)]
UseCasesDep = Annotated[DuelUseCases, Depends(get_use_cases)]
ReadDuelsDep = Annotated[DuelService, Depends(get_read_duels)]


@router.post(
    "",
    operation_id="request_duel",
    status_code=status.HTTP_201_CREATED,
    dependencies=[rate_limit(Budget.CREATE)],
    response_model=DuelCreated,
    responses={
        201: {"headers": {**RATE_LIMIT_HEADERS, **LOCATION, **NO_STORE}},
        **problem_responses(
            *PLAYER_PROBLEMS,
            DuelGameInProgressProblem,
            TooManyWaitingDuelsProblem,
            ValidationProblem,
            RateLimitedProblem,
            ServiceUnavailableProblem,
        ),
    },
    summary="Play a ranked duel: matched with a waiting player of a similar rating, or opened",
    description=(
        "Needs a player key. The server takes the waiting duel of the pool (layout and "
        "preset) whose host's rating is nearest the caller's, within a range that widens "
        "the longer it has waited (never the caller's own, never the opponent of either "
        "player's last duel; people and bots apart unless with_bots), and deals its deal "
        "to the caller; with none to take it opens one, and the caller plays first. Either "
        "way the answer holds the caller's game of the duel's deal, with its token: nobody "
        "waits for anybody. The deal is drawn by the server, proved winnable, of a "
        "difficulty that suits the host's rating, committed before the first move and "
        "revealed when the duel ends; until then its games give no hint or analysis. "
        "The better result wins (score, then fewer moves; the same is a draw); a player "
        "who has not finished within DUEL_PLAY_HOURS of getting the deal loses; a duel "
        "nobody took within DUEL_MATCH_HOURS expires with no rating change. 409 "
        "duel-game-in-progress while the caller's game of another duel is unfinished."
    ),
)
async def request_duel(
    body: DuelCreate,
    player: PlayerForRead,
    duels: UseCasesDep,
    clock: ClockDep,
    request: Request,
    response: Response,
) -> DuelCreated:
    now = clock()
    duel, game, token = await duels.request(player, body, now)
    issued(request, token)
    shown = (await duels.writer.present([duel], player))[0]
    response.headers["Location"] = f"/v1/duels/{duel.id}"
    response.headers["Cache-Control"] = "no-store"
    return DuelCreated(**shown.model_dump(), game=game_created(game, token, now))


@router.get(
    "/{duel_id}",
    operation_id="get_duel",
    dependencies=[rate_limit(Budget.READ, needs_key=True)],
    response_model=DuelRead,
    responses={
        200: OK_HEADERS,
        **problem_responses(
            *PLAYER_PROBLEMS, NotFoundProblem, ValidationProblem, RateLimitedProblem
        ),
    },
    summary="One of the caller's duels: its state, the opponent once matched, the result",
    description=(
        "Needs the key of one of its two players (anyone else: 404). The opponent's score "
        "shows once the duel has ended, with both rating changes."
    ),
)
async def get_duel(
    duel_id: DuelOfPath,
    player: PlayerForRead,
    duels: ReadDuelsDep,
) -> DuelRead:
    duel = await duels.of_player(duel_id, player)
    return (await duels.present([duel], player))[0]


@player_duels_router.get(
    "/me/duels",
    operation_id="list_my_duels",
    dependencies=[rate_limit(Budget.READ, needs_key=True)],
    response_model=MyDuelsRead,
    responses={
        200: PAGE_HEADERS,
        **problem_responses(*PLAYER_PROBLEMS, ValidationProblem, RateLimitedProblem),
    },
    summary="The caller's duels, newest first",
    description="Waiting, matched and decided duels. Pages follow `next` (or the Link header).",
)
async def list_my_duels(
    player: PlayerForRead,
    duels: ReadDuelsDep,
    request: Request,
    response: Response,
    limit: Annotated[
        int, Query(ge=1, le=100, description="Most duels on a page, 1-100 (default 20)")
    ] = 20,
    cursor: CursorParam = None,
) -> MyDuelsRead:
    page, next_cursor = await duels.mine(player, limit, cursor)
    link_next(request, response, next_cursor)
    return page


@player_duels_router.get(
    "/{player_id}/ratings",
    operation_id="get_player_ratings",
    dependencies=[rate_limit(Budget.READ)],
    response_model=PlayerRatingsRead,
    responses={
        200: OK_HEADERS,
        **problem_responses(NotFoundProblem, ValidationProblem, RateLimitedProblem),
    },
    summary="A player's ratings, one per pool, with their latest changes",
    description=(
        "Public, as a profile is. A rating is OpenSkill's (1500 to begin with), marked "
        "provisional for the first RATING_PROVISIONAL_GAMES duels in its pool."
    ),
)
async def get_player_ratings(player_id: PlayerPath, duels: ReadDuelsDep) -> PlayerRatingsRead:
    return await duels.player_ratings(player_id)


@player_duels_router.get(
    "/{player_id}/ratings/{pool}/history",
    operation_id="list_rating_history",
    dependencies=[rate_limit(Budget.READ)],
    response_model=RatingHistoryRead,
    responses={
        200: PAGE_HEADERS,
        **problem_responses(NotFoundProblem, ValidationProblem, RateLimitedProblem),
    },
    summary="A player's rating changes in a pool, newest first",
    description="Each duel's change, and whether it was taken back. Pages follow `next`.",
)
async def list_rating_history(
    player_id: PlayerPath,
    pool: PoolPath,
    duels: ReadDuelsDep,
    request: Request,
    response: Response,
    limit: Annotated[
        int, Query(ge=1, le=100, description="Most changes on a page, 1-100 (default 20)")
    ] = 20,
    cursor: CursorParam = None,
) -> RatingHistoryRead:
    page, next_cursor = await duels.history(player_id, pool, limit, cursor)
    link_next(request, response, next_cursor)
    return page


@ratings_router.get(
    "/{pool}",
    operation_id="get_rating_board",
    dependencies=[rate_limit(Budget.READ)],
    response_model=RatingBoardRead,
    responses={
        200: PAGE_HEADERS,
        **problem_responses(
            *PLAYER_PROBLEMS,
            NotFoundProblem,
            NoRatingProblem,
            ValidationProblem,
            RateLimitedProblem,
        ),
    },
    summary="A pool's rating board: from the top, around the caller, or among whom they follow",
    # The bearer is needed only for around=me and among=following: none, or the bearer.
    openapi_extra={"security": [{}]},
    description=(
        "The players of one kind (people and bots apart) by rating, highest first; ties "
        "share a rank. around=me and among=following need a player key and read the "
        "caller's kind's board."
    ),
)
async def get_rating_board(
    pool: PoolPath,
    duels: ReadDuelsDep,
    credential: OptionalBearerDep,
    request: Request,
    response: Response,
    kind: Annotated[
        PlayerKind, Query(description="Whose board: human (the default) or bot players'")
    ] = PlayerKind.HUMAN,
    limit: Annotated[
        int,
        Query(
            ge=1,
            le=100,
            description="Most players on a page, 1-100 (default 20); with around=me, players "
            "either side of the caller",
        ),
    ] = 20,
    cursor: CursorParam = None,
    around: Annotated[
        str | None,
        Query(
            pattern="^me$",
            description="me: the caller (needs a player key) and their neighbours; 404 "
            "no-rating when they have none in this pool",
        ),
    ] = None,
    among: Annotated[
        str | None,
        Query(
            pattern="^following$",
            description="following: the caller and the players they follow, ranked among "
            "themselves; not with around",
        ),
    ] = None,
) -> RatingBoardRead:
    player = None
    if around is not None or among is not None:
        player = await player_when_needed(credential, duels.session, request)
    page, next_cursor = await duels.board(
        pool,
        kind,
        limit,
        cursor,
        around=player if around is not None else None,
        among=player if among is not None else None,
    )
    link_next(request, response, next_cursor)
    return page
