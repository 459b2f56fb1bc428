"""The duels' use cases: asking for a duel (matched to a waiting one of a similar rating,
or opened), a duel's result as its games end, the deadlines and the fair-play measure's
verdicts (a scheduled job), ratings and their board.

A duel's deal is held by a challenge of kind ``duel`` (``app.challenges``), whose two
entries are its players' games: so its deal is committed before the first move and kept
secret until the duel ends, no hint or analysis is given in its games, their results are
entered by the server and each is measured for fair play, exactly as a challenge's are.

Another domain imports this module alone."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pydantic import TypeAdapter
from sqlalchemy.ext.asyncio import AsyncSession

from app import engine
from app.challenges.service import (
    ChallengeKind,
    ChallengeService,
    EntryService,
    SetChallengeService,
    rank_score,
)
from app.duels import ratings
from app.duels.errors import (
    DuelGameInProgressProblem,
    NoRatingProblem,
    TooManyWaitingDuelsProblem,
)
from app.duels.models import Duel, DuelStatus, Outcome, Rating, RatingChange
from app.duels.pools import Preset, pool_of, pool_parts, pool_rules
from app.duels.repository import DuelRepository, minute_of
from app.duels.schemas import (
    DuelCreate,
    DuelRead,
    DuelSideRead,
    MyDuelsRead,
    PlayerRatingsRead,
    RatingBoardEntryRead,
    RatingBoardRead,
    RatingChangeRead,
    RatingHistoryRead,
    RatingRead,
    YourResult,
)
from app.engine.difficulty import Tier
from app.engine.equivalence import game_key
from app.games.service import GameService, LoadedGame
from app.kit.database import Database
from app.kit.errors import NotFoundProblem, ServiceUnavailableProblem, ValidationProblem
from app.kit.events import GameEnded, PlayerDeleted
from app.kit.ids import new_id
from app.kit.models import PlayerKind, utcnow
from app.kit.paging import UtcTime, decode_cursor, encode_cursor
from app.kit.workload import Searches
from app.players.service import Player, PlayerService
from app.settings import Settings, get_settings

# Tries at taking a waiting duel another request took first, before opening one.
CLAIM_TRIES = 3
# Duels the scheduled job decides or settles a turn, each in a transaction of its own.
JOB_BATCH = 100
RECENT_CHANGES = 5

MY_DUELS_CURSOR = TypeAdapter(tuple[UtcTime, str])
HISTORY_CURSOR = TypeAdapter(tuple[UtcTime, int])
BOARD_CURSOR = TypeAdapter(tuple[int, str])


def check_pool(pool: str) -> tuple[str, Preset]:
    parts = pool_parts(pool)
    if parts is None:
        raise NotFoundProblem(f"no pool {pool[:48]!r}: a layout and a preset, as tripeaks.standard")
    return parts


@dataclass(frozen=True, slots=True)
class Asked:
    """A request for a duel, as matching reads it."""

    pool: str
    rating: int
    provisional: bool
    kind: PlayerKind
    mixes: bool  # takes the other kind's duels that take it


class DuelService:
    def __init__(self, session: AsyncSession, settings: Settings) -> None:
        self.session = session
        self.settings = settings
        self.duels = DuelRepository(session)

    # -- asking for a duel ------------------------------------------------------------------
    async def asked(self, player: Player, body: DuelCreate) -> Asked:
        pool = pool_of(body.layout, body.preset)
        stored = await self.duels.rating(player.id, pool)
        games = stored.games if stored is not None else 0
        return Asked(
            pool=pool,
            rating=stored.rating if stored is not None else ratings.NEW.rating,
            provisional=games < self.settings.rating_provisional_games,
            kind=player.kind,
            mixes=player.kind is PlayerKind.BOT or body.with_bots,
        )

    async def check_room(self, player: Player) -> None:
        """Refuse (409) a player with a duel game to finish, or as many duels waiting as
        they may have."""
        unfinished = await self.duels.unfinished_game(player.id)
        if unfinished is not None:
            host = unfinished.host_id == player.id
            raise DuelGameInProgressProblem(
                f"finish your game of duel {unfinished.id} first",
                duel_id=unfinished.id,
                game_id=unfinished.host_game_id if host else unfinished.challenger_game_id,
            )
        limit = self.settings.duel_waiting_per_player
        if await self.duels.waiting_count(player.id) >= limit:
            raise TooManyWaitingDuelsProblem(
                f"player {player.id} has {limit} duels waiting for a challenger: play again "
                "once one is matched or expires",
                limit=limit,
            )

    async def match(
        self, player: Player, asked: Asked, now: datetime
    ) -> tuple[Duel, LoadedGame, str] | None:
        """Take the nearest waiting duel the player may take (``nearest_waiting``): its
        deal dealt to them as their attempt at its challenge; None when there is none
        (or each one found was taken first by another request)."""
        s = self.settings
        widening = (s.duel_range_start, s.duel_range_per_minute, s.duel_range_max)
        mine = await self.duels.rating(player.id, asked.pool)
        excluded = [mine.last_opponent_id] if mine and mine.last_opponent_id else []
        for _ in range(CLAIM_TRIES):
            found = await self.duels.nearest_waiting(
                asked.pool,
                asked.rating,
                player.id,
                asked.kind,
                asked.mixes,
                now,
                widening,
                excluded,
            )
            if not found:
                return None
            for duel_id in found:
                due = now + timedelta(hours=s.duel_play_hours)
                claimed = await self.duels.claim(
                    duel_id,
                    {
                        "challenger_id": player.id,
                        "challenger_kind": player.kind,
                        "challenger_rating": asked.rating,
                        "challenger_provisional": asked.provisional,
                        "matched_at": now,
                        "challenger_due_at": due,
                    },
                )
                if not claimed:
                    continue
                duel = await self.duels.get(duel_id, for_update=True)
                assert duel is not None and duel.challenge_id is not None
                challenge = await ChallengeService(self.session, s).get(duel.challenge_id)
                game, token = await EntryService(self.session, s).start(challenge, player, now)
                duel.challenger_game_id = game.row.id
                duel.decide_at = self._next_deadline(duel, now)
                await self.session.flush()
                return duel, game, token
        return None

    async def draw(
        self, asked: Asked, solver: Searches
    ) -> tuple[engine.Deal, Tier | None, dict[str, object] | None]:
        """A deal for a new duel (a solver search: call it with no transaction open):
        proved winnable, of the tier that suits the host's rating where one is found in
        DIFFICULTY_BUDGET_MS (some layouts' deals are nearly all of one tier), else any
        deal proved winnable."""
        layout, preset = check_pool(asked.pool)
        rules = pool_rules(layout, preset)
        tier = ratings.tier_for(asked.rating)
        setting = SetChallengeService(self.session, self.settings)
        try:
            deal, rated = await setting.draw(rules, True, tier, solver)
            return deal, tier, rated.to_dict() if rated is not None else None
        except ServiceUnavailableProblem:
            deal, _ = await setting.draw(rules, True, None, solver)
            return deal, None, None

    async def open(
        self,
        player: Player,
        asked: Asked,
        deal: engine.Deal,
        tier: Tier | None,
        difficulty: dict[str, object] | None,
        now: datetime,
    ) -> tuple[Duel, LoadedGame, str]:
        """Open a duel of ``deal`` with the player as its host, who plays at once: its
        challenge (the deal committed with a fresh salt) and the host's attempt at it."""
        layout, preset = check_pool(asked.pool)
        rules = pool_rules(layout, preset)
        s = self.settings
        expires = now + timedelta(hours=s.duel_match_hours)
        salt = secrets.token_hex(16)
        duel_id = new_id()
        challenge = await ChallengeService(self.session, s).store(
            {
                "id": duel_id,
                "kind": ChallengeKind.DUEL,
                "day": None,
                "layout": layout,
                "rules": rules.to_dict(),
                "deal": engine.format_deal(deal),
                "deal_key": game_key(deal, rules, engine.get_layout(layout)),
                "salt": salt,
                "commitment": engine.commitment(deal, salt),
                "opens_at": now,
                # Past every deadline: the duel closes it when it is decided.
                "closes_at": expires + timedelta(hours=s.duel_play_hours),
                "attempts": 1,
                "max_entries": 2,
                "winnable_only": True,
                "tier": tier,
                "difficulty": difficulty,
                "difficulty_at": now if difficulty is not None else None,
            }
        )
        game, token = await EntryService(self.session, s).start(challenge, player, now)
        duel = Duel(
            id=duel_id,
            pool=asked.pool,
            challenge_id=challenge.id,
            commitment=challenge.commitment,
            tier=tier.value if tier is not None else None,
            status=DuelStatus.WAITING,
            host_kind=player.kind,
            mixed=asked.mixes,
            match_rating=asked.rating,
            host_id=player.id,
            host_game_id=game.row.id,
            host_provisional=asked.provisional,
            created_at=now,
            opened_minute=minute_of(now),
            decide_at=expires,
            expires_at=expires,
            host_due_at=now + timedelta(hours=s.duel_play_hours),
        )
        await self.duels.add(duel)
        return duel, game, token

    # -- reading ----------------------------------------------------------------------------
    async def of_player(self, duel_id: str, player: Player) -> Duel:
        """The duel, for one of its two players; a 404 for anyone else."""
        duel = await self.duels.get(duel_id)
        if duel is None or player.id not in (duel.host_id, duel.challenger_id):
            raise NotFoundProblem(f"no duel {duel_id[:32]!r} of yours")
        return duel

    async def present(self, duels: list[Duel], player: Player) -> list[DuelRead]:
        ids = [i for d in duels for i in (d.host_id, d.challenger_id) if i is not None]
        names = await PlayerService(self.session).names(ids)
        ended = [d.id for d in duels if d.ended_at is not None]
        changes: dict[str, list[RatingChange]] = {}
        for change in await self.duels.changes_of_duels(ended):
            changes.setdefault(change.duel_id, []).append(change)
        return [duel_out(d, player.id, names, changes.get(d.id, [])) for d in duels]

    async def mine(
        self, player: Player, limit: int, cursor: str | None
    ) -> tuple[MyDuelsRead, str | None]:
        after = decode_cursor(cursor, MY_DUELS_CURSOR) if cursor is not None else None
        rows = await self.duels.of_player(player.id, limit + 1, after)
        more = len(rows) > limit
        rows = rows[:limit]
        next_cursor = (
            encode_cursor([rows[-1].created_at.isoformat(), rows[-1].id]) if more else None
        )
        return MyDuelsRead(duels=await self.present(rows, player), next=next_cursor), next_cursor

    # -- results ----------------------------------------------------------------------------
    async def game_ended(self, ended: GameEnded) -> None:
        """A duel's game ended (in the transaction of its last move): its side's result is
        kept (a game that ended past its player's time is a forfeit), and the duel is
        decided once both sides are in."""
        if ended.challenge_id is None:
            return
        duel = await self.duels.of_challenge(ended.challenge_id)
        if duel is None or duel.status not in (DuelStatus.WAITING, DuelStatus.MATCHED):
            return
        score = rank_score(ended)
        if ended.game_id == duel.host_game_id:
            duel.host_score, duel.host_rank_score = ended.score, score
            duel.host_moves, duel.host_finished_at = ended.moves, ended.ended_at
            duel.host_forfeit = ended.ended_at > duel.host_due_at
        elif ended.game_id == duel.challenger_game_id:
            duel.challenger_score, duel.challenger_rank_score = ended.score, score
            duel.challenger_moves, duel.challenger_finished_at = ended.moves, ended.ended_at
            assert duel.challenger_due_at is not None
            duel.challenger_forfeit = ended.ended_at > duel.challenger_due_at
        else:
            return
        await self._step(duel, ended.ended_at)

    async def decide_due(self, duel_id: str, now: datetime) -> None:
        """The scheduled job's look at a duel past a deadline: an unmatched one expires; a
        player who has not finished in time forfeits."""
        duel = await self.duels.get(duel_id, for_update=True)
        if duel is None or duel.decide_at > now:
            return
        if duel.status is DuelStatus.WAITING:
            duel.status = DuelStatus.EXPIRED
            duel.ended_at = now
            duel.settled = True
            await self._close(duel, now)
            return
        if duel.status is not DuelStatus.MATCHED:
            return
        if duel.host_finished_at is None and duel.host_due_at <= now:
            duel.host_forfeit = True
        due = duel.challenger_due_at
        if duel.challenger_finished_at is None and due is not None and due <= now:
            duel.challenger_forfeit = True
        await self._step(duel, now)

    async def _step(self, duel: Duel, now: datetime) -> None:
        """Decide the duel once both sides are in (a result or a forfeit), else set when
        to look at it next."""
        host_in = duel.host_finished_at is not None or duel.host_forfeit
        challenger_in = duel.challenger_finished_at is not None or duel.challenger_forfeit
        if duel.status is DuelStatus.MATCHED and host_in and challenger_in:
            await self._decide(duel, now)
        else:
            duel.decide_at = self._next_deadline(duel, now)
        await self.session.flush()

    @staticmethod
    def _next_deadline(duel: Duel, now: datetime) -> datetime:
        if duel.status is DuelStatus.WAITING:
            return duel.expires_at
        dues = []
        if duel.host_finished_at is None and not duel.host_forfeit:
            dues.append(duel.host_due_at)
        if (
            duel.challenger_finished_at is None
            and not duel.challenger_forfeit
            and duel.challenger_due_at is not None
        ):
            dues.append(duel.challenger_due_at)
        return min(dues) if dues else now

    async def _decide(self, duel: Duel, now: datetime) -> None:
        duel.outcome = decided(duel)
        duel.status = DuelStatus.FINISHED
        duel.ended_at = now
        # Nothing to measure where neither side has a result in time.
        duel.settled = duel.host_forfeit and duel.challenger_forfeit
        await self._close(duel, now)
        await self._rate(duel, now)

    async def _close(self, duel: Duel, now: datetime) -> None:
        """The duel's deal is revealed: its challenge closes, its games' secrecy ends."""
        if duel.challenge_id is None:
            return
        await ChallengeService(self.session, self.settings).close_all([duel.challenge_id], now)
        await GameService(self.session, self.settings).end_secrecy(duel.challenge_id, now)

    async def _rate(self, duel: Duel, now: datetime) -> None:
        """Both players' ratings after the duel (OpenSkill); none changes for a void duel,
        or one whose other player deleted the account."""
        if duel.outcome is Outcome.VOID or duel.host_id is None or duel.challenger_id is None:
            return
        players = PlayerService(self.session)
        host = await players.get(duel.host_id)
        challenger = await players.get(duel.challenger_id)
        if host is None or challenger is None:
            return
        # Locked in the order of their ids: two duels decided at once never deadlock.
        first, second = sorted((host, challenger), key=lambda p: p.id)
        rows = {p.id: await self._rating_row(p, duel.pool, now) for p in (first, second)}
        a, b = rows[host.id], rows[challenger.id]
        outcome = {Outcome.HOST: 1, Outcome.CHALLENGER: -1, Outcome.DRAW: 0}[
            duel.outcome or Outcome.DRAW
        ]
        new_a, new_b = ratings.rated(
            ratings.Skill(a.mu, a.sigma), ratings.Skill(b.mu, b.sigma), outcome
        )
        await self._set(a, new_a, outcome, challenger.id, duel, now)
        await self._set(b, new_b, -outcome, host.id, duel, now)

    async def _rating_row(self, player: Player, pool: str, now: datetime) -> Rating:
        row = await self.duels.rating(player.id, pool, for_update=True)
        if row is None:
            if await self.duels.add_rating_if_absent(player.id, pool, player.kind, now):
                await self.duels.count(pool, player.kind, ratings.NEW.rating, 1)
            row = await self.duels.rating(player.id, pool, for_update=True)
            assert row is not None
        return row

    async def _set(
        self,
        row: Rating,
        skill: ratings.Skill,
        outcome: int,
        opponent_id: str,
        duel: Duel,
        now: datetime,
    ) -> None:
        before = row.rating
        change = await self._move(row, skill.mu, now)
        row.sigma = skill.sigma
        row.games += 1
        row.wins += outcome > 0
        row.losses += outcome < 0
        row.draws += outcome == 0
        row.last_opponent_id = opponent_id
        await self.duels.add_change(
            RatingChange(
                player_id=row.player_id,
                pool=row.pool,
                duel_id=duel.id,
                before=before,
                after=row.rating,
                mu_change=change,
                at=now,
            )
        )

    async def _move(self, row: Rating, mu: float, now: datetime) -> float:
        """Set the rating's ``mu``, its rounded rating and the board's counts; the change."""
        change = mu - row.mu
        old = row.rating
        row.mu = mu
        row.rating = round(mu)
        row.updated_at = now
        if row.rating != old:
            await self.duels.count(row.pool, row.kind, old, -1)
            await self.duels.count(row.pool, row.kind, row.rating, 1)
        return change

    # -- the fair-play measure's verdicts ---------------------------------------------------
    async def settle(self, duel_id: str, now: datetime) -> bool:
        """Once both results of a finished duel are measured: a flagged result loses the
        duel, its player's rating gain is taken back and so is its opponent's loss. False
        while a measure is still to come."""
        duel = await self.duels.get(duel_id, for_update=True)
        if duel is None or duel.settled or duel.status is not DuelStatus.FINISHED:
            return True
        entries = EntryService(self.session, self.settings)
        flagged = {}
        for side, player_id, forfeit in (
            ("host", duel.host_id, duel.host_forfeit),
            ("challenger", duel.challenger_id, duel.challenger_forfeit),
        ):
            if forfeit or player_id is None or duel.challenge_id is None:
                flagged[side] = False
                continue
            entry = await entries.entry(duel.challenge_id, player_id)
            verdict = entry.fair_play.value if entry is not None else "ok"
            if verdict == "pending":
                return False
            flagged[side] = verdict == "flagged"
        duel.settled = True
        if flagged["host"] or flagged["challenger"]:
            await self._take_back(duel, flagged["host"], flagged["challenger"], now)
        await self.session.flush()
        return True

    async def _take_back(
        self, duel: Duel, host_flagged: bool, challenger_flagged: bool, now: datetime
    ) -> None:
        duel.host_flagged, duel.challenger_flagged = host_flagged, challenger_flagged
        before = duel.outcome
        if host_flagged and challenger_flagged:
            duel.outcome = Outcome.VOID
        else:
            duel.outcome = Outcome.CHALLENGER if host_flagged else Outcome.HOST
        flagged_ids = {
            pid
            for pid, f in ((duel.host_id, host_flagged), (duel.challenger_id, challenger_flagged))
            if f and pid is not None
        }
        for change in sorted(await self.duels.changes_of_duel(duel.id), key=lambda c: c.player_id):
            gain = change.after - change.before
            cheat = change.player_id in flagged_ids
            if change.taken_back_at is not None or (gain <= 0 if cheat else gain >= 0):
                continue
            row = await self.duels.rating(change.player_id, change.pool, for_update=True)
            if row is None:
                continue
            await self._move(row, row.mu - change.mu_change, now)
            change.taken_back_at = now
        await self._recount(duel, before)

    async def _recount(self, duel: Duel, before: Outcome | None) -> None:
        """The players' wins, losses and draws after a verdict changed the outcome."""
        if before == duel.outcome or before in (None, Outcome.VOID):
            return
        for player_id, role in ((duel.host_id, "host"), (duel.challenger_id, "challenger")):
            if player_id is None:
                continue
            row = await self.duels.rating(player_id, duel.pool, for_update=True)
            if row is None:
                continue
            for outcome, sign in ((before, -1), (duel.outcome, 1)):
                result = _result_of(outcome, role)
                if result is YourResult.WON:
                    row.wins += sign
                elif result is YourResult.LOST:
                    row.losses += sign
                elif result is YourResult.DRAW:
                    row.draws += sign

    # -- a deleted player -------------------------------------------------------------------
    async def player_deleted(self, player_id: str, now: datetime) -> None:
        """The player's open duels: those waiting expire; in those matched they forfeit
        (a duel with a deleted player changes no rating); their ratings leave the boards."""
        for duel in await self.duels.of_deleted_player(player_id):
            if duel.status is DuelStatus.WAITING:
                duel.status, duel.ended_at, duel.settled = DuelStatus.EXPIRED, now, True
                await self._close(duel, now)
                continue
            if duel.host_id == player_id and duel.host_finished_at is None:
                duel.host_forfeit = True
            if duel.challenger_id == player_id and duel.challenger_finished_at is None:
                duel.challenger_forfeit = True
            await self._step(duel, now)
        for row in await self.duels.delete_ratings(player_id):
            await self.duels.count(row.pool, row.kind, row.rating, -1)

    # -- ratings ----------------------------------------------------------------------------
    async def player_ratings(self, player_id: str) -> PlayerRatingsRead:
        player = await PlayerService(self.session).get(player_id)
        if player is None:
            raise NotFoundProblem(f"no player {player_id[:32]!r}")
        out = []
        for row in await self.duels.ratings_of(player.id):
            _, above, _ = await self.duels.counts_from(row.pool, row.kind, row.rating, row.rating)
            recent = await self.duels.history(player.id, row.pool, RECENT_CHANGES, None)
            out.append(
                RatingRead(
                    pool=row.pool,
                    rating=row.rating,
                    deviation=round(row.sigma),
                    provisional=row.games < self.settings.rating_provisional_games,
                    games=row.games,
                    wins=row.wins,
                    losses=row.losses,
                    draws=row.draws,
                    rank=above + 1,
                    recent=[change_out(c) for c in recent],
                )
            )
        return PlayerRatingsRead(player_id=player.id, kind=player.kind, ratings=out)

    async def history(
        self, player_id: str, pool: str, limit: int, cursor: str | None
    ) -> tuple[RatingHistoryRead, str | None]:
        check_pool(pool)
        if await PlayerService(self.session).get(player_id) is None:
            raise NotFoundProblem(f"no player {player_id[:32]!r}")
        after = decode_cursor(cursor, HISTORY_CURSOR) if cursor is not None else None
        rows = await self.duels.history(player_id, pool, limit + 1, after)
        more = len(rows) > limit
        rows = rows[:limit]
        next_cursor = encode_cursor([rows[-1].at.isoformat(), rows[-1].id]) if more else None
        page = RatingHistoryRead(
            player_id=player_id,
            pool=pool,
            changes=[change_out(c) for c in rows],
            next=next_cursor,
        )
        return page, next_cursor

    async def board(
        self,
        pool: str,
        kind: PlayerKind,
        limit: int,
        cursor: str | None,
        around: Player | None,
        among: Player | None,
    ) -> tuple[RatingBoardRead, str | None]:
        """A page of the pool's board: from the top (or the cursor), around the caller,
        or among the caller and the players they follow (ranked among themselves, paged
        the same way)."""
        check_pool(pool)
        if around is not None and among is not None:
            raise ValidationProblem("around and among: one or the other", loc=("query", "among"))
        after = decode_cursor(cursor, BOARD_CURSOR) if cursor is not None else None
        next_cursor = None
        group: list[Any] = []
        if among is not None:
            kind = among.kind
            ids = [among.id, *await PlayerService(self.session).followed_ids(among.id)]
            group = await self.duels.among(pool, kind, ids)
            rows = [r for r in group if after is None or (r.rating, r.player_id) < after]
        elif around is not None:
            kind = around.kind
            mine = await self.duels.rating(around.id, pool)
            if mine is None:
                raise NoRatingProblem(f"player {around.id} has no rating in {pool}")
            rows = await self.duels.board_around(pool, kind, limit, (mine.rating, mine.player_id))
        else:
            rows = await self.duels.board_after(pool, kind, limit + 1, after)
        if around is None and len(rows) > limit:
            rows = rows[:limit]
            next_cursor = encode_cursor([rows[-1].rating, rows[-1].player_id])
        lowest = min((r.rating for r in rows), default=0)
        highest = max((r.rating for r in rows), default=-1)
        rated, above, counts = await self.duels.counts_from(pool, kind, lowest, highest)
        ranks = _ranks(above, counts, lowest, highest)
        names = await PlayerService(self.session).names([r.player_id for r in rows])
        entries = [
            RatingBoardEntryRead(
                rank=(
                    1 + sum(1 for other in group if other.rating > row.rating)
                    if among is not None
                    else ranks[row.rating]
                ),
                global_rank=ranks[row.rating],
                player_id=row.player_id,
                name=names.get(row.player_id, (None, False))[0],
                rating=row.rating,
                deviation=round(row.sigma),
                provisional=row.games < self.settings.rating_provisional_games,
                games=row.games,
            )
            for row in rows
        ]
        page = RatingBoardRead(pool=pool, kind=kind, rated=rated, entries=entries, next=next_cursor)
        return page, next_cursor


def _ranks(above: int, counts: dict[int, int], lowest: int, highest: int) -> dict[int, int]:
    """Each rating's rank from ``highest`` down to ``lowest``: one plus the players rated
    higher (``above`` of them above ``highest``, then the counts of each rating)."""
    ranks: dict[int, int] = {}
    ahead = above
    for value in range(highest, lowest - 1, -1):
        ranks[value] = ahead + 1
        ahead += counts.get(value, 0)
    return ranks


@dataclass(frozen=True, slots=True)
class DuelUseCases:
    """A request's duel: under a lock of the player's row, the refusals, then a waiting
    duel taken; with none to take, the lock goes, a deal is drawn with no transaction
    open, and the duel is opened (or one that opened meanwhile is taken)."""

    writer: DuelService
    solver: Searches

    async def request(
        self, player: Player, body: DuelCreate, now: datetime
    ) -> tuple[Duel, LoadedGame, str]:
        writer = self.writer
        drawn: tuple[engine.Deal, Tier | None, dict[str, object] | None] | None = None
        for _ in range(2):
            # The player's row locked: two requests of theirs at once count each other.
            await PlayerService(writer.session).lock(player.id)
            await writer.check_room(player)
            asked = await writer.asked(player, body)
            matched = await writer.match(player, asked, now)
            if matched is not None:
                return matched
            if drawn is not None:
                deal, tier, difficulty = drawn
                return await writer.open(player, asked, deal, tier, difficulty, now)
            # Nothing written yet: the lock goes, and no transaction is open while the
            # deal is searched for.
            await writer.session.rollback()
            drawn = await writer.draw(asked, self.solver)
        raise AssertionError("unreachable")


def decided(duel: Duel) -> Outcome:
    """The better result wins: a forfeit loses (both: void), then the rank score (lower
    is better), then fewer moves; the same is a draw."""
    if duel.host_forfeit or duel.challenger_forfeit:
        if duel.host_forfeit and duel.challenger_forfeit:
            return Outcome.VOID
        return Outcome.CHALLENGER if duel.host_forfeit else Outcome.HOST
    host = (duel.host_rank_score, duel.host_moves)
    challenger = (duel.challenger_rank_score, duel.challenger_moves)
    if host == challenger:
        return Outcome.DRAW
    return Outcome.HOST if host < challenger else Outcome.CHALLENGER


def _result_of(outcome: Outcome | None, role: str) -> YourResult | None:
    if outcome is None:
        return None
    if outcome is Outcome.DRAW:
        return YourResult.DRAW
    if outcome is Outcome.VOID:
        return YourResult.VOID
    return YourResult.WON if outcome.value == role else YourResult.LOST


def change_out(change: RatingChange) -> RatingChangeRead:
    return RatingChangeRead(
        duel_id=change.duel_id,
        at=change.at,
        before=change.before,
        after=change.after,
        taken_back=change.taken_back_at is not None,
    )


def duel_out(
    duel: Duel,
    player_id: str,
    names: dict[str, tuple[str | None, bool]],
    changes: list[RatingChange],
) -> DuelRead:
    """The duel as ``player_id`` sees it: the opponent's result once the duel ended."""
    layout, preset = check_pool(duel.pool)
    role = "host" if duel.host_id == player_id else "challenger"
    change_of = {
        c.player_id: 0 if c.taken_back_at is not None else c.after - c.before for c in changes
    }
    decided_ = duel.ended_at is not None and duel.status is DuelStatus.FINISHED

    def side(of: str) -> DuelSideRead | None:
        host = of == "host"
        pid = duel.host_id if host else duel.challenger_id
        if not host and duel.matched_at is None:
            return None
        mine = of == role
        finished_at = duel.host_finished_at if host else duel.challenger_finished_at
        forfeit = duel.host_forfeit if host else duel.challenger_forfeit
        shown = mine or decided_
        kind = duel.host_kind if host else duel.challenger_kind
        return DuelSideRead(
            player_id=pid,
            name=names.get(pid, (None, False))[0] if pid else None,
            kind=kind or PlayerKind.HUMAN,
            rating=(duel.match_rating if host else duel.challenger_rating) or 0,
            provisional=duel.host_provisional if host else duel.challenger_provisional,
            due_at=duel.host_due_at if host else duel.challenger_due_at,
            finished=finished_at is not None or forfeit,
            score=(duel.host_score if host else duel.challenger_score) if shown else None,
            moves=(duel.host_moves if host else duel.challenger_moves) if shown else None,
            forfeit=forfeit,
            flagged=duel.host_flagged if host else duel.challenger_flagged,
            rating_change=change_of.get(pid or "", 0) if decided_ else None,
        )

    you = side(role)
    assert you is not None
    return DuelRead(
        id=duel.id,
        pool=duel.pool,
        layout=layout,
        preset=preset,
        status=duel.status,
        tier=duel.tier,
        commitment=duel.commitment,
        created_at=duel.created_at,
        expires_at=duel.expires_at,
        matched_at=duel.matched_at,
        ended_at=duel.ended_at,
        role=role,
        game_id=duel.host_game_id if role == "host" else duel.challenger_game_id,
        result=_result_of(duel.outcome, role) if decided_ else None,
        you=you,
        opponent=side("challenger" if role == "host" else "host"),
    )


# -- what the app wires -------------------------------------------------------------------
async def duel_game_ended(session: AsyncSession, ended: GameEnded) -> None:
    """The listener of ``GameEnded`` (``app.main`` wires it after the challenges'): a
    duel's side's result, in the transaction of the game's last move."""
    if ended.challenge_id is None:
        return
    await DuelService(session, get_settings()).game_ended(ended)


async def leave_duels(session: AsyncSession, deleted: PlayerDeleted) -> None:
    """The listener of ``PlayerDeleted``: the player's open duels and their ratings."""
    await DuelService(session, get_settings()).player_deleted(deleted.player_id, utcnow())


async def run_duels(database: Database, settings: Settings, now: datetime) -> int:
    """The scheduled job: the duels past a deadline decided, and the verdicts of the
    fair-play measure applied to those decided; each duel in a transaction of its own.
    How many were changed."""
    changed = 0
    async with database.read_sessions() as reading:
        due = await DuelRepository(reading).due(now, JOB_BATCH)
        unsettled = await DuelRepository(reading).unsettled(JOB_BATCH)
    for duel_id in due:
        async with database.sessions() as session:
            await DuelService(session, settings).decide_due(duel_id, now)
            await session.commit()
            changed += 1
    for duel_id in unsettled:
        async with database.sessions() as session:
            if await DuelService(session, settings).settle(duel_id, now):
                changed += 1
            await session.commit()
    return changed


__all__ = [
    "DuelService",
    "DuelUseCases",
    "duel_game_ended",
    "leave_duels",
    "run_duels",
]
