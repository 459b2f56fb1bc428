"""Who the caller is: the dependencies that hand a route the player whose key it carries.

``PlayerForRead`` and ``PlayerForWrite`` need a player key in ``Authorization: Bearer``
(401 without one, 403 for a key that opens no account: wrong, rotated or deleted). Sync,
like every dependency that queries: FastAPI runs them in its threadpool. (Other domains
resolve a player through ``PlayerService.resolve``, as ``app.games.access`` does.)
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends

from app.kit.auth import BearerDep
from app.kit.deps import ReadSessionDep, SessionDep, release
from app.players.models import Player
from app.players.service import PlayerService


def player_for_read(credential: BearerDep, session: ReadSessionDep) -> Player:
    player = PlayerService(session).resolve(credential)
    release(session)
    return player


def player_for_write(credential: BearerDep, session: SessionDep) -> Player:
    return PlayerService(session).resolve(credential, for_update=True)


PlayerForRead = Annotated[Player, Depends(player_for_read)]
PlayerForWrite = Annotated[Player, Depends(player_for_write)]
