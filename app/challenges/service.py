"""The challenges' use cases: the server's daily challenge, challenges players set for
friends, a player's attempts (the best counts), the result entered when a game ends,
practice of a closed challenge's deal, and the leaderboards (from the top, around the
caller, among the players the caller follows).

A daily challenge is derived (``app.challenges.deals``) the first time anyone asks for it,
by the solver with no transaction open, then stored: every later caller, on any replica,
reads the stored deal. Its secret is ``CHALLENGE_SECRET``, or else one the server makes
for itself once and keeps in the database (``server_secrets``). A challenge a player sets
is drawn by the server at its creation (a random deal, proved winnable unless asked not
to), committed to at once and revealed when it closes: its creator knows it no better than
anyone else.
"""

from __future__ import annotations

import re
import secrets
import threading
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from typing import Annotated, Any

from pydantic import AfterValidator, Field, TypeAdapter
from sqlalchemy.ext.asyncio import AsyncSession

from app import engine
from app.challenges.deals import (
    daily_rules,
    daily_salt,
    draw_of_tier,
    find_daily_deal,
    find_round_deal,
    round_salt,
)
from app.challenges.errors import (
    AlreadyEnteredProblem,
    ChallengeClosedProblem,
    ChallengeEnteredProblem,
    ChallengeFullProblem,
    ChallengeNotOpenProblem,
    ChallengeStillOpenProblem,
    NoRankedResultProblem,
    NotChallengeCreatorProblem,
    TooManyOpenChallengesProblem,
)
from app.challenges.models import Challenge, ChallengeEntry, ChallengeKind, FairPlay, Side
from app.challenges.repository import (
    BoardKey,
    ChallengeRepository,
    Measure,
    MyChallenge,
    Place,
    measure_of,
    standing,
)
from app.challenges.schemas import (
    Among,
    Around,
    ChallengeCreate,
    ChallengeRead,
    ChallengeRevealRead,
    ChallengeStatus,
    CohortOf,
    FairPlayRead,
    FairPlayView,
    LeaderboardEntryRead,
    LeaderboardRead,
    MyEntryRead,
)
from app.engine.difficulty import Difficulty, Tier
from app.engine.equivalence import game_key
from app.engine.solver import BestAnswer, SearchBudget, solve_best
from app.games.service import (
    GameService,
    LoadedGame,
    difficulty_settings,
    rate,
    record_practice,
    winnable_deal,
)
from app.kit.database import Sessions
from app.kit.errors import NotFoundProblem, ServiceUnavailableProblem, ValidationProblem
from app.kit.events import GameEnded
from app.kit.ids import is_id, new_id
from app.kit.models import PlayerKind, utcnow
from app.kit.paging import Count32, Int32, RowId, UtcTime, decode_cursor, encode_cursor
from app.kit.ratelimit import RateLimitedProblem
from app.kit.schemas import DifficultyRead, RulesRead
from app.kit.workload import Coalesced, Searches, SolverPool
from app.players.service import PLAYER_PROBLEMS, Player, PlayerService, is_provisional
from app.settings import Settings

SECRET_NAME = "challenge"
# What starting an attempt may answer instead of the game (besides the player's key).
START_PROBLEMS = (
    NotFoundProblem,
    AlreadyEnteredProblem,
    ChallengeNotOpenProblem,
    ChallengeClosedProblem,
    ChallengeFullProblem,
)
# What reading a board may answer instead (its own, or an edition's).
BOARD_PROBLEMS = (
    *PLAYER_PROBLEMS,
    NotFoundProblem,
    NoRankedResultProblem,
    ChallengeNotOpenProblem,
    ValidationProblem,
    RateLimitedProblem,
)
_DAILY_ID = re.compile(r"(\d{4}-\d{2}-\d{2})\.([a-z0-9_]{1,32})")
# A window's bounds: at least an hour; at most the setting's hours (challenge_max_hours),
# which also bounds how far ahead it may open.
MIN_WINDOW = timedelta(hours=1)
# An invite code: ten characters of Crockford's base 32 (no I, L, O, U: nothing to
# misread), 50 bits, shown as two groups of five.
INVITE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
INVITE_LENGTH = 10
INVITE_DRAWS = 3
_INVITE_READS = str.maketrans({"I": "1", "L": "1", "O": "0", "-": None, " ": None})


def challenge_id(day: date, layout: str) -> str:
    return f"{day.isoformat()}.{layout}"


def daily_of(value: str) -> tuple[date, str] | None:
    """(day, layout) of a daily challenge's id; None for an id of any other form."""
    match = _DAILY_ID.fullmatch(value)
    if match is None or match.group(2) not in engine.LAYOUTS:
        return None
    try:
        return date.fromisoformat(match.group(1)), match.group(2)
    except ValueError:
        return None


# An event's edition ("<event id>.<number>") and round ("<event id>.<number>.<round>").
_EVENT_ID = re.compile(r"[A-Za-z0-9_-]{1,32}\.\d{1,6}(\.\d{1,2})?")


def is_challenge_id(value: str) -> bool:
    """Whether ``value`` can name a challenge: a daily's id, a random one, or an event's
    edition's or round's."""
    return daily_of(value) is not None or is_id(value) or _EVENT_ID.fullmatch(value) is not None


def check_challenge_id(value: str) -> None:
    """A 404 for an id that can name no challenge."""
    if not is_challenge_id(value):
        raise NotFoundProblem(f"no challenge {value[:48]!r}")


def _challenge_key(value: str) -> str:
    if not is_challenge_id(value):
        raise ValueError("no challenge's id")
    return value


