"""The contract of the challenge endpoints (names as in app/games/schemas.py)."""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum
from typing import Annotated, Any, Final

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, StrictBool

from app.challenges.models import ChallengeKind, FairPlay, Side
from app.engine.difficulty import Tier
from app.engine.fairplay import PLAYER_LEAN
from app.games.service import RulesCreate
from app.kit.models import PlayerKind
from app.kit.schemas import DEFAULT_LAYOUT, DifficultyRead, LayoutName, RulesRead, Strict
from app.players.service import DisplayName

MAX_ATTEMPTS = 3


class Around(StrEnum):
    ME = "me"


class Among(StrEnum):
    FOLLOWING = "following"


class CohortOf(StrEnum):
    MINE = "mine"


class FairPlayView(StrEnum):
    """The results of a board ranked apart: provisional (a new account's, on a public
    board, until measured ok) or flagged."""

    PROVISIONAL = "provisional"
    FLAGGED = "flagged"


class ChallengeStatus(StrEnum):
    UPCOMING = "upcoming"  # set to open later: nothing may start yet
    OPEN = "open"  # the window is under way: attempts may start
    CLOSED = "closed"  # the window is over: the deal is revealed


class ChallengeCreate(Strict):
    """A challenge to set for friends: the server draws its deal (nobody, its creator
    included, knows it before it is revealed at the close), and its id is the invitation."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"name": "Friday race", "closes_at": "2026-12-04T20:00:00Z"},
                {
                    "name": "Golf, best of three",
                    "layout": "golf",
                    "rules": {"wrap": True},
                    "opens_at": "2026-12-05T09:00:00Z",
                    "closes_at": "2026-12-07T09:00:00Z",
                    "attempts": 3,
                    "winnable_only": False,
                },
            ]
        }
    )

    name: DisplayName = Field(
        description="What entrants see it called: trimmed and NFKC-normalised, 1-32 characters"
    )
    layout: LayoutName = Field(default=DEFAULT_LAYOUT, description="The layout it is played on")
    rules: RulesCreate | None = Field(
        default=None,
        description="Rule options; any left out take the layout's default (docs/rules.md)",
    )
    winnable_only: StrictBool = Field(
        default=True,
        description="Draw deals until the solver proves one winnable under these rules "
        "(503 with Retry-After when no proof comes within the server's budget)",
    )
    tier: Tier | None = Field(
        default=None,
        description="Draw deals until one is of this difficulty: easy, medium or hard "
        "(docs/difficulty.md), each measured by the hint's own games on it, within the "
        "server's difficulty budget (503 with Retry-After when none is found in it); null: "
        "any deal",
    )
    opens_at: AwareDatetime | None = Field(
        default=None,
        description="When attempts may start (RFC 3339 with its offset): now when left out, "
        "else at most the longest window ahead",
        examples=["2026-12-05T09:00:00Z"],
    )
    closes_at: AwareDatetime = Field(
        description="When it closes and its deal is revealed: 1 hour to the longest window "
        "(14 days unless the server says otherwise) after it opens",
        examples=["2026-12-04T20:00:00Z"],
    )
    attempts: int = Field(
        default=1,
        ge=1,
        le=MAX_ATTEMPTS,
        description="Games each entrant may play, one at a time, 1-3: the best counts",
    )


class ChallengeRevealRead(BaseModel):
    """Published once it has closed: check SHA-256 of deal and salt (docs/deals.md)."""

    deal: list[str] = Field(description="The day's whole deal in dealing order")
    salt: str = Field(description="The salt hashed with the deal into the commitment")


class ChallengeRead(BaseModel):
    """A challenge: the server's daily one (a layout and UTC day) or one a player set. Its
    commitment from the start, its deal, salt and best score once it has closed."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "id": "2026-12-01.tripeaks",
                    "kind": "daily",
                    "name": None,
                    "date": "2026-12-01",
                    "layout": "tripeaks",
                    "rules": {
                        "layout": "tripeaks",
                        "wrap": True,
                        "king_stops": False,
                        "open_peaks": False,
                        "free_start": False,
                        "jokers": 0,
                        "redeals": 0,
                        "undo": False,
                        "scoring": "classic",
                        "draw_penalty": 5,
                        "deal_cost": 0,
                    },
                    "status": "open",
                    "opens_at": "2026-12-01T00:00:00Z",
                    "closes_at": "2026-12-02T00:00:00Z",
                    "commitment": (
                        "9b2f61c0e4d8a7b35c1e0f9d8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b"
                    ),
                    "entries": 57,
                    "attempts": 1,
                    "max_entries": None,
                    "winnable_only": True,
                    "creator_id": None,
                    "invite_code": None,
                    "reveal": None,
                    "best_score": None,
                    "best_score_bound": None,
                    "best_score_exact": False,
                    "best_score_searched": False,
                    "tier": None,
                    "difficulty": None,
                }
            ]
        }
    )

    id: str = Field(
        description="The challenge's id: a daily's is its date and layout; one a player set "
        "has a random one, never listed anywhere, which is its invitation",
        examples=["2026-12-01.tripeaks"],
    )
    kind: ChallengeKind = Field(description="daily (the server's) or set (by a player)")
    name: str | None = Field(description="The name its creator gave it; null for a daily")
    date: Annotated[date | None, Field(description="A daily's UTC day; null for one set")]
    layout: LayoutName = Field(description="The layout it is played on")
    rules: RulesRead = Field(
        description="The rules every attempt is played under (a daily's: the layout's "
        "defaults, undo off)"
    )
    status: ChallengeStatus = Field(
        description="upcoming before it opens, open while attempts may start, closed once it "
        "is over"
    )
    opens_at: datetime = Field(description="When attempts may start (a daily's: its UTC day)")
    closes_at: datetime = Field(
        description="When it closes (a daily's: the end of its day, one set: the window's "
        "end, or when its creator closed it): then the deal is revealed"
    )
    commitment: str = Field(description="SHA-256 of the deal and a secret salt")
    entries: int = Field(description="Players who have entered so far")
    attempts: int = Field(description="Games each entrant may play, one at a time: the best counts")
    max_entries: int | None = Field(description="Entrants it takes; null: no bound (a daily)")
    winnable_only: bool = Field(description="Whether its deal was proved winnable")
    creator_id: str | None = Field(
        description="The player who set it; null for a daily, or once they deleted the account"
    )
    invite_code: str | None = Field(
        description="A short code to type in place of the id (get_challenge_by_invite); null "
        "for a daily",
        examples=["7KQ2M-X9PDA"],
    )
    reveal: ChallengeRevealRead | None = Field(description="Once it has closed")
    best_score: int | None = Field(
        description="The best final score the deal allowed (the solver's), once it has "
        "closed, when `best_score_exact`; where the exact search cannot finish (six peaks) "
        "the best score of the lines the solver found. Null while unknown, or when the search "
        "found nothing in time (best_score_searched true)"
    )
    best_score_bound: int | None = Field(
        description="No line on the deal scores more (cards_left: leaves fewer cards); "
        "equal to best_score when exact; null until searched"
    )
    best_score_exact: bool = Field(description="Whether best_score is the exact best")
    best_score_searched: bool = Field(
        description="Whether the solver has searched the best score (once it has closed)"
    )
    tier: Tier | None = Field(
        description="The difficulty its deal was drawn for (create_challenge's tier, an "
        "event's); null: any deal (a daily)"
    )
    difficulty: DifficultyRead | None = Field(
        description="How hard its deal is (the hint's share of games won on it), once it has "
        "closed; null before, or when the measure ran out of time"
    )


