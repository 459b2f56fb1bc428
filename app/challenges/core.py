"""A stored challenge, whatever its kind: read by its id, kept, closed, deleted, and
looked back on once closed (its best score and its difficulty, searched by the solver
with no transaction open). The daily, the challenges players set, the entries and the
boards build on it (``daily``, ``set_challenges``, ``entries``, ``boards``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app import engine
from app.challenges.models import Challenge
from app.challenges.repository import ChallengeRepository
from app.engine.difficulty import Difficulty, Tier
from app.engine.solver import BestAnswer, SearchBudget, solve_best
from app.games.service import rate
from app.kit.errors import NotFoundProblem
from app.kit.models import utcnow
from app.kit.workload import SolverPool
from app.settings import Settings


def rated_values(tier: Tier | None, rated: Difficulty | None) -> dict[str, Any]:
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


class ChallengeService:
    def __init__(self, session: AsyncSession, settings: Settings) -> None:
        self.session = session
        self.settings = settings
        self.challenges = ChallengeRepository(session)

    async def stored(self, challenge_id: str) -> Challenge | None:
        return await self.challenges.get(challenge_id)

    async def get(self, challenge_id: str) -> Challenge:
        """The stored challenge, or a 404."""
        challenge = await self.challenges.get(challenge_id)
        if challenge is None:
            raise NotFoundProblem(f"no challenge {challenge_id[:48]!r}")
        return challenge

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
        return await self.refreshed(challenge_id)

    async def refreshed(self, challenge_id: str) -> Challenge:
        """The challenge read again (its row changed in this transaction); a 404 when it
        was deleted meanwhile."""
        stored = await self.challenges.get(challenge_id)
        if stored is None:
            raise NotFoundProblem(f"no challenge {challenge_id!r}: it was deleted")
        await self.session.refresh(stored)
        return stored

    async def set_max_entries(self, challenge_id: str, max_entries: int | None) -> None:
        await self.challenges.set_max_entries(challenge_id, max_entries)

    async def delete_unopened(self, challenge_ids: list[str], now: datetime) -> None:
        """Delete these challenges where they have not opened at ``now`` (an event's
        edition made ahead: nobody has entered it)."""
        await self.challenges.delete_unopened(challenge_ids, now)

    async def delete_closed_set(self, closed_before: datetime, limit: int) -> int:
        """Delete up to ``limit`` challenges players set that closed before then."""
        return await self.challenges.delete_closed_set(closed_before, limit)

    async def close_all(self, challenge_ids: list[str], now: datetime) -> list[str]:
        """Close these challenges now (those not closed yet); the ids closed."""
        return await self.challenges.close_all(challenge_ids, now)