# A challenge's id in a cursor: of any of the forms above (a daily's and an event's hold a
# dot, which a random id, ``RowId``, does not).
ChallengeKey = Annotated[str, Field(strict=True, max_length=64), AfterValidator(_challenge_key)]


def opens_at(day: date) -> datetime:
    return datetime.combine(day, time(), tzinfo=UTC)


def closes_at(day: date) -> datetime:
    return opens_at(day) + timedelta(days=1)


def check_day_open(day: date, now: datetime) -> None:
    """Refuse (409) an attempt at the daily of ``day`` unless ``now`` is within it."""
    if now < opens_at(day):
        raise ChallengeNotOpenProblem(f"the challenge of {day} opens at {opens_at(day)}")
    if now >= closes_at(day):
        raise ChallengeClosedProblem(f"the challenge of {day} closed at {closes_at(day)}")


def check_open(challenge: Challenge, now: datetime) -> None:
    """Refuse (409) an attempt at ``challenge`` unless ``now`` is within its window."""
    if now < challenge.opens_at:
        raise ChallengeNotOpenProblem(f"challenge {challenge.id} opens at {challenge.opens_at}")
    if now >= challenge.closes_at:
        raise ChallengeClosedProblem(f"challenge {challenge.id} closed at {challenge.closes_at}")


def is_closed(challenge: Challenge, now: datetime) -> bool:
    return now >= challenge.closes_at


def is_public(challenge: Challenge) -> bool:
    """Whether its board is public (the daily, an event's): there a provisional result
    is ranked apart until measured; on a challenge a player set it ranks, marked."""
    return challenge.kind is not ChallengeKind.SET


def new_invite_code() -> str:
    code = "".join(secrets.choice(INVITE_ALPHABET) for _ in range(INVITE_LENGTH))
    return f"{code[:5]}-{code[5:]}"


def read_invite_code(text: str) -> str | None:
    """The invite code as stored, from what a person typed (any case, with or without
    its dash, O for 0, I or L for 1); None for text that is no code."""
    code = text.upper().translate(_INVITE_READS)
    if len(code) != INVITE_LENGTH or any(c not in INVITE_ALPHABET for c in code):
        return None
    return f"{code[:5]}-{code[5:]}"


def window_of(
    body: ChallengeCreate, now: datetime, settings: Settings
) -> tuple[datetime, datetime]:
    """The window a new challenge asks for, checked: it opens now (or later, at most the
    longest window ahead) and lasts from an hour to the longest window; a 422 else."""
    longest = timedelta(hours=settings.challenge_max_hours)
    opens = max(body.opens_at, now) if body.opens_at is not None else now
    if body.opens_at is not None and body.opens_at - now > longest:
        raise ValidationProblem(
            f"opens_at: at most {settings.challenge_max_hours} hours ahead",
            loc=("body", "opens_at"),
        )
    length = body.closes_at - opens
    if not MIN_WINDOW <= length <= longest:
        raise ValidationProblem(
            f"closes_at: 1 to {settings.challenge_max_hours} hours after it opens "
            f"({opens.isoformat()})",
            loc=("body", "closes_at"),
        )
    return opens.astimezone(UTC), body.closes_at.astimezone(UTC)


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
    """The stored daily, derived and stored first if nobody asked for it yet: read
    through ``reader`` (whose connection then goes back to the pool), searched with no
    transaction open and no connection held, then stored through ``writer``.
    ``sessions`` keep the server's secret when no setting gives one
    (``challenge_secret``)."""
    stored = await reader.stored(challenge_id(day, layout))
    await reader.session.close()
    if stored is not None:
        return stored
    secret = await challenge_secret(reader.settings, sessions)
    values = await DERIVATIONS.run(
        challenge_id(day, layout), lambda: reader.derive(day, layout, secret, solver)
    )
    return await writer.store(values)


async def challenge_to_play(
    challenge_id: str,
    reader: ChallengeService,
    writer: ChallengeService,
    solver: SolverPool,
    sessions: Sessions,
    now: datetime,
) -> Challenge:
    """The challenge an attempt starts at: a daily within its day (derived first if need
    be: a closed day deals none), or a stored one; read with the reader's connection
    given back before anything is written."""
    daily = daily_of(challenge_id)
    if daily is not None:
        day, layout = daily
        check_day_open(day, now)
        return await ensure_challenge(day, layout, reader, writer, solver, sessions)
    stored = await reader.get(challenge_id)
    await reader.session.close()
    if stored.kind is not ChallengeKind.SET:
        raise NotFoundProblem(
            f"challenge {challenge_id[:48]!r} is an event's: its rounds start with "
            "start_event_round"
        )
    return stored


async def challenge_to_read(
    challenge_id: str,
    reader: ChallengeService,
    writer: ChallengeService,
    solver: SolverPool,
    sessions: Sessions,
    now: datetime,
) -> Challenge:
    """The challenge as it stands at ``now``, its best score searched once it has closed
    (with no transaction open). A daily of today is derived if nobody asked for it yet; a
    daily not begun is a 409; a past daily nobody played, or an unknown id, a 404."""
    daily = daily_of(challenge_id)
    if daily is not None and daily[0] >= now.date():
        day, layout = daily
        if now < opens_at(day):
            raise ChallengeNotOpenProblem(f"the challenge of {day} opens at {opens_at(day)}")
        challenge = await ensure_challenge(day, layout, reader, writer, solver, sessions)
    else:
        # A daily that is over has the challenge it had: one that nobody asked for while
        # it lasted was never dealt (and is not dealt now: a day's deal is made once).
        check_challenge_id(challenge_id)
        challenge = await reader.get(challenge_id)
        await reader.session.close()  # before the best score is searched for
    # (An edition's board has no deal of its own: its rounds have theirs.)
    if is_closed(challenge, now) and challenge.deal:
        found = await writer.look_back(challenge, solver)  # no transaction is open yet
        if found:
            challenge = await writer.keep_look_back(challenge.id, found)
    return challenge


