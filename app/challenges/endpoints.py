"""The challenge endpoints (under /v1/challenges): the daily challenge, challenges players
set, attempts, practice of a closed challenge's deal, the leaderboards; and a player's
challenges (under /v1/players/me)."""

from __future__ import annotations

from datetime import date
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Request, Response, status

from app.challenges.errors import (
    ChallengeEnteredProblem,
    ChallengeNotOpenProblem,
    ChallengeStillOpenProblem,
    NoRankedResultProblem,
    NotChallengeCreatorProblem,
    TooManyOpenChallengesProblem,
)
from app.challenges.schemas import (
    ChallengeCreate,
    ChallengeRead,
    FairPlayView,
    LeaderboardRead,
    MyChallengesRead,
)
from app.challenges.service import (
    START_PROBLEMS,
    Among,
    Around,
    BoardService,
    ChallengeService,
    ChallengeUseCases,
    SetChallengeService,
    board_view,
    challenge_id,
    challenge_out,
    check_challenge_id,
    needs_player,
)
from app.games.service import (
    CREATED_HEADERS,
    GameCreated,
    created_headers,
    game_created,
    ok_with_links,
)
from app.kit.auth import OptionalBearerDep
from app.kit.clock import ClockDep
from app.kit.deps import DatabaseDep, ReadSessionDep, SessionDep
from app.kit.errors import NotFoundProblem, ServiceUnavailableProblem, ValidationProblem
from app.kit.headers import LOCATION
from app.kit.models import PlayerKind
from app.kit.paging import (
    PAGE_HEADERS,
    CursorParam,
    link_next,
)
from app.kit.problems import problem_responses
from app.kit.ratelimit import (
    RATE_LIMIT_HEADERS,
    Budget,
    RateLimitedProblem,
    issued,
    rate_limit,
)
from app.kit.schemas import DEFAULT_LAYOUT, LayoutName
from app.kit.workload import SolverDep
from app.players.service import (
    PLAYER_PROBLEMS,
    PlayerForRead,
    player_when_needed,
)

router = APIRouter(prefix="/v1/challenges", tags=["challenges"])
player_challenges_router = APIRouter(prefix="/v1/players", tags=["challenges"])

OK_HEADERS = {"headers": RATE_LIMIT_HEADERS}
ChallengeIdPath = Annotated[
    str,
    Path(
        max_length=64,
        description="A challenge's id: a daily's date and layout (2026-12-01.golf), or the "
        "id of one a player set",
        examples=["2026-12-01.tripeaks"],
    ),
]
# What a player's own use of a challenge may be refused with, besides its own problems.
CREATOR_PROBLEMS = (
    *PLAYER_PROBLEMS,
    NotFoundProblem,
    NotChallengeCreatorProblem,
    ValidationProblem,
    RateLimitedProblem,
)
# What reading a challenge may answer instead (a daily is derived on its first read).
READ_PROBLEMS = (
    NotFoundProblem,
    ChallengeNotOpenProblem,
    ValidationProblem,
    RateLimitedProblem,
    ServiceUnavailableProblem,
)


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ValidationProblem(
            f"date: {text!r} is no date (YYYY-MM-DD)", loc=("query", "date")
        ) from None


async def get_set_challenges(session: SessionDep, request: Request) -> SetChallengeService:
    return SetChallengeService(session, request.app.state.settings)


async def get_read_set_challenges(session: ReadSessionDep, request: Request) -> SetChallengeService:
    return SetChallengeService(session, request.app.state.settings)


async def get_read_boards(session: ReadSessionDep, request: Request) -> BoardService:
    return BoardService(session, request.app.state.settings)


async def get_use_cases(
    reading: ReadSessionDep,
    writing: SessionDep,
    solver: SolverDep,
    database: DatabaseDep,
    request: Request,
) -> ChallengeUseCases:
    settings = request.app.state.settings
    return ChallengeUseCases(
        ChallengeService(reading, settings),
        ChallengeService(writing, settings),
        solver,
        database.sessions,
    )


