"""The contract of the challenge endpoints (names as in app/games/schemas.py)."""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum
from typing import Annotated, Any, Final

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, StrictBool

from app.challenges.board_repository import Board
from app.challenges.models import Challenge, ChallengeEntry, ChallengeKind, FairPlay, Side
from app.challenges.repository import Measure, MyChallenge, measure_of, standing
from app.challenges.windows import is_closed, is_public
from app.engine.difficulty import Tier
from app.engine.fairplay import PLAYER_LEAN
from app.games.service import RulesCreate
from app.kit.models import PlayerKind
from app.kit.schemas import DEFAULT_LAYOUT, DifficultyRead, LayoutName, RulesRead, Strict
from app.players.service import DisplayName
from app.settings import Settings

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


# -- what a player sees of a challenge and a board ---------------------------------------
# -- what a player sees of a challenge and a board ---------------------------------------
def _status(challenge: Challenge, now: datetime) -> ChallengeStatus:
    if now >= challenge.closes_at:
        return ChallengeStatus.CLOSED
    return ChallengeStatus.OPEN if now >= challenge.opens_at else ChallengeStatus.UPCOMING


def challenge_out(challenge: Challenge, now: datetime) -> ChallengeRead:
    """The challenge as anyone sees it at ``now``: its deal and best score once closed."""
    over = now >= challenge.closes_at
    return ChallengeRead(
        id=challenge.id,
        kind=challenge.kind,
        name=challenge.name,
        date=challenge.day,
        layout=challenge.layout,
        rules=RulesRead.model_validate(challenge.rules),
        status=_status(challenge, now),
        opens_at=challenge.opens_at,
        closes_at=challenge.closes_at,
        commitment=challenge.commitment,
        entries=challenge.entries,
        attempts=challenge.attempts,
        max_entries=challenge.max_entries,
        winnable_only=challenge.winnable_only,
        creator_id=challenge.creator_id,
        invite_code=challenge.invite_code,
        reveal=ChallengeRevealRead(deal=challenge.deal.split(), salt=challenge.salt)
        if over and challenge.deal
        else None,
        best_score=challenge.best_score if over else None,
        best_score_bound=challenge.best_score_bound if over else None,
        best_score_exact=over and challenge.best_score_exact,
        best_score_searched=over and challenge.best_searched_at is not None,
        tier=challenge.tier,
        difficulty=DifficultyRead.model_validate(challenge.difficulty)
        if over and challenge.difficulty is not None
        else None,
    )


def fair_play_out(status: FairPlay, measure: Measure | None, *, closed: bool) -> FairPlayRead:
    """A result's fair-play status, and its measure's figures once its challenge has
    closed: before, they would tell which of the player's moves the hidden cards made
    best (of a deal still in play)."""
    if measure is None or not closed:
        return FairPlayRead(
            status=status,
            telling=None,
            resolved=None,
            expected=None,
            p_value=None,
            measured_at=measure.measured_at if measure is not None else None,
            stock_z=None,
            stock_decisions=None,
            player_stock_z=None,
            player_stock_results=None,
            player_p_value=None,
            player_p_results=None,
        )
    return FairPlayRead(
        status=status,
        telling=measure.telling,
        resolved=measure.resolved,
        expected=round(measure.expected, 3),
        p_value=measure.p_value,
        measured_at=measure.measured_at,
        stock_z=None if measure.stock_z is None else round(measure.stock_z, 3),
        stock_decisions=measure.stock_decisions,
        player_stock_z=None if measure.player_z is None else round(measure.player_z, 3),
        player_stock_results=measure.player_results,
        player_p_value=measure.player_p,
        player_p_results=measure.player_p_results,
    )


