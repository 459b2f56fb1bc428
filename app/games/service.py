"""The game use cases: load game -> rehydrate by replay -> apply -> persist.

No game lives in a process between requests: each call loads the game's row and its move
log, replays the log onto the stored deal, and (for a move) writes the move and the game's
summary in one transaction guarded by the game's version.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app import engine
from app.engine import GameState, Outcome, Play
from app.games.errors import (
    ConflictProblem,
    GameOverProblem,
    IdempotencyMismatchProblem,
    IllegalMoveProblem,
    PreconditionFailedProblem,
)
from app.games.models import Game, GameStatus, Move
from app.games.repository import GameRepository
from app.games.schemas import CreateGameRequest
from app.kit.errors import (
    ForbiddenProblem,
    NotFoundProblem,
    ProblemError,
    UnauthorizedProblem,
    ValidationProblem,
)
from app.ops import metrics
from app.settings import Settings, get_settings

MAX_ID_LENGTH = 32


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def etag(version: int) -> str:
    return f'"v{version}"'


@dataclass(frozen=True, slots=True)
class LoadedGame:
    row: Game
    state: GameState


@dataclass(frozen=True, slots=True)
class MoveResult:
    game: LoadedGame
    replayed: bool  # an Idempotency-Key retry answered from the stored move


class GameService:
    def __init__(self, session: Session, settings: Settings | None = None) -> None:
        self.session = session
        self.settings = settings if settings is not None else get_settings()
        self.games = GameRepository(session)

    # -- creation ---------------------------------------------------------------------
    def create(self, request: CreateGameRequest) -> tuple[LoadedGame, str]:
        rules = self._rules(request)
        layout = engine.get_layout(rules.layout)
        deal, number, chosen = self._deal(request, rules, layout)
        state = engine.new_game(deal, rules, layout)
        token = secrets.token_urlsafe(32)
        salt = secrets.token_hex(16)
        row = Game(
            id=secrets.token_urlsafe(16),
            token_hash=hash_token(token),
            layout=layout.name,
            rules=rules.to_dict(),
            deal=engine.format_deal(deal),
            deal_number=number,
            deal_chosen=chosen,
            salt=salt,
            commitment=engine.commitment(deal, salt),
            status=GameStatus(state.outcome.value),
            version=0,
            score=state.score.total,
            cards_left=state.cards_left,
        )
        self.games.add(row)
        self.session.commit()
        metrics.game_created(layout.name)
        return LoadedGame(row, state), token

    @staticmethod
    def _rules(request: CreateGameRequest) -> engine.Rules:
        options = request.rules.model_dump(exclude_none=True) if request.rules else {}
        try:
            return engine.Rules.for_layout(request.layout, **options)
        except engine.RulesError as e:
            raise ValidationProblem(str(e), option=e.option) from None

    def _deal(
        self, request: CreateGameRequest, rules: engine.Rules, layout: engine.Layout
    ) -> tuple[engine.Deal, int | None, bool]:
        if request.deal is not None and request.deal_number is not None:
            raise ValidationProblem("give either deal or deal_number, not both")
        if request.deal is not None:
            if request.winnable_only:
                raise ValidationProblem("winnable_only applies only to a deal the server picks")
            try:
                return engine.parse_deal(request.deal, layout.decks, rules.jokers), None, True
            except engine.DealError as e:
                raise ValidationProblem(str(e)) from None
        if request.deal_number is not None:
            if request.winnable_only:
                raise ValidationProblem("winnable_only applies only to a deal the server picks")
            deal = engine.numbered_deal(request.deal_number, layout.decks, rules.jokers)
            return deal, request.deal_number, True
        if request.winnable_only:
            from app.games.solving import winnable_deal

            deal, number = winnable_deal(rules, layout, self.settings)
            return deal, number, False
        number = secrets.randbelow(engine.MAX_DEAL_NUMBER + 1)
        return engine.numbered_deal(number, layout.decks, rules.jokers), number, False

    # -- loading ----------------------------------------------------------------------
    def load(self, game_id: str, token: str | None, upto: int | None = None) -> LoadedGame:
        """Load, authorise and rehydrate a game (as of move ``upto`` if given)."""
        row = self.authorize(game_id, token)
        return LoadedGame(row, self.rehydrate(row, upto))

    def authorize(self, game_id: str, token: str | None) -> Game:
        """The game's row, once the token is shown to open it."""
        if token is None:
            raise UnauthorizedProblem("this call needs the game's token: Authorization: Bearer")
        row = self.games.get(game_id) if len(game_id) <= MAX_ID_LENGTH else None
        if row is None:
            raise NotFoundProblem(f"no game {game_id[:MAX_ID_LENGTH]!r}")
        if not hmac.compare_digest(hash_token(token), row.token_hash):
            raise ForbiddenProblem("the token does not open this game")
        return row

    def view(self, game_id: str, token: str | None) -> LoadedGame:
        """``load`` for a read: its transaction ends at once (on SQLite it holds the write
        lock), and the session is then closed without a trip through the threadpool."""
        game = self.load(game_id, token)
        self.session.commit()
        return game

    def rehydrate(self, row: Game, upto: int | None = None) -> GameState:
        rules = engine.Rules.from_dict(row.rules)
        layout = engine.get_layout(row.layout)
        # Read the cards only: replay (new_game) validates the deal, once.
        deal = engine.parse_cards(row.deal)
        return engine.replay(deal, rules, self.games.moves(row.id, upto), layout)

    # -- moves ------------------------------------------------------------------------
    def move(
        self,
        game_id: str,
        token: str | None,
        move_text: str,
        *,
        if_match: str | None = None,
        idempotency_key: str | None = None,
        expect: dict[str, Any] | None = None,
    ) -> MoveResult:
        """Apply one move. ``expect`` holds the other fields of a posted legal-move object
        (kind, position, card), which must agree with the move."""
        game = self.load(game_id, token)
        request_hash = _request_hash(move_text, expect)
        if idempotency_key is not None:
            first = self._replay_idempotent(game, idempotency_key, request_hash)
            if first is not None:
                return first
        row, state = game.row, game.state
        if state.moves_made != row.version:  # pragma: no cover - a corrupt row
            raise _counted(ConflictProblem("the stored game does not replay to its version"))
        if if_match is not None and not _etag_matches(if_match, row.version):
            raise _counted(
                PreconditionFailedProblem(
                    f"If-Match {if_match} is stale: the game is at {etag(row.version)}",
                    current_version=row.version,
                )
            )
        try:
            move = engine.parse_move(move_text)
        except engine.MoveSyntaxError as e:
            raise ValidationProblem(str(e)) from None
        try:
            new = engine.apply(state, move)
        except engine.GameOverError as e:
            raise GameOverProblem(str(e), move=e.move, game_status=state.outcome.value) from None
        except engine.IllegalMoveError as e:
            raise IllegalMoveProblem(str(e), move=e.move, reason=e.reason) from None
        _check_expectations(state, move, expect)
        ok = self.games.append_move(
            row,
            row.version,
            str(move),
            status=GameStatus(new.outcome.value),
            score=new.score.total,
            cards_left=new.cards_left,
            idempotency_key=idempotency_key,
            request_hash=request_hash if idempotency_key else None,
        )
        if not ok:
            self.session.rollback()
            raise _counted(
                ConflictProblem("another move was applied to this game first; reload it")
            )
        try:
            self.session.commit()
        except IntegrityError:
            self.session.rollback()
            if idempotency_key is not None:
                again = self.load(game_id, token)
                first = self._replay_idempotent(again, idempotency_key, request_hash)
                if first is not None:
                    return first
            raise _counted(
                ConflictProblem("another move was applied to this game first; reload it")
            ) from None
        metrics.move_applied(move.kind, new.outcome.value)
        return MoveResult(LoadedGame(row, new), replayed=False)

    def _replay_idempotent(
        self, game: LoadedGame, key: str, request_hash: str
    ) -> MoveResult | None:
        stored = self.games.by_idempotency_key(game.row.id, key)
        if stored is None:
            return None
        if stored.request_hash != request_hash:
            raise IdempotencyMismatchProblem(
                "this Idempotency-Key was first used with a different move", first_move=stored.move
            )
        state = self.rehydrate(game.row, upto=stored.seq)
        return MoveResult(LoadedGame(game.row, state), replayed=True)

    def move_log(self, row: Game) -> list[str]:
        return list(self.games.moves(row.id))

    def history(
        self, game_id: str, token: str | None, offset: int, limit: int
    ) -> tuple[Game, list[Move]]:
        row = self.authorize(game_id, token)
        return row, list(self.games.move_rows(row.id, offset, limit))


