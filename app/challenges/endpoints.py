"""The challenge endpoints (under /v1/challenges): a ranked attempt, the day's challenge,
the leaderboard."""

from __future__ import annotations

from datetime import date
from enum import StrEnum
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request, Response, status

from app.challenges.errors import ChallengeNotOpenProblem, NoRankedResultProblem
from app.challenges.models import Challenge
from app.challenges.repository import Place
from app.challenges.schemas import (
    ChallengeRead,
    ChallengeRevealRead,
    ChallengeStatus,
    LeaderboardEntryRead,
    LeaderboardRead,
)
from app.challenges.service import (
    START_PROBLEMS,
    Board,
    ChallengeService,
    board_cursor,
    board_place,
    challenge_id,
    check_open,
    closes_at,
    ensure_challenge,
    opens_at,
    parse_challenge_id,
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
from app.kit.models import PlayerKind
from app.kit.paging import PAGE_HEADERS, CursorParam, link_next
from app.kit.problems import problem_responses
from app.kit.ratelimit import (
    RATE_LIMIT_HEADERS,
    Budget,
    RateLimitedProblem,
    issued,
    rate_limit,
    verified,
)
from app.kit.schemas import DEFAULT_LAYOUT, LayoutName, RulesRead
from app.kit.workload import SolverDep
from app.players.service import PLAYER_PROBLEMS, PlayerForRead, PlayerService

router = APIRouter(prefix="/v1/challenges", tags=["challenges"])

OK_HEADERS = {"headers": RATE_LIMIT_HEADERS}
ChallengeIdPath = Annotated[
    str,
    Path(
        max_length=64,
        description="A challenge's id: its date and layout, e.g. 2026-12-01.golf",
        examples=["2026-12-01.tripeaks"],
    ),
]


class Around(StrEnum):
    ME = "me"


def _entry_out(place: Place) -> LeaderboardEntryRead:
    return LeaderboardEntryRead(
        rank=place.rank,
        player_id=place.player_id,
        name=place.name,
        deleted=place.deleted,
        score=place.score,
        moves=place.moves,
        finished_at=place.finished_at,
    )


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ValidationProblem(
            f"date: {text!r} is no date (YYYY-MM-DD)", loc=("query", "date")
        ) from None


def challenge_out(challenge: Challenge, now: Any) -> ChallengeRead:
    over = now >= closes_at(challenge.day)
    return ChallengeRead(
        id=challenge.id,
        date=challenge.day,
        layout=challenge.layout,
        rules=RulesRead.model_validate(challenge.rules),
        status=ChallengeStatus.CLOSED if over else ChallengeStatus.OPEN,
        opens_at=opens_at(challenge.day),
        closes_at=closes_at(challenge.day),
        commitment=challenge.commitment,
        entries=challenge.entries,
        reveal=ChallengeRevealRead(deal=challenge.deal.split(), salt=challenge.salt)
        if over
        else None,
        best_score=challenge.best_score if over else None,
        best_score_searched=over and challenge.best_searched_at is not None,
    )


async def get_challenges(session: SessionDep, request: Request) -> ChallengeService:
    return ChallengeService(session, request.app.state.settings)


async def get_read_challenges(session: ReadSessionDep, request: Request) -> ChallengeService:
    return ChallengeService(session, request.app.state.settings)


ChallengesDep = Annotated[ChallengeService, Depends(get_challenges)]
ReadChallengesDep = Annotated[ChallengeService, Depends(get_read_challenges)]


DAY_PATTERN = r"^\d{4}-\d{2}-\d{2}$"


async def challenge_of_path(
    challenge_id: Annotated[
        str,
        Path(
            max_length=64,
            description="A challenge's id: its date and layout",
            examples=["2026-12-01.tripeaks"],
        ),
    ],
) -> tuple[date, str]:
    """The challenge's day and layout, or a 404 before anything else is looked at."""
    return parse_challenge_id(challenge_id)


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
    summary="Start the player's one ranked attempt at a challenge",
    description=(
        "Needs a player key. One attempt a player and challenge (a second: 409 "
        "already-entered, also when two race). The attempt is an ordinary game for every "
        "other endpoint, but for this: until the day is over its deal stays secret (no "
        "reveal, no analysis) and hints are off; it is ranked if it ends within the day."
    ),
)
async def start_challenge_game(
    target: Annotated[tuple[date, str], Depends(challenge_of_path)],
    player: PlayerForRead,
    reader: ReadChallengesDep,
    writer: ChallengesDep,
    solver: SolverDep,
    database: DatabaseDep,
    clock: ClockDep,
    request: Request,
    response: Response,
) -> GameCreated:
    day, layout = target
    now = clock()
    check_open(day, now)  # before the day's deal is dealt: a closed day deals none
    challenge = await ensure_challenge(day, layout, reader, writer, solver.pool, database.sessions)
    game, token = await writer.start(challenge, player, now)
    issued(request, token)
    response.headers.update(created_headers(game))
    return game_created(game, token, now)


