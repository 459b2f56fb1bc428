"""Every query of the challenges domain but the boards' reads (``board_repository``), and
nothing else: the challenges, their entries, the counts a board's ranks are read from
(kept here, in the transaction that places or moves a result), and the fair-play
measure's claims and figures."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    Table,
    and_,
    bindparam,
    case,
    delete,
    exists,
    func,
    literal,
    or_,
    select,
    tuple_,
    union,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from app.challenges.models import (
    Challenge,
    ChallengeEntry,
    ChallengeKind,
    FairPlay,
    LeaderboardBucket,
    LeaderboardScore,
    Side,
)
from app.engine import GameStatus
from app.engine.fairplay import flags_player
from app.kit.models import PlayerKind, utcnow

CHALLENGES: Table = Challenge.__table__  # type: ignore[assignment]
ENTRIES: Table = ChallengeEntry.__table__  # type: ignore[assignment]
BUCKETS: Table = LeaderboardBucket.__table__  # type: ignore[assignment]
SCORES: Table = LeaderboardScore.__table__  # type: ignore[assignment]

# A result's fair-play status and measure, shown with it, and whether it is provisional.
MEASURE = (
    ENTRIES.c.provisional,
    ENTRIES.c.fair_play,
    ENTRIES.c.fair_play_telling,
    ENTRIES.c.fair_play_resolved,
    ENTRIES.c.fair_play_expected,
    ENTRIES.c.fair_play_p,
    ENTRIES.c.fair_play_at,
    ENTRIES.c.fair_play_stock_z,
    ENTRIES.c.fair_play_stock_decisions,
    ENTRIES.c.fair_play_player_z,
    ENTRIES.c.fair_play_player_results,
    ENTRIES.c.fair_play_player_p,
    ENTRIES.c.fair_play_player_p_results,
)


def standing(entry: ChallengeEntry) -> tuple[Side, int] | None:
    """The side the entry's ranked result is on, and its rank score; None without one."""
    for side, rank_score in (
        (Side.BOARD, entry.rank_score),
        (Side.PROVISIONAL, entry.provisional_rank_score),
        (Side.FLAGGED, entry.flagged_rank_score),
    ):
        if rank_score is not None:
            return side, rank_score
    return None


@dataclass(frozen=True, slots=True)
class MyChallenge:
    """A challenge a player set or entered, and their entry (if any)."""

    challenge: Challenge
    created: bool
    entry: ChallengeEntry | None


@dataclass(frozen=True, slots=True)
class Measure:
    """A result's fair-play measure as stored (``app.engine.fairplay.FairPlay``)."""

    telling: int
    resolved: int
    expected: float
    p_value: float
    measured_at: datetime
    # The stock's evidence (None where the deal was drawn by difficulty, or measured
    # before it was kept): this result's z and decisions, and its player's, summed over
    # their last results with one (how many).
    stock_z: float | None = None
    stock_decisions: int | None = None
    player_z: float | None = None
    player_results: int | None = None
    # The game's measure of its player's last results with one (this one included),
    # combined (``app.engine.fairplay.combined``), and how many (None: measured before it
    # was kept).
    player_p: float | None = None
    player_p_results: int | None = None

    def by_game(self, threshold: float) -> bool:
        """Whether the game's own measure flags it (FAIR_PLAY_THRESHOLD)."""
        return self.p_value < threshold

    def by_player(self, threshold: float) -> bool:
        """Whether its player's results, their measures combined, flag it (the same
        threshold; the result must lean the clairvoyant way itself: ``flags_player``)."""
        return self.player_p is not None and flags_player(self.p_value, self.player_p, threshold)

    def by_stock(self, threshold: float) -> bool:
        """Whether its player's stock evidence, summed, flags it (FAIR_PLAY_STOCK_Z)."""
        return self.player_z is not None and self.player_z > threshold