class FairPlayRead(BaseModel):
    """A ranked result's fair-play measure (README: Fair play), taken within minutes of
    the result: at each of the player's decisions, whether the move the hint would choose
    from the player's view is one of the best with every card known; where it is not (a
    telling decision), whether the player chose one of those anyway. Its figures are shown
    once the challenge has closed (before, they would tell of a deal still in play)."""

    status: FairPlay = Field(
        description="pending (measured within minutes of the result), ok, or flagged "
        "(p_value under the server's threshold, or player_p_value with a p_value that "
        "leans the clairvoyant way itself, or player_stock_z over its own threshold: ranked "
        "apart)"
    )
    telling: int | None = Field(
        description="Telling decisions in the game; null while pending or the challenge open"
    )
    resolved: int | None = Field(
        description="Those the player resolved as only a player seeing the hidden cards "
        "would choose; null as telling"
    )
    expected: float | None = Field(
        description="How many of them honest play resolves so, at most, on average; null as telling"
    )
    p_value: float | None = Field(
        description="How likely honest play resolves at least as many so: the smaller, the "
        "less likely the player chose from what they saw; null as telling"
    )
    measured_at: datetime | None = Field(description="When it was measured; null while pending")
    stock_z: float | None = Field(
        description="The stock's evidence of this game: how much better the player's moves "
        "did with the stock's true order than with orders they could not tell from it, in "
        "standard deviations (about N(0, 1) for honest play; one game alone flags nothing); "
        "null as telling, for a deal drawn by difficulty, or measured before it was kept"
    )
    stock_decisions: int | None = Field(
        description="The decisions the stock's evidence weighs; null as stock_z"
    )
    player_stock_z: float | None = Field(
        description="The stock's evidence summed over the player's last results with one "
        "(this one included) when it was measured: past the server's threshold the result "
        "is flagged; null as stock_z"
    )
    player_stock_results: int | None = Field(
        description="How many results player_stock_z sums; null as stock_z"
    )
    player_p_value: float | None = Field(
        description="The p_value of the player's last results with one (this one included) "
        "combined, when it was measured: how likely honest play does what they did in all "
        f"of them. Under the server's threshold, a result whose own p_value is at most "
        f"{PLAYER_LEAN:g} (it leans the clairvoyant way itself) is flagged; null as "
        "telling, or measured before it was kept"
    )
    player_p_results: int | None = Field(
        description="How many results player_p_value combines; null as player_p_value"
    )


