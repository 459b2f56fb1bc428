"""The boards: a challenge's (an edition's) results from the top, around the caller,
among the players they follow, in their cohort, or ranked apart (provisional, flagged);
paged by a cursor that names the last place read."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from pydantic import TypeAdapter
from sqlalchemy.ext.asyncio import AsyncSession

from app.challenges.board_repository import Board, BoardKey, BoardRepository
from app.challenges.core import ChallengeService
from app.challenges.errors import ChallengeNotOpenProblem, NoRankedResultProblem
from app.challenges.models import ChallengeKind, Side
from app.challenges.repository import standing
from app.challenges.schemas import (
    Among,
    Around,
    CohortOf,
    FairPlayView,
    LeaderboardRead,
    leaderboard_out,
)
from app.challenges.windows import (
    check_challenge_id,
    closes_at,
    daily_of,
    is_closed,
    opens_at,
)
from app.kit.errors import NotFoundProblem, ValidationProblem
from app.kit.models import PlayerKind
from app.kit.paging import Count32, Int32, RowId, UtcTime, decode_cursor, encode_cursor
from app.players.service import Player, PlayerService
from app.settings import Settings


class BoardService(ChallengeService):
    """The use cases of a board."""

    def __init__(self, session: AsyncSession, settings: Settings) -> None:
        super().__init__(session, settings)
        self.boards = BoardRepository(session)

    async def named(self, board: Board) -> Board:
        """The board with its players' names, from the players' service (a deleted
        account's result stays, marked deleted)."""
        names = await PlayerService(self.session).names([p.player_id for p in board.places])
        places = [
            replace(p, name=names[p.player_id][0], deleted=names[p.player_id][1])
            if p.player_id in names
            else p
            for p in board.places
        ]
        return replace(board, places=places)

    async def leaderboard(
        self,
        challenge_id: str,
        kind: PlayerKind,
        limit: int,
        cursor: str | None,
        view: BoardView | None,
        player: Player | None,
        now: datetime,
    ) -> tuple[LeaderboardRead, str | None]:
        """A page of the challenge's board at ``now`` and its next cursor (``board_page``):
        a 404 for an id that names no challenge, a 409 before it opens (a daily's day is
        known from its id: its board reads before anyone asked for its deal)."""
        check_challenge_id(challenge_id)
        daily = daily_of(challenge_id)
        if daily is not None:
            if now < opens_at(daily[0]):
                raise ChallengeNotOpenProblem(
                    f"challenge {challenge_id} opens at {opens_at(daily[0])}"
                )
            closed = now >= closes_at(daily[0])
        else:
            challenge = await self.get(challenge_id)
            if challenge.kind is ChallengeKind.DUEL:
                # A duel's two results are the duel's to show (get_duel), once it ended.
                raise NotFoundProblem(f"no challenge {challenge_id[:48]!r}")
            if now < challenge.opens_at:
                raise ChallengeNotOpenProblem(
                    f"challenge {challenge_id} opens at {challenge.opens_at}"
                )
            closed = now >= challenge.closes_at
        return await board_page(
            self, challenge_id, kind, limit, cursor, view, player, closed=closed
        )

    async def edition_board(
        self,
        board_id: str,
        kind: PlayerKind,
        limit: int,
        cursor: str | None,
        view: BoardView | None,
        player: Player | None,
        now: datetime,
    ) -> tuple[LeaderboardRead, str | None]:
        """A page of an edition's board (``board_page``), closed once the edition is."""
        closed = is_closed(await self.get(board_id), now)
        return await board_page(self, board_id, kind, limit, cursor, view, player, closed=closed)

    # -- the board ----------------------------------------------------------------------
    async def board(
        self, challenge_id: str, kind: PlayerKind, limit: int, after: BoardKey | None
    ) -> Board:
        places, ranked = await self.boards.board_after(challenge_id, kind, after, limit + 1)
        return await self.named(_cut(Board(challenge_id, kind, ranked, places, None), limit))

    async def apart_board(
        self, challenge_id: str, kind: PlayerKind, side: Side, limit: int, after: BoardKey | None
    ) -> Board:
        """The board's results ranked apart on ``side`` (provisional, flagged), ranked
        among themselves."""
        places, count = await self.boards.apart_after(challenge_id, kind, side, after, limit + 1)
        return await self.named(_cut(Board(challenge_id, kind, count, places, None), limit))

    async def around(self, challenge_id: str, player: Player, neighbours: int) -> Board:
        """The player's ranked result with ``neighbours`` results either side of it; a
        404 that says where it is when it is ranked apart."""
        kind = player.kind
        mine = await self.boards.place_of(challenge_id, kind, player.id)
        if mine is None:
            entry = await self.challenges.entry(challenge_id, player.id)
            place = standing(entry) if entry is not None else None
            where = (
                f": it is ranked apart (fair_play={place[0].value})"
                if place is not None and place[0] is not Side.BOARD
                else ""
            )
            raise NoRankedResultProblem(
                f"no ranked result of player {player.id} on the board of {challenge_id}{where}"
            )
        before = await self.boards.board_before(challenge_id, kind, mine.key, neighbours)
        after, ranked = await self.boards.board_after(challenge_id, kind, mine.key, neighbours)
        return await self.named(Board(challenge_id, kind, ranked, [*before, mine, *after], None))

    async def among_following(
        self, challenge_id: str, player: Player, limit: int, after: BoardKey | None
    ) -> Board:
        """The board of the player's kind among the player and those they follow, ranked
        among themselves, each with their rank on the whole board
        (``BoardRepository.among_following``: their entries found by key, never by a
        scan of the board)."""
        ids = [player.id, *await PlayerService(self.session).followed_ids(player.id)]
        places, ranked = await self.boards.among_following(
            challenge_id, player.kind, ids, after, limit + 1
        )
        return await self.named(_cut(Board(challenge_id, player.kind, ranked, places, None), limit))

    async def cohort_board(
        self, board_id: str, player: Player, limit: int, after: BoardKey | None
    ) -> Board:
        """The board of the player's kind among their cohort of the edition ``board_id``,
        each with their rank on the whole board; a 404 for a player with no cohort."""
        entry = await self.challenges.entry(board_id, player.id)
        if entry is None or entry.cohort is None:
            raise NoRankedResultProblem(f"player {player.id} has no cohort in {board_id}")
        places, ranked = await self.boards.among_cohort(
            board_id, player.kind, entry.cohort, after, limit + 1
        )
        return await self.named(_cut(Board(board_id, player.kind, ranked, places, None), limit))


def _cut(board: Board, limit: int) -> Board:
    """A board read with one place more than its page: the page, and its next cursor's
    place when there was more."""
    places = board.places[:limit]
    more = len(board.places) > limit
    return replace(board, places=places, next=places[-1].key if more else None)


# A board's cursor: the last result's rank score, moves, finish and player.
BOARD_CURSOR = TypeAdapter(tuple[Int32, Count32, UtcTime, RowId])


def board_cursor(key: BoardKey) -> str:
    rank_score, moves, finished_at, player_id = key
    return encode_cursor([rank_score, moves, finished_at.isoformat(), player_id])


def board_place(cursor: str) -> BoardKey:
    """The place a board's cursor names; a 422 for one this server did not give."""
    return decode_cursor(cursor, BOARD_CURSOR)


BoardView = Around | Among | CohortOf | FairPlayView


def board_view(
    around: Around | None,
    among: Among | None,
    cohort: CohortOf | None = None,
    fair_play: FairPlayView | None = None,
) -> BoardView | None:
    """The one view of a board asked for (None: the whole board); a 422 for more."""
    asked = [view for view in (around, among, cohort, fair_play) if view is not None]
    if len(asked) > 1:
        raise ValidationProblem(
            "around, among, cohort and fair_play: one at a time", loc=("query", "among")
        )
    return asked[0] if asked else None


def needs_player(view: BoardView | None) -> bool:
    """Whether the view is the caller's own (around, among, cohort): it needs their key."""
    return view is not None and not isinstance(view, FairPlayView)


async def board_page(
    reader: BoardService,
    board_id: str,
    kind: PlayerKind,
    limit: int,
    cursor: str | None,
    view: BoardView | None,
    player: Player | None,
    *,
    closed: bool,
) -> tuple[LeaderboardRead, str | None]:
    """A page of a board (a challenge's, an edition's; ``closed`` once it has) and its
    next cursor: from the top (after ``cursor``), around ``player``, among whom they
    follow, in their cohort, or its results ranked apart (provisional, flagged)."""
    after = board_place(cursor) if cursor is not None else None
    if isinstance(view, FairPlayView):
        board = await reader.apart_board(board_id, kind, Side(view.value), limit, after)
    elif view is None or player is None:
        board = await reader.board(board_id, kind, limit, after)
    elif view is Around.ME:
        board = await reader.around(board_id, player, limit)
    elif view is Among.FOLLOWING:
        board = await reader.among_following(board_id, player, limit, after)
    else:
        board = await reader.cohort_board(board_id, player, limit, after)
    next_cursor = board_cursor(board.next) if board.next is not None else None
    return leaderboard_out(board_id, board, next_cursor, closed=closed), next_cursor