def fair_play_reason(measure: Measure | None, settings: Settings, *, closed: bool) -> str:
    """Why a flagged result is ranked apart, for its player: the game's own measure, its
    measures of their last results combined, the stock's evidence of their last results
    (against the server's thresholds); once its challenge has closed (``fair_play_out``)."""
    if measure is None:
        return "one of the rounds of this total was flagged"
    if not closed:
        return (
            "the fair-play measure found that your moves chose as only a player seeing the "
            "hidden cards would; its figures are shown once the challenge closes. The "
            "result is kept, ranked on the flagged side of the board."
        )
    reasons = []
    game = (
        f"at {measure.telling} decisions of the game, the move best with every card known "
        "was not the one a player seeing only their cards would choose, and you chose it "
        f"{measure.resolved} times where honest play does about {measure.expected:.1f}"
    )
    if measure.by_game(settings.fair_play_threshold):
        reasons.append(
            f"{game}: honest play does so that often with a probability of {measure.p_value:.2g}"
        )
    elif measure.by_player(settings.fair_play_threshold):
        reasons.append(
            f"{game}; over your last {measure.player_p_results} results together, honest "
            f"play does what you did with a probability of {measure.player_p:.2g}"
        )
    if measure.by_stock(settings.fair_play_stock_z):
        reasons.append(
            f"over your last {measure.player_results} results, your moves did better with "
            "the stock's true order than with the orders you could not tell from it, by "
            f"{measure.player_z:.1f} standard deviations where honest play stays within "
            f"{settings.fair_play_stock_z:g}"
        )
    if not reasons:  # flagged under thresholds since changed
        reasons.append("the result was flagged under the server's thresholds of that time")
    return "; and ".join(reasons) + ". The result is kept, ranked on the flagged side of the board."


def provisional_note(entry: ChallengeEntry, challenge: Challenge, settings: Settings) -> str | None:
    """What being provisional means for the entry's result, and until when; None for an
    entry that is not provisional."""
    if not entry.provisional:
        return None
    why = (
        "Your account is newer than this challenge, or younger than "
        f"{settings.challenge_account_min_hours} hours: your result is provisional."
    )
    place = standing(entry)
    if not is_public(challenge):
        if entry.fair_play is FairPlay.OK:
            return f"{why} Its fair-play measure said ok: it stands as any other."
        return (
            f"{why} It ranks with the others, marked provisional until its fair-play "
            "measure, within minutes of its end, says ok."
        )
    if place is None:
        return (
            f"{why} Once your game ends it is ranked apart from the established results "
            "until its fair-play measure, within minutes, says ok; then it takes its place "
            "on the board."
        )
    if place[0] is Side.PROVISIONAL:
        return (
            f"{why} It is ranked apart (fair_play=provisional) until its fair-play measure, "
            "within minutes of its end, says ok; then it takes its place on the board."
        )
    if place[0] is Side.BOARD:
        return f"{why} Its fair-play measure said ok: it has taken its place on the board."
    return f"{why} Its fair-play measure flagged it: it is ranked on the flagged side."


def my_entry_out(
    entry: ChallengeEntry | None, challenge: Challenge, settings: Settings, now: datetime
) -> MyEntryRead | None:
    """The caller's entry in ``challenge`` as they see it at ``now``."""
    if entry is None:
        return None
    place = standing(entry)
    measure = measure_of(entry)
    closed = is_closed(challenge, now)
    return MyEntryRead(
        attempts=entry.attempts,
        game_id=entry.game_id,
        score=entry.score,
        moves=entry.moves,
        ranked=entry.rank_score is not None,
        side=place[0] if place is not None else None,
        provisional=entry.provisional,
        provisional_note=provisional_note(entry, challenge, settings),
        number=entry.number,
        cohort=entry.cohort,
        fair_play=fair_play_out(entry.fair_play, measure, closed=closed)
        if place is not None
        else None,
        fair_play_reason=(
            fair_play_reason(measure, settings, closed=closed)
            if entry.fair_play is FairPlay.FLAGGED
            else None
        ),
    )


def leaderboard_out(
    challenge_id: str, board: Board, next_cursor: str | None, *, closed: bool
) -> LeaderboardRead:
    return LeaderboardRead(
        challenge_id=challenge_id,
        kind=board.kind,
        ranked=board.ranked,
        entries=[
            LeaderboardEntryRead(
                rank=p.rank,
                global_rank=p.global_rank,
                player_id=p.player_id,
                name=p.name,
                deleted=p.deleted,
                score=p.score,
                moves=p.moves,
                finished_at=p.finished_at,
                provisional=p.provisional,
                fair_play=fair_play_out(p.fair_play, p.measure, closed=closed),
            )
            for p in board.places
        ],
        next=next_cursor,
    )


def my_challenges_out(
    rows: list[MyChallenge], settings: Settings, now: datetime, next_cursor: str | None
) -> MyChallengesRead:
    """A page of the challenges a player set or entered, with their entries, at ``now``."""
    return MyChallengesRead(
        challenges=[
            MyChallengeRead(
                challenge=challenge_out(r.challenge, now),
                created=r.created,
                entry=my_entry_out(r.entry, r.challenge, settings, now),
            )
            for r in rows
        ],
        next=next_cursor,
    )
