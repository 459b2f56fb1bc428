"""The event endpoints: what players see and do (under /v1/events), and what operators do
with the operator's token (under /v1/operator/events, tagged apart: with no
OPERATOR_TOKEN set they answer 404, as a path the server does not have)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request, Response, status
from pydantic import TypeAdapter

from app.challenges.service import (
    BOARD_PROBLEMS,
    START_PROBLEMS,
    Among,
    Around,
    CohortOf,
    FairPlayView,
    LeaderboardRead,
    board_view,
    needs_player,
)
from app.events.errors import (
    EventCancelledProblem,
    EventNotOpenProblem,
    EventStartedProblem,
    KindNotAdmittedProblem,
    NotJoinedProblem,
    OperatorTokenRefusedProblem,
)
from app.events.schemas import (
    EditionList,
    EditionRead,
    EntrantRead,
    EventChangesRead,
    EventCreate,
    EventList,
    EventRead,
    EventUpdate,
    edition_out,
    entrant_out,
    event_changes_out,
    event_out,
)
from app.events.service import (
    EventService,
    EventUseCases,
)
from app.games.service import (
    CREATED_HEADERS,
    GameCreated,
    created_headers,
    game_created,
    ok_with_links,
)
from app.kit.auth import OptionalBearerDep, secret_matches
from app.kit.clock import ClockDep
from app.kit.deps import DatabaseDep, ReadSessionDep, SessionDep
from app.kit.errors import (
    NotFoundProblem,
    ServiceUnavailableProblem,
    UnauthorizedProblem,
    ValidationProblem,
)
from app.kit.headers import LOCATION
from app.kit.ids import is_id
from app.kit.models import PlayerKind
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
from app.kit.ratelimit import (
    RATE_LIMIT_HEADERS,
    Budget,
    RateLimitedProblem,
    issued,
    rate_limit,
    spend,
    verified,
)
from app.kit.schemas import LayoutName
from app.kit.workload import SolverDep
from app.players.service import PLAYER_PROBLEMS, PlayerForRead, player_when_needed

router = APIRouter(prefix="/v1/events", tags=["events"])
operator_router = APIRouter(prefix="/v1/operator/events", tags=["operators"])

OK_HEADERS = {"headers": RATE_LIMIT_HEADERS}
EVENTS_CURSOR = TypeAdapter(tuple[UtcTime, RowId])


async def event_of_path(
    event_id: Annotated[
        str,
        Path(max_length=64, description="The event's id", examples=["Wk3nd9LeagueXq1aBc2dEf"]),
    ],
) -> str:
    """The id, or a 404 before anything else (the caller's key) is looked at for one that
    cannot be an id."""
    if not is_id(event_id):
        raise NotFoundProblem(f"no event {event_id[:32]!r}")
    return event_id


EventIdPath = Annotated[str, Depends(event_of_path)]
NumberPath = Annotated[
    int, Path(ge=0, le=999_999, description="The edition's number: 0 for the first", examples=[0])
]
READ_PROBLEMS = (NotFoundProblem, ValidationProblem, RateLimitedProblem)
OPERATOR_PROBLEMS = (
    UnauthorizedProblem,
    NotFoundProblem,
    OperatorTokenRefusedProblem,
    ValidationProblem,
    RateLimitedProblem,
)


class StateFilter(StrEnum):
    UPCOMING = "upcoming"
    RUNNING = "running"
    FINISHED = "finished"


async def get_events(session: SessionDep, request: Request) -> EventService:
    return EventService(session, request.app.state.settings)


async def get_read_events(session: ReadSessionDep, request: Request) -> EventService:
    return EventService(session, request.app.state.settings)


async def get_use_cases(
    reading: ReadSessionDep,
    writing: SessionDep,
    solver: SolverDep,
    database: DatabaseDep,
    request: Request,
) -> EventUseCases:
    settings = request.app.state.settings
    return EventUseCases(
        EventService(reading, settings),
        EventService(writing, settings),
        solver.pool,
        database.sessions,
    )


EventsDep = Annotated[EventService, Depends(get_events)]
ReadEventsDep = Annotated[EventService, Depends(get_read_events)]
UseCasesDep = Annotated[EventUseCases, Depends(get_use_cases)]


def operator(budget: Budget) -> Any:
    """A dependency for an operator's route: the operator's token (401 without a bearer,
    403 for another) and the route's ``budget``; with no token configured, the route is
    not there (404). A bearer spends the budget before it is compared, so that wrong
    tokens meet a 429 as any request does (the address's budget: a token nobody verified
    is no client); the right one is verified, and spends its own from then on."""

    async def check(request: Request, response: Response, credential: OptionalBearerDep) -> None:
        token: str | None = request.app.state.settings.operator_token
        if token is None:
            raise NotFoundProblem(f"no route {request.url.path[:64]!r}")
        if credential is None:
            raise UnauthorizedProblem("this call needs the operator's token: Authorization: Bearer")
        await spend(request, response, budget)
        if not secret_matches(credential, request.app.state.operator_token_hash):
            raise OperatorTokenRefusedProblem("this call needs the operator's token as the bearer")
        verified(request)

    return Depends(check)


# -- what players see ------------------------------------------------------------------
@router.get(
    "",
    operation_id="list_events",
    dependencies=[rate_limit(Budget.READ)],
    response_model=EventList,
    responses={200: PAGE_HEADERS, **problem_responses(ValidationProblem, RateLimitedProblem)},
    summary="The events: upcoming, running or finished, by start",
    description=(
        "Filter by `state` (a cancelled event is finished), `layout` and the `kind` of "
        "player they admit. Pages follow `next` (or the Link header)."
    ),
)
async def list_events(
    events: ReadEventsDep,
    clock: ClockDep,
    request: Request,
    response: Response,
    state: Annotated[StateFilter | None, Query(description="upcoming, running or finished")] = None,
    layout: Annotated[LayoutName | None, Query(description="Events on this layout")] = None,
    kind: Annotated[
        PlayerKind | None, Query(description="Events that admit this kind of player")
    ] = None,
    limit: Annotated[
        int, Query(ge=1, le=100, description="Most events on a page (default 20)")
    ] = 20,
    cursor: CursorParam = None,
) -> EventList:
    now = clock()
    after = decode_cursor(cursor, EVENTS_CURSOR) if cursor is not None else None
    rows, last = await events.page(now, state.value if state else None, layout, kind, after, limit)
    next_cursor = encode_cursor([last[0].isoformat(), last[1]]) if last is not None else None
    link_next(request, response, next_cursor)
    return EventList(events=[event_out(e, now) for e in rows], next=next_cursor)


@router.get(
    "/{event_id}",
    operation_id="get_event",
    dependencies=[rate_limit(Budget.READ)],
    response_model=EventRead,
    responses={200: OK_HEADERS, **problem_responses(*READ_PROBLEMS)},
    summary="An event: its rules, schedule, state and the edition open now",
)
async def get_event(event_id: EventIdPath, events: ReadEventsDep, clock: ClockDep) -> EventRead:
    """Its state (upcoming, running, finished or cancelled), the number of the edition
    open now and when the next opens."""
    return event_out(await events.get(event_id), clock())


@router.get(
    "/{event_id}/editions",
    operation_id="list_editions",
    dependencies=[rate_limit(Budget.READ)],
    response_model=EditionList,
    responses={200: PAGE_HEADERS, **problem_responses(*READ_PROBLEMS)},
    summary="An event's editions so far, the newest first",
    description=(
        "Editions are listed once they have opened, and kept after they close, with their "
        "rounds, deals and boards. An edition that was never made (one that closed "
        "unplayed with no server running its scheduled jobs) is not listed."
    ),
)
async def list_editions(
    event_id: EventIdPath,
    events: ReadEventsDep,
    clock: ClockDep,
    request: Request,
    response: Response,
    limit: Annotated[
        int, Query(ge=1, le=100, description="Most editions on a page (default 20)")
    ] = 20,
    cursor: CursorParam = None,
) -> EditionList:
    now = clock()
    views, next_cursor = await events.edition_page(event_id, cursor, limit, now)
    link_next(request, response, next_cursor)
    editions = [edition_out(v.edition, v.board, v.rounds, now) for v in views]
    return EditionList(editions=editions, next=next_cursor)


@router.get(
    "/{event_id}/editions/{number}",
    operation_id="get_edition",
    dependencies=[rate_limit(Budget.READ)],
    response_model=EditionRead,
    responses={
        200: OK_HEADERS,
        **problem_responses(*READ_PROBLEMS, EventNotOpenProblem, ServiceUnavailableProblem),
    },
    summary="An edition: its rounds' commitments; once closed, their deals and best scores",
    description=(
        "The servers make each edition before it opens (its deals committed then), or on "
        "its first read once open; one not begun is 409 event-not-open. Once it has "
        "closed, each round's deal and salt are revealed with the best final score it "
        "allowed (the solver's, searched once). A round's challenge_id serves "
        "start_practice_game once it has closed."
    ),
)
async def get_edition(
    event_id: EventIdPath,
    number: NumberPath,
    events: UseCasesDep,
    clock: ClockDep,
) -> EditionRead:
    now = clock()
    view = await events.edition(event_id, number, now)
    return edition_out(view.edition, view.board, view.rounds, now)


@router.post(
    "/{event_id}/join",
    operation_id="join_event",
    dependencies=[rate_limit(Budget.CREATE)],
    response_model=EntrantRead,
    responses={
        200: OK_HEADERS,
        **problem_responses(
            *PLAYER_PROBLEMS,
            *START_PROBLEMS,
            EventNotOpenProblem,
            EventCancelledProblem,
            KindNotAdmittedProblem,
            ValidationProblem,
            RateLimitedProblem,
            ServiceUnavailableProblem,
        ),
    },
    summary="Join the edition open now",
    description=(
        "Needs a player key. Answers the player's place: their number in the join order "
        "and their cohort (an event of cohorts groups its entrants by join order). "
        "Joining again answers the same place. Refused when the edition is full (409 "
        "challenge-full), none is open (409 event-not-open), or the event does not admit "
        "the player's kind (403 kind-not-admitted)."
    ),
)
async def join_event(
    event_id: EventIdPath,
    player: PlayerForRead,
    events: UseCasesDep,
    clock: ClockDep,
) -> EntrantRead:
    board_id, entrant = await events.join(event_id, player, clock())
    return entrant_out(board_id, player.id, player.kind, entrant)


@router.post(
    "/{event_id}/rounds/{round}/games",
    operation_id="start_event_round",
    status_code=status.HTTP_201_CREATED,
    dependencies=[rate_limit(Budget.CREATE)],
    response_model=GameCreated,
    responses={
        **ok_with_links(201, "/id", *CREATED_HEADERS, token=True, legal_move="/legal_moves/0"),
        **problem_responses(
            *PLAYER_PROBLEMS,
            *START_PROBLEMS,
            EventNotOpenProblem,
            EventCancelledProblem,
            KindNotAdmittedProblem,
            NotJoinedProblem,
            ValidationProblem,
            RateLimitedProblem,
            ServiceUnavailableProblem,
        ),
    },
    summary="Start an attempt at a round of the edition open now",
    description=(
        "Needs a player key, and the player to have joined where the event says so (409 "
        "not-joined; else this joins them). An ordinary game, with the daily's fairness: "
        "no hints or analysis until the edition closes, its deal secret until then; the "
        "event's attempts a round, one at a time, the best counting. A round that opens "
        "one a day, before its day: 409 challenge-not-open."
    ),
)
async def start_event_round(
    event_id: EventIdPath,
    round_: Annotated[int, Path(alias="round", ge=1, le=31, description="The round, from 1")],
    player: PlayerForRead,
    events: UseCasesDep,
    clock: ClockDep,
    request: Request,
    response: Response,
) -> GameCreated:
    now = clock()
    game, token = await events.start_round(event_id, round_, player, now)
    issued(request, token)
    response.headers.update(created_headers(game))
    return game_created(game, token, now)


@router.get(
    "/{event_id}/editions/{number}/leaderboard",
    operation_id="get_event_leaderboard",
    dependencies=[rate_limit(Budget.READ)],
    response_model=LeaderboardRead,
    responses={200: PAGE_HEADERS, **problem_responses(*BOARD_PROBLEMS, EventNotOpenProblem)},
    openapi_extra={"security": [{}]},
    summary="An edition's board: each entrant's total over the rounds",
    description=(
        "An entrant's result is the sum of their rounds' best scores (a round not played "
        "counts 0; under cards_left, every tableau card of the layout left, and fewer "
        "rank first), then fewer moves, then the earlier last finish; ties share a rank; "
        "humans and bots apart. The whole board by pages (`next`), `around=me`, "
        "`among=following`, or `cohort=mine`: the caller's cohort ranked among itself "
        "(`rank`), each with their rank on the whole board (`global_rank`)."
    ),
)
async def get_event_leaderboard(
    event_id: EventIdPath,
    number: NumberPath,
    reader: ReadEventsDep,
    clock: ClockDep,
    request: Request,
    response: Response,
    credential: OptionalBearerDep,
    kind: Annotated[
        PlayerKind, Query(description="Whose board: human (the default) or bot players'")
    ] = PlayerKind.HUMAN,
    limit: Annotated[int, Query(ge=1, le=100, description="Most results on a page, 1-100")] = 20,
    cursor: CursorParam = None,
    around: Annotated[
        Around | None, Query(description="me: the caller's result and its neighbours")
    ] = None,
    among: Annotated[
        Among | None, Query(description="following: the caller and the players they follow")
    ] = None,
    cohort: Annotated[
        CohortOf | None, Query(description="mine: the caller's cohort, ranked among itself")
    ] = None,
    fair_play: Annotated[
        FairPlayView | None,
        Query(
            description="provisional: the totals of new accounts, ranked apart until every "
            "round's result is measured ok; flagged: the totals with a round's result flagged "
            "by the fair-play measure. Each ranked among themselves (the board leaves them "
            "out)"
        ),
    ] = None,
) -> LeaderboardRead:
    view = board_view(around, among, cohort, fair_play)
    player = (
        await player_when_needed(credential, reader.session, request)
        if needs_player(view)
        else None
    )
    page, next_cursor = await reader.leaderboard(
        event_id, number, kind, limit, cursor, view, player, clock()
    )
    link_next(request, response, next_cursor)
    return page


# -- what operators do -----------------------------------------------------------------
@operator_router.post(
    "",
    operation_id="create_event",
    status_code=status.HTTP_201_CREATED,
    dependencies=[operator(Budget.CREATE)],
    response_model=EventRead,
    responses={
        201: {"headers": {**RATE_LIMIT_HEADERS, **LOCATION}},
        **problem_responses(*OPERATOR_PROBLEMS),
    },
    summary="Create an event (operators)",
    description=(
        "Needs the operator's token (OPERATOR_TOKEN) as the bearer; with none set, every "
        "operator route is 404. Each edition's deals are drawn by the server when it opens, "
        "committed then and revealed when it closes."
    ),
)
async def create_event(
    body: EventCreate, events: EventsDep, clock: ClockDep, response: Response
) -> EventRead:
    now = clock()
    event = await events.create(body, now)
    response.headers["Location"] = f"/v1/events/{event.id}"
    return event_out(event, now)


@operator_router.patch(
    "/{event_id}",
    operation_id="update_event",
    dependencies=[operator(Budget.MOVE)],
    response_model=EventRead,
    responses={
        200: OK_HEADERS,
        **problem_responses(*OPERATOR_PROBLEMS, EventStartedProblem, EventCancelledProblem),
    },
    summary="Change an event (operators): only what leaves its editions fair",
    description=(
        "Name, description, a higher max_size and ends_at (not cutting short an open "
        "edition) at any time; the rest only while it has had no edition (409 "
        "event-started). Every change is logged (list_event_changes)."
    ),
)
async def update_event(
    event_id: EventIdPath, body: EventUpdate, events: EventsDep, clock: ClockDep
) -> EventRead:
    now = clock()
    return event_out(await events.update(event_id, body, now), now)


@operator_router.post(
    "/{event_id}/cancel",
    operation_id="cancel_event",
    dependencies=[operator(Budget.MOVE)],
    response_model=EventRead,
    responses={200: OK_HEADERS, **problem_responses(*OPERATOR_PROBLEMS)},
    summary="Cancel an event (operators): no edition opens any more",
    description=(
        "An edition open now closes at once: its deals are revealed and its board stays "
        "as it stands. Its editions, boards and games are kept. Cancelling again changes "
        "nothing."
    ),
)
async def cancel_event(event_id: EventIdPath, events: EventsDep, clock: ClockDep) -> EventRead:
    now = clock()
    return event_out(await events.cancel(event_id, now), now)


@operator_router.get(
    "/{event_id}/changes",
    operation_id="list_event_changes",
    dependencies=[operator(Budget.READ)],
    response_model=EventChangesRead,
    responses={200: OK_HEADERS, **problem_responses(*OPERATOR_PROBLEMS)},
    summary="Every change made to an event (operators), the oldest first",
)
async def list_event_changes(event_id: EventIdPath, events: ReadEventsDep) -> EventChangesRead:
    """Who changed what and when: the operator's API, or the events file."""
    return event_changes_out(await events.changes(event_id))
