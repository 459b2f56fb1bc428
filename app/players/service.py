"""The players use cases: accounts by key, renaming, rotating the key, deleting the
account, and statistics counted as each game ends.

A player key reads ``tpk.<player id>.<secret>``: the id finds the account, and the secret
is checked against its stored SHA-256 in constant time, as a game's token is. Keys and
game tokens never look alike, so one ``Authorization: Bearer`` header carries either.
``PlayerForRead`` and ``PlayerForWrite`` hand a route (of any domain) the caller's account.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from app.engine import Scoring
from app.kit.auth import BearerDep, hash_secret, new_secret, secret_matches
from app.kit.deps import ReadSessionDep, SessionDep
from app.kit.errors import UnauthorizedProblem
from app.kit.events import GameEnded, Listeners, PlayerDeleted
from app.kit.ids import is_id, new_id
from app.kit.models import utcnow
from app.kit.ratelimit import verified
from app.players.errors import PlayerKeyRefusedProblem, PlayerKeyRequiredProblem
from app.players.models import ALL, Player, PlayerStats
from app.players.repository import PlayerRepository
from app.players.schemas import PlayerCreate, StatLineRead, StatsRead

KEY_PREFIX = "tpk"
# What resolving a player from a credential may answer instead of the player.
# No credential at all (kit's bearer), or a game's token where a player key is needed.
PLAYER_PROBLEMS = (UnauthorizedProblem, PlayerKeyRequiredProblem, PlayerKeyRefusedProblem)


def is_player_key(credential: str) -> bool:
    return credential.startswith(KEY_PREFIX + ".")


@dataclass(frozen=True, slots=True)
class Profile:
    player: Player
    stats: StatsRead


class PlayerService:
    def __init__(self, session: AsyncSession, listeners: Listeners | None = None) -> None:
        self.session = session
        self.players = PlayerRepository(session)
        self.listeners = listeners if listeners is not None else Listeners()

    async def create(self, request: PlayerCreate) -> tuple[Player, str]:
        player = Player(id=new_id(), name=request.name, kind=request.kind)
        key = self._new_key(player)
        await self.players.add(player)
        return player, key

    async def resolve(self, credential: str, *, for_update: bool = False) -> Player:
        """The account a player key opens; 401 for a credential that is no player key
        (a game's token, say), 403 for a key that opens no account."""
        if not is_player_key(credential):
            raise PlayerKeyRequiredProblem(
                "this call needs a player key (Authorization: Bearer tpk....), not a game's token"
            )
        player = await self.authenticate(credential, for_update=for_update)
        if player is None:
            raise PlayerKeyRefusedProblem("the player key opens no account (rotated or deleted?)")
        return player

    async def authenticate(self, key: str, *, for_update: bool = False) -> Player | None:
        """The account ``key`` opens, or None (a wrong, rotated or deleted key)."""
        prefix, _, rest = key.partition(".")
        player_id, _, secret = rest.partition(".")
        if prefix != KEY_PREFIX or not secret or not is_id(player_id):
            return None
        player = await self.players.get(player_id, for_update=for_update)
        if player is None or player.key_hash is None:
            return None
        return player if secret_matches(secret, player.key_hash) else None

    async def get(self, player_id: str) -> Player | None:
        player = await self.players.get(player_id) if is_id(player_id) else None
        return player if player is not None and player.deleted_at is None else None

    async def rename(self, player: Player, name: str) -> None:
        player.name = name
        await self.session.flush()

    async def rotate_key(self, player: Player) -> str:
        key = self._new_key(player)
        await self.session.flush()
        return key

    async def delete(self, player: Player) -> None:
        """Erase the account: its name, key and statistics. Its games are unlinked by the
        listeners of ``PlayerDeleted`` (they, and its places on past leaderboards, stay,
        as a deleted player's): first, so that the games' rows are locked before the
        statistics', the order in which a game's last move locks them too."""
        for listener in self.listeners.player_deleted:
            await listener(self.session, PlayerDeleted(player.id))
        player.name = None
        player.key_hash = None
        player.deleted_at = utcnow()
        await self.players.delete_stats(player.id)
        await self.session.flush()

    async def delete_idle(self, idle_since: datetime, limit: int) -> int:
        """Delete up to ``limit`` players who never entered a challenge, made before
        ``idle_since`` and with no game moved since (their games become anonymous)."""
        return await self.players.delete_idle(idle_since, limit)

    async def profile(self, player: Player) -> Profile:
        lines = {(s.layout, s.scoring): s for s in await self.players.stats(player.id)}
        overall = lines.pop((ALL, ALL), None)
        return Profile(
            player,
            StatsRead(
                overall=_line(overall, ALL, ALL),
                by_layout=[_line(s, layout, scoring) for (layout, scoring), s in lines.items()],
            ),
        )

    async def game_ended(self, ended: GameEnded) -> None:
        """A game ended: when it is a player's, count it in their statistics (in the
        transaction of its last move)."""
        if ended.player_id is None:
            return
        await self.players.count_result(
            ended.player_id,
            ended.layout,
            ended.scoring.value,
            ended.status,
            ended.score,
            lower_is_better=ended.scoring is Scoring.CARDS_LEFT,
        )

    @staticmethod
    def _new_key(player: Player) -> str:
        secret = new_secret()
        player.key_hash = hash_secret(secret)
        return f"{KEY_PREFIX}.{player.id}.{secret}"


def _line(stats: PlayerStats | None, layout: str, scoring: str) -> StatLineRead:
    if stats is None:
        return StatLineRead(
            layout=layout,
            scoring=scoring,
            played=0,
            won=0,
            lost=0,
            conceded=0,
            win_rate=None,
            best_score=None,
            mean_score=None,
            current_run=0,
            longest_run=0,
        )
    played = stats.played
    return StatLineRead(
        layout=stats.layout,
        scoring=stats.scoring,
        played=played,
        won=stats.won,
        lost=stats.lost,
        conceded=stats.conceded,
        win_rate=round(stats.won / played, 4) if played else None,
        best_score=stats.best_score,
        mean_score=round(stats.score_sum / played, 2) if played else None,
        current_run=stats.current_run,
        longest_run=stats.longest_run,
    )


# -- who the caller is ---------------------------------------------------------------------
# The dependencies that hand a route the player whose key it carries (401 without one,
# 403 for a key that opens no account: wrong, rotated or deleted). The writing one locks
# the player's row in the request's transaction.
async def player_for_read(
    credential: BearerDep, session: ReadSessionDep, request: Request
) -> Player:
    player = await PlayerService(session).resolve(credential)
    verified(request)
    return player


async def player_for_write(credential: BearerDep, session: SessionDep, request: Request) -> Player:
    player = await PlayerService(session).resolve(credential, for_update=True)
    verified(request)
    return player


PlayerForRead = Annotated[Player, Depends(player_for_read)]
PlayerForWrite = Annotated[Player, Depends(player_for_write)]


async def count_ended_game(session: AsyncSession, ended: GameEnded) -> None:
    """The listener of ``GameEnded`` (``app.main`` wires it): the player's statistics."""
    await PlayerService(session).game_ended(ended)


__all__ = [
    "PLAYER_PROBLEMS",
    "Player",
    "PlayerForRead",
    "PlayerForWrite",
    "PlayerService",
    "Profile",
    "count_ended_game",
    "is_player_key",
]
