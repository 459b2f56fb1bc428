"""The game use cases: create, rehydrate by replay, apply a move, read the history.

No game lives in a process between requests: each call loads the game's row
(``app.games.access``, which also checks the caller's credential), replays its line onto
the stored deal, and (for a move) writes the move and the game's summary. Only the
replay is remembered (``REHYDRATED``): the state is a pure function of the row's layout,
rules, deal, line and version, so a row read again with the same five gets the state
already computed for them (states are immutable); any other row is replayed. The service
adds and flushes; the request's session commits once, at the boundary, so a move and
whatever other domains record with it (the move that ends a game: the player's
statistics, a challenge's board) land together or not at all.

A move is one use case: the route (``app.games.endpoints``) receives the game from the
dependency that opened and checked it (``app.games.access``), asks ``GameService.move``
with a ``MoveAsked``, and the service checks it (``checked_move``) and writes it with the
repository's one write (``GameRepository.record_move``).
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from app import engine
from app.engine import GameState, GameStatus, Play
from app.engine.equivalence import deal_keys
from app.games.errors import (
    ConflictProblem,
    GameInProgressProblem,
    GameOverProblem,
    IdempotencyMismatchProblem,
    IllegalMoveProblem,
    MoveLimitProblem,
    OpenChallengeDealProblem,
    PreconditionFailedProblem,
)
from app.games.models import Analysis, Game, Move
from app.games.repository import GameRepository
from app.games.schemas import (
    CREATED_EXAMPLE,
    CREATED_HEADERS,
    ChallengeLinkRead,
    GameCreate,
    GameCreated,
    GameRead,
    PracticeLinkRead,
    RevealRead,
    RulesCreate,
    game_links,
    ok_with_links,
)
from app.games.solving import difficulty_settings, rate, winnable_deal
from app.kit import headers as entity_tags
from app.kit import metrics
from app.kit.auth import hash_secret, new_secret
from app.kit.errors import NotFoundProblem, ProblemError, ValidationProblem
from app.kit.events import GameEnded, GameEndListener, PlayerDeleted
from app.kit.ids import new_id
from app.kit.models import utcnow
from app.kit.workload import Searches
from app.settings import Settings

StateKey = tuple[str, str, str, str, int]
G = TypeVar("G", bound=GameRead)


def state_key(row: Game) -> StateKey:
    """All that a game's state is computed from: layout, rules, deal, line, version."""
    rules = json.dumps(row.rules, sort_keys=True, separators=(",", ":"))
    return (row.layout, rules, row.deal, row.line, row.version)


class RehydratedStates:
    """The states the replay of stored games gave, by ``state_key``, least recently used
    dropped first. A state holds the states before it (for undo), shared with the states
    it was played from: each counts its version plus one against ``capacity``, so that
    what is held stays bounded (about 0.7 KB a state) however long the games."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._states: OrderedDict[StateKey, GameState] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()

    def get(self, key: StateKey) -> GameState | None:
        with self._lock:
            state = self._states.get(key)
            if state is not None:
                self._states.move_to_end(key)
            return state

    def put(self, key: StateKey, state: GameState) -> None:
        weight = key[4] + 1
        if weight > self.capacity:
            return
        with self._lock:
            if key in self._states:
                self._states.move_to_end(key)
                return
            self._states[key] = state
            self._held += weight
            while self._held > self.capacity:
                old, _ = self._states.popitem(last=False)
                self._held -= old[4] + 1

    def clear(self) -> None:
        with self._lock:
            self._states.clear()
            self._held = 0

    def __len__(self) -> int:
        return len(self._states)


# Every game of this process: 32,768 states, some 20 MB at most; hundreds of games of
# 60 moves, thousands of short ones.
REHYDRATED = RehydratedStates(capacity=32_768)


@dataclass(frozen=True, slots=True)
class LoadedGame:
    """A game's row and its state, rehydrated from the row's deal and line (and, when
    rehydrated, the key the state is remembered by: ``state_key``)."""

    row: Game
    state: GameState
    key: StateKey | None = None


def _setup(row: Game) -> tuple[engine.Rules, engine.Layout, tuple[engine.Card, ...]]:
    rules = engine.Rules.from_dict(row.rules)
    layout = engine.get_layout(row.layout)
    # Read the cards only: replay (new_game) validates the deal, once.
    return rules, layout, engine.parse_cards(row.deal)


def rehydrate(row: Game) -> LoadedGame:
    """The game rehydrated from its row alone: its line replayed onto its deal. The cost
    is bounded by the line's length, whatever the length of the history."""
    key = state_key(row)
    state = REHYDRATED.get(key)
    if state is None:
        rules, layout, deal = _setup(row)
        line = row.line.split(",") if row.line else ()
        state = engine.restore(deal, rules, line, row.version, layout)
        REHYDRATED.put(key, state)
    return LoadedGame(row, state, key)