def _rated(tier: Tier | None, rated: Difficulty | None) -> dict[str, Any]:
    """A new challenge's values for the tier asked for and the difficulty measured."""
    if rated is None:
        return {"tier": tier}
    return {"tier": tier, "difficulty": rated.to_dict(), "difficulty_at": utcnow()}


@dataclass(slots=True)
class LookBack:
    """What ``ChallengeService.look_back`` searched: the best score (``best``: the
    solver's answer, exact or the best line found with its bound; None: not searched now)
    and the difficulty (``rated``; None when the measure ran out of time)."""

    best: BestAnswer | None = None
    rated: bool = False
    difficulty: Difficulty | None = None

    def __bool__(self) -> bool:
        return self.best is not None or self.rated


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player's place in an edition: their number in its join order and cohort."""

    number: int
    cohort: int | None


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
# The derivations of this process's requests (a day's challenge, an edition): one search
# however many ask at once.
DERIVATIONS = Coalesced()


class ChallengeService:
    def __init__(self, session: AsyncSession, settings: Settings) -> None:
        self.session = session
        self.settings = settings
        self.challenges = ChallengeRepository(session)

    # -- the day's challenge ----------------------------------------------------------
    async def stored(self, challenge_id: str) -> Challenge | None:
        return await self.challenges.get(challenge_id)

    async def get(self, challenge_id: str) -> Challenge:
        """The stored challenge, or a 404."""
        challenge = await self.challenges.get(challenge_id)
        if challenge is None:
            raise NotFoundProblem(f"no challenge {challenge_id[:48]!r}")
        return challenge

    async def by_invite(self, text: str) -> Challenge:
        """The challenge an invite code names (as a person typed it); a 404 else."""
        code = read_invite_code(text)
        challenge = await self.challenges.by_invite_code(code) if code is not None else None
        if challenge is None:
            raise NotFoundProblem(f"no challenge has the invite code {text[:16]!r}")
        return challenge

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
        rules = daily_rules(layout)
        return {
            "id": challenge_id(day, layout),
            "deal_key": game_key(deal, rules, engine.get_layout(layout)),
            "kind": ChallengeKind.DAILY,
            "day": day,
            "layout": layout,
            "rules": daily_rules(layout).to_dict(),
            "deal": engine.format_deal(deal),
            "salt": salt,
            "commitment": engine.commitment(deal, salt),
            "opens_at": opens_at(day),
            "closes_at": closes_at(day),
            "attempts": 1,
            "winnable_only": True,
        }

    async def store(self, values: dict[str, Any]) -> Challenge:
        """Keep the derived challenge (two racing derivations agree; one is kept)."""
        return await self.challenges.add_if_absent(values)

    async def best_score(self, challenge: Challenge, solver: SolverPool) -> BestAnswer:
        """The deal's best final score (a solver search within ANALYSIS_BUDGET_MS: call
        it with no transaction open): exact, or where the exact search cannot finish (six
        peaks) the best line found and a bound (docs/research/best-score.md)."""
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
            anytime=True,
        )
        return answer

    async def look_back(self, challenge: Challenge, solver: SolverPool) -> LookBack:
        """What a closed challenge's deal is looked back on for, once each: its best score
        (``best_score``) and its difficulty (``solving.rate``), those not tried yet. Two
        solver searches: call it with no transaction open."""
        found = LookBack()
        if challenge.best_searched_at is None:
            found.best = await self.best_score(challenge, solver)
        if challenge.difficulty_at is None:
            rules = engine.Rules.from_dict(challenge.rules)
            found.rated = True
            deal = engine.parse_cards(challenge.deal)
            found.difficulty = await rate(
                deal, rules, self.settings, solver, kind="challenge_difficulty"
            )
        return found

    async def keep_look_back(self, challenge_id: str, found: LookBack) -> Challenge:
        """Keep what ``look_back`` found (each unless kept meanwhile)."""
        best = found.best
        if best is not None:
            await self.challenges.set_best(challenge_id, best.score, best.bound, best.exact)
        if found.rated:
            rated = found.difficulty
            await self.challenges.set_difficulty(
                challenge_id, rated.to_dict() if rated is not None else None
            )
        return await self._again(challenge_id)

    async def _again(self, challenge_id: str) -> Challenge:
        stored = await self.challenges.get(challenge_id)
        if stored is None:
            raise NotFoundProblem(f"no challenge {challenge_id!r}: it was deleted")
        await self.session.refresh(stored)
        return stored

    # -- challenges players set -----------------------------------------------------------
    async def check_room(self, player: Player, now: datetime) -> None:
        """Refuse (409) a player who has as many open challenges as they may set."""
        limit = self.settings.challenge_open_per_player
        if await self.challenges.open_count(player.id, now) >= limit:
            raise TooManyOpenChallengesProblem(
                f"player {player.id} has {limit} open challenges: close one, or wait for one "
                "to close",
                limit=limit,
            )

    async def draw(
        self, rules: engine.Rules, winnable_only: bool, tier: Tier | None, solver: Searches
    ) -> tuple[engine.Deal, Difficulty | None]:
        """A deal for a new challenge, drawn by the server: a random numbered deal, proved
        winnable when asked, of the ``tier`` asked for with its difficulty (a solver
        search: call it with no transaction open)."""
        layout = engine.get_layout(rules.layout)
        if tier is not None:
            seconds = self.settings.difficulty_budget_ms / 1000
            found = await solver.run(
                "challenge_tier",
                seconds,
                draw_of_tier,
                rules,
                winnable_only,
                seconds,
                tier,
                difficulty_settings(self.settings),
            )
            if found is None:
                raise ServiceUnavailableProblem(
                    f"no deal of the {tier.value} tier was found within {seconds:g} s: retry; "
                    "under some rules such deals are rare (six peaks' are nearly all easy: "
                    "docs/difficulty.md), so another tier may be the answer",
                    retry_after=1,
                )
            return found
        if winnable_only:
            deal, _ = await winnable_deal(rules, layout, self.settings, solver)
            return deal, None
        number = secrets.randbelow(engine.MAX_DEAL_NUMBER + 1)
        return engine.numbered_deal(number, layout.decks, rules.jokers), None

    async def create(
        self,
        player: Player,
        body: ChallengeCreate,
        rules: engine.Rules,
        deal: engine.Deal,
        rated: Difficulty | None,
        window: tuple[datetime, datetime],
        now: datetime,
    ) -> Challenge:
        """Keep the challenge ``player`` set, its deal committed to with a fresh salt (and
        its difficulty, when drawn for a tier); the player's row locked first, so that two
        creations at once count each other."""
        await PlayerService(self.session).lock(player.id)
        await self.check_room(player, now)
        salt = secrets.token_hex(16)
        values = {
            "id": new_id(),
            "kind": ChallengeKind.SET,
            "day": None,
            "layout": rules.layout,
            "rules": rules.to_dict(),
            "deal": engine.format_deal(deal),
            "deal_key": game_key(deal, rules, engine.get_layout(rules.layout)),
            "salt": salt,
            "commitment": engine.commitment(deal, salt),
            "entries": 0,
            "created_at": now,
            "opens_at": window[0],
            "closes_at": window[1],
            "attempts": body.attempts,
            "name": body.name,
            "creator_id": player.id,
            "max_entries": self.settings.challenge_max_entries,
            "winnable_only": body.winnable_only,
            **_rated(body.tier, rated),
        }
        # A code another challenge holds (50 random bits: as good as never) is drawn again.
        for _ in range(INVITE_DRAWS):
            challenge = await self.challenges.add_with_code(values, new_invite_code())
            if challenge is not None:
                return challenge
        raise ServiceUnavailableProblem("no free invite code was drawn; retry", retry_after=1)

    async def close(self, challenge: Challenge, player: Player, now: datetime) -> Challenge:
        """Close the challenge now (its creator's call): the deal is revealed, attempts
        in progress go on but are no longer ranked. A closed one stays as it was."""
        _check_creator(challenge, player)
        if await self.challenges.close_all([challenge.id], now):
            await GameService(self.session, self.settings).end_secrecy(challenge.id, now)
        return await self._again(challenge.id)

    async def delete(self, challenge: Challenge, player: Player) -> None:
        """Delete the challenge (its creator's call) while nobody has entered it."""
        _check_creator(challenge, player)
        if not await self.challenges.delete_unentered(challenge.id):
            raise ChallengeEnteredProblem(
                f"challenge {challenge.id} has entrants: close it instead"
            )

    async def delete_unopened(self, challenge_ids: list[str], now: datetime) -> None:
        """Delete these challenges where they have not opened at ``now`` (an event's
        edition made ahead: nobody has entered it)."""
        await self.challenges.delete_unopened(challenge_ids, now)

    async def delete_closed_set(self, closed_before: datetime, limit: int) -> int:
        """Delete up to ``limit`` challenges players set that closed before then."""
        return await self.challenges.delete_closed_set(closed_before, limit)

    async def mine(
        self, player: Player, limit: int, after: tuple[datetime, str] | None
    ) -> tuple[list[MyChallenge], tuple[datetime, str] | None]:
        """A page of the challenges ``player`` set or entered, newest first."""
        rows = await self.challenges.of_player(player.id, limit + 1, after)
        more = len(rows) > limit
        rows = rows[:limit]
        last = (rows[-1].challenge.created_at, rows[-1].challenge.id) if more else None
        return rows, last

    # -- attempts -----------------------------------------------------------------------
    async def start(
        self, challenge: Challenge, player: Player, now: datetime
    ) -> tuple[LoadedGame, str]:
        """An attempt of the player's at the challenge: a game of its deal, under its
        rules, committed to with its salt (its commitment is the challenge's). A player's
        first makes their entry (counted against the challenge's bound; provisional for a
        new account: ``entry_is_provisional``); a later one needs an attempt left and none
        in progress."""
        check_open(challenge, now)
        provisional = self.entry_is_provisional(challenge, player, now)
        if await self.challenges.add_entry(
            challenge.id, player.id, player.kind, now, provisional=provisional
        ):
            if await self.challenges.count_entry(challenge.id) is None:
                raise ChallengeFullProblem(
                    f"challenge {challenge.id} has taken {challenge.max_entries} entrants"
                )
        elif not await self.challenges.next_attempt(challenge.id, player.id, challenge.attempts):
            entry = await self.challenges.entry(challenge.id, player.id)
            raise AlreadyEnteredProblem(
                f"player {player.id} has an attempt at {challenge.id} in progress, or none "
                f"left (of {challenge.attempts})",
                game_id=entry.game_id if entry is not None else None,
            )
        game, token = await self._game(challenge, player.id, now, ranked=True)
        await self.challenges.set_entry_game(challenge.id, player.id, game.row.id)
        return game, token

    def entry_is_provisional(self, challenge: Challenge, player: Player, now: datetime) -> bool:
        """Whether the entry ``player`` makes in ``challenge`` at ``now`` is provisional
        (``players.service.is_provisional``, CHALLENGE_ACCOUNT_MIN_HOURS)."""
        hours = self.settings.challenge_account_min_hours
        return is_provisional(player, challenge.opens_at, hours, now)

    # -- events' editions -----------------------------------------------------------------
    async def enter(
        self, board: Challenge, player: Player, now: datetime, cohort_size: int
    ) -> Entrant:
        """The player's place in an edition (its board ``board``): made, in join order, if
        they had none (409 challenge-full past its bound, as an entrant of any challenge;
        racing joins are ordered by the board's row), and their cohort from it."""
        check_open(board, now)
        provisional = self.entry_is_provisional(board, player, now)
        if await self.challenges.add_entry(
            board.id, player.id, player.kind, now, provisional=provisional
        ):
            number = await self.challenges.count_entry(board.id)
            if number is None:
                raise ChallengeFullProblem(f"{board.id} has taken {board.max_entries} entrants")
            cohort = (number - 1) // cohort_size if cohort_size else None
            await self.challenges.set_entrant(board.id, player.id, number, cohort)
            return Entrant(number, cohort)
        found = await self.entrant(board.id, player.id)
        assert found is not None
        return found

    async def entrant(self, board_id: str, player_id: str) -> Entrant | None:
        entry = await self.challenges.entry(board_id, player_id)
        if entry is None or entry.number is None:
            return None
        return Entrant(entry.number, entry.cohort)

    async def derive_round(
        self,
        round_id: str,
        rules: dict[str, Any],
        winnable_only: bool,
        tier: Tier | None,
        attempts: int,
        window: tuple[datetime, datetime],
        secret: bytes,
        solver: SolverPool,
    ) -> dict[str, Any]:
        """A round's challenge, its deal searched (call it with no transaction open), and
        measured when the event asks for a tier (within DIFFICULTY_BUDGET_MS)."""
        budget_ms = (
            self.settings.solver_budget_ms if tier is None else self.settings.difficulty_budget_ms
        )
        seconds = budget_ms / 1000
        found = await solver.run(
            "challenge",
            seconds,
            find_round_deal,
            secret,
            round_id,
            rules,
            winnable_only,
            seconds,
            tier,
            difficulty_settings(self.settings),
        )
        if found is None:
            raise ServiceUnavailableProblem(
                "a round's deal was not found in time (proved winnable"
                + (f", of the {tier.value} tier" if tier is not None else "")
                + "); retry",
                retry_after=1,
            )
        deal, rated = found
        salt = round_salt(secret, round_id)
        game_rules = engine.Rules.from_dict(rules)
        return {
            "id": round_id,
            "deal_key": game_key(deal, game_rules, engine.get_layout(game_rules.layout)),
            "kind": ChallengeKind.ROUND,
            "day": None,
            "layout": rules["layout"],
            "rules": rules,
            "deal": engine.format_deal(deal),
            "salt": salt,
            "commitment": engine.commitment(deal, salt),
            "opens_at": window[0],
            "closes_at": window[1],
            "attempts": attempts,
            "winnable_only": winnable_only,
            **_rated(tier, rated),
        }

    async def set_max_entries(self, challenge_id: str, max_entries: int | None) -> None:
        await self.challenges.set_max_entries(challenge_id, max_entries)

    async def close_edition(self, board_id: str, rounds: int, now: datetime) -> None:
        """Close an edition now (its event cancelled): its board and rounds, and the
        secrecy of its rounds' games."""
        ids = [board_id, *(f"{board_id}.{r}" for r in range(1, rounds + 1))]
        await self.challenges.close_all(ids, now)
        games = GameService(self.session, self.settings)
        for challenge_id in ids[1:]:
            await games.end_secrecy(challenge_id, now)

    async def cohort_board(
        self, board_id: str, player: Player, limit: int, after: BoardKey | None
    ) -> Board:
        """The board of the player's kind among their cohort of the edition ``board_id``,
        each with their rank on the whole board; a 404 for a player with no cohort."""
        entry = await self.challenges.entry(board_id, player.id)
        if entry is None or entry.cohort is None:
            raise NoRankedResultProblem(f"player {player.id} has no cohort in {board_id}")
        places, ranked = await self.challenges.among_cohort(
            board_id, player.kind, entry.cohort, after, limit + 1
        )
        return _cut(Board(board_id, player.kind, ranked, places, None), limit)

    async def practice(
        self, challenge: Challenge, player: Player | None, now: datetime
    ) -> tuple[LoadedGame, str]:
        """An unranked game of a closed challenge's deal (the player's when given): hints
        and analysis as in any game, its result compared with the board when it ends."""
        if challenge.kind is ChallengeKind.EDITION:
            raise NotFoundProblem(
                f"{challenge.id} is an edition's board: practise its rounds, each by its id"
            )
        if not is_closed(challenge, now):
            raise ChallengeStillOpenProblem(
                f"challenge {challenge.id} is open until {challenge.closes_at.isoformat()}: "
                "its deal is practised once it has closed",
                closes_at=challenge.closes_at.isoformat(),
            )
        return await self._game(challenge, player.id if player else None, now, ranked=False)

    async def _game(
        self, challenge: Challenge, player_id: str | None, now: datetime, *, ranked: bool
    ) -> tuple[LoadedGame, str]:
        return await GameService(self.session, self.settings, clock=lambda: now).start(
            engine.parse_cards(challenge.deal),
            engine.Rules.from_dict(challenge.rules),
            engine.get_layout(challenge.layout),
            None,
            chosen=False,
            player_id=player_id,
            challenge_id=challenge.id if ranked else None,
            salt=challenge.salt,
            reveal_after=challenge.closes_at if ranked else None,
            practice_of=None if ranked else challenge.id,
        )

    # -- the board ----------------------------------------------------------------------
    async def board(
        self, challenge_id: str, kind: PlayerKind, limit: int, after: BoardKey | None
    ) -> Board:
        places, ranked = await self.challenges.board_after(challenge_id, kind, after, limit + 1)
        return _cut(Board(challenge_id, kind, ranked, places, None), limit)

    async def apart_board(
        self, challenge_id: str, kind: PlayerKind, side: Side, limit: int, after: BoardKey | None
    ) -> Board:
        """The board's results ranked apart on ``side`` (provisional, flagged), ranked
        among themselves."""
        places, count = await self.challenges.apart_after(
            challenge_id, kind, side, after, limit + 1
        )
        return _cut(Board(challenge_id, kind, count, places, None), limit)

    async def around(self, challenge_id: str, player: Player, neighbours: int) -> Board:
        """The player's ranked result with ``neighbours`` results either side of it; a
        404 that says where it is when it is ranked apart."""
        kind = player.kind
        mine = await self.challenges.place_of(challenge_id, kind, player.id)
        if mine is None:
            entry = await self.challenges.entry(challenge_id, player.id)
            place = standing(entry) if entry is not None else None
            where = (
                f": it is ranked apart (fair_play={place[0].value})"
                if place is not None and place[0] is not Side.BOARD
                else ""
            )
            raise NoRankedResultProblem(
                f"no ranked result of player {player.id} on the board of {challenge_id}{where}"
            )
        before = await self.challenges.board_before(challenge_id, kind, mine.key, neighbours)
        after, ranked = await self.challenges.board_after(challenge_id, kind, mine.key, neighbours)
        return Board(challenge_id, kind, ranked, [*before, mine, *after], None)

    async def among_following(
        self, challenge_id: str, player: Player, limit: int, after: BoardKey | None
    ) -> Board:
        """The board of the player's kind among the player and those they follow, ranked
        among themselves, each with their rank on the whole board
        (``ChallengeRepository.among_following``: their entries found by key, never by a
        scan of the board)."""
        places, ranked = await self.challenges.among_following(
            challenge_id, player.kind, player.id, after, limit + 1
        )
        return _cut(Board(challenge_id, player.kind, ranked, places, None), limit)