SetChallengesDep = Annotated[SetChallengeService, Depends(get_set_challenges)]
ReadSetChallengesDep = Annotated[SetChallengeService, Depends(get_read_set_challenges)]
ReadBoardsDep = Annotated[BoardService, Depends(get_read_boards)]
UseCasesDep = Annotated[ChallengeUseCases, Depends(get_use_cases)]


DAY_PATTERN = r"^\d{4}-\d{2}-\d{2}$"


async def challenge_of_path(challenge_id: ChallengeIdPath) -> str:
    """The challenge's id, or a 404 before anything else is looked at for an id that can
    name no challenge."""
    check_challenge_id(challenge_id)
    return challenge_id


ChallengeOfPath = Annotated[str, Depends(challenge_of_path)]


# Listed first: the spec has listed the attempt first from the start.
@router.post(
    "/{challenge_id}/games",
    operation_id="start_challenge_game",
    status_code=status.HTTP_201_CREATED,
    dependencies=[rate_limit(Budget.CREATE)],
    response_model=GameCreated,
    responses={
        **ok_with_links(201, "/id", *CREATED_HEADERS, token=True, legal_move="/legal_moves/0"),
        **problem_responses(
            *PLAYER_PROBLEMS,
            *START_PROBLEMS,
            ValidationProblem,
            RateLimitedProblem,
            ServiceUnavailableProblem,
        ),
    },
    summary="Start one of the player's ranked attempts at a challenge",
    description=(
        "Needs a player key. A daily takes one attempt a player; a challenge a player set, "
        "as many as it says (1-3), one at a time, the best counting. No attempt left, or "
        "one in progress: 409 already-entered (also when two race). A player's first "
        "attempt enters them: 409 challenge-full once the challenge has taken as many "
        "entrants as it may. The attempt is an ordinary game for every other endpoint, but "
        "for this: until the challenge closes its deal stays secret (no reveal, no "
        "analysis) and hints are off; it is ranked if it ends before the close. Nobody is "
        "refused for the age of their account: the entry of an account made after the "
        "challenge opened (the daily: after its UTC day began), or younger than the "
        "server's CHALLENGE_ACCOUNT_MIN_HOURS, is provisional (the profile's "
        "provisional_until; list_my_challenges' entry says what it means there)."
    ),
)
async def start_challenge_game(
    target: ChallengeOfPath,
    player: PlayerForRead,
    challenges: UseCasesDep,
    clock: ClockDep,
    request: Request,
    response: Response,
) -> GameCreated:
    now = clock()
    game, token = await challenges.start_attempt(target, player, now)
    issued(request, token)
    response.headers.update(created_headers(game))
    return game_created(game, token, now)


@router.post(
    "",
    operation_id="create_challenge",
    status_code=status.HTTP_201_CREATED,
    dependencies=[rate_limit(Budget.CREATE)],
    response_model=ChallengeRead,
    responses={
        201: {"headers": {**RATE_LIMIT_HEADERS, **LOCATION}},
        **problem_responses(
            *PLAYER_PROBLEMS,
            TooManyOpenChallengesProblem,
            ValidationProblem,
            RateLimitedProblem,
            ServiceUnavailableProblem,
        ),
    },
    summary="Set a challenge for friends: a deal the server draws, a window, attempts",
    description=(
        "Needs a player key. The server draws the deal (proved winnable unless "
        "winnable_only is false), commits to it at once and reveals it when the challenge "
        "closes: its creator knows it no better than anyone. Share its id (unguessable, "
        "never listed) or its invite code; whoever has either may enter with a player key "
        "(start_challenge_game), and read its board (get_leaderboard). A player may have "
        "as many open challenges as the server allows (409 too-many-open-challenges)."
    ),
)
async def create_challenge(
    body: ChallengeCreate,
    player: PlayerForRead,
    challenges: UseCasesDep,
    clock: ClockDep,
    response: Response,
) -> ChallengeRead:
    now = clock()
    challenge = await challenges.create(body, player, now)
    response.headers["Location"] = f"/v1/challenges/{challenge.id}"
    return challenge_out(challenge, now)


