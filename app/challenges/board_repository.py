"""Every query of the challenges' boards, and nothing else.

The board is ``challenge_entries`` in the order of ``ix_challenge_entries_board``
(``rank_score``, then ``moves``, then ``finished_at``, then ``player_id``): a page is a range
of that index after a cursor (a row value), never an OFFSET. A rank is one plus the
results strictly better, read from two tables of counts rather than counted over the
entries ahead: ``leaderboard_scores`` (one row a score: a few hundred) for the scores
ahead, and ``leaderboard_buckets`` (one row a score and move count) for the better move
counts of the same score.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import (
    and_,
    bindparam,
    func,
    select,
    tuple_,
)
from sqlalchemy.ext.asyncio import AsyncSession

from app.challenges.models import FairPlay, Side
from app.challenges.repository import (
    BUCKETS,
    ENTRIES,
    MEASURE,
    SCORES,
    Measure,
    aware,
    measure_of,
)
from app.kit.models import PlayerKind

# A place on a board: (rank_score, moves, finished_at, player_id).
BoardKey = tuple[int, int, datetime, str]
_BOARD_KEY = (ENTRIES.c.rank_score, ENTRIES.c.moves, ENTRIES.c.finished_at, ENTRIES.c.player_id)


@dataclass(frozen=True, slots=True)
class Place:
    """A ranked result as a board shows it."""

    player_id: str
    score: int
    moves: int
    finished_at: datetime
    rank_score: int
    rank: int  # on the board read: the whole board, or among the players followed
    name: str | None
    deleted: bool
    global_rank: int  # on the whole board
    provisional: bool
    fair_play: FairPlay
    measure: Measure | None

    @property
    def key(self) -> BoardKey:
        return (self.rank_score, self.moves, self.finished_at, self.player_id)


@dataclass(frozen=True, slots=True)
class Board:
    """A page of a board: its places, how many it ranks, and where the next begins."""

    challenge_id: str
    kind: PlayerKind
    ranked: int
    places: list[Place]
    next: BoardKey | None


class BoardRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def board_after(
        self, challenge_id: str, kind: PlayerKind, after: BoardKey | None, limit: int
    ) -> tuple[list[Place], int]:
        """``limit`` results in board order after ``after`` (from the top without), and
        how many are ranked on the board: one statement."""
        board = {"challenge_id": challenge_id, "kind": kind, "limit": limit}
        if after is None:
            rows = (await self.session.execute(_FIRST, board)).all()
        else:
            rows = (await self.session.execute(_AFTER, {**board, **_key_params(after)})).all()
        ranked = int(rows[0].ranked) if rows else await self.ranked(challenge_id, kind)
        return [_place_of(r) for r in rows], ranked

    async def place_of(self, challenge_id: str, kind: PlayerKind, player_id: str) -> Place | None:
        """The player's ranked result on the board, with its rank (None without one)."""
        row = (
            await self.session.execute(
                _MINE, {"challenge_id": challenge_id, "kind": kind, "player_id": player_id}
            )
        ).first()
        return _place_of(row) if row is not None else None

    async def board_before(
        self, challenge_id: str, kind: PlayerKind, before: BoardKey, limit: int
    ) -> list[Place]:
        """``limit`` results just before ``before``, in board order."""
        rows = (
            await self.session.execute(
                _BEFORE,
                {"challenge_id": challenge_id, "kind": kind, "limit": limit, **_key_params(before)},
            )
        ).all()
        return [_place_of(r) for r in reversed(rows)]

    async def among_following(
        self,
        challenge_id: str,
        kind: PlayerKind,
        player_ids: list[str],
        after: BoardKey | None,
        limit: int,
    ) -> tuple[list[Place], int]:
        """``limit`` results in board order after ``after`` (from the top without) among
        ``player_ids`` (a player and those they follow), ranked among themselves (``rank``)
        and on the whole board (``global_rank``), and how many of them are ranked: one
        statement (see ``_among``)."""
        params = {"challenge_id": challenge_id, "kind": kind, "ids": player_ids, "limit": limit}
        return await self._group(_FOLLOWING, params, after)

    async def among_cohort(
        self, challenge_id: str, kind: PlayerKind, cohort: int, after: BoardKey | None, limit: int
    ) -> tuple[list[Place], int]:
        """The same among an edition's cohort (its entries by ``ix_challenge_entries_cohort``:
        at most a cohort's size of them)."""
        params = {"challenge_id": challenge_id, "kind": kind, "cohort": cohort, "limit": limit}
        return await self._group(_COHORT, params, after)

    async def _group(
        self, statements: tuple[Any, Any, Any], params: dict[str, Any], after: BoardKey | None
    ) -> tuple[list[Place], int]:
        first, following, count = statements
        if after is None:
            rows = (await self.session.execute(first, params)).all()
        else:
            rows = (await self.session.execute(following, {**params, **_key_params(after)})).all()
        ranked = rows[0].ranked if rows else await self.session.scalar(count, params)
        return [_among_place(r) for r in rows], int(ranked or 0)

    async def apart_after(
        self,
        challenge_id: str,
        kind: PlayerKind,
        side: Side,
        after: BoardKey | None,
        limit: int,
    ) -> tuple[list[Place], int]:
        """The results of a board ranked apart on ``side`` (provisional or flagged), ranked
        among themselves in the board's order: ``limit`` after ``after`` (from the top
        without), and how many there are."""
        first, following, count = _APART[side]
        params = {"challenge_id": challenge_id, "kind": kind, "limit": limit}
        if after is None:
            rows = (await self.session.execute(first, params)).all()
        else:
            rows = (await self.session.execute(following, {**params, **_key_params(after)})).all()
        counted = rows[0].ranked if rows else await self.session.scalar(count, params)
        return [_place_of(r) for r in rows], int(counted or 0)

    async def rank_of(
        self, challenge_id: str, kind: PlayerKind, rank_score: int, moves: int
    ) -> int:
        """The rank a result of ``rank_score`` and ``moves`` would have on the board."""
        rank = await self.session.scalar(
            select(1 + _scores_ahead(rank_score) + _moves_ahead(rank_score, moves)),
            {"challenge_id": challenge_id, "kind": kind},
        )
        return int(rank or 1)

    async def ranked(self, challenge_id: str, kind: PlayerKind) -> int:
        ranked = await self.session.scalar(
            select(_RANKED), {"challenge_id": challenge_id, "kind": kind}
        )
        return int(ranked or 0)


