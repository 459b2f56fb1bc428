"""The players use cases: accounts by key, renaming, rotating the key, deleting the
account, and statistics counted as each game ends.

A player key reads ``tpk.<player id>.<secret>``: the id finds the account, and the secret
is checked against its stored SHA-256 in constant time, as a game's token is. Keys and
game tokens never look alike, so one ``Authorization: Bearer`` header carries either.
``PlayerForRead`` and ``PlayerForWrite`` hand a route (of any domain) the caller's account.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from app.engine import Scoring
from app.kit.auth import BearerDep, hash_secret, new_secret, secret_matches
from app.kit.deps import ReadSessionDep, SessionDep
from app.kit.errors import NotFoundProblem, UnauthorizedProblem
from app.kit.events import GameEnded, Listeners, PlayerDeleted
from app.kit.ids import is_id, new_id
from app.kit.models import utcnow
from app.kit.ratelimit import verified
from app.players.errors import (
    FollowingLimitProblem,
    FollowSelfProblem,
    PlayerKeyRefusedProblem,
    PlayerKeyRequiredProblem,
)
from app.players.models import ALL, DailyStreak, MonthlyWins, Player, PlayerStats
from app.players.repository import PlayerRepository
from app.players.schemas import (
    BadgeRead,
    BadgeTier,
    DailyRecordRead,
    DisplayName,
    FollowedRead,
    PlayerCreate,
    StatLineRead,
    StatsRead,
)

KEY_PREFIX = "tpk"
# What resolving a player from a credential may answer instead of the player.
# No credential at all (kit's bearer), or a game's token where a player key is needed.
PLAYER_PROBLEMS = (UnauthorizedProblem, PlayerKeyRequiredProblem, PlayerKeyRefusedProblem)


def is_player_key(credential: str) -> bool:
    return credential.startswith(KEY_PREFIX + ".")


# Dailies won in a month for its badges: bronze, silver; gold is every day of the month.
BRONZE_WINS = 10
SILVER_WINS = 20


@dataclass(frozen=True, slots=True)
class Profile:
    player: Player
    provisional_until: datetime
    stats: StatsRead
    daily: list[DailyRecordRead]
    badges: list[BadgeRead]


@dataclass(frozen=True, slots=True)
class FollowingPage:
    followed: list[FollowedRead]
    count: int
    next: tuple[datetime, str] | None


def provisional_until(player: Player, account_min_hours: int) -> datetime:
    """Until when ``player``'s entries are provisional whatever the challenge:
    ``account_min_hours`` after the account was made (``CHALLENGE_ACCOUNT_MIN_HOURS``)."""
    return player.created_at + timedelta(hours=account_min_hours)


def is_provisional(
    player: Player, opens_at: datetime, account_min_hours: int, now: datetime
) -> bool:
    """Whether an entry ``player`` makes at ``now`` in a challenge that opened at
    ``opens_at`` is provisional: the account is newer than the challenge (for the daily,
    made after its UTC day began), or younger than ``account_min_hours``. Nobody is
    refused for it: a provisional result is marked, and ranked apart on the public boards
    until its fair-play measure says ok (an account made to look at the day's deal is
    measured before its result counts)."""
    return player.created_at > opens_at or now < provisional_until(player, account_min_hours)


class PlayerService:
    def __init__(
        self,
        session: AsyncSession,
        listeners: Listeners | None = None,
        *,
        account_min_hours: int | None = None,
    ) -> None:
        self.session = session
        self.players = PlayerRepository(session)
        self.listeners = listeners if listeners is not None else Listeners()
        self.account_min_hours = account_min_hours  # for ``profile``

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

    async def lock(self, player_id: str) -> Player | None:
        """The player's row, locked for this transaction (what they may create next is
        counted under it)."""
        return await self.players.get(player_id, for_update=True)

    async def profile(self, player: Player, now: datetime) -> Profile:
        """The player's statistics, daily streaks (as they stand at ``now``), badges, and
        until when its entries are provisional."""
        assert self.account_min_hours is not None, "a profile needs account_min_hours"
        lines = {(s.layout, s.scoring): s for s in await self.players.stats(player.id)}
        overall = lines.pop((ALL, ALL), None)
        return Profile(
            player,
            provisional_until(player, self.account_min_hours),
            StatsRead(
                overall=_line(overall, ALL, ALL),
                by_layout=[_line(s, layout, scoring) for (layout, scoring), s in lines.items()],
            ),
            [_daily(s, now.date()) for s in await self.players.streaks(player.id)],
            [_badge(w) for w in await self.players.monthly_wins(player.id, BRONZE_WINS)],
        )

    # -- following ------------------------------------------------------------------------
    async def follow(self, player: Player, followed_id: str, limit: int, now: datetime) -> None:
        """``player`` follows ``followed_id`` (again: nothing changes). The caller's row is
        locked (``PlayerForWrite``), so that two follows at once count each other."""
        if followed_id == player.id:
            raise FollowSelfProblem("a player's own results are on every board they read")
        if await self.get(followed_id) is None:
            raise NotFoundProblem(f"no player {followed_id[:32]!r}")
        if await self.players.following_count(player.id) >= limit:
            if await self.players.is_following(player.id, followed_id):
                return
            raise FollowingLimitProblem(
                f"player {player.id} follows {limit} players already: unfollow one first",
                limit=limit,
            )
        await self.players.follow(player.id, followed_id, now)

    async def unfollow(self, player: Player, followed_id: str) -> None:
        await self.players.unfollow(player.id, followed_id)

    async def following(
        self, player: Player, limit: int, after: tuple[datetime, str] | None
    ) -> FollowingPage:
        rows = list(await self.players.following(player.id, limit + 1, after))
        more = len(rows) > limit
        rows = rows[:limit]
        followed = [
            FollowedRead(
                player_id=r.followed_id,
                name=r.name,
                kind=r.kind,
                since=r.created_at,
            )
            for r in rows
        ]
        last = (followed[-1].since, followed[-1].player_id) if more else None
        return FollowingPage(followed, await self.players.following_count(player.id), last)

    async def followed_ids(self, player_id: str) -> list[str]:
        """The ids of whom the player follows (at most FOLLOWING_MAX)."""
        return await self.players.followed_ids(player_id)

    async def names(self, player_ids: list[str]) -> dict[str, tuple[str | None, bool]]:
        """Each of these players' display name and whether their account was deleted; a
        player with no row is left out."""
        return await self.players.names(sorted(set(player_ids)))

    # -- the daily challenge ----------------------------------------------------------------
    async def count_daily(self, player_id: str, layout: str, day: date, won: bool) -> None:
        """The daily of ``day`` on ``layout`` ended within its day: count it in the player's
        streaks, and a win in the month's badge (in the transaction of its last move)."""
        await self.players.count_daily(player_id, layout, day, won)

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


