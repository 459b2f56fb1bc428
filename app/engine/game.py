"""The game: an immutable state, its legal moves, and ``apply``.

A state goes in, a new state comes out; nothing is ever changed in place, so a refused
move leaves the caller's state exactly as it was. The outcome is part of the state and is
settled the moment it is decided: a game whose last tableau card is played is won at
once, and one whose stock is empty with nothing to play (and no redeal left) is lost at
once, without waiting for another move.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from app.engine.cards import KING, Card, ranks_adjacent
from app.engine.deals import Deal, validate_deal
from app.engine.errors import GameOverError, IllegalMoveError, TriPeaksError
from app.engine.layouts import Layout, get_layout
from app.engine.moves import (
    CONCEDE,
    DRAW,
    REDEAL,
    UNDO,
    Concede,
    Draw,
    Move,
    Play,
    Redeal,
    Undo,
    parse_move,
)
from app.engine.rules import Rules
from app.engine.scoring import Score, after_draw, after_play, initial_score


class GameStatus(StrEnum):
    """Where a game stands: in progress, or how it ended. The server's one status enum:
    its database column and every ``status`` of its API are this."""

    IN_PROGRESS = "in_progress"
    WON = "won"
    LOST = "lost"
    CONCEDED = "conceded"


@dataclass(frozen=True, slots=True)
class GameState:
    layout: Layout
    rules: Rules
    deal: Deal
    tableau: tuple[Card | None, ...]  # None where the card has been played
    stock: tuple[Card, ...]  # top first
    waste: tuple[Card, ...]  # top last
    redeals_left: int
    score: Score
    outcome: GameStatus
    moves_made: int  # every move applied, undo included: the game's version
    previous: GameState | None = field(default=None, compare=False, repr=False)

    @property
    def waste_top(self) -> Card | None:
        return self.waste[-1] if self.waste else None

    @property
    def is_over(self) -> bool:
        return self.outcome is not GameStatus.IN_PROGRESS

    @property
    def cards_left(self) -> int:
        return self.score.cards_left

    def is_free(self, position: int) -> bool:
        """Whether nothing covers ``position`` (played or not)."""
        return uncovered(self.tableau, self.layout.positions[position].covered_by)

    def is_face_up(self, position: int) -> bool:
        pos = self.layout.positions[position]
        return pos.face_up or self.rules.open_peaks or self.is_free(position)

    def fits(self, card: Card) -> bool:
        """Whether ``card`` may go on the waste's top card."""
        return fits(card, self.waste_top, self.rules)


def uncovered(tableau: tuple[Card | None, ...], covered_by: tuple[int, ...]) -> bool:
    """Whether every position of ``covered_by`` is played in ``tableau``. A plain loop:
    the hot test of every move and every answer (a generator costs twice as much)."""
    for c in covered_by:  # noqa: SIM110 - all() over a generator: twice the cost
        if tableau[c] is not None:
            return False
    return True


def fits(card: Card, top: Card | None, rules: Rules) -> bool:
    if top is None:
        return True
    if rules.king_stops and top.rank == KING:
        return False
    if card.is_joker or top.is_joker:
        return True
    return ranks_adjacent(card.rank, top.rank, wrap=rules.wrap)


def new_game(deal: Sequence[Card], rules: Rules, layout: Layout | None = None) -> GameState:
    """Deal a game. ``layout`` defaults to the registered layout ``rules.layout``."""
    lay = layout if layout is not None else get_layout(rules.layout)
    if lay.name != rules.layout:
        raise TriPeaksError(f"rules are for layout {rules.layout!r}, not {lay.name!r}")
    deal = tuple(deal)
    validate_deal(deal, lay.decks, rules.jokers)
    n = lay.size
    first_stock = n if rules.free_start else n + 1
    state = GameState(
        layout=lay,
        rules=rules,
        deal=deal,
        tableau=deal[:n],
        stock=deal[first_stock:],
        waste=deal[n:first_stock],
        redeals_left=rules.redeals,
        score=initial_score(rules, n),
        outcome=GameStatus.IN_PROGRESS,
        moves_made=0,
    )
    return _settled(state)


def playable_positions(state: GameState) -> list[int]:
    """Free tableau positions whose card fits on the waste, in position order."""
    # The hot loop of every move (``_settled`` calls it): plain loops, no generators.
    t = state.tableau
    top = state.waste_top
    rules = state.rules
    out = []
    for pos, card in zip(state.layout.positions, t, strict=True):
        if card is not None and uncovered(t, pos.covered_by) and fits(card, top, rules):
            out.append(pos.index)
    return out


def _can_redeal(state: GameState) -> bool:
    return not state.stock and state.redeals_left > 0 and len(state.waste) > 1


def legal_moves(state: GameState) -> list[Move]:
    """Every move ``apply`` accepts in this state: plays by position, then draw, redeal,
    undo and concede where allowed. A finished game has none."""
    if state.is_over:
        return []
    moves: list[Move] = [Play(p) for p in playable_positions(state)]
    if state.stock:
        moves.append(DRAW)
    if _can_redeal(state):
        moves.append(REDEAL)
    if state.rules.undo and state.previous is not None:
        moves.append(UNDO)
    moves.append(CONCEDE)
    return moves


