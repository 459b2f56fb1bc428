"""The daily challenge's use cases: the day's challenge, a player's one ranked attempt, the
result entered when the game ends, and the leaderboard.

A challenge is derived (``app.challenges.deals``) the first time anyone asks for it, by
the solver with no transaction open, then stored: every later caller, on any replica,
reads the stored deal. Its secret is ``CHALLENGE_SECRET``, or else one the server makes
for itself once and keeps in the database (``server_secrets``).
"""

from __future__ import annotations

import re
import secrets
import threading
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from pydantic import TypeAdapter
from sqlalchemy.ext.asyncio import AsyncSession

from app import engine
from app.challenges.deals import daily_rules, daily_salt, find_daily_deal
from app.challenges.errors import (
    AlreadyEnteredProblem,
    ChallengeClosedProblem,
    ChallengeNotOpenProblem,
    NoRankedResultProblem,
)
from app.challenges.models import Challenge
from app.challenges.repository import BoardKey, ChallengeRepository, Place
from app.engine.solver import SearchBudget, solve_best
from app.games.service import GameService, LoadedGame
from app.kit.database import Sessions
from app.kit.errors import NotFoundProblem, ServiceUnavailableProblem
from app.kit.events import GameEnded
from app.kit.models import PlayerKind
from app.kit.paging import Count32, Int32, RowId, UtcTime, decode_cursor, encode_cursor
from app.kit.workload import SolverPool
from app.players.service import Player
from app.settings import Settings

SECRET_NAME = "challenge"
# What starting an attempt may answer instead of the game (besides the player's key).
START_PROBLEMS = (
    NotFoundProblem,
    AlreadyEnteredProblem,
    ChallengeNotOpenProblem,
    ChallengeClosedProblem,
)
_ID = re.compile(r"(\d{4}-\d{2}-\d{2})\.([a-z0-9_]{1,32})")


def challenge_id(day: date, layout: str) -> str:
    return f"{day.isoformat()}.{layout}"


def parse_challenge_id(value: str) -> tuple[date, str]:
    """(day, layout) of a challenge id; a 404 for one that cannot name a challenge."""
    match = _ID.fullmatch(value)
    if match is None or match.group(2) not in engine.LAYOUTS:
        raise NotFoundProblem(f"no challenge {value[:48]!r}")
    try:
        return date.fromisoformat(match.group(1)), match.group(2)
    except ValueError:
        raise NotFoundProblem(f"no challenge {value[:48]!r}") from None


def opens_at(day: date) -> datetime:
    return datetime.combine(day, time(), tzinfo=UTC)


def closes_at(day: date) -> datetime:
    return opens_at(day) + timedelta(days=1)


def check_open(day: date, now: datetime) -> None:
    """Refuse (409) an attempt at the challenge of ``day`` unless ``now`` is within it."""
    if now < opens_at(day):
        raise ChallengeNotOpenProblem(f"the challenge of {day} opens at {opens_at(day)}")
    if now >= closes_at(day):
        raise ChallengeClosedProblem(f"the challenge of {day} closed at {closes_at(day)}")


async def challenge_secret(settings: Settings, sessions: Sessions) -> bytes:
    """``CHALLENGE_SECRET``, or else the secret the server keeps for the challenges: made
    once, in a transaction of its own (it is the server's, not any request's)."""
    if settings.challenge_secret:
        return settings.challenge_secret.encode()
    async with sessions() as session:
        value = await ChallengeRepository(session).secret(SECRET_NAME, secrets.token_hex(32))
        await session.commit()
    return bytes.fromhex(value)


async def ensure_challenge(
    day: date,
    layout: str,
    reader: ChallengeService,
    writer: ChallengeService,
    solver: SolverPool,
    sessions: Sessions,
) -> Challenge:
    """The stored challenge, derived and stored first if nobody asked for it yet: read
    through ``reader`` (whose connection then goes back to the pool), searched with no
    transaction open and no connection held, then stored through ``writer``.
    ``sessions`` keep the server's secret when no setting gives one
    (``challenge_secret``)."""
    stored = await reader.stored(challenge_id(day, layout))
    await reader.session.close()
    if stored is not None:
        return stored
    secret = await challenge_secret(reader.settings, sessions)
    return await writer.store(await reader.derive(day, layout, secret, solver))


@dataclass(frozen=True, slots=True)
class Board:
    challenge_id: str
    kind: PlayerKind
    ranked: int
    places: list[Place]
    next: BoardKey | None


class SearchedCandidates:
    """How far this process has searched a day's candidates without proving one
    winnable (``find_daily_deal``), so that a derivation cut short by its time goes on
    where it stopped instead of starting again: on a loaded machine the solver's
    processes run slowly (at a lower priority than the requests), and each retry would
    otherwise redo the same candidates and fail the same way."""

    def __init__(self) -> None:
        self._reached: dict[tuple[str, str], int] = {}
        self._lock = threading.Lock()

    def reached(self, day: str, layout: str) -> int:
        with self._lock:
            return self._reached.get((day, layout), 0)

    def note(self, day: str, layout: str, k: int) -> None:
        with self._lock:
            for done in [key for key in self._reached if key[0] < day]:
                del self._reached[done]  # past days are derived or never will be
            self._reached[day, layout] = max(k, self._reached.get((day, layout), 0))


SEARCHED = SearchedCandidates()


