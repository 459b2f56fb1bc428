"""The game endpoints (under /v1)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Header, Path, Query, Request, Response, status
from fastapi.concurrency import run_in_threadpool
from sqlalchemy.orm import Session

from app import engine
from app.challenges.service import (
    START_PROBLEMS,
    ChallengeService,
    check_open,
    ensure_challenge,
    parse_challenge_id,
)
from app.engine import GameState
from app.games import solving
from app.games.access import (
    ACCESS_PROBLEMS,
    GameForRead,
    GameIdPath,
    GameRowForRead,
    OptionalPlayer,
    game_service,
    load_for_move,
    move_on_loop,
)
from app.games.errors import (
    ConflictProblem,
    GameInProgressProblem,
    GameOverProblem,
    IdempotencyMismatchProblem,
    IllegalMoveProblem,
    MoveLimitProblem,
    PreconditionFailedProblem,
    RankedGameProblem,
)
from app.games.models import Analysis, Game
from app.games.schemas import (
    CREATE_EXAMPLES,
    AnalysisRead,
    ChallengeLinkRead,
    GameCreate,
    GameCreated,
    GameRead,
    GameScoreRead,
    HintRead,
    LegalMoveList,
    LegalMoveRead,
    MoveCreate,
    MoveList,
    MoveRead,
    PlayCreate,
    RevealRead,
    legal_moves_read,
    state_read,
)
from app.games.service import GameService, LoadedGame, MoveResult
from app.kit.auth import BearerCredentials, BearerDep, bearer_of
from app.kit.clock import ClockDep
from app.kit.database import LoopStatements, statements_commit_alone
from app.kit.deps import OneHopRoute, ReadSessionDep, SessionDep, in_session, release
from app.kit.errors import PayloadTooLargeProblem, ServiceUnavailableProblem, ValidationProblem
from app.kit.headers import (
    ENTITY_TAGS,
    ETAG,
    IDEMPOTENT_REPLAYED,
    LOCATION,
    NO_STORE,
    REVALIDATE,
    Headers,
    etag,
    if_none_match,
)
from app.kit.paging import PAGE_HEADERS, CursorParam, decode_cursor, encode_cursor, link_next
from app.kit.problems import problem_responses
from app.kit.ratelimit import RATE_LIMIT_HEADERS, Budget, RateLimitedProblem, rate_limit, spend
from app.kit.workload import WorkLimiter
from app.players.service import PLAYER_PROBLEMS, Player, PlayerService

# OneHopRoute: a sync endpoint, its game's loading and the commit in one threadpool trip.
router = APIRouter(prefix="/v1/games", tags=["games"], route_class=OneHopRoute)


# No I/O in these, so async: a sync dependency costs a hop through the threadpool.
async def get_solver(request: Request) -> WorkLimiter:
    limiter: WorkLimiter = request.app.state.solver
    return limiter


def writing_service(session: Session, request: Request) -> GameService:
    """The games service of a writing request, with what follows games' ends: the
    player's statistics (and the challenge's board) count in the same transaction."""
    service = game_service(session, request)
    settings = request.app.state.settings
    service.on_end = (
        PlayerService(session).game_ended,
        ChallengeService(session, settings).game_ended,
    )
    return service


async def get_game_service(session: SessionDep, request: Request) -> GameService:
    return writing_service(session, request)


@dataclass(frozen=True, slots=True)
class GameToMove:
    """What a move route works with: the game's id and the caller's credential, its move
    budget spent; ``move`` moves the game."""

    request: Request
    game_id: str
    credential: str

    async def move(
        self,
        move_text: str,
        response: Response,
        *,
        if_match: str | None = None,
        idempotency_key: str | None = None,
        expect: dict[str, Any] | None = None,
    ) -> GameRead:
        """On PostgreSQL a plain move is read and written on the event loop (no trip
        through the threadpool: ``move_on_loop``); every other move, and every move on
        SQLite, in a writing session, in one trip: load, move, commit."""
        app = self.request.app
        statements: LoopStatements | None = app.state.loop_statements
        if statements is not None and idempotency_key is None and statements.serves():
            clock = app.state.clock
            result = await move_on_loop(
                statements,
                self.game_id,
                self.credential,
                move_text,
                if_match=if_match,
                expect=expect,
                settings=app.state.settings,
                clock=clock,
            )
            if result is not None:
                return _move_answer(result, response, clock())

        def in_trip(session: Session) -> GameRead:
            service = writing_service(session, self.request)
            game = load_for_move(service, self.game_id, self.credential)
            result = service.move(
                game, move_text, if_match=if_match, idempotency_key=idempotency_key, expect=expect
            )
            return _move_answer(result, response, service.clock())

        return await run_in_threadpool(in_session, self.request, in_trip)


async def game_to_move(
    game_id: GameIdPath, credentials: BearerCredentials, request: Request, response: Response
) -> GameToMove:
    """The move routes' one dependency: the caller's move budget spent and the
    credential read. One, not five (a budget, a credential, a session, a service, a
    game): each dependency FastAPI solves costs about 2% of a move's server CPU."""
    await spend(request, response, Budget.MOVE)
    return GameToMove(request, game_id, bearer_of(credentials))


