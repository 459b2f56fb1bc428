"""The game endpoints (under /v1), and a player's games (under /v1/players/me)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Header, Query, Request, Response, status
from pydantic import TypeAdapter

from app import engine
from app.engine import GameState, GameStatus
from app.games import solving
from app.games.access import (
    ACCESS_PROBLEMS,
    GameForRead,
    GameRowForRead,
    GameToMove,
    GameToMoveDep,
    OptionalPlayer,
    game_service,
)
from app.games.errors import (
    ConflictProblem,
    GameInProgressProblem,
    GameOverProblem,
    IdempotencyMismatchProblem,
    IllegalMoveProblem,
    MoveLimitProblem,
    OpenChallengeDealProblem,
    PreconditionFailedProblem,
    RankedGameProblem,
)
from app.games.models import Analysis
from app.games.schemas import (
    CREATE_EXAMPLES,
    CREATED_HEADERS,
    AnalysisRead,
    GameCreate,
    GameCreated,
    GameRead,
    GameScoreRead,
    GameSummaryList,
    GameSummaryRead,
    HintRead,
    LegalMoveList,
    LegalMoveRead,
    MoveCreate,
    MoveList,
    MoveRead,
    PlayCreate,
    game_links,
    ok_with_links,
)
from app.games.service import (
    GameService,
    LoadedGame,
    MoveAsked,
    created_headers,
    deal_secret,
    game_created,
    game_read,
)
from app.kit.clock import ClockDep
from app.kit.deps import ReadSessionDep, SessionDep
from app.kit.errors import PayloadTooLargeProblem, ServiceUnavailableProblem, ValidationProblem
from app.kit.headers import (
    ENTITY_TAGS,
    ETAG,
    IDEMPOTENT_REPLAYED,
    REVALIDATE,
    etag,
    if_none_match,
)
from app.kit.paging import (
    PAGE_HEADERS,
    Count32,
    CursorParam,
    RowId,
    UtcTime,
    decode_cursor,
    encode_cursor,
    link_next,
)
from app.kit.problems import problem_responses
from app.kit.ratelimit import RATE_LIMIT_HEADERS, Budget, RateLimitedProblem, issued, rate_limit
from app.kit.schemas import LayoutName
from app.kit.workload import SolverDep, solver_free
from app.players.service import PLAYER_PROBLEMS, PlayerForRead

router = APIRouter(prefix="/v1/games", tags=["games"])
# The cursors of the games' lists: a move's number; a game's creation time and id.
MOVES_CURSOR = TypeAdapter(tuple[Count32])
GAMES_CURSOR = TypeAdapter(tuple[UtcTime, RowId])


async def get_game_service(session: SessionDep, request: Request) -> GameService:
    return game_service(session, request)


async def get_read_game_service(session: ReadSessionDep, request: Request) -> GameService:
    return game_service(session, request)


GameServiceDep = Annotated[GameService, Depends(get_game_service)]
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

# A read that names the game's version answers 304 to a client whose If-None-Match names
# it still.
NOT_MODIFIED: dict[int | str, dict[str, Any]] = {
    304: {
        "description": "Not Modified: the game is still at the version If-None-Match names "
        "(no body)",
        "headers": {**RATE_LIMIT_HEADERS, **ETAG, **REVALIDATE},
    }
}


def revealed_late(game: LoadedGame, now: datetime) -> bool:
    """Whether the game shows a deal it showed not when it ended: a challenge's or a
    duel's, revealed once it closed (with no new version; its tag says so)."""
    return (
        game.state.is_over and game.row.reveal_after is not None and not deal_secret(game.row, now)
    )


def fresh_or_not_modified(
    version: int, response: Response, if_none_match_header: str | None, revealed: bool = False
) -> Response | None:
    """Tag the answer with the game's ``version`` (and whether it shows the deal); a 304
    (with the same headers) when ``if_none_match_header`` names it."""
    response.headers["ETag"] = etag(version, revealed)
    response.headers["Cache-Control"] = "private, no-cache"
    if if_none_match_header is not None and if_none_match(if_none_match_header, version, revealed):
        return Response(status_code=status.HTTP_304_NOT_MODIFIED, headers=dict(response.headers))
    return None


MOVE_RESPONSES = {
    **ok_with_links(200, "/id", ETAG, IDEMPOTENT_REPLAYED, legal_move="/legal_moves/0"),
    **MOVE_ERRORS,
}


def legal_move_objects(state: GameState) -> list[LegalMoveRead]:
    """The state's legal moves as make_move accepts them."""
    view = engine.view_of(state)
    return [LegalMoveRead.present(view, move) for move in view.legal_moves]


