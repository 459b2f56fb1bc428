"""The contract of the game endpoints.

Names: a request body is ``<Thing>Create``, an answer or a part of one ``<Thing>Read``, a
list ``<Thing>List``; none is named like an engine class. The enums (``GameStatus``,
``Scoring``, ``MoveKind``) are defined once and shared by every schema that uses them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, Final, Self

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictInt

from app import engine
from app.engine import GameStatus, Scoring
from app.engine.deals import MAX_DEAL_NUMBER
from app.kit.headers import ETAG, LOCATION, NO_STORE, Headers
from app.kit.ratelimit import RATE_LIMIT_HEADERS
from app.kit.schemas import DEFAULT_LAYOUT, DifficultyRead, LayoutName, RulesRead, Strict


def _whole_number(value: Any) -> Any:
    """JSON Schema's integers include 3.0: take it as 3 (still never "3" nor true)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


WHOLE = BeforeValidator(_whole_number)  # after the bounds, so that they stay in the schema
CardCode = Annotated[
    str,
    Field(
        min_length=2,
        max_length=3,
        description="A rank (A, 2-9, T or 10, J, Q, K) and a suit (c, d, h, s), or JK",
        examples=["7h"],
    ),
]


def _game_example() -> dict[str, Any]:
    """A real game's state for the contract's examples: numbered deal 7 under the default
    rules, after its first legal play, as get_game answers it (so it cannot drift from
    the rules or the presenter: the engine computes it, ``GameRead.present`` shows it)."""
    state = engine.new_game(engine.numbered_deal(7), engine.Rules.for_layout("tripeaks"))
    state = engine.apply(state, engine.legal_moves(state)[0])
    salt = "5d1f0c7a9b3e4f2a8c6d0e1b2a3f4c5d"
    example = GameRead.present(
        engine.view_of(state),
        id="hV3kq9X0b1LrT2mYp8dQzw",
        deal_number=7,
        commitment=engine.commitment(state.deal, salt),
        reveal=None,
        player_id=None,
        challenge=None,
        practice=None,
        created_at=datetime(2026, 12, 1, 9, 30, tzinfo=UTC),
        updated_at=datetime(2026, 12, 1, 9, 30, 4, tzinfo=UTC),
    )
    return example.model_dump(mode="json")


# The contract's examples of a game, its score and a new game: the schemas below hold
# these dicts, filled once ``GameRead`` can present the example (at the end of the module).
GAME_EXAMPLE: Final[dict[str, Any]] = {}
SCORE_EXAMPLE: Final[dict[str, Any]] = {}
CREATED_EXAMPLE: Final[dict[str, Any]] = {}
TOKEN_EXAMPLE: Final = "Zr8m2Q0xk7TfW1cVbN4pLs9aYd3HgE6uJ5oRiK2tXqA"


# create_game's request examples, by name (the route's openapi_examples).
CREATE_EXAMPLES: Final = {
    "classic": {
        "summary": "Classic TriPeaks, a deal the server picks",
        "value": {},
    },
    "numbered": {
        "summary": "Numbered deal 7 without wrap (its number is public)",
        "value": {"layout": "tripeaks", "deal_number": 7, "rules": {"wrap": False}},
    },
    "strict_golf": {
        "summary": "Strict Golf: king_stops (golf already plays without wrap)",
        "value": {"layout": "golf", "rules": {"king_stops": True}},
    },
    "relaxed": {
        "summary": "Undo, one redeal, free draws",
        "value": {"rules": {"undo": True, "redeals": 1, "draw_penalty": 0}},
    },
    "winnable_msc": {
        "summary": "msc scoring, a deal the solver proved winnable",
        "value": {"rules": {"scoring": "msc"}, "winnable_only": True},
    },
    "six_peaks": {
        "summary": "Six peaks (two decks), open: every tableau card face up",
        "value": {"layout": "six_peaks", "rules": {"open_peaks": True}},
    },
    "explicit": {
        "summary": "An explicit deal: tableau 0-27, the waste card, the stock from the top",
        "value": {"deal": engine.format_deal(engine.numbered_deal(0)).split()},
    },
}


