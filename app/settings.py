"""Settings, from environment variables (one ``Settings`` class, validated at start).

``python -m app.ops.check`` checks the environment and exits 2 with
``invalid configuration: NAME: reason`` when a value is bad (the container's entrypoint
runs it first); the README has the table of every variable. Settings import nothing of
the app: every part of it stands on them.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from limits import parse
from pydantic import Field, ValidationError, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="", case_sensitive=False, extra="ignore")

    database_url: str = Field(
        default="sqlite:///./var/tripeaks.sqlite3",
        description="SQLAlchemy URL: a SQLite file, or postgresql+psycopg://user@host/db",
    )
    host: str = Field(
        default="127.0.0.1", min_length=1, description="Address the server listens on"
    )
    port: int = Field(default=8000, ge=1, le=65535, description="Port the server listens on")
    workers: int = Field(default=1, ge=1, le=64, description="Worker processes")
    cors_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Origins allowed by CORS, comma-separated ('*' for any)",
    )
    log_level: Literal["debug", "info", "warning", "error", "critical"] = "info"
    log_format: Literal["json", "text"] = "json"
    max_body_bytes: int = Field(default=65536, ge=1024, le=16 * 1024 * 1024)
    # Before the budgets: each must be shorter (see _within_shutdown).
    shutdown_timeout_s: int = Field(
        default=30, ge=1, le=600, description="On SIGTERM, seconds to let requests in flight end"
    )
    hint_budget_ms: int = Field(default=250, ge=10, le=10000)
    solver_budget_ms: int = Field(default=3000, ge=100, le=60000)
    analysis_budget_ms: int = Field(
        default=10000,
        ge=100,
        le=600000,
        description="Time budget of a finished game's analysis (computed once, then kept)",
    )
    difficulty_playouts: int = Field(
        default=24,
        ge=1,
        le=256,
        description="Games the hint plays on a deal to measure its difficulty (docs/difficulty.md)",
    )
    difficulty_samples: int = Field(
        default=8,
        ge=1,
        le=64,
        description="Samples the hint solves a decision in those games (by nodes, not time: "
        "a deal's difficulty is the same on every machine)",
    )
    difficulty_budget_ms: int = Field(
        default=10000,
        ge=100,
        le=600000,
        description="Time budget of measuring a deal's difficulty, or of drawing deals until "
        "one of the tier asked for",
    )
    solver_concurrency: int = Field(
        default=2,
        ge=1,
        le=64,
        description="Solver searches (hints, analyses, winnable deals) at once per worker; "
        "one more gets 503 at once",
    )
    solver_niceness: int = Field(
        default=19,
        ge=0,
        le=19,
        description="The CPU niceness of the solver's processes: 19, the lowest priority, "
        "lets requests go first",
    )
    max_moves_per_game: int = Field(
        default=2000,
        ge=100,
        le=1_000_000,
        description="Moves a game may hold (undos included); past it, it can only be conceded",
    )
    rate_limits_enabled: bool = Field(
        default=True, description="Whether the per-client rate limits apply"
    )
    rate_limit_storage_url: str = Field(
        default="memory://",
        description="memory:// (each worker its own budgets) or redis://host:6379/0 (shared)",
    )
    rate_limit_key_prefix: str = Field(
        default="tripeaks", min_length=1, max_length=64, description="Prefix of the Redis keys"
    )
    rate_limit_read: str = Field(
        default="1200/minute", description="Reads a client may make (get a game, its moves...)"
    )
    rate_limit_move: str = Field(default="600/minute", description="Moves a client may make")
    rate_limit_create: str = Field(
        default="60/minute", description="Games a client (an address, without a key) may create"
    )
    rate_limit_solver: str = Field(
        default="60/minute", description="Hints and analyses a client may ask for"
    )
    rate_limit_refused: str = Field(
        default="60/minute",
        description="Requests refused before any other budget was spent (a body too large "
        "or malformed, no such route) a client may send; past it, each of its requests is a "
        "429 before its body is read",
    )
    refused_delay_ms: int = Field(
        default=1000,
        ge=0,
        le=10000,
        description="How long a client barred for its refusals waits for each 429: one that "
        "ignores Retry-After then sends, each such wait, no more requests than it holds "
        "connections",
    )
    retention_unfinished_days: int = Field(
        default=30, ge=1, le=36500, description="Unfinished games untouched this long expire"
    )
    retention_finished_days: int = Field(
        default=90, ge=1, le=36500, description="Finished games are deleted this long after"
    )
    retention_idle_player_days: int = Field(
        default=180,
        ge=1,
        le=36500,
        description="Players who never entered a challenge, made this long ago and with no "
        "game moved since, are deleted (their games become anonymous)",
    )
    retention_player_games: int = Field(
        default=1000,
        ge=1,
        le=1000000,
        description="Finished games kept a player, the newest; older ones are deleted "
        "(the statistics keep counting them)",
    )
    retention_set_challenge_days: int = Field(
        default=365,
        ge=1,
        le=36500,
        description="Challenges players set are deleted this long after they closed, with "
        "their entries and boards (their games stay; practice of them ends)",
    )
    purge_batch_size: int = Field(
        default=500, ge=1, le=100000, description="Games the purge deletes per transaction"
    )
    scheduled_jobs: bool = Field(
        default=True,
        description="Each server process runs the scheduled jobs: the fair-play measure of "
        "the results due (FAIR_PLAY_INTERVAL_S) and, taking turns with every other process, "
        "the purge and the next day's challenges (PURGE_INTERVAL_S). false: neither (run "
        "python -m app.ops.fairplay and python -m app.ops.purge yourself)",
    )
    fair_play_interval_s: int = Field(
        default=15,
        ge=1,
        le=3600,
        description="How long a server process waits, after finding no result due to be "
        "measured, before it looks again",
    )
    purge_interval_s: int = Field(
        default=3600,
        ge=60,
        le=86400,
        description="How often the purge runs (one server process of all, each time); at "
        "most a day, so that the next day's challenges are made before it begins",
    )
    challenge_secret: str | None = Field(
        default=None,
        min_length=32,
        description="The secret the daily challenges' deals derive from (32+ characters; "
        "hex:<64 hex digits> for the bytes a kept secret holds); unset: the server makes "
        "one once and keeps it in the database",
    )
    challenge_max_hours: int = Field(
        default=336,
        ge=1,
        le=8760,
        description="The longest window a player may give a challenge they set, in hours "
        "(14 days by default; the shortest is 1 hour)",
    )
    challenge_open_per_player: int = Field(
        default=10,
        ge=1,
        le=10000,
        description="Challenges a player may have set that have not closed yet",
    )
    challenge_max_entries: int = Field(
        default=1000,
        ge=1,
        le=1000000,
        description="Entrants a challenge a player sets may take",
    )
    duel_match_hours: int = Field(
        default=168,
        ge=1,
        le=2160,
        description="A ranked duel nobody was matched to within this many hours expires, "
        "changing no rating",
    )
    duel_play_hours: int = Field(
        default=24,
        ge=1,
        le=720,
        description="Each player of a ranked duel has this many hours from getting its deal "
        "to finish their game; one who has not loses the duel",
    )
    duel_range_start: int = Field(
        default=100,
        ge=0,
        le=5000,
        description="A waiting duel takes a challenger whose rating is this close to its "
        "host's at once",
    )
    duel_range_per_minute: int = Field(
        default=10,
        ge=0,
        le=5000,
        description="And the range widens by this much each minute it waits",
    )
    duel_range_max: int = Field(
        default=1000,
        ge=0,
        le=5000,
        description="Up to this (ratings further apart are never matched)",
    )
    duel_waiting_per_player: int = Field(
        default=3,
        ge=1,
        le=100,
        description="Duels a player may have waiting for a challenger at once",
    )
    rating_provisional_games: int = Field(
        default=10,
        ge=0,
        le=1000,
        description="A rating is provisional (marked) for its player's first duels in its pool",
    )
    challenge_account_min_hours: int = Field(
        default=24,
        ge=0,
        le=8760,
        description="An account's results are provisional until it is this many hours old, "
        "and in the challenges that opened before it was made (for the daily: a day that "
        "began before it): marked, and on the public boards ranked apart until their "
        "fair-play measure says ok. Nobody is refused for it",
    )
    fair_play_threshold: float = Field(
        default=0.01,
        gt=0,
        lt=1,
        description="A ranked result whose fair-play measure (a p-value against honest "
        "play) is under this is flagged and ranked apart, as is one that leans the "
        "clairvoyant way itself when its player's last FAIR_PLAY_RESULTS measures combined "
        "are under it; the measure is always shown",
    )
    fair_play_stock_z: float = Field(
        default=3.0,
        gt=0,
        le=100,
        description="A ranked result is flagged too when its player's stock evidence, "
        "summed over their last FAIR_PLAY_RESULTS results (this one included), "
        "passes this many standard deviations (honest play: about N(0, 1); the evidence "
        "is always shown)",
    )
    fair_play_results: int = Field(
        default=10,
        ge=1,
        le=1000,
        description="How many of a player's last results (this one included) their "
        "fair-play measures are combined over, and their stock evidence summed over",
    )
    following_max: int = Field(
        default=500, ge=1, le=100000, description="Players one player may follow"
    )
    operator_token: str | None = Field(
        default=None,
        description="The operators' token (32+ characters) for the event routes under "
        "/v1/operator; unset: those routes answer 404 and no event is created but by "
        "EVENTS_FILE",
    )
    events_file: str | None = Field(
        default=None,
        description="A TOML file of events the server makes, or brings up to date, when it "
        "starts ([[event]] tables: a key and create_event's fields)",
    )
    db_pool_size: int = Field(default=5, ge=1, le=100)
    db_statement_timeout_ms: int = Field(default=10000, ge=100, le=600000)
    db_timeout_s: int = Field(
        default=15,
        ge=1,
        le=600,
        description="The longest a request waits on the database (a connection, an answer, "
        "SQLite's write lock) before it gets a 503",
    )
    migrate_on_start: bool = Field(
        default=False, description="The entrypoint runs `alembic upgrade head` before serving"
    )
    max_header_bytes: int = Field(
        default=16384,
        ge=1024,
        le=1024 * 1024,
        description="Largest request head (request line and headers); larger gets 431",
    )
    keep_alive_timeout_s: int = Field(
        default=5,
        ge=1,
        le=3600,
        description="Seconds a connection has, from its opening or its last answer, to send "
        "a whole request head: an idle kept-alive connection or a slow head is closed then",
    )
    body_timeout_s: int = Field(
        default=10,
        ge=1,
        le=600,
        description="Seconds a request's body may take to arrive once its head is in; "
        "slower gets 408",
    )
    max_connections: int = Field(
        default=1000,
        ge=1,
        le=100000,
        description="Connections a worker holds at once; one more waits in the listening "
        "socket's backlog until one closes",
    )
    forwarded_allow_ips: str = Field(
        default="127.0.0.1",
        description="Proxies trusted for X-Forwarded-For/Proto, comma-separated ('*' for any)",
    )
    prometheus_multiproc_dir: str | None = Field(
        default=None,
        description="A writable directory: /metrics then adds up every worker process",
    )
    docs_enabled: bool = Field(
        default=True, description="Serve /docs, /redoc and /openapi.json (the image: false)"
    )
    metrics_token: str | None = Field(
        default=None,
        description="When set, GET /metrics needs `Authorization: Bearer <token>`",
    )
    metrics_public: bool = Field(
        default=True,
        description="Without METRICS_TOKEN, serve /metrics to anyone; false: /metrics is "
        "served only with a token set (the image: false)",
    )

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        if isinstance(value, str):
            return [o.strip() for o in value.split(",") if o.strip()]
        return value

    @field_validator("log_level", "log_format", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.lower() if isinstance(value, str) else value

    @field_validator("database_url")
    @classmethod
    def _known_database(cls, value: str) -> str:
        # The usual spellings of a PostgreSQL URL mean the psycopg (3) driver here.
        for prefix in ("postgres://", "postgresql://"):
            if value.startswith(prefix):
                value = "postgresql+psycopg://" + value.removeprefix(prefix)
        if not value.startswith(("sqlite:", "postgresql+psycopg:")):
            raise ValueError("must be a sqlite:/// or postgresql+psycopg:// URL")
        return value

    @field_validator(
        "rate_limit_read",
        "rate_limit_move",
        "rate_limit_create",
        "rate_limit_solver",
        "rate_limit_refused",
    )
    @classmethod
    def _one_rate(cls, value: str) -> str:
        try:
            parse(value)
        except ValueError:
            raise ValueError("must be a rate such as '600/minute' or '10 per second'") from None
        return value

    @field_validator("rate_limit_storage_url")
    @classmethod
    def _known_storage(cls, value: str) -> str:
        if not value.startswith(("memory://", "redis://", "rediss://")):
            raise ValueError("must be memory:// or a redis:// URL")
        return value

    @field_validator(
        "hint_budget_ms",
        "solver_budget_ms",
        "analysis_budget_ms",
        "difficulty_budget_ms",
        "db_timeout_s",
        "body_timeout_s",
    )
    @classmethod
    def _within_shutdown(cls, value: int, info: ValidationInfo) -> int:
        """A budget is refused unless shorter than the shutdown timeout: a request that may
        work (or wait) that long could still be at it when a stopping server gives up."""
        shutdown = info.data.get("shutdown_timeout_s")  # absent when itself invalid
        seconds = value / 1000 if str(info.field_name).endswith("_ms") else value
        if shutdown is not None and seconds >= shutdown:
            raise ValueError(f"must be shorter than SHUTDOWN_TIMEOUT_S ({shutdown} s)")
        return value

    @field_validator("metrics_token")
    @classmethod
    def _bearer_token(cls, value: str | None) -> str | None:
        if value is None or value == "":
            return None
        # What a bearer credential may hold (RFC 6750's b64token), long enough not to guess.
        if not re.fullmatch(r"[A-Za-z0-9\-._~+/]+=*", value):
            raise ValueError("must be letters, digits and -._~+/ (a bearer token)")
        if len(value) < 16:
            raise ValueError("must be at least 16 characters")
        return value

    @field_validator("operator_token")
    @classmethod
    def _operator_token(cls, value: str | None) -> str | None:
        if value is not None and 0 < len(value) < 32:
            raise ValueError("must be at least 32 characters")
        return cls._bearer_token(value)

    @field_validator(
        "database_url",
        "rate_limit_storage_url",
        "metrics_token",
        "challenge_secret",
        "operator_token",
        mode="before",
    )
    @classmethod
    def _not_a_placeholder(cls, value: object) -> object:
        """A secret still holding the deploy files' placeholder (CHANGE-ME) is refused: a
        deployment that forgot it would ship a value anyone can read in this repository."""
        if isinstance(value, str) and PLACEHOLDER in value.upper():
            raise ValueError(f"holds the placeholder {PLACEHOLDER}: set a secret of your own")
        return value

    @field_validator("challenge_secret")
    @classmethod
    def _hex_form(cls, value: str | None) -> str | None:
        """``hex:`` then hex digits names the secret's bytes themselves: the form the
        server's kept secret is read in, so that a kept secret moved into the setting
        derives the same deals."""
        if value is not None and value.startswith(HEX_PREFIX):
            digits = value.removeprefix(HEX_PREFIX)
            try:
                raw = bytes.fromhex(digits)
            except ValueError:
                raise ValueError("after hex: must come hexadecimal digits, in pairs") from None
            if len(raw) < 16:
                raise ValueError("after hex: must come 32 hexadecimal digits or more")
        return value

    @field_validator("prometheus_multiproc_dir")
    @classmethod
    def _writable_dir(cls, value: str | None) -> str | None:
        if value is None or value == "":
            return None
        if not Path(value).is_dir() or not os.access(value, os.W_OK):
            raise ValueError(f"{value!r} is not a writable directory")
        return value


# What the deploy files write where a secret of the deployment's own must go.
PLACEHOLDER = "CHANGE-ME"
# A secret setting given as its bytes in hexadecimal (CHALLENGE_SECRET=hex:...).
HEX_PREFIX = "hex:"

SECRET_FIELDS = frozenset(
    {
        "database_url",
        "rate_limit_storage_url",
        "metrics_token",
        "challenge_secret",
        "operator_token",
    }
)


def describe_error(error: ValidationError) -> str:
    """``invalid configuration: PORT: reason (got 'x')``, one clause a bad variable."""
    parts = []
    for err in error.errors():
        field = str(err["loc"][0]) if err.get("loc") else "?"
        text = f"{field.upper()}: {str(err['msg']).removeprefix('Value error, ')}"
        if field not in SECRET_FIELDS and isinstance(err.get("input"), str | int):
            text += f" (got {str(err['input'])[:80]!r})"
        parts.append(text)
    return "invalid configuration: " + "; ".join(parts)


def load_settings() -> Settings:
    """The settings from the environment; a bad value exits with a one-line message."""
    try:
        return Settings()
    except ValidationError as e:
        raise SystemExit(describe_error(e)) from None


@lru_cache
def get_settings() -> Settings:
    return load_settings()
