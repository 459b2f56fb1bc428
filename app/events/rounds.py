"""An event's rounds and its editions' entrants, kept on the challenges' rows through the
challenges' service: a round is a challenge of kind ``round`` whose deal comes from the
server's secret and the round's id (``find_round_deal``); an edition's board is a
challenge of kind ``edition`` whose entries are the entrants, numbered in join order and
put in cohorts by it; an entrant's total on the board is made again from their rounds'
best results in the transaction of the move that changed one."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app import engine
from app.challenges.service import (
    Challenge,
    ChallengeKind,
    ChallengeService,
    EntryService,
    check_open,
    find_round_deal,
    ranked_results,
    rated_values,
    round_salt,
    set_total,
)
from app.engine.difficulty import Tier
from app.engine.equivalence import game_key
from app.games.service import GameService, LoadedGame, difficulty_settings
from app.kit.errors import ServiceUnavailableProblem
from app.kit.workload import SolverPool
from app.players.service import Player
from app.settings import Settings


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player's place in an edition: their number in its join order and cohort."""

    number: int
    cohort: int | None


class RoundService:
    def __init__(self, session: AsyncSession, settings: Settings) -> None:
        self.session = session
        self.settings = settings
        self.entries = EntryService(session, settings)

    async def enter(
        self, board: Challenge, player: Player, now: datetime, cohort_size: int
    ) -> Entrant:
        """The player's place in an edition (its board ``board``): made, in join order, if
        they had none (409 challenge-full past its bound, as an entrant of any challenge;
        racing joins are ordered by the board's row), and their cohort from it."""
        check_open(board, now)
        number = await self.entries.enter(board, player, now)
        if number is not None:
            cohort = (number - 1) // cohort_size if cohort_size else None
            await self.entries.set_entrant(board.id, player.id, number, cohort)
            return Entrant(number, cohort)
        found = await self.entrant(board.id, player.id)
        assert found is not None
        return found

    async def entrant(self, board_id: str, player_id: str) -> Entrant | None:
        entry = await self.entries.entry(board_id, player_id)
        if entry is None or entry.number is None:
            return None
        return Entrant(entry.number, entry.cohort)

    async def start(
        self, challenge: Challenge, player: Player, now: datetime
    ) -> tuple[LoadedGame, str]:
        """An attempt of the player's at a round (``EntryService.start``)."""
        return await self.entries.start(challenge, player, now)

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
            **rated_values(tier, rated),
        }

    async def close_edition(self, board_id: str, rounds: int, now: datetime) -> None:
        """Close an edition now (its event cancelled): its board and rounds, and the
        secrecy of its rounds' games."""
        ids = [board_id, *(f"{board_id}.{r}" for r in range(1, rounds + 1))]
        await ChallengeService(self.session, self.settings).close_all(ids, now)
        games = GameService(self.session, self.settings)
        for challenge_id in ids[1:]:
            await games.end_secrecy(challenge_id, now)


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
    results = await ranked_results(session, round_ids, player_id)
    total, score = None, None
    if results:
        rank_score = sum(r[0] for r in results) + unplayed * (len(round_ids) - len(results))
        total = (rank_score, sum(r[1] for r in results), max(r[2] for r in results))
        score = rank_score if lower_is_better else -rank_score
    await set_total(session, board_id, player_id, total, score)