def _cut(board: Board, limit: int) -> Board:
    """A board read with one place more than its page: the page, and its next cursor's
    place when there was more."""
    places = board.places[:limit]
    more = len(board.places) > limit
    return replace(board, places=places, next=places[-1].key if more else None)


def _check_creator(challenge: Challenge, player: Player) -> None:
    if challenge.creator_id is None or challenge.creator_id != player.id:
        raise NotChallengeCreatorProblem(
            f"challenge {challenge.id} was not set by player {player.id}"
        )


async def enter_ended_game(session: AsyncSession, ended: GameEnded) -> None:
    """The listener of ``GameEnded`` (``app.main`` wires it), in the transaction of the
    game's last move: an attempt's result is entered (ranked when it ended within the
    window; the entry keeps the best of its attempts), a daily's counted in the player's
    streaks and badges; a practice game learns where it would have ranked."""
    repository = ChallengeRepository(session)
    if ended.practice_of is not None:
        await _compare_practice(session, repository, ended, ended.practice_of)
        return
    if ended.challenge_id is None:
        return
    challenge = await repository.get(ended.challenge_id)
    if challenge is None:
        return
    ranked = ended.ended_at < challenge.closes_at
    await repository.finish_entry(
        ended.game_id,
        ended.status,
        ended.score,
        ended.moves,
        ended.ended_at,
        rank_score=_rank_score(ended) if ranked else None,
        public=is_public(challenge),
    )
    if (
        ranked
        and challenge.kind is ChallengeKind.DAILY
        and challenge.day is not None
        and ended.player_id is not None
    ):
        await PlayerService(session).count_daily(
            ended.player_id, challenge.layout, challenge.day, ended.status is engine.GameStatus.WON
        )