async def get_read_game_service(session: ReadSessionDep, request: Request) -> GameService:
    return game_service(session, request)


GameServiceDep = Annotated[GameService, Depends(get_game_service)]
GameToMoveDep = Annotated[GameToMove, Depends(game_to_move)]
SolverDep = Annotated[WorkLimiter, Depends(get_solver)]


def solver_free(kind: str) -> Any:
    """A dependency that refuses (503) before anything is loaded when the worker's
    search slots are all taken: a refusal then costs no query."""

    async def check(solver: SolverDep) -> None:
        solver.ensure_free(kind)

    return Depends(check)


ReadGameServiceDep = Annotated[GameService, Depends(get_read_game_service)]
IfMatchHeader = Annotated[
    str | None,
    Header(
        max_length=200,
        pattern=ENTITY_TAGS,
        description='The ETag of the game as last seen (e.g. "v12"), or several separated '
        "by commas, or *: the move is refused with 412 precondition-failed (and nothing "
        "changes) unless the game is still at that version. Strong comparison: a weak tag "
        '(W/"v12") never matches. Without it the move applies to whatever version the game '
        "is at.",
        examples=['"v12"'],
    ),
]
IfNoneMatchHeader = Annotated[
    str | None,
    Header(
        max_length=200,
        pattern=ENTITY_TAGS,
        description='The ETag of the game as last seen (e.g. "v12"), or *: when the game is '
        "still at that version the answer is 304 Not Modified with no body (weak "
        "comparison: W/ is ignored), so a client that polls pays for no body.",
        examples=['"v12"'],
    ),
]
IdempotencyKeyHeader = Annotated[
    str | None,
    Header(
        min_length=1,
        max_length=128,
        description="A key the client makes for each move (1-128 characters, a UUID say): "
        "retrying with the same key returns the first answer (Idempotent-Replayed: true) and "
        "applies nothing twice; the same key with another move is a 422 "
        "idempotency-key-reused. Optional.",
        examples=["4f1c2b7e-move-12"],
    ),
]

# What a route on a game may answer besides its result: what opening the game may raise,
# and what each route adds to it.
READ_PROBLEMS = (
    *ACCESS_PROBLEMS,
    ValidationProblem,
    RateLimitedProblem,
    ServiceUnavailableProblem,
)
READ_ERRORS = problem_responses(*READ_PROBLEMS)
MOVE_ERRORS = problem_responses(
    *READ_PROBLEMS,
    IllegalMoveProblem,
    GameOverProblem,
    MoveLimitProblem,
    ConflictProblem,
    PreconditionFailedProblem,
    PayloadTooLargeProblem,
    IdempotencyMismatchProblem,
)