def _current(run: int, last: date | None, today: date) -> int:
    """A run of days ending on ``last``, as it stands on ``today``: current until the
    next day's challenge is over (``today`` is at most the day after), else broken."""
    return run if last is not None and today - last <= timedelta(days=1) else 0


def _daily(streak: DailyStreak, today: date) -> DailyRecordRead:
    return DailyRecordRead(
        layout=streak.layout,
        # A day played and not won ends the run at once: the day is over for the player.
        won_streak=_current(streak.won_current, streak.won_last, today)
        if streak.won_last == streak.played_last
        else 0,
        won_longest=streak.won_longest,
        last_won=streak.won_last,
        played_streak=_current(streak.played_current, streak.played_last, today),
        played_longest=streak.played_longest,
        last_played=streak.played_last,
    )


def badge_tier(wins: int, month: date) -> BadgeTier | None:
    """The badge of ``wins`` dailies won in ``month``, if any."""
    if wins >= calendar.monthrange(month.year, month.month)[1]:
        return BadgeTier.GOLD
    if wins >= SILVER_WINS:
        return BadgeTier.SILVER
    return BadgeTier.BRONZE if wins >= BRONZE_WINS else None


def _badge(wins: MonthlyWins) -> BadgeRead:
    tier = badge_tier(wins.wins, wins.month)
    assert tier is not None  # read with at least BRONZE_WINS
    return BadgeRead(
        layout=wins.layout, month=wins.month.strftime("%Y-%m"), tier=tier, wins=wins.wins
    )


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


async def player_when_needed(
    credential: str | None, session: AsyncSession, request: Request
) -> Player:
    """The player an optional bearer names, for a call that turns out to need one (a
    board's view of the caller): 401 without a player key, 403 for a key of no account."""
    player = await PlayerService(session).resolve(credential or "")
    verified(request)
    return player


PlayerForWrite = Annotated[Player, Depends(player_for_write)]


async def count_ended_game(session: AsyncSession, ended: GameEnded) -> None:
    """The listener of ``GameEnded`` (``app.main`` wires it): the player's statistics."""
    await PlayerService(session).game_ended(ended)


__all__ = [
    "PLAYER_PROBLEMS",
    "DisplayName",
    "FollowingPage",
    "Player",
    "PlayerForRead",
    "PlayerForWrite",
    "PlayerService",
    "Profile",
    "count_ended_game",
    "is_player_key",
    "player_when_needed",
]