async def total_rounds(
    session: AsyncSession,
    board_id: str,
    round_ids: list[str],
    player_id: str,
    *,
    unplayed: int,
    lower_is_better: bool,
) -> None:
    """An edition's entrant's total, made again from their rounds' best ranked results:
    the sum of their rank scores (``unplayed`` for a round without one: the rank score of
    a round not played), of their moves, and the last of their finishes; none before a
    first result (in the transaction of the move that changed one)."""
    repository = ChallengeRepository(session)
    results = await repository.results_of(round_ids, player_id)
    total, score = None, None
    if results:
        rank_score = sum(r[0] for r in results) + unplayed * (len(round_ids) - len(results))
        total = (rank_score, sum(r[1] for r in results), max(r[2] for r in results))
        score = rank_score if lower_is_better else -rank_score
    await repository.set_total(board_id, player_id, total, score)


def _rank_score(ended: GameEnded) -> int:
    """The board's order whatever the scheme: the score, negated where higher is better."""
    return ended.score if ended.scoring is engine.Scoring.CARDS_LEFT else -ended.score


async def _compare_practice(
    session: AsyncSession, repository: ChallengeRepository, ended: GameEnded, of: str
) -> None:
    """Where the practice game's result would have ranked on the board of its player's
    kind (human without a player): the board of a closed challenge changes no more."""
    kind = PlayerKind.HUMAN
    if ended.player_id is not None:
        player = await PlayerService(session).get(ended.player_id)
        kind = player.kind if player is not None else kind
    rank = await repository.rank_of(of, kind, _rank_score(ended), ended.moves)
    await record_practice(session, ended.game_id, rank, await repository.ranked(of, kind))