# OpenAPI links: how a client (or a stateful fuzzer) follows a game from one answer to the
# next call. The game id is in every game body; the token only in create_game's answer.
GAME_OPERATIONS = (
    "get_game",
    "list_legal_moves",
    "make_move",
    "play_card",
    "draw_card",
    "concede_game",
    "get_score",
    "list_moves",
    "get_hint",
    "get_analysis",
)


def game_links(
    id_pointer: str, *, token: bool = False, legal_move: str | None = None
) -> dict[str, Any]:
    """Links from an answer naming a game (at ``id_pointer``) to every call on that game;
    ``token`` when the answer carries the player token, ``legal_move`` a pointer to a legal
    move in it, which make_move accepts unchanged."""
    links: dict[str, Any] = {}
    for operation in GAME_OPERATIONS:
        parameters = {"path.game_id": f"$response.body#{id_pointer}"}
        if token:
            parameters["header.Authorization"] = "Bearer {$response.body#/token}"
        link: dict[str, Any] = {
            "operationId": operation,
            "parameters": parameters,
            "description": f"Call {operation} on this game",
        }
        if operation == "make_move" and legal_move is not None:
            link["requestBody"] = f"$response.body#{legal_move}"
            link["description"] = "Post one of the game's legal moves back unchanged"
        links[operation] = link
    return links


def ok_with_links(
    status_code: int, id_pointer: str, *headers: Headers, **options: Any
) -> dict[int | str, dict[str, Any]]:
    """The success answer of a route on a game: its links, the rate-limit headers every
    answer of a limited route carries, and ``headers``."""
    declared: Headers = {**RATE_LIMIT_HEADERS}
    for more in headers:
        declared.update(more)
    return {status_code: {"links": game_links(id_pointer, **options), "headers": declared}}


# A read that names the game's version answers 304 to a client whose If-None-Match names
# it still.
NOT_MODIFIED: dict[int | str, dict[str, Any]] = {
    304: {
        "description": "Not Modified: the game is still at the version If-None-Match names "
        "(no body)",
        "headers": {**RATE_LIMIT_HEADERS, **ETAG, **REVALIDATE},
    }
}


def fresh_or_not_modified(
    version: int, response: Response, if_none_match_header: str | None
) -> Response | None:
    """Tag the answer with the game's ``version``; a 304 (with the same headers) when
    ``if_none_match_header`` names it."""
    response.headers["ETag"] = etag(version)
    response.headers["Cache-Control"] = "private, no-cache"
    if if_none_match_header is not None and if_none_match(if_none_match_header, version):
        return Response(status_code=status.HTTP_304_NOT_MODIFIED, headers=dict(response.headers))
    return None


def created(response: Response, game: LoadedGame) -> None:
    """The headers of a new game's answer: where it is, its version, and no cache (the
    answer holds its token)."""
    response.headers["Location"] = f"/v1/games/{game.row.id}"
    response.headers["ETag"] = etag(game.state.moves_made)
    response.headers["Cache-Control"] = "no-store"


CREATED_HEADERS = (LOCATION, ETAG, NO_STORE)
MOVE_RESPONSES = {
    **ok_with_links(200, "/id", ETAG, IDEMPOTENT_REPLAYED, legal_move="/legal_moves/0"),
    **MOVE_ERRORS,
}


def legal_move_objects(
    state: GameState, moves: Iterable[engine.Move] | None = None
) -> list[LegalMoveRead]:
    """``moves`` (by default the state's legal moves) as make_move accepts them."""
    return [LegalMoveRead.model_validate(m) for m in legal_moves_read(state, moves)]


def game_out(game: LoadedGame, now: datetime) -> dict[str, Any]:
    """The game as its player may see it; the deal only once the game has ended (and a
    challenge's game only once its day is over too)."""
    row, state = game.row, game.state
    reveal = None
    if state.is_over and not deal_secret(row, now):
        reveal = RevealRead(deal=row.deal.split(), salt=row.salt, deal_number=row.deal_number)
    challenge = None
    if row.challenge_id is not None and row.reveal_after is not None:
        ended_in_time = row.ended_at is not None and row.ended_at < row.reveal_after
        challenge = ChallengeLinkRead(
            id=row.challenge_id,
            ranked=ended_in_time or (row.ended_at is None and now < row.reveal_after),
            reveal_after=row.reveal_after,
        )
    return {
        "id": row.id,
        **state_read(state),
        "deal_number": row.deal_number if row.deal_chosen else None,
        "commitment": row.commitment,
        "reveal": reveal,
        "player_id": row.player_id,
        "challenge": challenge,
        "created_at": row.created_at,
        "updated_at": row.updated_at,
    }


