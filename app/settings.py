"""Settings, from environment variables (one ``Settings`` class, validated at start)."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="", case_sensitive=False, extra="ignore")

    database_url: str = Field(
        default="sqlite:///./var/tripeaks.sqlite3",
        description="SQLAlchemy URL: a SQLite file, or postgresql+psycopg://user@host/db",
    )
    host: str = Field(default="127.0.0.1", description="Address the server listens on")
    port: int = Field(default=8000, ge=1, le=65535, description="Port the server listens on")
    workers: int = Field(default=1, ge=1, le=64, description="Worker processes")
    cors_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Origins allowed by CORS, comma-separated ('*' for any)",
    )
    log_level: Literal["debug", "info", "warning", "error", "critical"] = "info"
    log_format: Literal["json", "text"] = "json"
    max_body_bytes: int = Field(default=65536, ge=1024, le=16 * 1024 * 1024)
    hint_budget_ms: int = Field(default=250, ge=10, le=10000)
    db_pool_size: int = Field(default=5, ge=1, le=100)
    db_statement_timeout_ms: int = Field(default=10000, ge=100, le=600000)

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
        if not value.startswith(("sqlite", "postgresql")):
            raise ValueError("must be a sqlite:/// or postgresql+psycopg:// URL")
        return value


@lru_cache
def get_settings() -> Settings:
    return Settings()
