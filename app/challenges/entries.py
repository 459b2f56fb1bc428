"""A player's entries: their attempts at a challenge (the best counts; provisional for a
new account), practice of a closed challenge's deal, and the result entered when a game
ends (``enter_ended_game``, in the transaction of its last move)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from app import engine
from app.challenges.board_repository import BoardRepository
from app.challenges.core import ChallengeService
from app.challenges.errors import (
    AlreadyEnteredProblem,
    ChallengeFullProblem,
    ChallengeStillOpenProblem,
)
from app.challenges.models import Challenge, ChallengeEntry, ChallengeKind
from app.challenges.repository import ChallengeRepository
from app.challenges.windows import check_open, is_closed, is_public
from app.games.service import GameService, LoadedGame, record_practice
from app.kit.errors import NotFoundProblem
from app.kit.events import GameEnded
from app.kit.models import PlayerKind
from app.players.service import Player, PlayerService, is_provisional


class EntryService(ChallengeService):
    """The use cases of a player's entries."""

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
        entered = await self.enter(challenge, player, now) is not None  # their first
        if not entered and not await self.challenges.next_attempt(
            challenge.id, player.id, challenge.attempts
        ):
            entry = await self.challenges.entry(challenge.id, player.id)
            raise AlreadyEnteredProblem(
                f"player {player.id} has an attempt at {challenge.id} in progress, or none "
                f"left (of {challenge.attempts})",
                game_id=entry.game_id if entry is not None else None,
            )
        game, token = await self._game(challenge, player.id, now, ranked=True)
        await self.challenges.set_entry_game(challenge.id, player.id, game.row.id)
        return game, token

    async def enter(self, challenge: Challenge, player: Player, now: datetime) -> int | None:
        """Make the player's entry in ``challenge`` if they had none: their number in the
        order of entry (409 challenge-full past its bound: of two entrants racing for the
        last place, one gets it), or None when they had entered already. Provisional for
        a new account (``entry_is_provisional``)."""
        provisional = self.entry_is_provisional(challenge, player, now)
        if not await self.challenges.add_entry(
            challenge.id, player.id, player.kind, now, provisional=provisional
        ):
            return None
        number = await self.challenges.count_entry(challenge.id)
        if number is None:
            raise ChallengeFullProblem(
                f"challenge {challenge.id} has taken {challenge.max_entries} entrants"
            )
        return number

    async def entry(self, challenge_id: str, player_id: str) -> ChallengeEntry | None:
        return await self.challenges.entry(challenge_id, player_id)

    async def set_entrant(
        self, challenge_id: str, player_id: str, number: int, cohort: int | None
    ) -> None:
        """Keep an edition's entrant's place in its join order and their cohort."""
        await self.challenges.set_entrant(challenge_id, player_id, number, cohort)

    def entry_is_provisional(self, challenge: Challenge, player: Player, now: datetime) -> bool:
        """Whether the entry ``player`` makes in ``challenge`` at ``now`` is provisional
        (``players.service.is_provisional``, CHALLENGE_ACCOUNT_MIN_HOURS)."""
        hours = self.settings.challenge_account_min_hours
        return is_provisional(player, challenge.opens_at, hours, now)

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
        rank_score=rank_score(ended) if ranked else None,
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


def rank_score(ended: GameEnded) -> int:
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
    boards = BoardRepository(session)
    rank = await boards.rank_of(of, kind, rank_score(ended), ended.moves)
    await record_practice(session, ended.game_id, rank, await boards.ranked(of, kind))


async def ranked_results(
    session: AsyncSession, challenge_ids: list[str], player_id: str
) -> list[tuple[int, int, datetime]]:
    """The player's ranked results (rank score, moves, finish) in these challenges, those
    ranked apart included (in the transaction of the move that changed one)."""
    return await ChallengeRepository(session).results_of(challenge_ids, player_id)


async def set_total(
    session: AsyncSession,
    board_id: str,
    player_id: str,
    total: tuple[int, int, datetime] | None,
    score: int | None,
) -> None:
    """Keep an entrant's total (rank score, moves, last finish) and its score on the
    board ``board_id`` (an edition's: ``app.events.rounds``)."""
    await ChallengeRepository(session).set_total(board_id, player_id, total, score)