def deal_secret(row: Game, now: datetime) -> bool:
    """Whether the game's deal must stay secret now whatever its state: a challenge's
    game before its day is over."""
    return row.reveal_after is not None and now < row.reveal_after


def _move_answer(result: MoveResult, response: Response, now: datetime) -> GameRead:
    """The answer to a move, at ``now``: the move routes take it from their service's
    clock (the app's, which ClockDep would give), a dependency fewer to solve a move."""
    response.headers["ETag"] = etag(result.game.state.moves_made)
    if result.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return GameRead.model_validate(game_out(result.game, now))


@router.post(
    "",
    operation_id="create_game",
    dependencies=[rate_limit(Budget.CREATE)],
    status_code=status.HTTP_201_CREATED,
    response_model=GameCreated,
    responses={
        **ok_with_links(201, "/id", *CREATED_HEADERS, token=True, legal_move="/legal_moves/0"),
        **problem_responses(
            PayloadTooLargeProblem,
            ValidationProblem,
            *PLAYER_PROBLEMS,
            RateLimitedProblem,
            ServiceUnavailableProblem,
        ),
    },
    summary="Create a game",
    # The bearer is optional here (anonymous games): FastAPI declares it, and this adds
    # the alternative of none (the lists add up).
    openapi_extra={"security": [{}]},
    description=(
        "Anonymous, or with a player key in `Authorization: Bearer`: the game is then the "
        "player's (in list_my_games, in their statistics when it ends), and every call on "
        "it accepts the key as well as the game's token."
    ),
)
def create_game(
    body: Annotated[GameCreate, Body(openapi_examples=CREATE_EXAMPLES)],
    service: GameServiceDep,
    solver: SolverDep,
    player: OptionalPlayer,
    response: Response,
    clock: ClockDep,
) -> GameCreated:
    # Its one write, the game's row, commits alone (PostgreSQL: no BEGIN, no COMMIT).
    statements_commit_alone(service.session)
    game, token = service.create(body, solver, player.id if player is not None else None)
    created(response, game)
    return GameCreated.model_validate({**game_out(game, clock()), "token": token})


@router.get(
    "/{game_id}",
    operation_id="get_game",
    dependencies=[rate_limit(Budget.READ)],
    response_model=GameRead,
    responses={
        **ok_with_links(200, "/id", ETAG, REVALIDATE, legal_move="/legal_moves/0"),
        **NOT_MODIFIED,
        **READ_ERRORS,
    },
    summary="The game's state as its player sees it",
)
async def get_game(
    game: GameForRead,
    response: Response,
    clock: ClockDep,
    if_none_match: IfNoneMatchHeader = None,
) -> GameRead | Response:
    """The table as its player sees it: face-up cards, the waste, the stock's count, the legal
    moves, the score and the version (also the `ETag`). Face-down and stock cards are never sent;
    a finished game reveals its deal and salt.
    """
    unchanged = fresh_or_not_modified(game.state.moves_made, response, if_none_match)
    return unchanged or GameRead.model_validate(game_out(game, clock()))