class LeaderboardEntryRead(BaseModel):
    rank: int = Field(
        description="1 + the results strictly better (ties share a rank), on this board: the "
        "whole board, or among=following's players"
    )
    global_rank: int = Field(
        description="Its rank on the whole board (the same as rank but among=following)"
    )
    player_id: str = Field(description="The player's id")
    name: str | None = Field(description="null for a player without a name, or deleted")
    deleted: bool = Field(description="The player has deleted the account")
    score: int = Field(description="The final score (cards_left: cards left, fewer ranks first)")
    moves: int = Field(description="Moves the game took, undos included")
    finished_at: datetime = Field(description="When the game ended")
    provisional: bool = Field(
        description="A provisional result: a new account's (made after the challenge "
        "opened, or younger than the server's CHALLENGE_ACCOUNT_MIN_HOURS when it entered) "
        "that its fair-play measure has not said ok yet. On a public board (the daily, "
        "events) such results are ranked apart (fair_play=provisional); on a challenge a "
        "player set they rank with the others, marked. Once measured ok it is false"
    )
    fair_play: FairPlayRead = Field(description="The result's fair-play measure")


class LeaderboardRead(BaseModel):
    """A page of a challenge's board."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "challenge_id": "2026-12-01.tripeaks",
                    "kind": "human",
                    "ranked": 3,
                    "entries": [
                        {
                            "rank": 1,
                            "global_rank": 1,
                            "player_id": "p8Yc1vQmS0aLk3XwZ2rNbg",
                            "name": "Ada",
                            "deleted": False,
                            "score": 164,
                            "moves": 41,
                            "finished_at": "2026-12-01T08:14:09Z",
                            "provisional": False,
                            "fair_play": {
                                "status": "ok",
                                "telling": 6,
                                "resolved": 1,
                                "expected": 2.1,
                                "p_value": 0.91,
                                "measured_at": "2026-12-02T00:10:04Z",
                                "stock_z": -0.42,
                                "stock_decisions": 17,
                                "player_stock_z": 0.31,
                                "player_stock_results": 10,
                                "player_p_value": 0.64,
                                "player_p_results": 10,
                            },
                        },
                        {
                            "rank": 2,
                            "global_rank": 2,
                            "player_id": "Jq3rT7uVw0xYz1aBc2dEfg",
                            "name": None,
                            "deleted": True,
                            "score": 120,
                            "moves": 38,
                            "finished_at": "2026-12-01T11:40:51Z",
                            "provisional": False,
                            "fair_play": {
                                "status": "pending",
                                "telling": None,
                                "resolved": None,
                                "expected": None,
                                "p_value": None,
                                "measured_at": None,
                                "stock_z": None,
                                "stock_decisions": None,
                                "player_stock_z": None,
                                "player_stock_results": None,
                                "player_p_value": None,
                                "player_p_results": None,
                            },
                        },
                    ],
                    "next": "MTIwLjM4LjIwMjYtMTItMDE",
                }
            ]
        }
    )

    challenge_id: str = Field(description="The challenge's id")
    kind: PlayerKind = Field(description="Whose board: human or bot players'")
    ranked: int = Field(
        description="Ranked results on this board (among=following: among those players; "
        "fair_play=provisional or flagged: the results ranked apart so)"
    )
    entries: list[LeaderboardEntryRead] = Field(description="This page of results, best first")
    next: str | None = Field(description="The cursor of the next page (also in Link), or null")


class MyEntryRead(BaseModel):
    """The caller's entry in a challenge."""

    attempts: int = Field(description="Games started")
    game_id: str | None = Field(description="The latest of them (null once purged)")
    score: int | None = Field(
        description="The best ranked result's score (before one: the last attempt's, "
        "unranked), else null"
    )
    moves: int | None = Field(description="Its move count, else null")
    ranked: bool = Field(description="Whether that result is on the board")
    side: Side | None = Field(
        description="Where the ranked result stands: board, provisional (a new account's "
        "on a public board, ranked apart until its measure says ok) or flagged (ranked "
        "apart); null without a ranked result"
    )
    provisional: bool = Field(
        description="The entry was made by an account newer than the challenge, or younger "
        "than the server's CHALLENGE_ACCOUNT_MIN_HOURS: its result is provisional "
        "(provisional_note says what that means here)"
    )
    provisional_note: str | None = Field(
        description="What being provisional means for this result, and until when, in "
        "words; null for an entry that is not provisional"
    )
    number: int | None = Field(
        description="An event's edition: the caller's place in its join order; else null"
    )
    cohort: int | None = Field(
        description="An event's edition with cohorts: the caller's cohort; else null"
    )
    fair_play: FairPlayRead | None = Field(
        description="The ranked result's fair-play measure; null without a ranked result"
    )
    fair_play_reason: str | None = Field(
        description="Why a flagged result is ranked apart, in words; else null"
    )


class MyChallengeRead(BaseModel):
    """A challenge the caller set or entered."""

    challenge: ChallengeRead = Field(description="The challenge as get_challenge answers it")
    created: bool = Field(description="The caller set it")
    entry: MyEntryRead | None = Field(description="The caller's entry, or null")


MY_CHALLENGES_EXAMPLE: Final[dict[str, Any]] = {"challenges": [], "next": None}


class MyChallengesRead(BaseModel):
    """A page of the challenges the caller set or entered, newest first."""

    model_config = ConfigDict(json_schema_extra={"examples": [MY_CHALLENGES_EXAMPLE]})

    challenges: list[MyChallengeRead] = Field(description="This page, newest first")
    next: str | None = Field(description="The cursor of the next page (also in Link), or null")
