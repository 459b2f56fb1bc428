"""What one domain tells the others, in the transaction of the request that caused it.

A game's end is the games domain's, but the player's statistics are the players' and a
challenge's board the challenges': the games domain announces ``GameEnded`` to the
listeners ``app.main`` wires (``Listeners``), each handed the request's writing session,
so that the move and what follows it land together or not at all. The types live here,
a floor below the domains, so that no two domains import each other.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from app.engine import GameStatus, Scoring


@dataclass(frozen=True, slots=True)
class GameEnded:
    """A game ended, in the transaction of its last move."""

    game_id: str
    player_id: str | None
    challenge_id: str | None  # a ranked attempt at this challenge
    practice_of: str | None  # an unranked game of this closed challenge's deal
    layout: str
    scoring: Scoring
    status: GameStatus
    score: int
    moves: int  # the game's version: every move made, undos included
    ended_at: datetime


@dataclass(frozen=True, slots=True)
class PlayerDeleted:
    """A player deleted their account, in the transaction that erased it."""

    player_id: str


GameEndListener = Callable[[AsyncSession, GameEnded], Awaitable[None]]
PlayerDeletedListener = Callable[[AsyncSession, PlayerDeleted], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Listeners:
    """Who hears what, in the order given (``app.main`` wires them)."""

    game_ended: tuple[GameEndListener, ...] = ()
    player_deleted: tuple[PlayerDeletedListener, ...] = ()


async def get_listeners(request: Request) -> Listeners:
    listeners: Listeners = request.app.state.listeners
    return listeners


ListenersDep = Annotated[Listeners, Depends(get_listeners)]