def _counted(problem: ProblemError) -> ProblemError:
    """``problem`` (a 409 or 412: the game changed under the request), counted in the
    metrics as it is raised."""
    metrics.conflict(problem.status)
    return problem


def _request_hash(move_text: str, expect: dict[str, Any] | None) -> str:
    canonical = move_text.strip().lower() + "|" + repr(sorted((expect or {}).items()))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _etag_matches(header: str, version: int) -> bool:
    tags = [t.strip() for t in header.split(",")]
    current = etag(version)
    return any(t == "*" or t == current or t == "W/" + current for t in tags)


def _check_expectations(state: GameState, move: engine.Move, expect: dict[str, Any] | None) -> None:
    if not expect:
        return
    kind = expect.get("kind")
    if kind is not None and kind != move.kind:
        raise ValidationProblem(f"kind {kind!r} does not match move {str(move)!r}")
    position = expect.get("position")
    if position is not None and (not isinstance(move, Play) or move.position != position):
        raise ValidationProblem(f"position {position} does not match move {str(move)!r}")
    card = expect.get("card")
    if card is not None:
        if not isinstance(move, Play):
            raise ValidationProblem(f"card {card!r} given for move {str(move)!r}, which plays none")
        # The move was legal, so the card at the position is free and face up: naming it
        # here reveals nothing hidden.
        placed = state.tableau[move.position]
        try:
            wanted = engine.parse_card(card)
        except engine.CardError as e:
            raise ValidationProblem(str(e)) from None
        if placed != wanted:
            raise ValidationProblem(
                f"position {move.position} holds {placed}, not {wanted.code}",
                position=move.position,
            )


__all__ = ["GameService", "LoadedGame", "MoveResult", "Outcome", "etag", "hash_token"]