class MoveKind(StrEnum):
    """What a move does: play a free card, draw from the stock, turn the waste over
    (``redeal``), take back the last move (``undo``) or give up (``concede``)."""

    PLAY = "play"
    DRAW = "draw"
    REDEAL = "redeal"
    UNDO = "undo"
    CONCEDE = "concede"


class RulesCreate(Strict):
    """Rule options (docs/rules.md); any left out, or null, take the layout's default
    (golf: wrap false and cards_left scoring). A refused value or combination is a 422
    validation problem whose ``option`` names the option."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"wrap": False, "king_stops": True},
                {"undo": True, "redeals": 1, "draw_penalty": 0},
                {"scoring": "msc", "open_peaks": True, "jokers": 2},
            ]
        }
    )

    wrap: StrictBool | None = Field(
        default=None,
        description="King and Ace are neighbours: a Q or an A goes on a K, a K or a 2 on an "
        "A. Default true (golf: false).",
        examples=[False],
    )
    king_stops: StrictBool | None = Field(
        default=None,
        description="Strict Golf: nothing, not even a joker, may be played onto a King. "
        "Default false. Refused unless wrap is false (with wrap an Ace goes on a King).",
        examples=[True],
    )
    open_peaks: StrictBool | None = Field(
        default=None,
        description="The whole tableau is dealt face up (the stock stays hidden); a card "
        "must still be free to be played. Default false.",
        examples=[True],
    )
    free_start: StrictBool | None = Field(
        default=None,
        description="No card starts the waste: the first play may be any free card, and the "
        "stock holds one card more. Default false.",
        examples=[True],
    )
    jokers: Annotated[StrictInt, Field(ge=0, le=2), WHOLE] | None = Field(
        default=None,
        description="Jokers (JK) shuffled into the deck, 0-2: a joker goes on any card and "
        "any card on a joker. Default 0.",
        examples=[2],
    )
    redeals: Annotated[StrictInt, Field(ge=0, le=9), WHOLE] | None = Field(
        default=None,
        description="How many times the waste (all but its top card) may be turned over into "
        "a new stock once the stock is empty, 0-9. Default 0.",
        examples=[1],
    )
    undo: StrictBool | None = Field(
        default=None,
        description="Whether moves may be taken back (the undo move), one at a time, until "
        "the game ends. Default false.",
        examples=[True],
    )
    scoring: Scoring | None = Field(
        default=None,
        description="classic (streaks, peak bonuses, draw penalty), cards_left (tableau cards "
        "left, lower is better) or msc (Microsoft Solitaire Collection). Default classic "
        "(golf: cards_left).",
        examples=["msc"],
    )
    draw_penalty: Annotated[StrictInt, Field(ge=0, le=1000), WHOLE] | None = Field(
        default=None,
        description="Points each draw costs under classic scoring, 0-1000. Default 5. Any "
        "other value is refused with scoring cards_left or msc.",
        examples=[0],
    )
    deal_cost: Annotated[StrictInt, Field(ge=0, le=1000), WHOLE] | None = Field(
        default=None,
        description="Points the hand costs when dealt under classic scoring, 0-1000 (52 in "
        "the original game). Default 0. Any other value is refused with scoring cards_left "
        "or msc.",
        examples=[52],
    )


class GameCreate(Strict):
    """A new game: a layout, its rule options, and where its deal comes from (by default a
    numbered deal the server picks, its number secret until the game ends)."""

    layout: LayoutName = Field(
        default=DEFAULT_LAYOUT,
        description="The table: tripeaks (28 cards, the default), six_peaks (two decks, 56 "
        "cards) or golf (35 cards in 7 columns; its own defaults: wrap false, cards_left)",
        examples=["golf"],
    )
    rules: RulesCreate | None = Field(
        default=None,
        description="Rule options; any left out take the layout's default (docs/rules.md)",
    )
    deal_number: Annotated[StrictInt, Field(ge=0, le=MAX_DEAL_NUMBER), WHOLE] | None = Field(
        default=None,
        description="Play numbered deal N (docs/deals.md), the same deal on every server; "
        "public in the game's state. Not with deal or winnable_only.",
        examples=[7],
    )
    deal: Annotated[list[CardCode], Field(max_length=110)] | None = Field(
        default=None,
        description="An explicit card order: the tableau positions in order, the waste card "
        "(none under free_start), then the stock from the top. Every card of the deck once "
        "per deck (twice for six_peaks), plus the jokers the rules ask for. Not with "
        "deal_number or winnable_only.",
    )
    winnable_only: StrictBool = Field(
        default=False,
        description="Deal numbered deals until the solver proves one winnable under these "
        "rules (its number stays secret); 503 when no proof comes within the server's "
        "budget. Only for a deal the server picks: refused with deal or deal_number.",
        examples=[True],
    )


class SlotRead(BaseModel):
    """One tableau position as the player sees it."""

    position: int = Field(description="The position's number in the layout", examples=[21])
    card: str | None = Field(
        description="The card's code, or null when face down or removed", examples=["9s"]
    )
    face_up: bool = Field(description="The card is on the table face up")
    free: bool = Field(description="Nothing covers it (and it is still on the table)")
    removed: bool = Field(description="The card has been played to the waste")


class LegalMoveRead(BaseModel):
    """A move exactly as ``make_move`` accepts it: post it back unchanged."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"move": "play 21", "kind": "play", "position": 21, "card": "9s"},
                {"move": "draw", "kind": "draw", "position": None, "card": None},
            ]
        }
    )

    move: str = Field(
        description="The move's text: 'play <position>', 'draw', 'redeal', 'undo' or 'concede'",
        examples=["play 21", "draw"],
    )
    kind: MoveKind = Field(description="What the move does")
    position: int | None = Field(
        description="The position a play takes its card from; null for the others"
    )
    card: str | None = Field(
        description="The card a play moves (it is face up); null for the others"
    )

    @classmethod
    def present(cls, view: engine.PlayerView, move: engine.Move) -> LegalMoveRead:
        """``move`` (legal in ``view``) as make_move accepts it: a play names its position
        and its card (face up, since the play is legal)."""
        position = move.position if isinstance(move, engine.Play) else None
        return cls(
            move=str(move), kind=MoveKind(move.kind), position=position, card=view.card_of(move)
        )


