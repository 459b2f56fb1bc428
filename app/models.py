"""Every domain's tables on one metadata, for Alembic and the model-vs-migration test."""

from __future__ import annotations

from app.games.models import Analysis, Game, Move
from app.kit.models import Base

__all__ = ["Analysis", "Base", "Game", "Move"]