@router.get(
    "/daily",
    operation_id="get_daily_challenge",
    dependencies=[rate_limit(Budget.READ)],
    response_model=ChallengeRead,
    responses={200: OK_HEADERS, **problem_responses(*READ_PROBLEMS)},
    summary="The day's challenge for a layout (today's, or ?day=)",
    description=(
        "One deal a layout and UTC day, proved winnable, the same for every player; "
        "its commitment from the day's first second, its deal and salt once the day is "
        "over (with the best final score the deal allowed, the solver's). A day that has "
        "not begun: 409 challenge-not-open; a past day nobody played: 404."
    ),
)
async def get_daily_challenge(
    challenges: UseCasesDep,
    clock: ClockDep,
    layout: Annotated[
        LayoutName,
        Query(
            description="The layout whose challenge to answer (one a layout a day). Default "
            "tripeaks"
        ),
    ] = DEFAULT_LAYOUT,
    day_: Annotated[
        str | None,
        Query(
            alias="day",
            pattern=DAY_PATTERN,
            description="YYYY-MM-DD (UTC); today's by default. A day not begun is 409 "
            "challenge-not-open; a past day nobody played, 404",
            examples=["2026-11-30"],
            json_schema_extra={"format": "date"},
        ),
    ] = None,
    # `date`, as the parameter was first named, still taken but no longer in the spec:
    # generators keep `Date` for a type of their own and warn of a parameter named so.
    date_: Annotated[
        str | None, Query(alias="date", pattern=DAY_PATTERN, include_in_schema=False)
    ] = None,
) -> ChallengeRead:
    if day_ is not None and date_ is not None and day_ != date_:
        raise ValidationProblem(
            f"day: {day_} and date: {date_} disagree (date is the old name of day)",
            loc=("query", "day"),
        )
    date_ = day_ if day_ is not None else date_
    now = clock()
    day = _day(date_) if date_ is not None else now.date()
    challenge = await challenges.read(challenge_id(day, layout), now)
    return challenge_out(challenge, now)


@router.get(
    "/invites/{code}",
    operation_id="get_challenge_by_invite",
    dependencies=[rate_limit(Budget.READ)],
    response_model=ChallengeRead,
    responses={
        200: OK_HEADERS,
        **problem_responses(NotFoundProblem, ValidationProblem, RateLimitedProblem),
    },
    summary="The challenge an invite code names (as a person typed it)",
    description=(
        "Any case, with or without its dash; O is read as 0, I and L as 1. Answers the "
        "challenge, whose id then serves every other call."
    ),
)
async def get_challenge_by_invite(
    code: Annotated[
        str,
        Path(max_length=16, description="The invite code", examples=["7KQ2M-X9PDA"]),
    ],
    challenges: ReadSetChallengesDep,
    clock: ClockDep,
) -> ChallengeRead:
    return challenge_out(await challenges.by_invite(code), clock())


@router.get(
    "/{challenge_id}",
    operation_id="get_challenge",
    dependencies=[rate_limit(Budget.READ)],
    response_model=ChallengeRead,
    responses={200: OK_HEADERS, **problem_responses(*READ_PROBLEMS)},
    summary="A challenge by its id: a daily's or one a player set",
    description=(
        "Its commitment from the start; its deal and salt once it has closed, with the "
        "best final score the deal allowed (the solver's, searched once). A daily's id "
        "answers as get_daily_challenge does for its day."
    ),
)
async def get_challenge(
    target: ChallengeOfPath, challenges: UseCasesDep, clock: ClockDep
) -> ChallengeRead:
    now = clock()
    return challenge_out(await challenges.read(target, now), now)