class ScoreRead(BaseModel):
    """The score and how it was made (docs/rules.md#scoring). Classic and msc:
    total = streak_points + bonus_points - draw_penalties - deal_cost; cards_left: total =
    cards_left."""

    model_config = ConfigDict(json_schema_extra={"examples": [SCORE_EXAMPLE]})

    scheme: Scoring = Field(description="The scoring scheme")
    total: int = Field(description="The score (cards_left: lower is better); may be negative")
    streak_points: int = Field(
        description="Points from cards played: the n-th card of a streak scores n "
        "(msc: 100 + 200(n-1)); 0 under cards_left"
    )
    bonus_points: int = Field(description="Points from the peak tips taken")
    draw_penalties: int = Field(description="Points lost to draws (classic: draw_penalty each)")
    deal_cost: int = Field(description="The hand's stake, taken when dealt (classic)")
    current_streak: int = Field(description="Cards played since the last draw (or the start)")
    longest_streak: int = Field(description="The longest streak so far")
    peaks_taken: int = Field(description="Peak tips taken so far")
    cards_left: int = Field(description="Tableau cards still on the table")


class RevealRead(BaseModel):
    """Published when the game ends: SHA-256 of "tripeaks-deal-v1:" + salt + ":" + the deal
    joined by single spaces is the game's commitment (docs/deals.md)."""

    deal: list[str] = Field(
        description="The whole deal in dealing order: the tableau positions, the waste card, "
        "the stock from the top",
        examples=[["8s", "Jh", "9c"]],
    )
    salt: str = Field(
        description="The random salt hashed with the deal", examples=["3f9a2c41d0b87e65"]
    )
    deal_number: int | None = Field(
        description="The deal's number, the server's pick included (numbered_deal of it is "
        "the deal); null for an explicit deal",
        examples=[7],
    )