@dataclass(frozen=True, slots=True)
class MoveAsked:
    """A move as a request asks for it: its text, the conditions it is sent with, and
    what a posted legal-move object says of it (each checked against the move)."""

    text: str
    if_match: str | None = None  # the ETags the game must still be at (412 otherwise)
    idempotency_key: str | None = None  # the same key again answers the first answer
    kind: str | None = None  # a legal-move object's other fields: they must agree
    position: int | None = None
    card: str | None = None  # checked once the move is legal (then it names a free card)


def checked_move(game: LoadedGame, asked: MoveAsked, limit: int) -> tuple[engine.Move, GameState]:
    """``asked`` checked against ``game`` (If-Match, syntax, what a posted legal-move
    object says, legality, the game's move limit): the move and the state after it, or
    the problem to answer."""
    row, state = game.row, game.state
    if asked.if_match is not None and not entity_tags.if_match(asked.if_match, row.version):
        raise _counted(
            PreconditionFailedProblem(
                f"the game has moved on: it is at {entity_tags.etag(row.version)}, "
                f"which If-Match {asked.if_match} does not name",
                current_version=row.version,
            )
        )
    try:
        move = engine.parse_move(asked.text)
    except engine.MoveSyntaxError as e:
        raise ValidationProblem(str(e), loc=("body", "move")) from None
    # A legal-move object whose fields disagree with its move is refused as such (422),
    # whether or not the move is legal; the card is checked once the move is (it then
    # names a free card, nothing hidden).
    _check_agreement(move, asked)
    try:
        new = engine.apply(state, move)
    except engine.GameOverError as e:
        raise GameOverProblem(str(e), move=e.move, game_status=state.outcome.value) from None
    except engine.IllegalMoveError as e:
        raise IllegalMoveProblem(str(e), move=e.move, reason=e.reason) from None
    _check_card(state, move, asked.card)
    if row.version >= limit and not isinstance(move, engine.Concede):
        raise MoveLimitProblem(
            f"this game has reached the limit of {limit} moves; it can only be conceded",
            limit=limit,
        )
    return move, new


@dataclass(frozen=True, slots=True)
class MoveResult:
    game: LoadedGame
    replayed: bool  # an Idempotency-Key retry answered from the stored move


