"""Challenges players set for friends: a deal the server draws at the creation (a random
deal, proved winnable unless asked not to, of a tier when asked), committed to at once and
revealed when it closes (its creator knows it no better than anyone else); a window, an
invite code, as many open ones a player as the server allows."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

from pydantic import TypeAdapter

from app import engine
from app.challenges.core import ChallengeService, rated_values
from app.challenges.deals import draw_of_tier
from app.challenges.errors import (
    ChallengeEnteredProblem,
    NotChallengeCreatorProblem,
    TooManyOpenChallengesProblem,
)
from app.challenges.models import Challenge, ChallengeKind
from app.challenges.repository import MyChallenge
from app.challenges.schemas import ChallengeCreate, MyChallengesRead, my_challenges_out
from app.challenges.windows import ChallengeKey
from app.engine.difficulty import Difficulty, Tier
from app.engine.equivalence import game_key
from app.games.service import GameService, difficulty_settings, winnable_deal
from app.kit.errors import NotFoundProblem, ServiceUnavailableProblem, ValidationProblem
from app.kit.ids import new_id
from app.kit.paging import UtcTime, decode_cursor, encode_cursor
from app.kit.workload import Searches
from app.players.service import Player, PlayerService
from app.settings import Settings

# A window's bounds: at least an hour; at most the setting's hours (challenge_max_hours),
# which also bounds how far ahead it may open.
MIN_WINDOW = timedelta(hours=1)
# An invite code: ten characters of Crockford's base 32 (no I, L, O, U: nothing to
# misread), 50 bits, shown as two groups of five.
INVITE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
INVITE_LENGTH = 10
INVITE_DRAWS = 3
_INVITE_READS = str.maketrans({"I": "1", "L": "1", "O": "0", "-": None, " ": None})


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


# list_my_challenges' cursor: the last challenge's creation time and id.
MY_CHALLENGES_CURSOR = TypeAdapter(tuple[UtcTime, ChallengeKey])


class SetChallengeService(ChallengeService):
    """The use cases of challenges players set."""

    async def by_invite(self, text: str) -> Challenge:
        """The challenge an invite code names (as a person typed it); a 404 else."""
        code = read_invite_code(text)
        challenge = await self.challenges.by_invite_code(code) if code is not None else None
        if challenge is None:
            raise NotFoundProblem(f"no challenge has the invite code {text[:16]!r}")
        return challenge

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
            **rated_values(body.tier, rated),
        }
        # A code another challenge holds (50 random bits: as good as never) is drawn again.
        for _ in range(INVITE_DRAWS):
            challenge = await self.challenges.add_with_code(values, new_invite_code())
            if challenge is not None:
                return challenge
        raise ServiceUnavailableProblem("no free invite code was drawn; retry", retry_after=1)

    async def close(self, challenge_id: str, player: Player, now: datetime) -> Challenge:
        """Close the challenge now (its creator's call): the deal is revealed, attempts
        in progress go on but are no longer ranked. A closed one stays as it was."""
        challenge = await self.get(challenge_id)
        _check_creator(challenge, player)
        if await self.challenges.close_all([challenge.id], now):
            await GameService(self.session, self.settings).end_secrecy(challenge.id, now)
        return await self.refreshed(challenge.id)

    async def delete(self, challenge_id: str, player: Player) -> None:
        """Delete the challenge (its creator's call) while nobody has entered it."""
        challenge = await self.get(challenge_id)
        _check_creator(challenge, player)
        if not await self.challenges.delete_unentered(challenge.id):
            raise ChallengeEnteredProblem(
                f"challenge {challenge.id} has entrants: close it instead"
            )

    async def mine(
        self, player: Player, limit: int, after: tuple[datetime, str] | None
    ) -> tuple[list[MyChallenge], tuple[datetime, str] | None]:
        """A page of the challenges ``player`` set or entered, newest first."""
        rows = await self.challenges.of_player(player.id, limit + 1, after)
        more = len(rows) > limit
        rows = rows[:limit]
        last = (rows[-1].challenge.created_at, rows[-1].challenge.id) if more else None
        return rows, last

    async def my_challenges(
        self, player: Player, limit: int, cursor: str | None, now: datetime
    ) -> tuple[MyChallengesRead, str | None]:
        """A page of the challenges ``player`` set or entered as they see them at ``now``,
        and its next cursor (a 422 for a cursor this server did not give)."""
        after = decode_cursor(cursor, MY_CHALLENGES_CURSOR) if cursor is not None else None
        rows, last = await self.mine(player, limit, after)
        next_cursor = encode_cursor([last[0].isoformat(), last[1]]) if last is not None else None
        return my_challenges_out(rows, self.settings, now, next_cursor), next_cursor


def _check_creator(challenge: Challenge, player: Player) -> None:
    if challenge.creator_id is None or challenge.creator_id != player.id:
        raise NotChallengeCreatorProblem(
            f"challenge {challenge.id} was not set by player {player.id}"
        )
