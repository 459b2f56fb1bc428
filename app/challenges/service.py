"""The challenges' use cases, as the other domains and the routes see them: the server's
daily challenge (``daily``), challenges players set for friends (``set_challenges``), a
player's entries and attempts (``entries``), the boards (``boards``), each built on a
stored challenge (``core``); what a player sees of them is presented by ``schemas``.

Another domain imports this module alone (the import contracts say so): what it needs of
the challenges is named here. A route makes one call here: ``ChallengeUseCases`` runs the
use cases that read, search with the solver and write, in that order, giving back the
reader's connection before the search (no transaction is open while the solver runs).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from app.challenges.boards import (
    BoardService,
    BoardView,
    board_cursor,
    board_page,
    board_place,
    board_view,
    needs_player,
)
from app.challenges.core import ChallengeService, LookBack, rated_values
from app.challenges.daily import (
    DERIVATIONS,
    SECRET_NAME,
    SearchedCandidates,
    challenge_secret,
    challenge_to_play,
    challenge_to_read,
    derive_daily,
    ensure_challenge,
)
from app.challenges.deals import find_round_deal, round_salt
from app.challenges.entries import (
    EntryService,
    enter_ended_game,
    rank_score,
    ranked_results,
    set_total,
)
from app.challenges.errors import (
    AlreadyEnteredProblem,
    ChallengeClosedProblem,
    ChallengeFullProblem,
    ChallengeNotOpenProblem,
    NoRankedResultProblem,
)
from app.challenges.models import Challenge, ChallengeKind
from app.challenges.schemas import (
    Among,
    Around,
    ChallengeCreate,
    ChallengeRevealRead,
    CohortOf,
    FairPlayView,
    LeaderboardRead,
    challenge_out,
    leaderboard_out,
    my_entry_out,
)
from app.challenges.set_challenges import SetChallengeService, window_of
from app.challenges.windows import (
    ChallengeKey,
    challenge_id,
    check_challenge_id,
    check_open,
    closes_at,
    daily_of,
    is_closed,
    opens_at,
)
from app.games.service import LoadedGame, rules_of
from app.kit.database import Sessions
from app.kit.errors import NotFoundProblem, ValidationProblem
from app.kit.ratelimit import RateLimitedProblem
from app.kit.workload import Searches
from app.players.service import PLAYER_PROBLEMS, Player

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


@dataclass(frozen=True, slots=True)
class ChallengeUseCases:
    """A request's use cases that read, search and write: ``reader`` on the request's read
    session (closed before a search), ``writer`` on its write session (committed by the
    session dependency), ``solver`` the request's searches, ``sessions`` for the server's
    own secret (made in a transaction of its own)."""

    reader: ChallengeService
    writer: ChallengeService
    solver: Searches
    sessions: Sessions

    async def start_attempt(
        self, challenge_id: str, player: Player, now: datetime
    ) -> tuple[LoadedGame, str]:
        """One of the player's ranked attempts at the challenge (a daily derived first if
        nobody asked for it yet: ``challenge_to_play``)."""
        challenge = await challenge_to_play(
            challenge_id, self.reader, self.writer, self.solver.pool, self.sessions, now
        )
        return await self._entries().start(challenge, player, now)

    async def create(self, body: ChallengeCreate, player: Player, now: datetime) -> Challenge:
        """The challenge ``player`` sets: its window checked, the room they have checked
        before the search (a refusal costs nothing), the deal drawn with no transaction
        open, then kept."""
        window = window_of(body, now, self.writer.settings)
        rules = rules_of(body.layout, body.rules)
        await SetChallengeService(self.reader.session, self.reader.settings).check_room(player, now)
        await self.reader.session.close()
        # no transaction is open
        setting = SetChallengeService(self.writer.session, self.writer.settings)
        deal, rated = await setting.draw(rules, body.winnable_only, body.tier, self.solver)
        return await setting.create(player, body, rules, deal, rated, window, now)

    async def read(self, challenge_id: str, now: datetime) -> Challenge:
        """The challenge as it stands at ``now`` (``challenge_to_read``)."""
        return await challenge_to_read(
            challenge_id, self.reader, self.writer, self.solver.pool, self.sessions, now
        )

    async def practice(
        self, challenge_id: str, player: Player | None, now: datetime
    ) -> tuple[LoadedGame, str]:
        """An unranked game of a closed challenge's deal (the player's when given)."""
        challenge = await self.read(challenge_id, now)
        return await self._entries().practice(challenge, player, now)

    def _entries(self) -> EntryService:
        return EntryService(self.writer.session, self.writer.settings)


__all__ = [
    "BOARD_PROBLEMS",
    "DERIVATIONS",
    "SECRET_NAME",
    "START_PROBLEMS",
    "Among",
    "Around",
    "BoardService",
    "BoardView",
    "Challenge",
    "ChallengeKey",
    "ChallengeKind",
    "ChallengeNotOpenProblem",
    "ChallengeRevealRead",
    "ChallengeService",
    "ChallengeUseCases",
    "CohortOf",
    "EntryService",
    "FairPlayView",
    "LeaderboardRead",
    "LookBack",
    "SearchedCandidates",
    "SetChallengeService",
    "board_cursor",
    "board_page",
    "board_place",
    "board_view",
    "challenge_id",
    "challenge_out",
    "challenge_secret",
    "challenge_to_play",
    "challenge_to_read",
    "check_challenge_id",
    "check_open",
    "closes_at",
    "daily_of",
    "derive_daily",
    "ensure_challenge",
    "enter_ended_game",
    "find_round_deal",
    "is_closed",
    "leaderboard_out",
    "my_entry_out",
    "needs_player",
    "opens_at",
    "rank_score",
    "ranked_results",
    "rated_values",
    "round_salt",
    "set_total",
    "window_of",
]