@router.post(
    "/{challenge_id}/close",
    operation_id="close_challenge",
    dependencies=[rate_limit(Budget.MOVE)],
    response_model=ChallengeRead,
    responses={200: OK_HEADERS, **problem_responses(*CREATOR_PROBLEMS)},
    summary="Close a challenge the caller set, now: its deal is revealed",
    description=(
        "Its creator's call (403 not-challenge-creator for anyone else, and for a daily). "
        "Attempts in progress may go on, unranked; closing a closed challenge changes "
        "nothing."
    ),
)
async def close_challenge(
    target: ChallengeOfPath,
    player: PlayerForRead,
    challenges: SetChallengesDep,
    clock: ClockDep,
) -> ChallengeRead:
    now = clock()
    return challenge_out(await challenges.close(target, player, now), now)


@router.delete(
    "/{challenge_id}",
    operation_id="delete_challenge",
    status_code=status.HTTP_204_NO_CONTENT,
    dependencies=[rate_limit(Budget.MOVE)],
    responses={
        204: OK_HEADERS,
        **problem_responses(*CREATOR_PROBLEMS, ChallengeEnteredProblem),
    },
    summary="Delete a challenge the caller set, while nobody has entered it",
    description=(
        "Its creator's call (403 not-challenge-creator for anyone else, and for a daily); "
        "once somebody has entered, 409 challenge-entered: close it instead."
    ),
)
async def delete_challenge(
    target: ChallengeOfPath, player: PlayerForRead, challenges: SetChallengesDep
) -> Response:
    await challenges.delete(target, player)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post(
    "/{challenge_id}/practice",
    operation_id="start_practice_game",
    status_code=status.HTTP_201_CREATED,
    dependencies=[rate_limit(Budget.CREATE)],
    response_model=GameCreated,
    # A player key is optional: none, or the bearer.
    openapi_extra={"security": [{}]},
    responses={
        **ok_with_links(201, "/id", *CREATED_HEADERS, token=True, legal_move="/legal_moves/0"),
        **problem_responses(
            *PLAYER_PROBLEMS,
            NotFoundProblem,
            ChallengeNotOpenProblem,
            ChallengeStillOpenProblem,
            ValidationProblem,
            RateLimitedProblem,
            ServiceUnavailableProblem,
        ),
    },
    summary="Practise a closed challenge's deal: an unranked game, hints allowed",
    description=(
        "Once a challenge (a daily or one a player set) has closed, anyone may play its "
        "deal again, with or without a player key (with one, the game is the player's). "
        "Hints and analysis as in any game; nothing of it touches the board, the streaks "
        "or the badges. When it ends, its state's practice says where its result would "
        "have ranked on the board. While the challenge is open: 409 challenge-still-open."
    ),
)
async def start_practice_game(
    target: ChallengeOfPath,
    challenges: UseCasesDep,
    clock: ClockDep,
    credential: OptionalBearerDep,
    request: Request,
    response: Response,
) -> GameCreated:
    now = clock()
    player = None
    if credential is not None:  # with a key, the game is the player's
        player = await player_when_needed(credential, challenges.reader.session, request)
    game, token = await challenges.practice(target, player, now)
    issued(request, token)
    response.headers.update(created_headers(game))
    return game_created(game, token, now)