class ChallengeLinkRead(BaseModel):
    """The challenge (the daily, or one a player set) a game is a ranked attempt at."""

    id: str = Field(description="The challenge's id", examples=["2026-12-01.tripeaks"])
    ranked: bool = Field(
        description="Whether its result counts on the leaderboard: true while the day lasts "
        "and once it has ended within the day; false once the day is over without it"
    )
    reveal_after: datetime = Field(
        description="When the challenge closes: until then the deal stays secret (no "
        "reveal, no analysis, even once the game is over) and hints are off"
    )


class PracticeLinkRead(BaseModel):
    """The closed challenge whose deal a game practises, unranked, and how its result
    compares with that challenge's board."""

    challenge_id: str = Field(description="The challenge practised", examples=["2026-12-01.golf"])
    rank: int | None = Field(
        description="Once the game has ended: the rank its result would have had on the "
        "board (of the player's kind; human without a player), ties sharing; null before",
        examples=[14],
    )
    ranked: int | None = Field(
        description="Once the game has ended: the results that board ranks", examples=[230]
    )


class GameRead(BaseModel):
    """The game as its player sees it: every card they could see at a real table and
    nothing else (face-down cards as null, the stock as a count)."""

    model_config = ConfigDict(json_schema_extra={"examples": [GAME_EXAMPLE]})

    id: str = Field(description="The game's id (random, unguessable)")
    version: int = Field(
        description='Moves applied so far, undos included; the ETag names it ("v7")'
    )
    status: GameStatus = Field(description="in_progress, or how the game ended")
    layout: LayoutName = Field(description="The layout the game is played on")
    rules: RulesRead = Field(description="The game's rule options")
    tableau: list[SlotRead] = Field(description="Every tableau position, in position order")
    waste: list[str] = Field(description="The waste from the bottom; its last card is the top")
    waste_top: str | None = Field(
        description="The card to play on; null only under free_start before the first move"
    )
    stock_count: int = Field(description="Cards left in the stock (face down)")
    redeals_left: int = Field(description="Times the waste may still be turned over")
    cards_left: int = Field(description="Tableau cards still on the table; 0 is a win")
    score: ScoreRead = Field(description="The score and its breakdown")
    can_undo: bool = Field(description="Whether undo is a legal move now")
    legal_moves: list[LegalMoveRead] = Field(
        description="Every legal move now, each as make_move accepts it; empty once the game "
        "has ended"
    )
    deal_number: int | None = Field(description="The deal number, when the player chose it")
    commitment: str = Field(
        description="SHA-256 (hex) of the deal and a secret salt, fixed at creation: checked "
        "against reveal when the game ends"
    )
    reveal: RevealRead | None = Field(
        description="The deal and salt, once the game has ended (a challenge's game: once "
        "its day is over too)"
    )
    player_id: str | None = Field(description="The player whose game it is, or null")
    challenge: ChallengeLinkRead | None = Field(
        description="The challenge this game is a ranked attempt at, or null"
    )
    practice: PracticeLinkRead | None = Field(
        description="The closed challenge whose deal this game practises, or null"
    )
    created_at: datetime = Field(description="When the game was created")
    updated_at: datetime = Field(description="When its last move was applied")

    @classmethod
    def present(
        cls,
        view: engine.PlayerView,
        *,
        id: str,
        deal_number: int | None,
        commitment: str,
        reveal: RevealRead | None,
        player_id: str | None,
        challenge: ChallengeLinkRead | None,
        practice: PracticeLinkRead | None,
        created_at: datetime,
        updated_at: datetime,
        **more: Any,
    ) -> Self:
        """The answer: the player's ``view`` of the state, and what the game's row adds
        to it (``more``: a subclass's fields)."""
        return cls(
            id=id,
            version=view.moves_made,
            status=view.status,
            layout=view.layout,
            rules=RulesRead.model_validate(view.rules, from_attributes=True),
            tableau=[SlotRead.model_validate(slot, from_attributes=True) for slot in view.tableau],
            waste=list(view.waste),
            waste_top=view.waste_top,
            stock_count=view.stock_count,
            redeals_left=view.redeals_left,
            cards_left=view.cards_left,
            score=ScoreRead.model_validate(view.score, from_attributes=True),
            can_undo=view.can_undo,
            legal_moves=[LegalMoveRead.present(view, move) for move in view.legal_moves],
            deal_number=deal_number,
            commitment=commitment,
            reveal=reveal,
            player_id=player_id,
            challenge=challenge,
            practice=practice,
            created_at=created_at,
            updated_at=updated_at,
            **more,
        )