def _key_params(key: BoardKey) -> dict[str, Any]:
    rank_score, moves, finished_at, player_id = key
    return {
        "k_score": rank_score,
        "k_moves": moves,
        "k_finished": finished_at,
        "k_player": player_id,
    }


# Each score of a board (bound as challenge_id, kind) with the results of the better
# scores: one running sum over its counts (a few hundred rows), made once a statement.
_AHEAD = (
    select(
        SCORES.c.rank_score,
        (func.sum(SCORES.c.entries).over(order_by=SCORES.c.rank_score) - SCORES.c.entries).label(
            "before"
        ),
    )
    .where(SCORES.c.challenge_id == bindparam("challenge_id"), SCORES.c.kind == bindparam("kind"))
    .subquery("ahead")
)


def _ranked(rows: Any, *columns: Any, descending: bool = False) -> Any:
    """A page's rows (``rows``, a subquery of board rows already cut to the page) with
    their ranks on the whole board and their players' names, in board order: a rank is
    one plus the results of the better scores (``_AHEAD``, joined by score: one running
    sum for the page, not a sum for each row) plus those of the same score in fewer moves
    (``leaderboard_buckets``: the few move counts of that score)."""
    r = rows.c
    moves_ahead = (
        select(func.coalesce(func.sum(BUCKETS.c.entries), 0))
        .where(
            BUCKETS.c.challenge_id == bindparam("challenge_id"),
            BUCKETS.c.kind == bindparam("kind"),
            BUCKETS.c.rank_score == r.rank_score,
            BUCKETS.c.moves < r.moves,
        )
        .scalar_subquery()
    )
    key = (r.rank_score, r.moves, r.finished_at, r.player_id)
    return (
        select(
            r.player_id,
            r.score,
            r.moves,
            r.finished_at,
            r.rank_score,
            (1 + func.coalesce(_AHEAD.c.before, 0) + moves_ahead).label("rank"),
            *(r[c.name] for c in MEASURE),
            *columns,
        )
        .select_from(rows.outerjoin(_AHEAD, _AHEAD.c.rank_score == r.rank_score))
        .order_by(*(c.desc() for c in key) if descending else key)
    )


