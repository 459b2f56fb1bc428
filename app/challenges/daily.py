"""The daily challenge: one a layout and UTC day, derived (``app.challenges.deals``) the
first time anyone asks for it, by the solver with no transaction open, then stored: every
later caller, on any replica, reads the stored deal. Its secret is ``CHALLENGE_SECRET``,
or else one the server makes for itself once and keeps (``app.kit.server_secrets``)."""

from __future__ import annotations

import threading
from datetime import date, datetime
from typing import Any

from app import engine
from app.challenges.core import ChallengeService
from app.challenges.deals import daily_rules, daily_salt, find_daily_deal
from app.challenges.errors import ChallengeNotOpenProblem
from app.challenges.models import Challenge, ChallengeKind
from app.challenges.windows import (
    challenge_id,
    check_challenge_id,
    check_day_open,
    closes_at,
    daily_of,
    is_closed,
    opens_at,
)
from app.engine.equivalence import game_key
from app.kit.database import Sessions
from app.kit.errors import NotFoundProblem, ServiceUnavailableProblem
from app.kit.server_secrets import server_secret
from app.kit.workload import Coalesced, SolverPool
from app.settings import Settings

SECRET_NAME = "challenge"


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


async def challenge_secret(settings: Settings, sessions: Sessions) -> bytes:
    """``CHALLENGE_SECRET``, or else the secret the server keeps for the challenges: made
    once, in a transaction of its own (it is the server's, not any request's)."""
    return await server_secret(SECRET_NAME, settings.challenge_secret, sessions)


async def derive_daily(
    settings: Settings, day: date, layout: str, secret: bytes, solver: SolverPool
) -> dict[str, Any]:
    """The day's challenge, computed (a solver search: call it with no transaction
    open)."""
    seconds = settings.solver_budget_ms / 1000
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
        challenge_id(day, layout),
        lambda: derive_daily(reader.settings, day, layout, secret, solver),
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
    if stored.kind is ChallengeKind.DUEL:
        raise _duels_own(challenge_id)
    if stored.kind is not ChallengeKind.SET:
        raise NotFoundProblem(
            f"challenge {challenge_id[:48]!r} is an event's: its rounds start with "
            "start_event_round"
        )
    return stored


def _duels_own(challenge_id: str) -> NotFoundProblem:
    """A duel's deal is the duel's: its two players play it through the duels' routes,
    and nobody reads its board (a challenger would see the score to beat)."""
    return NotFoundProblem(f"no challenge {challenge_id[:48]!r}")


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
        if challenge.kind is ChallengeKind.DUEL:
            raise _duels_own(challenge_id)
    # (An edition's board has no deal of its own: its rounds have theirs.)
    if is_closed(challenge, now) and challenge.deal:
        found = await writer.look_back(challenge, solver)  # no transaction is open yet
        if found:
            challenge = await writer.keep_look_back(challenge.id, found)
    return challenge