def apply(state: GameState, move: Move | str) -> GameState:
    """The state after ``move``; raises ``IllegalMoveError`` (saying why) if it is not
    allowed, and ``MoveSyntaxError`` for a move string that cannot be read."""
    if isinstance(move, str):
        move = parse_move(move)
    if state.is_over:
        raise GameOverError(str(move), f"the game is over ({state.outcome.value})")
    match move:
        case Play(position=p):
            return _play(state, p, move)
        case Draw():
            if not state.stock:
                hint = "; redeal first" if _can_redeal(state) else ""
                raise IllegalMoveError("draw", f"the stock is empty{hint}")
            return _settled(
                GameState(
                    layout=state.layout,
                    rules=state.rules,
                    deal=state.deal,
                    tableau=state.tableau,
                    stock=state.stock[1:],
                    waste=(*state.waste, state.stock[0]),
                    redeals_left=state.redeals_left,
                    score=after_draw(state.score, state.rules),
                    outcome=GameStatus.IN_PROGRESS,
                    moves_made=state.moves_made + 1,
                    previous=state,
                )
            )
        case Redeal():
            if state.stock:
                raise IllegalMoveError("redeal", "the stock is not empty yet")
            if state.redeals_left <= 0:
                allowed = state.rules.redeals
                raise IllegalMoveError(
                    "redeal",
                    "no redeal is left" if allowed else "these rules allow no redeal",
                )
            if len(state.waste) <= 1:
                raise IllegalMoveError("redeal", "the waste has no card under its top card")
            return _settled(
                GameState(
                    layout=state.layout,
                    rules=state.rules,
                    deal=state.deal,
                    tableau=state.tableau,
                    # Turning the waste over puts its bottom card on top of the stock.
                    stock=state.waste[:-1],
                    waste=state.waste[-1:],
                    redeals_left=state.redeals_left - 1,
                    score=state.score,
                    outcome=GameStatus.IN_PROGRESS,
                    moves_made=state.moves_made + 1,
                    previous=state,
                )
            )
        case Undo():
            if not state.rules.undo:
                raise IllegalMoveError("undo", "these rules do not allow undo")
            if state.previous is None:
                raise IllegalMoveError("undo", "there is no move to take back")
            return replace(state.previous, moves_made=state.moves_made + 1)
        case Concede():
            return replace(
                state, outcome=GameStatus.CONCEDED, moves_made=state.moves_made + 1, previous=state
            )
    raise TypeError(f"not a move: {move!r}")  # pragma: no cover


def _play(state: GameState, p: int, move: Move) -> GameState:
    text = str(move)
    lay = state.layout
    if not 0 <= p < lay.size:
        raise IllegalMoveError(text, f"there is no position {p}; positions are 0-{lay.size - 1}")
    card = state.tableau[p]
    if card is None:
        raise IllegalMoveError(text, f"position {p} has already been played")
    covering = [c for c in lay.positions[p].covered_by if state.tableau[c] is not None]
    if covering:
        names = " and ".join(str(c) for c in covering)
        raise IllegalMoveError(text, f"position {p} is still covered by {names}")
    top = state.waste_top
    if not fits(card, top, state.rules):
        assert top is not None
        if state.rules.king_stops and top.rank == KING:
            why = "nothing may be played on a King (king_stops)"
        elif not state.rules.wrap and abs(card.rank - top.rank) == KING - 1:
            why = f"{card} does not go on {top}: King and Ace are not neighbours without wrap"
        else:
            why = f"{card} does not go on {top}: ranks must be one apart"
        raise IllegalMoveError(text, why)
    tableau = list(state.tableau)
    tableau[p] = None
    return _settled(
        GameState(
            layout=lay,
            rules=state.rules,
            deal=state.deal,
            tableau=tuple(tableau),
            stock=state.stock,
            waste=(*state.waste, card),
            redeals_left=state.redeals_left,
            score=after_play(state.score, lay.positions[p].peak, len(lay.peaks)),
            outcome=GameStatus.IN_PROGRESS,
            moves_made=state.moves_made + 1,
            previous=state,
        )
    )


def _settled(state: GameState) -> GameState:
    """Decide the outcome the moment it is settled."""
    if state.score.cards_left == 0:
        return replace(state, outcome=GameStatus.WON)
    if not state.stock and not _can_redeal(state) and not playable_positions(state):
        return replace(state, outcome=GameStatus.LOST)
    return state


def line_after(line: Sequence[str], move: Move | str) -> tuple[str, ...]:
    """A game's *line* after ``move``: its moves with every undone move taken out. An
    undo takes the last move off the line; any other move goes on its end.

    Replaying the line gives the game's state whatever the length of its history (only
    its version differs, see ``restore``): draw and undo in turn a thousand times and the
    line is still empty. Without undo, a line is at most one move per card and stock card
    (and redeal) long, so a stored game rehydrates in bounded time.
    """
    text = str(move) if not isinstance(move, str) else str(parse_move(move))
    if text == str(UNDO):
        return tuple(line[:-1])
    return (*line, text)


def line_of(moves: Iterable[Move | str]) -> tuple[str, ...]:
    """The line (see ``line_after``) of a whole move log."""
    line: tuple[str, ...] = ()
    for move in moves:
        line = line_after(line, move)
    return line


def restore(
    deal: Sequence[Card],
    rules: Rules,
    line: Iterable[Move | str],
    moves_made: int,
    layout: Layout | None = None,
) -> GameState:
    """Rebuild a game from its line and its version (``moves_made``, undos included): the
    same state as replaying its whole log, without replaying what was undone."""
    return replace(replay(deal, rules, line, layout), moves_made=moves_made)


def replay(
    deal: Sequence[Card],
    rules: Rules,
    moves: Iterable[Move | str],
    layout: Layout | None = None,
) -> GameState:
    """Rebuild a game from its stored form: deal, rules and move list."""
    state = new_game(deal, rules, layout)
    for i, move in enumerate(moves):
        try:
            state = apply(state, move)
        except TriPeaksError as e:
            e.add_note(f"while replaying move {i} of the stored game")
            raise
    return state