@router.get(
    "/daily",
    operation_id="get_daily_challenge",
    dependencies=[rate_limit(Budget.READ)],
    response_model=ChallengeRead,
    responses={
        200: OK_HEADERS,
        **problem_responses(
            NotFoundProblem,
            ChallengeNotOpenProblem,
            ValidationProblem,
            RateLimitedProblem,
            ServiceUnavailableProblem,
        ),
    },
    summary="The day's challenge for a layout (today's, or ?day=)",
    description=(
        "One deal a layout and UTC day, proved winnable, the same for every player; "
        "its commitment from the day's first second, its deal and salt once the day is "
        "over (with the best final score the deal allowed, the solver's). A day that has "
        "not begun: 409 challenge-not-open; a past day nobody played: 404."
    ),
)
async def get_daily_challenge(
    reader: ReadChallengesDep,
    writer: ChallengesDep,
    solver: SolverDep,
    database: DatabaseDep,
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
    if now < opens_at(day):
        raise ChallengeNotOpenProblem(f"the challenge of {day} opens at {opens_at(day)}")
    if day < now.date():
        # A day that is over has the challenge it had: one that nobody asked for while
        # it lasted was never dealt (and is not dealt now: a day's deal is made once).
        challenge = await reader.stored(challenge_id(day, layout))
        await reader.session.close()  # before the best score is searched for
        if challenge is None:
            raise NotFoundProblem(f"nobody played a {layout} challenge on {day}")
    else:
        challenge = await ensure_challenge(
            day, layout, reader, writer, solver.pool, database.sessions
        )
    if now >= closes_at(day) and challenge.best_searched_at is None:
        best = await writer.best_score(challenge, solver.pool)  # no transaction is open yet
        challenge = await writer.keep_best(challenge.id, best)
    return challenge_out(challenge, now)


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
    # The bearer is needed only for around=me: none, or the bearer.
    openapi_extra={"security": [{}]},
    description=(
        "Ranked results only (games that ended within the day), humans and bots on "
        "boards of their own (`kind`). Equal scores and move counts share a rank "
        "(1, 2, 2, 4). Pages follow `next` (or the Link header); `around=me`, with a "
        "player key, answers the caller's result with `limit` results either side."
    ),
)
async def get_leaderboard(
    challenge_id: ChallengeIdPath,
    reader: ReadChallengesDep,
    clock: ClockDep,
    request: Request,
    response: Response,
    credential: OptionalBearerDep,
    kind: Annotated[
        PlayerKind,
        Query(description="Whose board: human (the default) or bot players' results"),
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
) -> LeaderboardRead:
    day, _ = parse_challenge_id(challenge_id)
    if clock() < opens_at(day):
        raise ChallengeNotOpenProblem(f"challenge {challenge_id} opens at {opens_at(day)}")
    board: Board
    if around is Around.ME:
        players = PlayerService(reader.session)
        if credential is None:
            await players.resolve("")  # the 401 that says a player key is needed
        assert credential is not None
        player = await players.resolve(credential)
        verified(request)
        board = await reader.around(challenge_id, player, limit)
    else:
        after = board_place(cursor) if cursor is not None else None
        board = await reader.board(challenge_id, kind, limit, after)
    next_cursor = board_cursor(board.next) if board.next is not None else None
    link_next(request, response, next_cursor)
    return LeaderboardRead(
        challenge_id=challenge_id,
        kind=board.kind,
        ranked=board.ranked,
        entries=[_entry_out(p) for p in board.places],
        next=next_cursor,
    )