def _insert(dialect: str, table: Table) -> postgresql.Insert | sqlite.Insert:
    return postgresql.insert(table) if dialect == "postgresql" else sqlite.insert(table)


class ChallengeRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    @property
    def _dialect(self) -> str:
        return self.session.get_bind().dialect.name

    # -- challenges -------------------------------------------------------------------
    async def get(self, challenge_id: str) -> Challenge | None:
        return await self.session.get(Challenge, challenge_id)

    async def add_if_absent(self, values: dict[str, Any]) -> Challenge:
        """Insert the challenge unless another request did first; the one stored."""
        await self.session.execute(
            _insert(self._dialect, CHALLENGES)
            .values(**values, entries=0, created_at=utcnow())
            .on_conflict_do_nothing()
        )
        challenge = await self.session.scalars(
            select(Challenge)
            .where(Challenge.id == values["id"])
            .execution_options(populate_existing=True)
        )
        return challenge.one()

    async def add_with_code(self, values: dict[str, Any], code: str) -> Challenge | None:
        """Insert the challenge with the invite code ``code``, unless another holds it."""
        made = await self.session.execute(
            _insert(self._dialect, CHALLENGES)
            .values(**values, invite_code=code)
            .on_conflict_do_nothing(index_elements=[CHALLENGES.c.invite_code])
            .returning(CHALLENGES.c.id)
        )
        if made.first() is None:
            return None
        return await self.get(values["id"])

    async def by_invite_code(self, code: str) -> Challenge | None:
        found = await self.session.scalars(select(Challenge).where(Challenge.invite_code == code))
        return found.one_or_none()

    async def open_count(self, creator_id: str, now: datetime) -> int:
        """The challenges ``creator_id`` set that have not closed at ``now``."""
        count = await self.session.scalar(
            select(func.count())
            .select_from(CHALLENGES)
            .where(CHALLENGES.c.creator_id == creator_id, CHALLENGES.c.closes_at > now)
        )
        return int(count or 0)

    async def delete_unentered(self, challenge_id: str) -> bool:
        """Delete the challenge if nobody has entered it; whether it was deleted."""
        deleted = await self.session.execute(
            delete(CHALLENGES)
            .where(CHALLENGES.c.id == challenge_id, CHALLENGES.c.entries == 0)
            .returning(CHALLENGES.c.id)
        )
        return deleted.first() is not None

    async def delete_unopened(self, challenge_ids: list[str], now: datetime) -> None:
        """Delete these challenges where they have not opened at ``now`` and nobody has
        entered them."""
        c = CHALLENGES.c
        await self.session.execute(
            delete(CHALLENGES).where(c.id.in_(challenge_ids), c.opens_at > now, c.entries == 0)
        )

    async def delete_closed_set(self, closed_before: datetime, limit: int) -> int:
        """Delete up to ``limit`` challenges players set that closed before then, oldest
        first (their entries and counts go by their foreign keys' cascades; games keep
        their rows, unlinked)."""
        c = CHALLENGES.c
        stale = [c.kind == ChallengeKind.SET, c.closes_at < closed_before]
        ids = select(c.id).where(*stale).order_by(c.closes_at).limit(limit)
        deleted = await self.session.execute(
            delete(CHALLENGES).where(c.id.in_(ids.scalar_subquery()), *stale).returning(c.id)
        )
        return len(deleted.all())

    async def of_player(
        self, player_id: str, limit: int, after: tuple[datetime, str] | None
    ) -> list[MyChallenge]:
        """``limit`` challenges ``player_id`` set or entered, newest first, after the one
        ``after`` names (its creation time and id): the ids from two indexes (what they
        set, what they entered), then the challenges and their entries by key."""
        mine = union(
            select(CHALLENGES.c.id.label("id")).where(CHALLENGES.c.creator_id == player_id),
            select(ENTRIES.c.challenge_id.label("id")).where(ENTRIES.c.player_id == player_id),
        ).subquery()
        q = (
            select(Challenge, ChallengeEntry)
            .join(mine, mine.c.id == Challenge.id)
            .outerjoin(
                ChallengeEntry,
                and_(
                    ChallengeEntry.challenge_id == Challenge.id,
                    ChallengeEntry.player_id == player_id,
                ),
            )
            .where(Challenge.kind != ChallengeKind.DUEL)  # a duel is listed as one
            .order_by(Challenge.created_at.desc(), Challenge.id.desc())
            .limit(limit)
        )
        if after is not None:
            q = q.where(
                tuple_(Challenge.created_at, Challenge.id)
                < tuple_(bindparam("a_at", after[0], type_=CHALLENGES.c.created_at.type), after[1])
            )
        rows = (await self.session.execute(q)).all()
        return [MyChallenge(c, c.creator_id == player_id, e) for c, e in rows]

    async def count_entry(self, challenge_id: str) -> int | None:
        """Count a new entrant unless the challenge has taken all it may: their number in
        the order of entry, or None (one statement: of two entrants racing for the last
        place, one gets it; the row's lock orders them)."""
        c = CHALLENGES.c
        counted = await self.session.execute(
            update(CHALLENGES)
            .where(c.id == challenge_id, or_(c.max_entries.is_(None), c.entries < c.max_entries))
            .values(entries=c.entries + 1)
            .returning(c.entries)
        )
        row = counted.first()
        return int(row[0]) if row is not None else None

    async def set_entrant(
        self, challenge_id: str, player_id: str, number: int, cohort: int | None
    ) -> None:
        await self.session.execute(
            update(ENTRIES)
            .where(ENTRIES.c.challenge_id == challenge_id, ENTRIES.c.player_id == player_id)
            .values(number=number, cohort=cohort)
        )

    async def set_max_entries(self, challenge_id: str, max_entries: int | None) -> None:
        await self.session.execute(
            update(CHALLENGES)
            .where(CHALLENGES.c.id == challenge_id)
            .values(max_entries=max_entries)
        )

    async def close_all(self, challenge_ids: list[str], now: datetime) -> list[str]:
        """Close these challenges at ``now`` (those not closed yet); the ids closed. One
        that had not opened has its opening moved to ``now`` as well: its window is empty,
        never one that ends before it begins, so that it is closed (its deal revealed, its
        board empty, its deal practised) and nothing reads it as not open yet."""
        c = CHALLENGES.c
        closed = await self.session.execute(
            update(CHALLENGES)
            .where(c.id.in_(challenge_ids), c.closes_at > now)
            .values(
                closes_at=now,
                opens_at=case((c.opens_at > now, literal(now, c.opens_at.type)), else_=c.opens_at),
            )
            .returning(c.id)
        )
        return list(closed.scalars())

    async def results_of(
        self, challenge_ids: list[str], player_id: str
    ) -> list[tuple[int, int, datetime]]:
        """The player's ranked results (rank score, moves, finish) in these challenges,
        those ranked apart included (an edition's total counts them; the total is ranked
        apart with them): each entry found by its primary key."""
        e = ENTRIES.c
        rank_score = func.coalesce(e.rank_score, e.provisional_rank_score, e.flagged_rank_score)
        rows = await self.session.execute(
            select(rank_score, e.moves, e.finished_at).where(
                e.challenge_id.in_(challenge_ids),
                e.player_id == player_id,
                rank_score.is_not(None),
            )
        )
        return [(r[0], r[1], aware(r[2])) for r in rows]

    async def set_total(
        self,
        challenge_id: str,
        player_id: str,
        total: tuple[int, int, datetime] | None,
        score: int | None,
    ) -> None:
        """Set the entry's result (an edition's entrant's total: rank score, moves, last
        finish, and its score as shown; None: none yet), moving its board's counts from
        the old one to the new. A flagged total stays flagged; any other is pending again
        (its rounds' measures settle it: ``settle_edition``), ranked apart meanwhile when
        the entry is provisional (an edition's board is public).
        The entry's row is locked first (two of the player's rounds ending at once)."""
        entry = await self._locked(challenge_id, player_id)
        if entry is None:
            return
        place = standing(entry)
        old = (place[1], entry.moves, entry.finished_at) if place is not None else None
        if old == total and entry.score == score:
            return
        await self._unplace(entry)
        if total is not None:
            entry.moves, entry.finished_at = total[1], total[2]
            entry.score = score
            if entry.fair_play is FairPlay.FLAGGED:
                await self._place(entry, Side.FLAGGED, total[0])
            else:
                side = Side.PROVISIONAL if entry.provisional else Side.BOARD
                await self._place(entry, side, total[0])
                entry.fair_play = FairPlay.PENDING
        await self.session.flush()

    async def set_best(
        self, challenge_id: str, best_score: int | None, bound: int | None, exact: bool
    ) -> None:
        """Keep the best score found (or that none was, in time), its bound and whether it
        is exact, unless one was kept."""
        await self.session.execute(
            update(CHALLENGES)
            .where(CHALLENGES.c.id == challenge_id, CHALLENGES.c.best_searched_at.is_(None))
            .values(
                best_score=best_score,
                best_score_bound=bound,
                best_score_exact=exact,
                best_searched_at=utcnow(),
            )
        )

    async def set_difficulty(self, challenge_id: str, difficulty: dict[str, Any] | None) -> None:
        """Keep the difficulty measured (or that none was, in time) unless one was kept."""
        await self.session.execute(
            update(CHALLENGES)
            .where(CHALLENGES.c.id == challenge_id, CHALLENGES.c.difficulty_at.is_(None))
            .values(difficulty=difficulty, difficulty_at=utcnow())
        )

    # -- entries ----------------------------------------------------------------------
    async def add_entry(
        self,
        challenge_id: str,
        player_id: str,
        kind: PlayerKind,
        now: datetime,
        *,
        provisional: bool,
    ) -> bool:
        """The player's entry, unless they have one (two racing: one wins); whether it
        was made."""
        made = await self.session.execute(
            _insert(self._dialect, ENTRIES)
            .values(
                challenge_id=challenge_id,
                player_id=player_id,
                kind=kind,
                status=GameStatus.IN_PROGRESS,
                started_at=now,
                provisional=provisional,
            )
            .on_conflict_do_nothing()
            .returning(ENTRIES.c.player_id)
        )
        return made.first() is not None

    async def next_attempt(self, challenge_id: str, player_id: str, attempts: int) -> bool:
        """Count the player's next attempt if they have one left and none in progress;
        whether it was counted (one statement: of two racing, one is)."""
        e = ENTRIES.c
        counted = await self.session.execute(
            update(ENTRIES)
            .where(
                e.challenge_id == challenge_id,
                e.player_id == player_id,
                e.attempts < attempts,
                e.status != GameStatus.IN_PROGRESS,
            )
            .values(attempts=e.attempts + 1, status=GameStatus.IN_PROGRESS)
            .returning(e.player_id)
        )
        return counted.first() is not None

    async def entry(self, challenge_id: str, player_id: str) -> ChallengeEntry | None:
        return await self.session.get(ChallengeEntry, (challenge_id, player_id))

    async def set_entry_game(self, challenge_id: str, player_id: str, game_id: str) -> None:
        await self.session.execute(
            update(ENTRIES)
            .where(ENTRIES.c.challenge_id == challenge_id, ENTRIES.c.player_id == player_id)
            .values(game_id=game_id)
        )

    async def finish_entry(
        self,
        game_id: str,
        status: GameStatus,
        score: int,
        moves: int,
        finished_at: datetime,
        rank_score: int | None,
        *,
        public: bool,
    ) -> None:
        """Enter the result of the attempt ``game_id``: it becomes the entry's result when
        it is ranked (``rank_score`` given) and better than the entry's best (score, then
        moves, then the earlier finish), which leaves its side for the new one: the board,
        or apart while provisional on a ``public`` board, or the flagged side of an entry
        flagged already; any but a flagged one is due to be measured at once. An unranked
        result shows only while the entry has no other. The entry's row is locked first:
        its player's attempts follow one another, so nothing waits on it."""
        entry = (
            await self.session.scalars(
                select(ChallengeEntry)
                .where(ChallengeEntry.game_id == game_id)
                .with_for_update()
                .execution_options(populate_existing=True)
            )
        ).one_or_none()
        if entry is None:
            return
        entry.status = status
        place = standing(entry)
        best = (
            None
            if place is None or entry.moves is None or entry.finished_at is None
            else (place[1], entry.moves, entry.finished_at)
        )
        if rank_score is not None and (best is None or (rank_score, moves, finished_at) < best):
            await self._unplace(entry)
            entry.result_game_id = game_id
            entry.score, entry.moves, entry.finished_at = score, moves, finished_at
            if entry.fair_play is FairPlay.FLAGGED:
                await self._place(entry, Side.FLAGGED, rank_score)
            else:
                side = Side.PROVISIONAL if entry.provisional and public else Side.BOARD
                await self._place(entry, side, rank_score)
                entry.fair_play = FairPlay.PENDING
                _keep(entry, None)
                entry.measure_due_at, entry.measure_claimed_until = finished_at, None
        elif best is None and entry.score is None:
            entry.score, entry.moves, entry.finished_at = score, moves, finished_at
        await self.session.flush()

    async def _unplace(self, entry: ChallengeEntry) -> None:
        """Take the entry's result off its side (off the board: its counts taken back)."""
        if entry.rank_score is not None and entry.moves is not None:
            await self._count(entry.challenge_id, entry.kind, entry.rank_score, entry.moves, -1)
        entry.rank_score = entry.provisional_rank_score = entry.flagged_rank_score = None

    async def _place(self, entry: ChallengeEntry, side: Side, rank_score: int) -> None:
        """Put the entry's result (its moves set) on ``side``, off any other first."""
        await self._unplace(entry)
        if side is Side.BOARD:
            assert entry.moves is not None
            await self._count(entry.challenge_id, entry.kind, rank_score, entry.moves, 1)
            entry.rank_score = rank_score
        elif side is Side.PROVISIONAL:
            entry.provisional_rank_score = rank_score
        else:
            entry.flagged_rank_score = rank_score

    async def _count(
        self, challenge_id: str, kind: PlayerKind, rank_score: int, moves: int, by: int
    ) -> None:
        """Add ``by`` to the board's counts of the results at ``rank_score``/``moves``."""
        place = {"challenge_id": challenge_id, "kind": kind, "rank_score": rank_score}
        for counts, values in ((BUCKETS, {**place, "moves": moves}), (SCORES, place)):
            statement = _insert(self._dialect, counts).values(**values, entries=by)
            await self.session.execute(
                statement.on_conflict_do_update(
                    index_elements=[counts.c[name] for name in values],
                    set_={"entries": counts.c.entries + by},
                )
            )

    # -- fair play ----------------------------------------------------------------------
    async def claim_due(
        self, now: datetime, lease_until: datetime, challenge_id: str | None = None
    ) -> Unmeasured | None:
        """A ranked result due to be measured at ``now`` (of ``challenge_id`` only, when
        given) and held by no measure, the longest due first, claimed until
        ``lease_until`` (a measure that dies leaves it to the next then); None when none
        is due, or another measure claimed it first. A player with a result being
        measured has no other claimed (each measure sums its player's last ones). On
        PostgreSQL claims skip the rows others are claiming (SKIP LOCKED); SQLite's
        writes take turns."""
        e, c = ENTRIES.c, CHALLENGES.c
        held = ENTRIES.alias("held").c
        only = [e.challenge_id == challenge_id] if challenge_id is not None else []
        free = or_(e.measure_claimed_until.is_(None), e.measure_claimed_until <= now)
        candidate = (
            await self.session.execute(
                select(e.challenge_id, e.player_id)
                .where(
                    e.measure_due_at <= now,
                    free,
                    *only,
                    ~exists().where(
                        held.player_id == e.player_id, held.measure_claimed_until > now
                    ),
                )
                .order_by(e.measure_due_at)
                .limit(1)
                .with_for_update(skip_locked=True, of=ENTRIES)
            )
        ).first()
        if candidate is None:
            return None
        key = (e.challenge_id == candidate.challenge_id, e.player_id == candidate.player_id)
        claimed = await self.session.execute(
            update(ENTRIES)
            .where(*key, e.measure_due_at <= now, free)
            .values(measure_claimed_until=lease_until)
            .returning(e.player_id)
        )
        if claimed.first() is None:
            return None
        row = (
            await self.session.execute(
                select(
                    e.challenge_id,
                    e.player_id,
                    e.result_game_id,
                    c.kind,
                    c.deal,
                    c.rules,
                    c.layout,
                    c.tier.is_(None),
                    c.winnable_only,
                )
                .select_from(ENTRIES.join(CHALLENGES, c.id == e.challenge_id))
                .where(*key)
            )
        ).one()
        return Unmeasured(*row)

    async def keep_measure(
        self,
        challenge_id: str,
        player_id: str,
        game_id: str | None,
        measure: Measure,
        flagged: bool,
    ) -> bool:
        """Keep the measure of the entry's result ``game_id``: ok, which puts a provisional
        result on the board, or flagged, which takes it off the board (its counts taken
        back) onto the flagged side. False when the entry's result is measured already
        (another run), is another one now (a better attempt since, due on its own), or is
        no longer ranked. The entry's row is locked first."""
        entry = await self._locked(challenge_id, player_id)
        if (
            entry is None
            or entry.fair_play is not FairPlay.PENDING
            or entry.result_game_id != game_id
            or standing(entry) is None
        ):
            return False
        _keep(entry, measure)
        entry.measure_due_at = entry.measure_claimed_until = None
        if flagged:
            await self._flag(entry)
        else:
            entry.fair_play = FairPlay.OK
            if entry.provisional_rank_score is not None:
                await self._place(entry, Side.BOARD, entry.provisional_rank_score)
        await self.session.flush()
        return True

    async def stock_history(self, player_id: str, limit: int) -> list[float]:
        """The stock evidence's z of the player's ``limit`` last results that have one."""
        return await self._history(ENTRIES.c.fair_play_stock_z, player_id, limit)

    async def measure_history(self, player_id: str, limit: int) -> list[float]:
        """The game measure's p-value of the player's ``limit`` last measured results."""
        return await self._history(ENTRIES.c.fair_play_p, player_id, limit)

    async def _history(self, figure: Any, player_id: str, limit: int) -> list[float]:
        """A figure of the player's ``limit`` last measured results that have it (rounds,
        dailies and set challenges: not an edition's entry, which repeats a round's),
        newest first (``ix_challenge_entries_player_id``: one player's entries)."""
        if limit <= 0:
            return []
        e, c = ENTRIES.c, CHALLENGES.c
        rows = await self.session.scalars(
            select(figure)
            .select_from(ENTRIES.join(CHALLENGES, c.id == e.challenge_id))
            .where(
                e.player_id == player_id,
                figure.is_not(None),
                c.kind != ChallengeKind.EDITION,
            )
            .order_by(e.fair_play_at.desc(), e.challenge_id.desc())
            .limit(limit)
        )
        return [float(value) for value in rows]

    async def settle_edition(self, board_id: str, player_id: str) -> None:
        """An edition's entry after one of its rounds' results was measured: flagged (and
        off its board) when one of them is, ok when none is still pending; it shows the
        measure of its least likely round."""
        entry = await self._locked(board_id, player_id)
        if entry is None or entry.fair_play is FairPlay.FLAGGED:
            return
        e, c = ENTRIES.c, CHALLENGES.c
        rounds = (
            await self.session.execute(
                select(e.challenge_id, *MEASURE)
                .select_from(ENTRIES.join(CHALLENGES, c.id == e.challenge_id))
                .where(
                    e.player_id == player_id,
                    c.kind == ChallengeKind.ROUND,
                    # Its rounds' ids are "<edition>.<round>" (an event's id has no dot).
                    c.id.startswith(board_id + ".", autoescape=True),
                    or_(
                        e.rank_score.is_not(None),
                        e.provisional_rank_score.is_not(None),
                        e.flagged_rank_score.is_not(None),
                    ),
                )
            )
        ).all()
        measured = [r for r in rounds if r.fair_play_at is not None]
        if measured:
            least = min(measured, key=lambda r: r.fair_play_p)
            measure = measure_of(least)
            assert measure is not None
            _keep(entry, measure)
        if any(r.fair_play == FairPlay.FLAGGED for r in rounds):
            await self._flag(entry)
        elif rounds and len(measured) == len(rounds):
            entry.fair_play = FairPlay.OK
            if entry.provisional_rank_score is not None:
                await self._place(entry, Side.BOARD, entry.provisional_rank_score)
        await self.session.flush()

    async def _locked(self, challenge_id: str, player_id: str) -> ChallengeEntry | None:
        """The entry, its row locked for this transaction (read again, not from the
        session's identity map)."""
        return (
            await self.session.scalars(
                select(ChallengeEntry)
                .where(
                    ChallengeEntry.challenge_id == challenge_id,
                    ChallengeEntry.player_id == player_id,
                )
                .with_for_update()
                .execution_options(populate_existing=True)
            )
        ).one_or_none()

    async def _flag(self, entry: ChallengeEntry) -> None:
        """Move a ranked result to the flagged side."""
        place = standing(entry)
        if place is not None:
            await self._place(entry, Side.FLAGGED, place[1])
        entry.fair_play = FairPlay.FLAGGED