@router.get(
    "/{game_id}/legal-moves",
    operation_id="list_legal_moves",
    dependencies=[rate_limit(Budget.READ)],
    response_model=LegalMoveList,
    responses={
        **ok_with_links(200, "/game_id", ETAG, REVALIDATE, legal_move="/legal_moves/0"),
        **NOT_MODIFIED,
        **READ_ERRORS,
    },
    summary="Every legal move, each as make_move accepts it",
)
async def list_legal_moves(
    game: GameForRead, response: Response, if_none_match: IfNoneMatchHeader = None
) -> LegalMoveList | Response:
    """Each legal move as an object that make_move accepts unchanged. The list is empty once the
    game is over.
    """
    unchanged = fresh_or_not_modified(game.state.moves_made, response, if_none_match)
    return unchanged or LegalMoveList(
        game_id=game.row.id,
        version=game.state.moves_made,
        status=game.state.outcome,
        legal_moves=legal_move_objects(game.state),
    )


@router.post(
    "/{game_id}/moves",
    operation_id="make_move",
    response_model=GameRead,
    responses=MOVE_RESPONSES,
    summary="Apply one move (a legal-move object posted back unchanged, or its string)",
)
async def make_move(
    moving: GameToMoveDep,
    body: MoveCreate,
    response: Response,
    if_match: IfMatchHeader = None,
    idempotency_key: IdempotencyKeyHeader = None,
) -> GameRead:
    """Applies one move, given as a legal-move object from list_legal_moves or as its string (`play
    21`, `draw`, ...). Send `If-Match` with the last `ETag` to refuse a stale move (412), and an
    `Idempotency-Key` to retry safely. An illegal move is a 400 illegal-move problem; a finished
    game's, 409 game-over.
    """
    expect = body.model_dump(exclude={"move"}, exclude_none=True)
    return await moving.move(
        body.move, response, if_match=if_match, idempotency_key=idempotency_key, expect=expect
    )


@router.post(
    "/{game_id}/play",
    operation_id="play_card",
    response_model=GameRead,
    responses=MOVE_RESPONSES,
    summary="Play the free card at a position onto the waste",
)
async def play_card(
    moving: GameToMoveDep,
    body: PlayCreate,
    response: Response,
    if_match: IfMatchHeader = None,
    idempotency_key: IdempotencyKeyHeader = None,
) -> GameRead:
    """Plays the free card at `position` onto the waste. Send `card` too to have the play
    refused (422 validation) unless that card is there. `If-Match` and `Idempotency-Key` work as
    in make_move.
    """
    expect = {"card": body.card} if body.card is not None else None
    return await moving.move(
        f"play {body.position}",
        response,
        if_match=if_match,
        idempotency_key=idempotency_key,
        expect=expect,
    )


def _simple_move(move: str, operation_id: str, summary: str, description: str) -> None:
    async def endpoint(
        moving: GameToMoveDep,
        response: Response,
        if_match: IfMatchHeader = None,
        idempotency_key: IdempotencyKeyHeader = None,
    ) -> GameRead:
        return await moving.move(move, response, if_match=if_match, idempotency_key=idempotency_key)

    endpoint.__name__ = operation_id
    router.add_api_route(
        f"/{{game_id}}/{move}",
        endpoint,
        methods=["POST"],
        operation_id=operation_id,
        response_model=GameRead,
        responses=MOVE_RESPONSES,
        summary=summary,
        description=description,
    )


_simple_move(
    "draw",
    "draw_card",
    "Turn the top stock card onto the waste",
    "The same as make_move with `draw`: the top stock card becomes the waste's top card. When "
    "no stock card, redeal or play is left, the game is lost. `If-Match` and "
    "`Idempotency-Key` work as in make_move.",
)
_simple_move(
    "concede",
    "concede_game",
    "Give up; the score stands and the deal is revealed",
    "The same as make_move with `concede`: the game ends as conceded, its score stands, and "
    "its deal and salt are revealed (a challenge's once its day is over).",
)


@router.get(
    "/{game_id}/score",
    operation_id="get_score",
    dependencies=[rate_limit(Budget.READ)],
    response_model=GameScoreRead,
    responses={
        **ok_with_links(200, "/game_id", ETAG, REVALIDATE),
        **NOT_MODIFIED,
        **READ_ERRORS,
    },
    summary="The score and how it was made",
)
async def get_score(
    game: GameForRead, response: Response, if_none_match: IfNoneMatchHeader = None
) -> GameScoreRead | Response:
    """The score so far (or final) and its parts: streaks, bonuses, draw penalties."""
    unchanged = fresh_or_not_modified(game.state.moves_made, response, if_none_match)
    return unchanged or GameScoreRead.model_validate(
        {
            "game_id": game.row.id,
            "version": game.state.moves_made,
            "status": game.state.outcome,
            "score": game.state.score.to_dict(),
        }
    )