def _page(where: list[Any], *, descending: bool, limit: bool = True) -> Any:
    """Board rows after (or before) a place, cut to the page in the order of the board's
    index (a range of it, never a scan), then ranked (``_ranked``). Built once (with bind
    parameters): building a statement this size costs more than running it."""
    e = ENTRIES.c
    rows = (
        select(e.player_id, e.score, e.moves, e.finished_at, e.rank_score, *MEASURE)
        .where(
            e.challenge_id == bindparam("challenge_id"),
            e.kind == bindparam("kind"),
            e.rank_score.is_not(None),
            *where,
        )
        .order_by(*(c.desc() for c in _BOARD_KEY) if descending else _BOARD_KEY)
    )
    if limit:
        rows = rows.limit(bindparam("limit"))
    return _ranked(rows.subquery("page"), descending=descending)


def _place_of(r: Any) -> Place:
    return Place(
        player_id=r.player_id,
        score=r.score,
        moves=r.moves,
        finished_at=aware(r.finished_at),
        rank_score=r.rank_score,
        rank=int(r.rank),
        name=None,  # the players' service names them (``BoardService``)
        deleted=False,
        global_rank=int(r.rank),
        # Provisional until its measure says ok (then it stands as any other).
        provisional=bool(r.provisional) and FairPlay(r.fair_play) is not FairPlay.OK,
        fair_play=FairPlay(r.fair_play),
        measure=measure_of(r),
    )


# How many results a board ranks: the sum of its scores' counts (a few hundred rows).
_RANKED = (
    select(func.coalesce(func.sum(SCORES.c.entries), 0))
    .where(SCORES.c.challenge_id == bindparam("challenge_id"), SCORES.c.kind == bindparam("kind"))
    .scalar_subquery()
    .label("ranked")
)
# A place given by a cursor, typed as the columns it is compared with (a timestamp is
# stored as UTC text on SQLite: the column's type writes the parameter the same way).
_AT = tuple_(
    *(
        bindparam(name, type_=c.type)
        for name, c in zip(
            ("k_score", "k_moves", "k_finished", "k_player"), _BOARD_KEY, strict=True
        )
    )
)
_FIRST = _page([], descending=False).add_columns(_RANKED)
_AFTER = _page([tuple_(*_BOARD_KEY) > _AT], descending=False).add_columns(_RANKED)
_BEFORE = _page([tuple_(*_BOARD_KEY) < _AT], descending=True)
_MINE = _page([ENTRIES.c.player_id == bindparam("player_id")], descending=False, limit=False)


def _among(ids: Any, *, after: bool) -> tuple[Any, Any]:
    """The board among a group of players (``ids``, a subquery of their ids, one column
    ``id``), and how many of them are ranked. The ids are joined by key to
    ``challenge_entries`` (challenge, player): one lookup each, never a scan of the board.
    They are ranked among themselves by a window over those rows alone; the page is cut
    after the cursor, and only its rows get their rank on the whole board (``_ranked``)."""
    e = ENTRIES.c
    group = (
        select(
            e.challenge_id,
            e.kind,
            e.player_id,
            e.score,
            e.moves,
            e.finished_at,
            e.rank_score,
            *MEASURE,
            func.rank().over(order_by=(e.rank_score, e.moves)).label("local_rank"),
            func.count().over().label("ranked"),
        )
        .select_from(
            ids.join(
                ENTRIES, and_(e.challenge_id == bindparam("challenge_id"), e.player_id == ids.c.id)
            )
        )
        .where(e.kind == bindparam("kind"), e.rank_score.is_not(None))
        .subquery("among")
    )
    g = group.c
    key = (g.rank_score, g.moves, g.finished_at, g.player_id)
    rows = select(group).order_by(*key).limit(bindparam("limit"))
    if after:
        rows = rows.where(tuple_(*key) > _AT)
    page = rows.subquery("page")
    return _ranked(page, page.c.local_rank, page.c.ranked), select(func.count()).select_from(group)