class GameCreated(GameRead):
    """The new game's state and its player token."""

    model_config = ConfigDict(json_schema_extra={"examples": [CREATED_EXAMPLE]})

    token: str = Field(
        description="The player token: send it as 'Authorization: Bearer'. "
        "It is shown once and stored only as a hash."
    )


GAME_EXAMPLE.update(_game_example())
SCORE_EXAMPLE.update(GAME_EXAMPLE["score"])
CREATED_EXAMPLE.update({**GAME_EXAMPLE, "token": TOKEN_EXAMPLE})


class MoveCreate(Strict):
    """A move: its string, optionally with the rest of a legal-move object (a legal move
    from the state or list_legal_moves, posted back unchanged)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"move": "play 21", "kind": "play", "position": 21, "card": "9s"},
                {"move": "draw"},
                {"move": "undo", "kind": "undo", "position": None, "card": None},
            ]
        }
    )

    move: Annotated[
        str,
        Field(
            min_length=1,
            max_length=32,
            description="'play <position>', 'draw', 'redeal', 'undo' or 'concede'",
            examples=["play 21", "draw"],
        ),
    ]
    kind: MoveKind | None = Field(
        default=None, description="If given, must be the move's kind (422 otherwise)"
    )
    position: Annotated[StrictInt, Field(ge=0, le=1000), WHOLE] | None = Field(
        default=None, description="If given, must be the position the move plays (422 otherwise)"
    )
    card: CardCode | None = Field(
        default=None,
        description="If given, must be the card at the position played (422 otherwise): a "
        "client cannot play a card it did not mean",
    )


class PlayCreate(Strict):
    """Play the free card at ``position`` onto the waste."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"position": 21}, {"position": 21, "card": "9s"}]}
    )

    position: Annotated[StrictInt, Field(ge=0, le=1000), WHOLE] = Field(
        description="The position of a free card that fits the waste's top card",
        examples=[21],
    )
    card: CardCode | None = Field(
        default=None,
        description="If given, the play is refused (422) unless this card is there",
        examples=["9s"],
    )


class LegalMoveList(BaseModel):
    """Every legal move of the game now: post any of them back to make_move unchanged."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "game_id": GAME_EXAMPLE["id"],
                    "version": GAME_EXAMPLE["version"],
                    "status": "in_progress",
                    "legal_moves": GAME_EXAMPLE["legal_moves"],
                }
            ]
        }
    )

    game_id: str = Field(description="The game's id")
    version: int = Field(description="The game's version these moves are legal at")
    status: GameStatus = Field(description="in_progress, or how the game ended")
    legal_moves: list[LegalMoveRead] = Field(
        description="Every legal move (as in the game's state), each to post back unchanged: "
        "plays by position, then draw, redeal, undo and concede where allowed; empty once the "
        "game has ended"
    )


class GameScoreRead(BaseModel):
    """The game's score and its breakdown."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "game_id": GAME_EXAMPLE["id"],
                    "version": 0,
                    "status": "in_progress",
                    "score": SCORE_EXAMPLE,
                }
            ]
        }
    )

    game_id: str = Field(description="The game's id")
    version: int = Field(description="The game's version")
    status: GameStatus = Field(description="in_progress, or how the game ended")
    score: ScoreRead = Field(description="The score and how it was made")