# A board's cursor: the last result's rank score, moves, finish and player.
BOARD_CURSOR = TypeAdapter(tuple[Int32, Count32, UtcTime, RowId])


def board_cursor(key: BoardKey) -> str:
    rank_score, moves, finished_at, player_id = key
    return encode_cursor([rank_score, moves, finished_at.isoformat(), player_id])


def board_place(cursor: str) -> BoardKey:
    """The place a board's cursor names; a 422 for one this server did not give."""
    return decode_cursor(cursor, BOARD_CURSOR)


# -- what a player sees of a challenge and a board ---------------------------------------
def _status(challenge: Challenge, now: datetime) -> ChallengeStatus:
    if now >= challenge.closes_at:
        return ChallengeStatus.CLOSED
    return ChallengeStatus.OPEN if now >= challenge.opens_at else ChallengeStatus.UPCOMING


def challenge_out(challenge: Challenge, now: datetime) -> ChallengeRead:
    """The challenge as anyone sees it at ``now``: its deal and best score once closed."""
    over = now >= challenge.closes_at
    return ChallengeRead(
        id=challenge.id,
        kind=challenge.kind,
        name=challenge.name,
        date=challenge.day,
        layout=challenge.layout,
        rules=RulesRead.model_validate(challenge.rules),
        status=_status(challenge, now),
        opens_at=challenge.opens_at,
        closes_at=challenge.closes_at,
        commitment=challenge.commitment,
        entries=challenge.entries,
        attempts=challenge.attempts,
        max_entries=challenge.max_entries,
        winnable_only=challenge.winnable_only,
        creator_id=challenge.creator_id,
        invite_code=challenge.invite_code,
        reveal=ChallengeRevealRead(deal=challenge.deal.split(), salt=challenge.salt)
        if over and challenge.deal
        else None,
        best_score=challenge.best_score if over else None,
        best_score_bound=challenge.best_score_bound if over else None,
        best_score_exact=over and challenge.best_score_exact,
        best_score_searched=over and challenge.best_searched_at is not None,
        tier=challenge.tier,
        difficulty=DifficultyRead.model_validate(challenge.difficulty)
        if over and challenge.difficulty is not None
        else None,
    )


