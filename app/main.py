"""create_app(): the FastAPI application."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from granian.utils.proxies import wrap_asgi_with_proxy_headers

from app import (
    __version__,
    models,  # noqa: F401 - every table on the metadata: foreign keys cross domains
)
from app.challenges import endpoints as challenges
from app.challenges.service import enter_ended_game
from app.duels import endpoints as duels
from app.duels.service import duel_game_ended, leave_duels
from app.events import endpoints as events
from app.events.service import apply_events_file, total_round_result
from app.games import endpoints as games
from app.games.service import unlink_deleted_player
from app.kit.auth import hash_secret
from app.kit.database import make_database
from app.kit.events import Listeners
from app.kit.examples import keep_example_nulls
from app.kit.headers import install_spec_headers
from app.kit.logs import configure_logging
from app.kit.middleware import (
    HeadAsGet,
    HeadSize,
    NoCORS,
    ProblemCORSMiddleware,
    RefusedBudget,
    RelativeLocation,
    RequestBody,
    VaryOrigin,
)
from app.kit.models import utcnow
from app.kit.problems import install_problem_handlers
from app.kit.ratelimit import Budget, limiter_from
from app.kit.workload import SolverPool
from app.layouts import endpoints as layouts
from app.ops import health, metrics
from app.ops.docs import install_docs
from app.ops.jobs import ScheduledJobs
from app.ops.middleware import PROBES, RequestObservability
from app.players import endpoints as players
from app.players.service import count_ended_game
from app.settings import Settings, get_settings
from app.web import mount_web_client

API_VERSION = __version__
# What the search processes import once, before they fork (the engine alone).
SEARCH_MODULES = ("app.engine.hints", "app.engine.solver", "app.engine.fairplay")
DESCRIPTION = """\
A JSON/HTTP game server for TriPeaks Solitaire.

Create a game, read its legal moves and post one back unchanged. Every call on a game
needs its player token (`Authorization: Bearer`), returned once by `create_game`. States
carry a version and an `ETag`; send `If-Match` to refuse a stale move (412), and an
`Idempotency-Key` to retry a move safely. Errors are RFC 9457 `application/problem+json`
with a stable `type` per kind. Face-down and stock cards are never sent; when a game ends
its deal and salt are revealed, matching the `commitment` given at creation.