class GameService:
    def __init__(
        self,
        session: AsyncSession,
        settings: Settings,
        on_end: Sequence[GameEndListener] = (),
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.session = session
        self.settings = settings
        self.games = GameRepository(session)
        self.on_end = on_end
        self.clock = clock  # the time of each move (a challenge's day ends by it)

    # -- creation ---------------------------------------------------------------------
    async def create(
        self, request: GameCreate, solver: Searches, player_id: str | None = None
    ) -> tuple[LoadedGame, str]:
        """A new game (``player_id``'s when given); a ``winnable_only`` deal is searched
        for with one of ``solver``'s slots (before any statement: no transaction is open
        while it searches)."""
        rules = self._rules(request)
        layout = engine.get_layout(rules.layout)
        deal, number, chosen = await self._deal(request, rules, layout, solver)
        if chosen:
            await self._refuse_open_challenge_deal(deal, layout)
        return await self.start(deal, rules, layout, number, chosen=chosen, player_id=player_id)

    async def _refuse_open_challenge_deal(self, deal: engine.Deal, layout: engine.Layout) -> None:
        """A deal the player chose (explicit or numbered) is refused while its tableau is,
        or is the same as, the tableau of a challenge still open, under any rules and
        whatever its waste card and stock: its play, hint and analysis would preview that
        challenge. Compared by the keys of its tableau's classes (engine.equivalence),
        looked up in an index: one statement."""
        closes = await self.games.open_challenge_closing(deal_keys(deal, layout), self.clock())
        if closes is not None:
            raise OpenChallengeDealProblem(
                "this deal's tableau is an open challenge's, or the same as one's (suits, "
                "ranks reversed or turned, the table mirrored), whatever its waste card and "
                f"stock: it may be dealt once that challenge closes, at {closes.isoformat()}",
                closes_at=closes.isoformat(),
            )

    async def start(
        self,
        deal: engine.Deal,
        rules: engine.Rules,
        layout: engine.Layout,
        number: int | None,
        *,
        chosen: bool,
        player_id: str | None = None,
        challenge_id: str | None = None,
        salt: str | None = None,
        reveal_after: datetime | None = None,
        practice_of: str | None = None,
    ) -> tuple[LoadedGame, str]:
        """Deal ``deal`` as a new game; its token once. A challenge's game (a ranked
        attempt, or a practice of it) takes the challenge's salt, so that its commitment
        is the challenge's."""
        state = engine.new_game(deal, rules, layout)
        token = new_secret()
        salt = salt if salt is not None else secrets.token_hex(16)
        now = self.clock()
        row = Game(
            id=new_id(),
            token_hash=hash_secret(token),
            layout=layout.name,
            rules=rules.to_dict(),
            deal=engine.format_deal(deal),
            deal_number=number,
            deal_chosen=chosen,
            salt=salt,
            commitment=engine.commitment(deal, salt),
            status=state.outcome,
            version=0,
            score=state.score.total,
            cards_left=state.cards_left,
            line="",
            player_id=player_id,
            challenge_id=challenge_id,
            reveal_after=reveal_after,
            practice_of=practice_of,
            created_at=now,
            updated_at=now,
        )
        await self.games.add(row)
        REHYDRATED.put(state_key(row), state)
        metrics.game_created(layout.name)
        return LoadedGame(row, state), token

    @staticmethod
    def _rules(request: GameCreate) -> engine.Rules:
        return rules_of(request.layout, request.rules)

    async def _deal(
        self,
        request: GameCreate,
        rules: engine.Rules,
        layout: engine.Layout,
        solver: Searches,
    ) -> tuple[engine.Deal, int | None, bool]:
        if request.deal is not None and request.deal_number is not None:
            raise ValidationProblem(
                "give either deal or deal_number, not both", loc=("body", "deal_number")
            )
        if request.deal is not None:
            if request.winnable_only:
                raise ValidationProblem(
                    "winnable_only applies only to a deal the server picks",
                    loc=("body", "winnable_only"),
                )
            try:
                return engine.parse_deal(request.deal, layout.decks, rules.jokers), None, True
            except engine.DealError as e:
                raise ValidationProblem(str(e), loc=("body", "deal")) from None
        if request.deal_number is not None:
            if request.winnable_only:
                raise ValidationProblem(
                    "winnable_only applies only to a deal the server picks",
                    loc=("body", "winnable_only"),
                )
            deal = engine.numbered_deal(request.deal_number, layout.decks, rules.jokers)
            return deal, request.deal_number, True
        if request.winnable_only:
            deal, number = await winnable_deal(rules, layout, self.settings, solver)
            return deal, number, False
        number = secrets.randbelow(engine.MAX_DEAL_NUMBER + 1)
        return engine.numbered_deal(number, layout.decks, rules.jokers), number, False

    # -- loading ----------------------------------------------------------------------
    async def get(self, game_id: str) -> Game | None:
        """The game's row (``GameRepository.get``)."""
        return await self.games.get(game_id)

    async def load_at(self, row: Game, version: int) -> LoadedGame:
        """The game as it was at ``version``: the first moves of its log replayed."""
        rules, layout, deal = _setup(row)
        moves = await self.games.moves(row.id, upto=version)
        return LoadedGame(row, engine.replay(deal, rules, moves, layout))

    async def move_log(self, row: Game) -> list[str]:
        return list(await self.games.moves(row.id))

    # -- a player's games ----------------------------------------------------------------
    async def list_for_player(
        self,
        player_id: str,
        limit: int,
        after: tuple[datetime, str] | None = None,
        status: GameStatus | None = None,
        layout: str | None = None,
    ) -> list[Game]:
        """The player's games, newest first: ``limit`` of them after the game ``after``
        names (its creation time and id)."""
        return list(await self.games.for_player(player_id, limit, after, status, layout))

    # -- retention --------------------------------------------------------------------
    async def delete_abandoned(self, untouched_since: datetime, limit: int) -> int:
        """Delete up to ``limit`` unfinished games nobody has moved since then (not a
        challenge's: its entry points at it)."""
        return await self.games.delete_stale(
            [GameStatus.IN_PROGRESS], untouched_since, limit, players_too=True
        )

    async def delete_finished(self, ended_before: datetime, limit: int) -> int:
        """Delete up to ``limit`` anonymous games that ended before then (a player's games
        stay in their history, and a challenge's on its board)."""
        finished = [GameStatus.WON, GameStatus.LOST, GameStatus.CONCEDED]
        return await self.games.delete_stale(finished, ended_before, limit, players_too=False)

    async def delete_closed_challenge_games(self, now: datetime, limit: int) -> int:
        """Delete up to ``limit`` unfinished attempts at challenges whose day is over."""
        return await self.games.delete_unfinished_of_closed_challenges(now, limit)

    async def end_secrecy(self, challenge_id: str, at: datetime) -> None:
        """The challenge closed at ``at`` (early, by its creator): its attempts' deals
        stay secret until then only, and an attempt that ends later is not ranked."""
        await self.games.reveal_challenge_games(challenge_id, at)

    async def delete_over_cap(self, cap: int, limit: int) -> int:
        """Delete up to ``limit`` of the finished games a player has beyond the newest
        ``cap`` (their statistics already count them)."""
        return await self.games.delete_beyond_cap(cap, limit)

    # -- analyses ---------------------------------------------------------------------
    async def analysis_inputs(self, game: LoadedGame) -> tuple[Analysis | None, list[str]]:
        """What analysing the finished game needs: its kept analysis, or its move log."""
        if not game.state.is_over:
            raise GameInProgressProblem("a game is analysed once it has ended; it is in progress")
        stored = await self.games.analysis(game.row.id)
        return stored, [] if stored is not None else await self.move_log(game.row)

    async def store_analysis(self, analysis: Analysis) -> Analysis:
        """Keep ``analysis`` unless one was kept first (two racing first calls): the one
        kept is the answer, every time."""
        return await self.games.add_analysis(analysis)

    # -- moves ------------------------------------------------------------------------
    async def move(self, game: LoadedGame, asked: MoveAsked) -> MoveResult:
        """Apply the move ``asked`` to ``game`` (loaded in this session, which writes): the
        Idempotency-Key's first answer if it has one; else the move checked, then written
        by the repository's one write, which the version it was read at guards (a racing
        move that landed first makes it a 409). The move that ends the game is followed by
        the listeners' writes (a player's statistics, a challenge's entry), in the same
        transaction."""
        row, key = game.row, asked.idempotency_key
        # What a retry with the same key must match: needed only with a key.
        canonical = _canonical_move(asked.text) if key is not None else ""
        request_hash = _request_hash(canonical) if key is not None else None
        if key is not None and request_hash is not None:
            first = await self._replay_idempotent(row, key, request_hash, canonical)
            if first is not None:
                return first
        move, new = checked_move(game, asked, self.settings.max_moves_per_game)
        line = ",".join(engine.line_after(row.line.split(",") if row.line else (), move))
        recorded = await self.games.record_move(
            row,
            row.version,
            str(move),
            line=line,
            status=new.outcome,
            score=new.score.total,
            cards_left=new.cards_left,
            now=self.clock(),
            idempotency_key=key,
            request_hash=request_hash,
        )
        if not recorded:
            # Another request's move landed first. When it was this one, sent again with
            # the same key (a retry racing the first try), its answer is the answer.
            if key is not None and request_hash is not None:
                first = await self._replay_idempotent(row, key, request_hash, canonical)
                if first is not None:
                    return first
            raise raced()
        metrics.move_applied(move.kind, new.outcome.value)
        # The row now holds what was written: its state is remembered by the key it was
        # read by, with its new line and version.
        moved_key = state_key(row) if game.key is None else (*game.key[:3], row.line, row.version)
        REHYDRATED.put(moved_key, new)
        if new.is_over:
            await self._ended(row, new)
        return MoveResult(LoadedGame(row, new, moved_key), replayed=False)

    async def _ended(self, row: Game, final: GameState) -> None:
        """The game ended: the listeners record it, in this transaction."""
        ended = GameEnded(
            game_id=row.id,
            player_id=row.player_id,
            challenge_id=row.challenge_id,
            practice_of=row.practice_of,
            layout=row.layout,
            scoring=final.rules.scoring,
            status=final.outcome,
            score=final.score.total,
            moves=row.version,
            ended_at=row.updated_at,
        )
        for listener in self.on_end:
            await listener(self.session, ended)

    async def _replay_idempotent(
        self, row: Game, key: str, request_hash: str, canonical: str
    ) -> MoveResult | None:
        stored = await self.games.by_idempotency_key(row.id, key)
        if stored is None:
            return None
        # (A key stored before moves were hashed alone matches by the move it wrote.)
        if stored.request_hash != request_hash and stored.move != canonical:
            raise IdempotencyMismatchProblem(
                "this Idempotency-Key was first used with a different move", first_move=stored.move
            )
        if stored.seq > row.version:
            # Landed after this request loaded the game: its row is read again, so that
            # the answer shows the game as the first try left it.
            again = await self.games.get(row.id)
            if again is None:
                raise NotFoundProblem(f"no game {row.id!r}: it was deleted")
            row = again
        return MoveResult(await self.load_at(row, stored.seq), replayed=True)

    async def history(
        self, row: Game, offset: int, limit: int, after: int | None = None
    ) -> list[Move]:
        return list(await self.games.move_rows(row.id, offset, limit, after))


def rules_of(layout: str, options: RulesCreate | None) -> engine.Rules:
    """The rules a request's layout and options make; a 422 naming the refused option."""
    chosen = options.model_dump(exclude_none=True) if options else {}
    try:
        return engine.Rules.for_layout(layout, **chosen)
    except engine.RulesError as e:
        raise ValidationProblem(
            str(e), option=e.option, loc=("body", "rules", e.option), kind="rule_conflict"
        ) from None


async def record_practice(session: AsyncSession, game_id: str, rank: int, ranked: int) -> None:
    """Where the ended practice game ``game_id`` would have ranked (a listener of
    ``GameEnded`` tells, in the transaction of its last move): on the row this session
    loaded, so that the move's own answer shows it."""
    row = await GameRepository(session).get(game_id)
    if row is not None:
        row.practice_rank = rank
        row.practice_ranked = ranked
        await session.flush()


# -- what a player sees of a game --------------------------------------------------------
def deal_secret(row: Game, now: datetime) -> bool:
    """Whether the game's deal must stay secret now whatever its state: a challenge's
    game before its day is over."""
    return row.reveal_after is not None and now < row.reveal_after


def game_read(game: LoadedGame, now: datetime) -> GameRead:
    """The game as its player may see it, at ``now``."""
    return _presented(GameRead, game, now)


def game_created(game: LoadedGame, token: str, now: datetime) -> GameCreated:
    """A new game's answer: the game, and its token (shown once)."""
    return _presented(GameCreated, game, now, token=token)


def _presented(model: type[G], game: LoadedGame, now: datetime, **more: str) -> G:
    """``model`` built once from the player's view of the state and the row: the deal
    only once the game has ended (and a challenge's game only once its day is over
    too)."""
    row, state = game.row, game.state
    reveal = None
    if state.is_over and not deal_secret(row, now):
        reveal = RevealRead(deal=row.deal.split(), salt=row.salt, deal_number=row.deal_number)
    challenge = None
    if row.challenge_id is not None and row.reveal_after is not None:
        ended_in_time = row.ended_at is not None and row.ended_at < row.reveal_after
        challenge = ChallengeLinkRead(
            id=row.challenge_id,
            ranked=ended_in_time or (row.ended_at is None and now < row.reveal_after),
            reveal_after=row.reveal_after,
        )
    practice = None
    if row.practice_of is not None:
        practice = PracticeLinkRead(
            challenge_id=row.practice_of, rank=row.practice_rank, ranked=row.practice_ranked
        )
    return model.present(
        engine.view_of(state),
        id=row.id,
        deal_number=row.deal_number if row.deal_chosen else None,
        commitment=row.commitment,
        reveal=reveal,
        player_id=row.player_id,
        challenge=challenge,
        practice=practice,
        created_at=row.created_at,
        updated_at=row.updated_at,
        **more,
    )


def created_headers(game: LoadedGame) -> dict[str, str]:
    """The headers of a new game's answer: where it is, its version, and no cache (the
    answer holds its token)."""
    return {
        "Location": f"/v1/games/{game.row.id}",
        "ETag": entity_tags.etag(game.state.moves_made),
        "Cache-Control": "no-store",
    }


def raced() -> ProblemError:
    """The problem of a move whose number another move took first (counted)."""
    return _counted(ConflictProblem("another move was applied to this game first; reload it"))


def _counted(problem: ProblemError) -> ProblemError:
    """``problem`` (a 409 or 412: the game changed under the request), counted in the
    metrics as it is raised."""
    metrics.conflict(problem.status)
    return problem


def _canonical_move(move_text: str) -> str:
    """The move as the server writes it, whatever form it was sent in (``play 24``, a
    legal-move object, ``/play``'s position)."""
    try:
        return str(engine.parse_move(move_text))
    except engine.MoveSyntaxError:
        return move_text.strip().lower()


def _request_hash(canonical: str) -> str:
    """What a retry with the same Idempotency-Key must match: the move itself (as
    ``_canonical_move`` writes it). The other fields of a legal-move object (kind,
    position, card) are checks made on the first try, not part of the move: the same
    move in any accepted form replays."""
    return hashlib.sha256(canonical.encode()).hexdigest()


def _check_agreement(move: engine.Move, asked: MoveAsked) -> None:
    """The kind and position a legal-move object gives agree with its move."""
    if asked.kind is not None and asked.kind != move.kind:
        raise ValidationProblem(
            f"kind '{asked.kind}' does not match move '{move}'", loc=("body", "kind")
        )
    position = asked.position
    if position is not None and (not isinstance(move, Play) or move.position != position):
        raise ValidationProblem(
            f"position {position} does not match move '{move}'", loc=("body", "position")
        )


def _check_card(state: GameState, move: engine.Move, card: str | None) -> None:
    """The card a legal-move object names is the one its (legal) move plays."""
    if card is None:
        return
    if not isinstance(move, Play):
        raise ValidationProblem(
            f"card {card!r} given for move {str(move)!r}, which plays none",
            loc=("body", "card"),
        )
    # The move was legal, so the card at the position is free and face up: naming it
    # here reveals nothing hidden.
    placed = state.tableau[move.position]
    try:
        wanted = engine.parse_card(card)
    except engine.CardError as e:
        raise ValidationProblem(str(e), loc=("body", "card")) from None
    if placed != wanted:
        raise ValidationProblem(
            f"position {move.position} holds {placed}, not {wanted.code}",
            position=move.position,
            loc=("body", "card"),
        )


async def unlink_deleted_player(session: AsyncSession, deleted: PlayerDeleted) -> None:
    """The listener of ``PlayerDeleted`` (``app.main`` wires it): the player's games
    become anonymous games."""
    await GameRepository(session).unlink_player(deleted.player_id)


# What other domains use of this one (they import this module alone).
__all__ = [
    "CREATED_EXAMPLE",
    "CREATED_HEADERS",
    "GameCreated",
    "GameService",
    "LoadedGame",
    "MoveAsked",
    "MoveResult",
    "RulesCreate",
    "created_headers",
    "difficulty_settings",
    "game_created",
    "game_links",
    "game_read",
    "ok_with_links",
    "rate",
    "record_practice",
    "rules_of",
    "unlink_deleted_player",
    "winnable_deal",
]