@dataclass(frozen=True, slots=True)
class Unmeasured:
    """A ranked result to measure, with what the measure needs of its challenge."""

    challenge_id: str
    player_id: str
    game_id: str | None
    kind: ChallengeKind
    deal: str
    rules: dict[str, Any]
    layout: str
    random_deal: bool  # drawn at random (not by difficulty): the stock's evidence applies
    winnable_only: bool  # and proved winnable (the evidence's alternatives are too)


# Each figure of a ``Measure`` and the entry's column that keeps it.
_KEPT_AS = {
    "telling": "fair_play_telling",
    "resolved": "fair_play_resolved",
    "expected": "fair_play_expected",
    "p_value": "fair_play_p",
    "measured_at": "fair_play_at",
    "stock_z": "fair_play_stock_z",
    "stock_decisions": "fair_play_stock_decisions",
    "player_z": "fair_play_player_z",
    "player_results": "fair_play_player_results",
    "player_p": "fair_play_player_p",
    "player_p_results": "fair_play_player_p_results",
}


def _keep(entry: ChallengeEntry, measure: Measure | None) -> None:
    """Keep a result's measure on its entry (None: a result not measured yet)."""
    for figure, name in _KEPT_AS.items():
        setattr(entry, name, getattr(measure, figure) if measure is not None else None)


def measure_of(r: Any) -> Measure | None:
    """The fair-play measure stored on an entry (a row or the model), None before one."""
    if r.fair_play_at is None:
        return None
    figures = {figure: getattr(r, name) for figure, name in _KEPT_AS.items()}
    return Measure(**{**figures, "measured_at": aware(r.fair_play_at)})


def aware(moment: datetime) -> datetime:
    """Core rows skip the ORM's type: SQLite gives back naive UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