@router.get(
    "/{challenge_id}/leaderboard",
    operation_id="get_leaderboard",
    dependencies=[rate_limit(Budget.READ)],
    response_model=LeaderboardRead,
    responses={
        200: PAGE_HEADERS,
        **problem_responses(
            *PLAYER_PROBLEMS,
            NotFoundProblem,
            NoRankedResultProblem,
            ChallengeNotOpenProblem,
            ValidationProblem,
            RateLimitedProblem,
        ),
    },
    summary="A challenge's leaderboard: by score, then fewer moves, then the earlier finish",
    # The bearer is needed only for around=me and among=following: none, or the bearer.
    openapi_extra={"security": [{}]},
    description=(
        "Ranked results only (games that ended before the challenge closed; a player's "
        "best attempt), humans and bots on boards of their own (`kind`). Equal scores and "
        "move counts share a rank (1, 2, 2, 4). Pages follow `next` (or the Link header); "
        "`around=me`, with a player key, answers the caller's result with `limit` results "
        "either side; `among=following`, with a player key, the board of the caller and "
        "the players they follow, ranked among themselves (`rank`) with each one's rank on "
        "the whole board (`global_rank`), paged as the whole board is. Each result carries "
        "its fair-play status (`fair_play`: pending until it is measured, within minutes "
        "of its end; the measure's figures once the challenge has closed). Results ranked "
        "apart are listed by `fair_play`: `provisional`, a new account's results on the "
        "daily and events' boards until measured ok (then they take their place), and "
        "`flagged`. A new account's result on a challenge a player set ranks with the "
        "others, marked `provisional`."
    ),
)
async def get_leaderboard(
    challenge_id: ChallengeIdPath,
    boards: ReadBoardsDep,
    clock: ClockDep,
    request: Request,
    response: Response,
    credential: OptionalBearerDep,
    kind: Annotated[
        PlayerKind,
        Query(
            description="Whose board: human (the default) or bot players' results (around=me "
            "and among=following read the caller's kind's)"
        ),
    ] = PlayerKind.HUMAN,
    limit: Annotated[
        int,
        Query(
            ge=1,
            le=100,
            description="Most results on a page, 1-100 (default 20); with around=me, results "
            "either side of the caller's",
        ),
    ] = 20,
    cursor: CursorParam = None,
    around: Annotated[
        Around | None,
        Query(
            description="me: the caller's own result (needs a player key) and its neighbours, "
            "instead of a page from the top; 404 no-ranked-result when the caller has none"
        ),
    ] = None,
    among: Annotated[
        Among | None,
        Query(
            description="following: only the caller (needs a player key) and the players they "
            "follow, ranked among themselves; not with around"
        ),
    ] = None,
    fair_play: Annotated[
        FairPlayView | None,
        Query(
            description="provisional: new accounts' results not measured ok yet (the daily "
            "and events' boards); flagged: the results the fair-play measure flagged. Each "
            "ranked among themselves (the board leaves them out); not with around or among"
        ),
    ] = None,
) -> LeaderboardRead:
    view = board_view(around, among, fair_play=fair_play)
    player = (
        await player_when_needed(credential, boards.session, request)
        if needs_player(view)
        else None
    )
    page, next_cursor = await boards.leaderboard(
        challenge_id, kind, limit, cursor, view, player, clock()
    )
    link_next(request, response, next_cursor)
    return page


@player_challenges_router.get(
    "/me/challenges",
    operation_id="list_my_challenges",
    dependencies=[rate_limit(Budget.READ, needs_key=True)],
    response_model=MyChallengesRead,
    responses={
        200: PAGE_HEADERS,
        **problem_responses(*PLAYER_PROBLEMS, ValidationProblem, RateLimitedProblem),
    },
    summary="The challenges the caller set or entered, newest first",
    description=(
        "Dailies entered and challenges set or entered, each with the caller's entry "
        "(attempts, latest game, best result). Pages follow `next` (or the Link header)."
    ),
)
async def list_my_challenges(
    player: PlayerForRead,
    challenges: ReadSetChallengesDep,
    clock: ClockDep,
    request: Request,
    response: Response,
    limit: Annotated[
        int, Query(ge=1, le=100, description="Most challenges on a page, 1-100 (default 20)")
    ] = 20,
    cursor: CursorParam = None,
) -> MyChallengesRead:
    page, next_cursor = await challenges.my_challenges(player, limit, cursor, clock())
    link_next(request, response, next_cursor)
    return page