def _group_statements(ids: Any) -> tuple[Any, Any, Any]:
    first, count = _among(ids, after=False)
    return first, _among(ids, after=True)[0], count


# A group of players by their ids (bound as ``ids``: the player and whom they follow, from
# the players' service), each found by the key (challenge, player).
_GROUP_IDS = ENTRIES.alias("group_entries")
_FOLLOWING = _group_statements(
    select(_GROUP_IDS.c.player_id.label("id"))
    .where(
        _GROUP_IDS.c.challenge_id == bindparam("challenge_id"),
        _GROUP_IDS.c.player_id.in_(bindparam("ids", expanding=True)),
    )
    .subquery("ids")
)
# An edition's cohort (bound as ``cohort``), by its index.
_COHORT_IDS = ENTRIES.alias("cohort_entries")
_COHORT = _group_statements(
    select(_COHORT_IDS.c.player_id.label("id"))
    .where(
        _COHORT_IDS.c.challenge_id == bindparam("challenge_id"),
        _COHORT_IDS.c.cohort == bindparam("cohort"),
    )
    .subquery("ids")
)


def _among_place(r: Any) -> Place:
    return replace(_place_of(r), rank=int(r.local_rank))


def _scores_ahead(rank_score: int) -> Any:
    """The ranked results of a board (bound as challenge_id, kind) with a better score."""
    return (
        select(func.coalesce(func.sum(SCORES.c.entries), 0))
        .where(
            SCORES.c.challenge_id == bindparam("challenge_id"),
            SCORES.c.kind == bindparam("kind"),
            SCORES.c.rank_score < rank_score,
        )
        .scalar_subquery()
    )


def _moves_ahead(rank_score: int, moves: int) -> Any:
    """Those with the same score and fewer moves."""
    return (
        select(func.coalesce(func.sum(BUCKETS.c.entries), 0))
        .where(
            BUCKETS.c.challenge_id == bindparam("challenge_id"),
            BUCKETS.c.kind == bindparam("kind"),
            BUCKETS.c.rank_score == rank_score,
            BUCKETS.c.moves < moves,
        )
        .scalar_subquery()
    )


def _apart(side: Side, *, after: bool) -> tuple[Any, Any]:
    """A board's results ranked apart on ``side`` (by their index: a range of it, few
    rows), ranked among themselves by a window, in the board's order; and their count."""
    e = ENTRIES.c
    rank_score = e.provisional_rank_score if side is Side.PROVISIONAL else e.flagged_rank_score
    group = (
        select(
            e.player_id,
            e.score,
            e.moves,
            e.finished_at,
            rank_score.label("rank_score"),
            *MEASURE,
            func.rank().over(order_by=(rank_score, e.moves)).label("rank"),
            func.count().over().label("ranked"),
        )
        .where(
            e.challenge_id == bindparam("challenge_id"),
            e.kind == bindparam("kind"),
            rank_score.is_not(None),
        )
        .subquery(side.value)
    )
    g = group.c
    key = (g.rank_score, g.moves, g.finished_at, g.player_id)
    rows = select(group).order_by(*key).limit(bindparam("limit"))
    if after:
        rows = rows.where(tuple_(*key) > _AT)
    return rows, select(func.count()).select_from(group)


def _apart_statements(side: Side) -> tuple[Any, Any, Any]:
    first, count = _apart(side, after=False)
    return first, _apart(side, after=True)[0], count


# Each side's statements: from the top, after a place, and the count.
_APART = {side: _apart_statements(side) for side in (Side.PROVISIONAL, Side.FLAGGED)}