@router.get(
    "/{game_id}/moves",
    operation_id="list_moves",
    dependencies=[rate_limit(Budget.READ)],
    response_model=MoveList,
    responses={
        200: {"links": game_links("/game_id"), "headers": {**PAGE_HEADERS["headers"], **ETAG}},
        **READ_ERRORS,
    },
    summary="The move history, oldest first, a page at a time",
    description=(
        "A page holds up to `limit` moves; when more follow, `next` is the cursor of the "
        'next page (also in `Link: <...>; rel="next"`): send it back as `cursor`. `offset` '
        "(moves to skip) is the other way to page, for a client that wants a page by its "
        "number; it is ignored with a cursor."
    ),
)
def list_moves(
    row: GameRowForRead,
    service: ReadGameServiceDep,
    request: Request,
    response: Response,
    offset: Annotated[
        int,
        Query(
            ge=0,
            le=1_000_000,
            description="Moves to skip from the oldest, without a cursor (default 0)",
        ),
    ] = 0,
    limit: Annotated[
        int, Query(ge=1, le=1000, description="The most moves a page holds, 1-1000 (default 100)")
    ] = 100,
    cursor: CursorParam = None,
) -> MoveList:
    after = int(decode_cursor(cursor, 1)[0]) if cursor is not None else None
    moves = service.history(row, offset, limit + 1, after)
    next_cursor = encode_cursor([moves[limit - 1].seq]) if len(moves) > limit else None
    link_next(request, response, next_cursor)
    response.headers["ETag"] = etag(row.version)
    return MoveList(
        game_id=row.id,
        total=row.version,
        moves=[MoveRead(seq=m.seq, move=m.move, created_at=m.created_at) for m in moves[:limit]],
        next=next_cursor,
    )


@router.get(
    "/{game_id}/hint",
    operation_id="get_hint",
    dependencies=[rate_limit(Budget.SOLVER), solver_free("hint")],
    response_model=HintRead,
    responses={
        **ok_with_links(200, "/game_id", ETAG),
        **problem_responses(*READ_PROBLEMS, GameOverProblem, RankedGameProblem),
    },
    summary="A suggested move, from what the player can see",
    description=(
        "Samples the hidden cards consistently with the player's view, solves each sample "
        "and suggests the move that wins the most of them; of moves within 2% of the samples "
        "of that, a play that turns a face-down card up first (under open_peaks with nothing "
        "else hidden, the exact answer). `win_chance` is what a player following the hints "
        "wins from such a position, with its interval; `sample_share` what one who could see "
        "every card would. The search has a time budget (HINT_BUDGET_MS); "
        "with `samples` it solves exactly that many, so that `seed` makes it repeatable."
    ),
)
def get_hint(
    game: GameForRead,
    request: Request,
    response: Response,
    solver: SolverDep,
    clock: ClockDep,
    seed: Annotated[
        int | None,
        Query(
            ge=0,
            le=2**32 - 1,
            description="Seeds the sampling of the hidden cards; with samples, the same seed "
            "gives the same hint. Default: a random seed.",
            examples=[42],
        ),
    ] = None,
    samples: Annotated[
        int | None,
        Query(
            ge=1,
            le=solving.MAX_HINT_SAMPLES,
            description="Solve exactly this many samples (still within the server's "
            "HINT_BUDGET_MS). Default: as many as the budget allows.",
            examples=[64],
        ),
    ] = None,
) -> HintRead:
    if not game.state.is_over and deal_secret(game.row, clock()):
        raise RankedGameProblem(
            "no hints in a ranked challenge game: the leaderboard compares unaided play",
            challenge_id=game.row.challenge_id,
        )
    result = solving.suggest(game.state, request.app.state.settings, solver, seed, samples)
    move = next(m for m in legal_move_objects(game.state) if m.move == result.move)
    response.headers["ETag"] = etag(game.state.moves_made)
    return HintRead(
        game_id=game.row.id,
        version=game.state.moves_made,
        move=move,
        win_chance=round(result.win_chance, 4),
        win_chance_ci95=[round(x, 4) for x in result.ci95],
        sample_share=round(result.sample_share, 4),
        samples=result.samples,
        exact=result.exact,
        unknown=result.unknown,
    )