BoardView = Around | Among | CohortOf | FairPlayView


def board_view(
    around: Around | None,
    among: Among | None,
    cohort: CohortOf | None = None,
    fair_play: FairPlayView | None = None,
) -> BoardView | None:
    """The one view of a board asked for (None: the whole board); a 422 for more."""
    asked = [view for view in (around, among, cohort, fair_play) if view is not None]
    if len(asked) > 1:
        raise ValidationProblem(
            "around, among, cohort and fair_play: one at a time", loc=("query", "among")
        )
    return asked[0] if asked else None


def needs_player(view: BoardView | None) -> bool:
    """Whether the view is the caller's own (around, among, cohort): it needs their key."""
    return view is not None and not isinstance(view, FairPlayView)


async def board_page(
    reader: ChallengeService,
    board_id: str,
    kind: PlayerKind,
    limit: int,
    cursor: str | None,
    view: BoardView | None,
    player: Player | None,
    *,
    closed: bool,
) -> tuple[LeaderboardRead, str | None]:
    """A page of a board (a challenge's, an edition's; ``closed`` once it has) and its
    next cursor: from the top (after ``cursor``), around ``player``, among whom they
    follow, in their cohort, or its results ranked apart (provisional, flagged)."""
    after = board_place(cursor) if cursor is not None else None
    if isinstance(view, FairPlayView):
        board = await reader.apart_board(board_id, kind, Side(view.value), limit, after)
    elif view is None or player is None:
        board = await reader.board(board_id, kind, limit, after)
    elif view is Around.ME:
        board = await reader.around(board_id, player, limit)
    elif view is Among.FOLLOWING:
        board = await reader.among_following(board_id, player, limit, after)
    else:
        board = await reader.cohort_board(board_id, player, limit, after)
    next_cursor = board_cursor(board.next) if board.next is not None else None
    return leaderboard_out(board_id, board, next_cursor, closed=closed), next_cursor


def fair_play_out(status: FairPlay, measure: Measure | None, *, closed: bool) -> FairPlayRead:
    """A result's fair-play status, and its measure's figures once its challenge has
    closed: before, they would tell which of the player's moves the hidden cards made
    best (of a deal still in play)."""
    if measure is None or not closed:
        return FairPlayRead(
            status=status,
            telling=None,
            resolved=None,
            expected=None,
            p_value=None,
            measured_at=measure.measured_at if measure is not None else None,
            stock_z=None,
            stock_decisions=None,
            player_stock_z=None,
            player_stock_results=None,
            player_p_value=None,
            player_p_results=None,
        )
    return FairPlayRead(
        status=status,
        telling=measure.telling,
        resolved=measure.resolved,
        expected=round(measure.expected, 3),
        p_value=measure.p_value,
        measured_at=measure.measured_at,
        stock_z=None if measure.stock_z is None else round(measure.stock_z, 3),
        stock_decisions=measure.stock_decisions,
        player_stock_z=None if measure.player_z is None else round(measure.player_z, 3),
        player_stock_results=measure.player_results,
        player_p_value=measure.player_p,
        player_p_results=measure.player_p_results,
    )