Every route that answers GET answers HEAD too, with the same status and headers and no
body. A server that allows CORS (`CORS_ORIGINS`) sends `Vary: Origin` on every answer
(its CORS headers depend on the caller's origin), so that a shared cache keeps one answer
per origin; without CORS it sends no `Vary`.
"""


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    configure_logging(settings.log_level, settings.log_format)
    database = make_database(settings)
    solver = SolverPool(
        settings.solver_concurrency, preload=SEARCH_MODULES, niceness=settings.solver_niceness
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # The events file's events, made or brought up to date (a bad file stops the start).
        await apply_events_file(database, settings)
        # The app's clock, read at each use: the routes' time.
        jobs = ScheduledJobs(database, settings, solver, lambda: app.state.clock())
        if settings.scheduled_jobs:
            jobs.start()
        try:
            yield
        finally:
            await jobs.stop()
            solver.close()
            await database.dispose()
            metrics.mark_process_dead()

    app = FastAPI(
        title="TriPeaks server",
        version=API_VERSION,
        description=DESCRIPTION,
        lifespan=lifespan,
        # The committed spec (`make openapi`) is made from app.openapi(), served or not.
        # /docs and /redoc are install_docs' own, with their assets served from here.
        docs_url=None,
        redoc_url=None,
        openapi_url="/openapi.json" if settings.docs_enabled else None,
        # Relative: generated clients take their base URL from the caller, and /docs tries
        # requests on the server that serves it.
        servers=[{"url": "/", "description": "The server that serves this document"}],
        contact={"name": "The TriPeaks server authors"},
        license_info={"name": "MIT", "identifier": "MIT"},
        openapi_tags=[
            {"name": "games", "description": "Create and play games"},
            {"name": "layouts", "description": "The geometry to draw a table"},
            {"name": "players", "description": "Accounts by key, their games and statistics"},
            {
                "name": "challenges",
                "description": "The daily challenge, challenges players set, practice and the "
                "leaderboards",
            },
            {"name": "events", "description": "Events operators run: editions, rounds, cohorts"},
            {
                "name": "duels",
                "description": "Ranked duels on one server-drawn deal, ratings and their boards",
            },
            {
                "name": "operators",
                "description": "Running events (the operator's token; 404 without one set)",
            },
            {"name": "operations", "description": "Health and readiness"},
        ],
    )
    app.state.settings = settings
    app.state.database = database
    app.state.solver = solver
    app.state.clock = utcnow
    # The operators' token, kept as its hash (compared as every secret is).
    app.state.operator_token_hash = (
        hash_secret(settings.operator_token) if settings.operator_token else None
    )
    # What follows a game's end, and a player's deletion, in the same transaction.
    app.state.listeners = Listeners(
        game_ended=(count_ended_game, enter_ended_game, total_round_result, duel_game_ended),
        player_deleted=(unlink_deleted_player, leave_duels),
    )
    app.state.rate_limiter = limiter_from(
        settings.rate_limits_enabled,
        settings.rate_limit_storage_url,
        settings.rate_limit_key_prefix,
        {
            Budget.READ: settings.rate_limit_read,
            Budget.MOVE: settings.rate_limit_move,
            Budget.CREATE: settings.rate_limit_create,
            Budget.SOLVER: settings.rate_limit_solver,
            Budget.REFUSED: settings.rate_limit_refused,
        },
    )
    install_problem_handlers(app)
    install_spec_headers(app)
    keep_example_nulls(app)
    # In the order of the committed spec's paths.
    routers = (
        games.router,
        layouts.router,
        players.router,
        games.player_games_router,
        challenges.player_challenges_router,
        players.profile_router,
        challenges.router,
        events.router,
        events.operator_router,
        duels.router,
        duels.player_duels_router,
        duels.ratings_router,
        health.router,
        metrics.router,
    )
    for router in routers:
        app.include_router(router)
    if settings.docs_enabled:
        install_docs(app)
    mount_web_client(app)
    # Added innermost first. CORS wraps every answer but the request log's, so that a
    # browser can read a 413 or a 503 made by the middleware inside it.
    app.add_middleware(
        RequestBody, max_bytes=settings.max_body_bytes, timeout_s=settings.body_timeout_s
    )
    app.add_middleware(HeadSize, max_bytes=settings.max_header_bytes)
    # Outside the two that refuse a request's head and body, so that their refusals count
    # and a barred client's body is never read.
    if app.state.rate_limiter is not None:
        app.add_middleware(
            RefusedBudget,
            limiter=app.state.rate_limiter,
            exempt=PROBES,
            delay_s=settings.refused_delay_ms / 1000,
        )
    app.add_middleware(HeadAsGet)
    app.add_middleware(RelativeLocation)
    # Without CORS, no answer depends on the caller's origin: none says it varies by it.
    if settings.cors_origins:
        app.add_middleware(
            ProblemCORSMiddleware,
            allow_origins=settings.cors_origins,
            # Every method a route answers (follow_player is a PUT).
            allow_methods=["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
            allow_headers=[
                "Authorization",
                "Content-Type",
                "If-Match",
                "If-None-Match",
                "Idempotency-Key",
                "X-Request-ID",
            ],
            expose_headers=[
                "ETag",
                "Location",
                "Idempotent-Replayed",
                "X-Request-ID",
                "Retry-After",
                "RateLimit",
                "RateLimit-Policy",
                "Link",
            ],
            max_age=600,
        )
        app.add_middleware(VaryOrigin)
    else:
        app.add_middleware(NoCORS)
    # Outermost: it sees every answer. It names a request by its route's template: the
    # routes of the routers, and the app's own (docs, the web client).
    routes = [*app.routes, *(route for router in routers for route in router.routes)]
    app.add_middleware(RequestObservability, routes=routes)
    # Outside even the request log, so that it logs and budgets the client a trusted proxy
    # names: X-Forwarded-For/-Proto count from FORWARDED_ALLOW_IPS alone.
    app.add_middleware(wrap_asgi_with_proxy_headers, trusted_hosts=settings.forwarded_allow_ips)
    return app