async def answer_move(moving: GameToMove, asked: MoveAsked, response: Response) -> GameRead:
    """Every move route's one way: the checked game moved by its service, and the answer
    (the new state, its ETag; a replay says so)."""
    result = await moving.service.move(moving.game, asked)
    now = moving.service.clock()
    read = game_read(result.game, now)
    response.headers["ETag"] = etag(result.game.state.moves_made, revealed_late(result.game, now))
    if result.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return read


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
            OpenChallengeDealProblem,
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
        "it accepts the key as well as the game's token. A chosen deal (`deal` or "
        "`deal_number`) whose tableau is that of a challenge still open, or the same "
        "(suits, ranks reversed or turned, the table mirrored), whatever its waste card "
        "and stock, is 409 open-challenge-deal until it closes."
    ),
)
async def create_game(
    body: Annotated[GameCreate, Body(openapi_examples=CREATE_EXAMPLES)],
    service: GameServiceDep,
    solver: SolverDep,
    player: OptionalPlayer,
    reading: ReadSessionDep,
    request: Request,
    response: Response,
) -> GameCreated:
    # The player's key is read (if any): its connection goes back to the pool before a
    # winnable deal is searched for.
    await reading.close()
    game, token = await service.create(body, solver, player.id if player is not None else None)
    issued(request, token)
    response.headers.update(created_headers(game))
    return game_created(game, token, service.clock())


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
    now = clock()
    unchanged = fresh_or_not_modified(
        game.state.moves_made, response, if_none_match, revealed_late(game, now)
    )
    return unchanged or game_read(game, now)


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
    dependencies=[rate_limit(Budget.MOVE)],
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
    asked = MoveAsked(
        body.move,
        if_match,
        idempotency_key,
        kind=body.kind,
        position=body.position,
        card=body.card,
    )
    return await answer_move(moving, asked, response)


@router.post(
    "/{game_id}/play",
    operation_id="play_card",
    dependencies=[rate_limit(Budget.MOVE)],
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
    asked = MoveAsked(f"play {body.position}", if_match, idempotency_key, card=body.card)
    return await answer_move(moving, asked, response)


def _simple_move(move: str, operation_id: str, summary: str, description: str) -> None:
    async def endpoint(
        moving: GameToMoveDep,
        response: Response,
        if_match: IfMatchHeader = None,
        idempotency_key: IdempotencyKeyHeader = None,
    ) -> GameRead:
        return await answer_move(moving, MoveAsked(move, if_match, idempotency_key), response)

    endpoint.__name__ = operation_id
    router.add_api_route(
        f"/{{game_id}}/{move}",
        endpoint,
        methods=["POST"],
        operation_id=operation_id,
        dependencies=[rate_limit(Budget.MOVE)],
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
async def list_moves(
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
    after = decode_cursor(cursor, MOVES_CURSOR)[0] if cursor is not None else None
    moves = await service.history(row, offset, limit + 1, after)
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
        "with `samples` it solves exactly that many, so that `seed` makes it repeatable: a "
        "seeded hint whose budget ran out first is a 503 (retry), never a different hint."
    ),
)
async def get_hint(
    game: GameForRead,
    reading: ReadSessionDep,
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
    await reading.close()  # the game is read: the search holds no connection
    result = await solving.suggest(game.state, request.app.state.settings, solver, seed, samples)
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
async def get_analysis(
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
    # Its reads done, the reading session gives its connection back, and the writing
    # session begins at its first statement: the search holds no transaction, no lock
    # and no connection.
    stored, log = await reader.analysis_inputs(game)
    await reader.session.close()
    if stored is None:
        settings = request.app.state.settings
        result = await solving.analyse(game.state, settings, solver, log)
        rated = await solving.rate(game.state.deal, game.state.rules, settings, solver)
        body = result.to_dict() | {"difficulty": rated.to_dict() if rated is not None else None}
        stored = await writer.store_analysis(Analysis(game_id=game.row.id, body=body))
    return AnalysisRead(
        game_id=game.row.id,
        status=game.state.outcome,
        scoring=game.state.rules.scoring,
        **{name: stored.body[name] for name in ANALYSIS_FIELDS},
        # An analysis kept before anytime answers has a best score only when it was exact,
        # and one kept before difficulties were measured has none.
        best_score_bound=stored.body.get("best_score_bound", stored.body["best_score"]),
        best_score_exact=stored.body.get("best_score_exact", stored.body["best_score"] is not None),
        difficulty=stored.body.get("difficulty"),
    )


# -- a player's games (under /v1/players: app.main lists them among the players' routes) ----
player_games_router = APIRouter(prefix="/v1/players", tags=["players"])


def _after(cursor: str | None) -> tuple[datetime, str] | None:
    """The place a list_my_games cursor names: a game's creation time and id."""
    return decode_cursor(cursor, GAMES_CURSOR) if cursor is not None else None


@player_games_router.get(
    "/me/games",
    operation_id="list_my_games",
    dependencies=[rate_limit(Budget.READ)],
    response_model=GameSummaryList,
    responses={
        200: PAGE_HEADERS,
        **problem_responses(*PLAYER_PROBLEMS, ValidationProblem, RateLimitedProblem),
    },
    summary="The caller's games, newest first, a page at a time",
)
async def list_my_games(
    player: PlayerForRead,
    service: ReadGameServiceDep,
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
    rows = await service.list_for_player(player.id, limit + 1, _after(cursor), status_, layout)
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
            practice_of=g.practice_of,
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