class ChallengeService:
    def __init__(self, session: AsyncSession, settings: Settings) -> None:
        self.session = session
        self.settings = settings
        self.challenges = ChallengeRepository(session)

    # -- the day's challenge ----------------------------------------------------------
    async def stored(self, challenge_id: str) -> Challenge | None:
        return await self.challenges.get(challenge_id)

    async def derive(
        self, day: date, layout: str, secret: bytes, solver: SolverPool
    ) -> dict[str, Any]:
        """The day's challenge, computed (a solver search: call it with no transaction
        open)."""
        seconds = self.settings.solver_budget_ms / 1000
        key = day.isoformat()
        first = SEARCHED.reached(key, layout)
        deal, k = await solver.run(
            "challenge", seconds, find_daily_deal, secret, key, layout, seconds, first
        )
        if deal is None:
            SEARCHED.note(key, layout, k)  # the retry goes on from there
            raise ServiceUnavailableProblem(
                "the day's deal was not proved winnable in time; retry", retry_after=1
            )
        salt = daily_salt(secret, key, layout)
        return {
            "id": challenge_id(day, layout),
            "day": day,
            "layout": layout,
            "rules": daily_rules(layout).to_dict(),
            "deal": engine.format_deal(deal),
            "salt": salt,
            "commitment": engine.commitment(deal, salt),
        }

    async def store(self, values: dict[str, Any]) -> Challenge:
        """Keep the derived challenge (two racing derivations agree; one is kept)."""
        return await self.challenges.add_if_absent(values)

    async def best_score(self, challenge: Challenge, solver: SolverPool) -> int | None:
        """The deal's best final score (a solver search within ANALYSIS_BUDGET_MS: call
        it with no transaction open); None when the search ran out of time."""
        seconds = self.settings.analysis_budget_ms / 1000
        rules = engine.Rules.from_dict(challenge.rules)
        layout = engine.get_layout(challenge.layout)
        start = engine.new_game(engine.parse_cards(challenge.deal), rules, layout)
        answer = await solver.run(
            "challenge_best",
            seconds,
            solve_best,
            start,
            SearchBudget(max_nodes=None, seconds=seconds),
        )
        return answer.score

    async def keep_best(self, challenge_id: str, best: int | None) -> Challenge:
        await self.challenges.set_best(challenge_id, best)
        stored = await self.challenges.get(challenge_id)
        assert stored is not None
        await self.session.refresh(stored)
        return stored

    # -- attempts -----------------------------------------------------------------------
    async def start(
        self, challenge: Challenge, player: Player, now: datetime
    ) -> tuple[LoadedGame, str]:
        """The player's one ranked attempt: a game of the day's deal, under its rules,
        committed to with its salt (its commitment is the challenge's)."""
        check_open(challenge.day, now)
        if not await self.challenges.add_entry(challenge.id, player.id, player.kind, now):
            entry = await self.challenges.entry(challenge.id, player.id)
            raise AlreadyEnteredProblem(
                f"player {player.id} has already entered {challenge.id}",
                game_id=entry.game_id if entry is not None else None,
            )
        rules = engine.Rules.from_dict(challenge.rules)
        game, token = await GameService(self.session, self.settings, clock=lambda: now).start(
            engine.parse_cards(challenge.deal),
            rules,
            engine.get_layout(challenge.layout),
            None,
            chosen=False,
            player_id=player.id,
            challenge_id=challenge.id,
            salt=challenge.salt,
            reveal_after=closes_at(challenge.day),
        )
        await self.challenges.set_entry_game(challenge.id, player.id, game.row.id)
        await self.challenges.count_entry(challenge.id)
        return game, token

    # -- the board ----------------------------------------------------------------------
    async def board(
        self, challenge_id: str, kind: PlayerKind, limit: int, after: BoardKey | None
    ) -> Board:
        places, ranked = await self.challenges.board_after(challenge_id, kind, after, limit + 1)
        more = len(places) > limit
        places = places[:limit]
        return Board(challenge_id, kind, ranked, places, places[-1].key if more else None)

    async def around(self, challenge_id: str, player: Player, neighbours: int) -> Board:
        """The player's ranked result with ``neighbours`` results either side of it."""
        kind = player.kind
        mine = await self.challenges.place_of(challenge_id, kind, player.id)
        if mine is None:
            raise NoRankedResultProblem(f"no ranked result of player {player.id} on {challenge_id}")
        before = await self.challenges.board_before(challenge_id, kind, mine.key, neighbours)
        after, ranked = await self.challenges.board_after(challenge_id, kind, mine.key, neighbours)
        return Board(challenge_id, kind, ranked, [*before, mine, *after], None)


async def enter_ended_game(session: AsyncSession, ended: GameEnded) -> None:
    """The listener of ``GameEnded`` (``app.main`` wires it): when the game is a
    challenge's attempt, its result is entered, ranked when it ended within the day (in
    the transaction of its last move)."""
    if ended.challenge_id is None:
        return
    day, _ = parse_challenge_id(ended.challenge_id)
    ranked = ended.ended_at < closes_at(day)
    lower_is_better = ended.scoring is engine.Scoring.CARDS_LEFT
    await ChallengeRepository(session).finish_entry(
        ended.game_id,
        ended.status,
        ended.score,
        ended.moves,
        ended.ended_at,
        rank_score=(ended.score if lower_is_better else -ended.score) if ranked else None,
    )


# A board's cursor: the last result's rank score, moves, finish and player.
BOARD_CURSOR = TypeAdapter(tuple[Int32, Count32, UtcTime, RowId])


def board_cursor(key: BoardKey) -> str:
    rank_score, moves, finished_at, player_id = key
    return encode_cursor([rank_score, moves, finished_at.isoformat(), player_id])


def board_place(cursor: str) -> BoardKey:
    """The place a board's cursor names; a 422 for one this server did not give."""
    return decode_cursor(cursor, BOARD_CURSOR)