class MoveRead(BaseModel):
    """One move of the history."""

    seq: int = Field(description="Its place in the history, from 1", examples=[1])
    move: str = Field(description="The move's text, as make_move accepts it", examples=["draw"])
    created_at: datetime = Field(description="When it was applied")


class MoveList(BaseModel):
    """The game's history, oldest first: every move applied, undos included."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "game_id": GAME_EXAMPLE["id"],
                    "total": 2,
                    "moves": [
                        {"seq": 1, "move": "draw", "created_at": "2026-12-01T09:30:05Z"},
                        {"seq": 2, "move": "play 21", "created_at": "2026-12-01T09:30:07Z"},
                    ],
                    "next": None,
                }
            ]
        }
    )

    game_id: str = Field(description="The game's id")
    total: int = Field(description="Moves the game holds in all (its version)")
    moves: list[MoveRead] = Field(description="This page of the history, oldest first")
    next: str | None = Field(description="The cursor of the next page (also in Link), or null")


class HintRead(BaseModel):
    """A suggested move, decided from what the player can see and nothing else."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "game_id": GAME_EXAMPLE["id"],
                    "version": 0,
                    "move": GAME_EXAMPLE["legal_moves"][0],
                    "win_chance": 0.6412,
                    "win_chance_ci95": [0.5361, 0.7118],
                    "sample_share": 0.8125,
                    "samples": 64,
                    "exact": False,
                    "unknown": 0,
                }
            ]
        }
    )

    game_id: str = Field(description="The game's id")
    version: int = Field(description="The game's version the hint is for")
    move: LegalMoveRead = Field(description="The suggestion, as make_move accepts it")
    win_chance: float = Field(
        ge=0,
        le=1,
        description="The chance that a player who follows the hints from here wins: the "
        "share of the samples the move wins, calibrated on games played by the hints "
        "themselves (docs/research/hints.md); exact when `exact`",
    )
    win_chance_ci95: list[float] = Field(
        min_length=2,
        max_length=2,
        description="The 95% interval of `win_chance` from the number of samples (low, high)",
    )
    sample_share: float = Field(
        ge=0,
        le=1,
        description="The share of the samples (consistent with the view) the move wins, each "
        "solved with every card known: what a player who could see every card would win, "
        "more than a player following the hints does",
    )
    samples: int = Field(description="How many samples were solved within the budget")
    exact: bool = Field(
        description="True when the chance is exact: nothing is hidden, or the move takes the "
        "last card"
    )
    unknown: int = Field(description="Samples whose search ran out of budget (counted as lost)")


