"""The fair-play measure of ranked results, within minutes of their end.

Each ranked result is due to be measured as it is entered (``measure_due_at``). The
server knows the deal, so nothing waits for the challenge to close: ``measure_due``
claims the results due (the longest due first; a claim is a lease, so a measure that
dies leaves its result due again), and for each reads its game's moves (a short read),
measures it in the solver pool (no transaction and no connection held while it
searches, ``app.engine.fairplay``), then keeps the measure (a short write that locks the
entry): ``ok``, which puts a provisional result on its board, or ``flagged`` when its
p-value is under ``FAIR_PLAY_THRESHOLD``, which moves the result to the board's flagged
side (ranked apart, never deleted). Its p-value is combined with the player's last ones
(``FAIR_PLAY_RESULTS``, read in the same write): a result that leans the clairvoyant way
itself is flagged when the combination is under the threshold too (a short game, which
cannot be flagged alone, of a player whose other results show the same). The stock's
evidence is measured beside it (``stock_evidence``: not for a deal drawn by difficulty)
and summed with the player's last ones: past ``FAIR_PLAY_STOCK_Z``, the result is flagged
too. One game cannot show a stock-only cheater; a player's results can
(docs/fairplay.md). A round's measure settles its edition's entry too. A player has one
result measured at a time (each sums their last ones); a result superseded by a better
attempt while it was measured keeps the new one's measure, not the old one's.

Every server process runs ``measure_due`` on a schedule (``app.ops.jobs``);
``python -m app.ops.fairplay`` runs it once, for a backlog or one challenge.
"""

from __future__ import annotations

import asyncio
import logging
import zlib
from collections import Counter
from dataclasses import dataclass, replace
from datetime import timedelta

from app import engine
from app.challenges.models import ChallengeKind
from app.challenges.repository import ChallengeRepository, Measure, Unmeasured
from app.engine.fairplay import (
    FairPlay,
    StockEvidence,
    combined,
    measure,
    stock_evidence,
    summed,
)
from app.games.service import GameService
from app.kit.clock import Clock
from app.kit.database import Database
from app.kit.workload import SolverPool
from app.settings import Settings

log = logging.getLogger("app.fairplay")

MEASURE_SECONDS = 120  # a game's measure (bench/fairplay.py: most take a few seconds)
STOCK_SECONDS = 60  # and its stock's evidence
# How long a claim holds a result: past both budgets, a measure that died has let it go.
LEASE = timedelta(seconds=2 * (MEASURE_SECONDS + STOCK_SECONDS))


@dataclass(frozen=True, slots=True)
class Measured:
    ok: int = 0
    flagged: int = 0
    missing: int = 0  # results whose game was purged: measured as no decision (ok)

    @property
    def kept(self) -> int:
        """The measures kept (a result superseded while it was measured keeps none)."""
        return self.ok + self.flagged


def _measure_game(result: Unmeasured, moves: list[str]) -> tuple[FairPlay, StockEvidence | None]:
    rules = engine.Rules.from_dict(result.rules)
    deal = engine.parse_cards(result.deal)
    layout = engine.get_layout(result.layout)
    seed = zlib.crc32(result.challenge_id.encode())  # the same for every entrant
    fair = measure(deal, rules, moves, layout, seed=seed, seconds=MEASURE_SECONDS)
    if not result.random_deal:
        return fair, None
    evidence = stock_evidence(
        deal, rules, moves, layout, seed=seed, winnable=result.winnable_only, seconds=STOCK_SECONDS
    )
    return fair, evidence


async def measure_due(
    database: Database,
    settings: Settings,
    solver: SolverPool,
    clock: Clock,
    limit: int,
    challenge_id: str | None = None,
    workers: int = 1,
) -> Measured:
    """Measure up to ``limit`` ranked results due at ``clock()`` (of ``challenge_id`` only,
    when given), ``workers`` at a time (as many as ``solver`` has slots for the kind
    ``fair_play``): each claimed, measured and kept in turn."""
    outcomes: Counter[str] = Counter()
    left = limit

    async def worker() -> None:
        nonlocal left
        while left > 0:
            left -= 1
            now = clock()
            async with database.sessions() as claiming:
                result = await ChallengeRepository(claiming).claim_due(
                    now, now + LEASE, challenge_id
                )
                await claiming.commit()
            if result is None:
                return
            for outcome in await _measure_one(database, settings, solver, clock, result):
                outcomes[outcome] += 1

    await asyncio.gather(*(worker() for _ in range(workers)))
    return Measured(outcomes["ok"], outcomes["flagged"], outcomes["missing"])


async def _measure_one(
    database: Database, settings: Settings, solver: SolverPool, clock: Clock, result: Unmeasured
) -> list[str]:
    """Measure one result and keep its measure: what it counts for (``Measured``'s
    fields)."""
    outcomes = []
    async with database.read_sessions() as reading:
        games = GameService(reading, settings)
        row = await games.get(result.game_id) if result.game_id is not None else None
        moves = await games.move_log(row) if row is not None else []
    if row is None:
        outcomes.append("missing")
    fair, evidence = await solver.run(
        "fair_play", MEASURE_SECONDS + STOCK_SECONDS, _measure_game, result, moves
    )
    now = clock()
    async with database.sessions() as writing:
        repository = ChallengeRepository(writing)
        window = settings.fair_play_results - 1  # this one's earlier results
        ps = [fair.p_value, *await repository.measure_history(result.player_id, window)]
        figures = Measure(
            fair.telling,
            fair.resolved,
            fair.expected,
            fair.p_value,
            now,
            player_p=combined(ps),
            player_p_results=len(ps),
        )
        if evidence is not None:
            zs = [evidence.z, *await repository.stock_history(result.player_id, window)]
            figures = replace(
                figures,
                stock_z=evidence.z,
                stock_decisions=evidence.decisions,
                player_z=summed(zs),
                player_results=len(zs),
            )
        is_flagged = (
            figures.by_game(settings.fair_play_threshold)
            or figures.by_player(settings.fair_play_threshold)
            or figures.by_stock(settings.fair_play_stock_z)
        )
        kept = await repository.keep_measure(
            result.challenge_id, result.player_id, result.game_id, figures, is_flagged
        )
        if kept and result.kind is ChallengeKind.ROUND:
            board_id = result.challenge_id.rpartition(".")[0]
            await repository.settle_edition(board_id, result.player_id)
        await writing.commit()
    if kept:
        outcomes.append("flagged" if is_flagged else "ok")
        if is_flagged:
            log.info(
                "flagged %s on %s: %d of %d telling decisions resolved as clairvoyant, "
                "p=%.2g (over %d results: %.2g); the stock's evidence summed over %s "
                "results: %s",
                result.player_id,
                result.challenge_id,
                fair.resolved,
                fair.telling,
                fair.p_value,
                figures.player_p_results,
                figures.player_p,
                figures.player_results,
                figures.player_z,
            )
    return outcomes