# What a kept analysis (engine.hints.Analysis.to_dict) gives an answer.
ANALYSIS_FIELDS = (
    "final_score",
    "winnable",
    "win_line",
    "best_score",
    "best_line",
    "lost_at",
    "lost_move",
    "complete",
)


@router.get(
    "/{game_id}/analysis",
    operation_id="get_analysis",
    dependencies=[rate_limit(Budget.SOLVER)],
    response_model=AnalysisRead,
    responses={
        **ok_with_links(200, "/game_id"),
        **problem_responses(*READ_PROBLEMS, GameInProgressProblem, RankedGameProblem),
    },
    summary="For a finished game: could it be cleared, its best score, where it was lost",
)
def get_analysis(
    game: GameForRead,
    reader: ReadGameServiceDep,
    writer: GameServiceDep,
    solver: SolverDep,
    request: Request,
    clock: ClockDep,
) -> AnalysisRead:
    """For a finished game: whether its deal could be cleared, the best score the solver found and
    the line to it, and where the game was lost. A game in progress gets 409 game-in-progress.
    """
    if game.state.is_over and deal_secret(game.row, clock()):
        raise RankedGameProblem(
            "a challenge's game is analysed once its day is over: the analysis would show "
            "the day's deal to players who have not played it yet",
            challenge_id=game.row.challenge_id,
            reveal_after=game.row.reveal_after.isoformat() if game.row.reveal_after else None,
        )
    stored, log = reader.analysis_inputs(game)
    release(reader.session)  # the search below holds no transaction and no connection
    if stored is None:
        result = solving.analyse(game.state, request.app.state.settings, solver, log)
        stored = writer.store_analysis(Analysis(game_id=game.row.id, body=result.to_dict()))
    return AnalysisRead(
        game_id=game.row.id,
        status=game.state.outcome,
        scoring=game.state.rules.scoring,
        **{name: stored.body[name] for name in ANALYSIS_FIELDS},
    )


# -- a challenge's attempt: a game, answered as create_game answers ------------------------
challenge_router = APIRouter(prefix="/v1/challenges", tags=["challenges"], route_class=OneHopRoute)


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


def player_for_attempt(credential: BearerDep, session: ReadSessionDep) -> Player:
    player = PlayerService(session).resolve(credential)
    release(session)
    return player


async def get_challenges(session: SessionDep, request: Request) -> ChallengeService:
    return ChallengeService(session, request.app.state.settings)


async def get_read_challenges(session: ReadSessionDep, request: Request) -> ChallengeService:
    return ChallengeService(session, request.app.state.settings)


@challenge_router.post(
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
def start_challenge_game(
    target: Annotated[tuple[date, str], Depends(challenge_of_path)],
    player: Annotated[Player, Depends(player_for_attempt)],
    reader: Annotated[ChallengeService, Depends(get_read_challenges)],
    writer: Annotated[ChallengeService, Depends(get_challenges)],
    solver: SolverDep,
    clock: ClockDep,
    request: Request,
    response: Response,
) -> GameCreated:
    day, layout = target
    now = clock()
    check_open(day, now)  # before the day's deal is dealt: a closed day deals none
    challenge = ensure_challenge(
        day,
        layout,
        reader,
        writer,
        solver,
        request.app.state.sessions,
    )
    game, token = writer.start(challenge, player, now)
    created(response, game)
    return GameCreated.model_validate({**game_out(game, now), "token": token})
