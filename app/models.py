"""Every domain's tables on one metadata, for Alembic and the model-vs-migration test."""

from __future__ import annotations

from app.challenges.models import (
    Challenge,
    ChallengeEntry,
    LeaderboardBucket,
    LeaderboardScore,
)
from app.duels.models import Duel, Rating, RatingChange, RatingCount
from app.events.models import Edition, Event, EventChange
from app.games.models import Analysis, Game, Move
from app.kit.models import Base
from app.kit.schedule import ScheduledJob
from app.kit.server_secrets import ServerSecret
from app.players.models import DailyStreak, Follow, MonthlyWins, Player, PlayerStats

__all__ = [
    "Analysis",
    "Base",
    "Challenge",
    "ChallengeEntry",
    "DailyStreak",
    "Duel",
    "Edition",
    "Event",
    "EventChange",
    "Follow",
    "Game",
    "LeaderboardBucket",
    "LeaderboardScore",
    "MonthlyWins",
    "Move",
    "Player",
    "PlayerStats",
    "Rating",
    "RatingChange",
    "RatingCount",
    "ScheduledJob",
    "ServerSecret",
]