class AnalysisRead(BaseModel):
    """A finished game looked back on with its whole deal known."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "game_id": GAME_EXAMPLE["id"],
                    "status": "lost",
                    "final_score": 31,
                    "scoring": "classic",
                    "winnable": True,
                    "win_line": ["play 21", "play 20", "draw", "play 12"],
                    "best_score": 118,
                    "best_line": ["play 21", "play 20", "draw", "play 12"],
                    "best_score_bound": 118,
                    "best_score_exact": True,
                    "lost_at": 14,
                    "lost_move": "draw",
                    "complete": True,
                    "difficulty": {
                        "tier": "medium",
                        "share": 0.5417,
                        "low": 0.3506,
                        "high": 0.7208,
                        "wins": 13,
                        "playouts": 24,
                        "samples": 8,
                        "nodes": 20000,
                    },
                }
            ]
        }
    )

    game_id: str = Field(description="The game's id")
    status: GameStatus = Field(description="How the game ended: won, lost or conceded")
    final_score: int = Field(description="The game's final score")
    scoring: Scoring = Field(description="The game's scoring scheme")
    winnable: bool | None = Field(
        description="Whether the deal could be cleared (null: budget ran out)"
    )
    win_line: list[str] = Field(
        description="A line of moves that clears it, from the deal (empty when none is known)"
    )
    best_score: int | None = Field(
        description="The best final score reachable, conceding allowed (cards_left: fewest), "
        "when `best_score_exact`; otherwise the best score of the lines found within the "
        "budget (six peaks: the exact search rarely finishes), and null when none was "
        "searched"
    )
    best_line: list[str] = Field(description="A line of moves that reaches best_score")
    best_score_bound: int | None = Field(
        description="No line scores more than this (cards_left: none leaves fewer cards); "
        "equal to best_score when exact. The gap between them is how far the best line "
        "found may be from the best"
    )
    best_score_exact: bool = Field(
        description="Whether best_score is the exact best (the search finished)"
    )
    lost_at: int | None = Field(
        description="Index (from 0) in the history of the move after which a win was no "
        "longer possible; null when the deal was not winnable, the game was won, or a search "
        "ran out of budget"
    )
    lost_move: str | None = Field(description="That move (null when lost_at is)")
    complete: bool = Field(description="False when the time budget ran out before every answer")
    difficulty: DifficultyRead | None = Field(
        description="How hard the deal is (the hint's share of games won on it); null when "
        "its measure ran out of time, or for an analysis kept before it was measured"
    )


# -- a player's games (list_my_games) ------------------------------------------------
class GameSummaryRead(BaseModel):
    id: str = Field(description="The game's id")
    layout: LayoutName = Field(description="The layout it is played on")
    scoring: Scoring = Field(description="Its scoring scheme")
    status: GameStatus = Field(description="in_progress, or how it ended")
    score: int = Field(description="Its score now (the final score once it has ended)")
    cards_left: int = Field(description="Tableau cards still on the table")
    version: int = Field(description="Moves applied so far, undos included")
    challenge_id: str | None = Field(description="The challenge it is a ranked attempt at, or null")
    practice_of: str | None = Field(
        description="The closed challenge whose deal it practises, or null"
    )
    created_at: datetime = Field(description="When it was created")
    updated_at: datetime = Field(description="When its last move was applied")
    ended_at: datetime | None = Field(description="When it ended, or null while in progress")


class GameSummaryList(BaseModel):
    games: list[GameSummaryRead] = Field(
        description="This page of the caller's games, newest first"
    )
    next: str | None = Field(description="The cursor of the next page (also in Link), or null")


# -- the OpenAPI of the answers naming a game (every domain that answers one) ------------
# OpenAPI links: how a client (or a stateful fuzzer) follows a game from one answer to the
# next call. The game id is in every game body; the token only in create_game's answer.
GAME_OPERATIONS = (
    "get_game",
    "list_legal_moves",
    "make_move",
    "play_card",
    "draw_card",
    "concede_game",
    "get_score",
    "list_moves",
    "get_hint",
    "get_analysis",
)


def game_links(
    id_pointer: str, *, token: bool = False, legal_move: str | None = None
) -> dict[str, Any]:
    """Links from an answer naming a game (at ``id_pointer``) to every call on that game;
    ``token`` when the answer carries the player token, ``legal_move`` a pointer to a legal
    move in it, which make_move accepts unchanged."""
    links: dict[str, Any] = {}
    for operation in GAME_OPERATIONS:
        parameters = {"path.game_id": f"$response.body#{id_pointer}"}
        if token:
            parameters["header.Authorization"] = "Bearer {$response.body#/token}"
        link: dict[str, Any] = {
            "operationId": operation,
            "parameters": parameters,
            "description": f"Call {operation} on this game",
        }
        if operation == "make_move" and legal_move is not None:
            link["requestBody"] = f"$response.body#{legal_move}"
            link["description"] = "Post one of the game's legal moves back unchanged"
        links[operation] = link
    return links


def ok_with_links(
    status_code: int, id_pointer: str, *headers: Headers, **options: Any
) -> dict[int | str, dict[str, Any]]:
    """The success answer of a route on a game: its links, the rate-limit headers every
    answer of a limited route carries, and ``headers``."""
    declared: Headers = {**RATE_LIMIT_HEADERS}
    for more in headers:
        declared.update(more)
    return {status_code: {"links": game_links(id_pointer, **options), "headers": declared}}


# The headers of a new game's answer (create_game, start_challenge_game).
CREATED_HEADERS = (LOCATION, ETAG, NO_STORE)