def fair_play_reason(measure: Measure | None, settings: Settings, *, closed: bool) -> str:
    """Why a flagged result is ranked apart, for its player: the game's own measure, its
    measures of their last results combined, the stock's evidence of their last results
    (against the server's thresholds); once its challenge has closed (``fair_play_out``)."""
    if measure is None:
        return "one of the rounds of this total was flagged"
    if not closed:
        return (
            "the fair-play measure found that your moves chose as only a player seeing the "
            "hidden cards would; its figures are shown once the challenge closes. The "
            "result is kept, ranked on the flagged side of the board."
        )
    reasons = []
    game = (
        f"at {measure.telling} decisions of the game, the move best with every card known "
        "was not the one a player seeing only their cards would choose, and you chose it "
        f"{measure.resolved} times where honest play does about {measure.expected:.1f}"
    )
    if measure.by_game(settings.fair_play_threshold):
        reasons.append(
            f"{game}: honest play does so that often with a probability of {measure.p_value:.2g}"
        )
    elif measure.by_player(settings.fair_play_threshold):
        reasons.append(
            f"{game}; over your last {measure.player_p_results} results together, honest "
            f"play does what you did with a probability of {measure.player_p:.2g}"
        )
    if measure.by_stock(settings.fair_play_stock_z):
        reasons.append(
            f"over your last {measure.player_results} results, your moves did better with "
            "the stock's true order than with the orders you could not tell from it, by "
            f"{measure.player_z:.1f} standard deviations where honest play stays within "
            f"{settings.fair_play_stock_z:g}"
        )
    if not reasons:  # flagged under thresholds since changed
        reasons.append("the result was flagged under the server's thresholds of that time")
    return "; and ".join(reasons) + ". The result is kept, ranked on the flagged side of the board."


def provisional_note(entry: ChallengeEntry, challenge: Challenge, settings: Settings) -> str | None:
    """What being provisional means for the entry's result, and until when; None for an
    entry that is not provisional."""
    if not entry.provisional:
        return None
    why = (
        "Your account is newer than this challenge, or younger than "
        f"{settings.challenge_account_min_hours} hours: your result is provisional."
    )
    place = standing(entry)
    if not is_public(challenge):
        if entry.fair_play is FairPlay.OK:
            return f"{why} Its fair-play measure said ok: it stands as any other."
        return (
            f"{why} It ranks with the others, marked provisional until its fair-play "
            "measure, within minutes of its end, says ok."
        )
    if place is None:
        return (
            f"{why} Once your game ends it is ranked apart from the established results "
            "until its fair-play measure, within minutes, says ok; then it takes its place "
            "on the board."
        )
    if place[0] is Side.PROVISIONAL:
        return (
            f"{why} It is ranked apart (fair_play=provisional) until its fair-play measure, "
            "within minutes of its end, says ok; then it takes its place on the board."
        )
    if place[0] is Side.BOARD:
        return f"{why} Its fair-play measure said ok: it has taken its place on the board."
    return f"{why} Its fair-play measure flagged it: it is ranked on the flagged side."


def my_entry_out(
    entry: ChallengeEntry | None, challenge: Challenge, settings: Settings, now: datetime
) -> MyEntryRead | None:
    """The caller's entry in ``challenge`` as they see it at ``now``."""
    if entry is None:
        return None
    place = standing(entry)
    measure = measure_of(entry)
    closed = is_closed(challenge, now)
    return MyEntryRead(
        attempts=entry.attempts,
        game_id=entry.game_id,
        score=entry.score,
        moves=entry.moves,
        ranked=entry.rank_score is not None,
        side=place[0] if place is not None else None,
        provisional=entry.provisional,
        provisional_note=provisional_note(entry, challenge, settings),
        number=entry.number,
        cohort=entry.cohort,
        fair_play=fair_play_out(entry.fair_play, measure, closed=closed)
        if place is not None
        else None,
        fair_play_reason=(
            fair_play_reason(measure, settings, closed=closed)
            if entry.fair_play is FairPlay.FLAGGED
            else None
        ),
    )


def leaderboard_out(
    challenge_id: str, board: Board, next_cursor: str | None, *, closed: bool
) -> LeaderboardRead:
    return LeaderboardRead(
        challenge_id=challenge_id,
        kind=board.kind,
        ranked=board.ranked,
        entries=[
            LeaderboardEntryRead(
                rank=p.rank,
                global_rank=p.global_rank,
                player_id=p.player_id,
                name=p.name,
                deleted=p.deleted,
                score=p.score,
                moves=p.moves,
                finished_at=p.finished_at,
                provisional=p.provisional,
                fair_play=fair_play_out(p.fair_play, p.measure, closed=closed),
            )
            for p in board.places
        ],
        next=next_cursor,
    )


__all__ = [
    "BOARD_PROBLEMS",
    "DERIVATIONS",
    "START_PROBLEMS",
    "Among",
    "Around",
    "Board",
    "Challenge",
    "ChallengeKind",
    "ChallengeNotOpenProblem",
    "ChallengeRevealRead",
    "ChallengeService",
    "CohortOf",
    "Entrant",
    "FairPlayView",
    "LeaderboardRead",
    "board_cursor",
    "board_page",
    "board_place",
    "board_view",
    "challenge_out",
    "challenge_secret",
    "is_closed",
    "leaderboard_out",
    "needs_player",
    "total_rounds",
]
