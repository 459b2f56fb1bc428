"""The contract of the players endpoints (names as in app/games/schemas.py)."""

from __future__ import annotations

import unicodedata
from datetime import date, datetime
from enum import StrEnum
from typing import Annotated, Any, Final

from confusable_homoglyphs import categories, confusables
from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from app.kit.models import PlayerKind
from app.kit.schemas import Strict

NAME_LENGTH = 32
# Control, format (zero-width and direction marks), surrogate, private-use and unassigned
# characters, and line or paragraph separators: nothing a name shows, or shows as it is.
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


# Characters that are letters or symbols to Unicode yet show nothing: the Hangul fillers,
# the blank Braille pattern, the Mongolian vowel separator.
BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e")
MAX_MARKS = 2  # combining marks on one base character (a stack of thirty is no accent)
# Scripts a name may mix though some of their letters look alike (Unicode TR39's "highly
# restrictive" level): Latin with the scripts of Chinese, Japanese and Korean.
MIXABLE = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)


def clean_name(value: str) -> str:
    """A display name as kept: NFKC-normalised, trimmed, 1-32 characters, no control or
    invisible character and no space but the plain one; at least one character that
    shows; at most two combining marks on a character; and no mix of scripts in which a
    letter passes for another script's (``Аdmin`` with a Cyrillic А: TR39's confusables,
    by the confusable_homoglyphs package), but for Latin beside Chinese, Japanese or
    Korean."""
    name = unicodedata.normalize("NFKC", value).strip()
    if not 1 <= len(name) <= NAME_LENGTH:
        raise ValueError(f"a name is 1 to {NAME_LENGTH} characters once trimmed")
    marks = 0
    for char in name:
        if unicodedata.category(char) in REFUSED_CATEGORIES or (char.isspace() and char != " "):
            raise ValueError(f"a name may not hold the character U+{ord(char):04X}")
        marks = marks + 1 if unicodedata.category(char).startswith("M") else 0
        if marks > MAX_MARKS:
            raise ValueError(f"a name may put at most {MAX_MARKS} marks on one character")
    if not any(
        unicodedata.category(c)[0] in "LNPS" and c not in BLANKS and not c.isspace() for c in name
    ):
        raise ValueError("a name needs at least one character that shows")
    scripts = categories.unique_aliases(name) - {"COMMON", "INHERITED"}
    mixed = len(scripts) > 1 and not any(scripts <= allowed for allowed in MIXABLE)
    if mixed and confusables.is_dangerous(name):
        raise ValueError(
            "a name may not mix scripts whose letters look alike "
            f"({', '.join(sorted(s.lower() for s in scripts))})"
        )
    return name


DisplayName = Annotated[
    str,
    Field(min_length=1, max_length=NAME_LENGTH, examples=["Ada"]),
    AfterValidator(clean_name),
]


_LINE: Final[dict[str, Any]] = {
    "layout": "*",
    "scoring": "*",
    "played": 12,
    "won": 7,
    "lost": 4,
    "conceded": 1,
    "win_rate": 0.5833,
    "best_score": 164,
    "mean_score": 71.5,
    "current_run": 2,
    "longest_run": 4,
}
PLAYER_EXAMPLE: Final[dict[str, Any]] = {
    "id": "p8Yc1vQmS0aLk3XwZ2rNbg",
    "name": "Ada",
    "kind": "human",
    "created_at": "2026-11-20T18:02:11Z",
    "provisional_until": "2026-11-21T18:02:11Z",
    "challenges_from": "2026-11-21T18:02:11Z",
    "stats": {
        "overall": _LINE,
        "by_layout": [{**_LINE, "layout": "tripeaks", "scoring": "classic"}],
    },
    "daily": [
        {
            "layout": "tripeaks",
            "won_streak": 3,
            "won_longest": 9,
            "last_won": "2026-12-01",
            "played_streak": 5,
            "played_longest": 12,
            "last_played": "2026-12-01",
        }
    ],
    "badges": [{"layout": "tripeaks", "month": "2026-11", "tier": "silver", "wins": 23}],
}


class PlayerCreate(Strict):
    """A new account: a display name (optional) and whether a human or a bot plays."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"name": "Ada"}, {"name": "greedy-bot", "kind": "bot"}]}
    )
    name: DisplayName | None = Field(
        default=None,
        description="Shown on leaderboards; trimmed and NFKC-normalised, 1-32 characters. "
        "Not unique: the id is.",
    )
    kind: PlayerKind = Field(
        default=PlayerKind.HUMAN, description="human or bot: leaderboards rank them apart"
    )


class PlayerUpdate(Strict):
    """A new display name."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"name": "Ada L."}]})

    name: DisplayName = Field(
        description="The new display name: trimmed and NFKC-normalised, 1-32 characters"
    )


class StatLineRead(BaseModel):
    """A record over the games that ended (``*``: every layout or scheme)."""

    layout: str = Field(description="The layout, or * for every layout")
    scoring: str = Field(description="The scoring scheme, or * for every scheme")
    played: int = Field(description="Games that ended")
    won: int = Field(description="Games won")
    lost: int = Field(description="Games lost")
    conceded: int = Field(description="Games conceded")
    win_rate: float | None = Field(description="won / played; null before any game ended")
    best_score: int | None = Field(description="cards_left: the fewest cards left")
    mean_score: float | None = Field(description="The mean final score; null before any game ended")
    current_run: int = Field(description="Games won in a row, up to the last one")
    longest_run: int = Field(description="The most games won in a row")


class StatsRead(BaseModel):
    overall: StatLineRead = Field(
        description="Every game that ended, whatever its layout and scheme"
    )
    by_layout: list[StatLineRead] = Field(description="One line a layout and scoring scheme")


class DailyRecordRead(BaseModel):
    """A player's runs of UTC days on one layout's daily challenge. A run is current until
    the challenge of the day after its last is over (then it shows as 0: broken)."""

    layout: str = Field(description="The layout of the daily challenge")
    won_streak: int = Field(description="Days in a row with the daily won, up to now")
    won_longest: int = Field(description="The most days in a row with the daily won")
    last_won: date | None = Field(description="The last day won, or null")
    played_streak: int = Field(
        description="Days in a row with the daily played (ended within its day), up to now"
    )
    played_longest: int = Field(description="The most days in a row with the daily played")
    last_played: date | None = Field(description="The last day played, or null")


class BadgeTier(StrEnum):
    BRONZE = "bronze"  # 10 dailies won in the month
    SILVER = "silver"  # 20
    GOLD = "gold"  # every day of the month


class BadgeRead(BaseModel):
    """A month's badge for one layout's daily challenge (kept for good)."""

    layout: str = Field(description="The layout of the daily challenge")
    month: str = Field(description="The calendar month, YYYY-MM (UTC)", examples=["2026-11"])
    tier: BadgeTier = Field(
        description="bronze: 10 dailies won in the month, silver: 20, gold: every day of it "
        "(the highest reached)"
    )
    wins: int = Field(description="Dailies won that month")


class PlayerRead(BaseModel):
    """A player's public profile."""

    model_config = ConfigDict(json_schema_extra={"examples": [PLAYER_EXAMPLE]})

    id: str = Field(description="The player's id (public)")
    name: str | None = Field(description="The display name, or null")
    kind: PlayerKind = Field(description="human or bot")
    created_at: datetime = Field(description="When the account was made")
    provisional_until: datetime = Field(
        description="Until when the account's results are provisional (CHALLENGE_ACCOUNT_"
        "MIN_HOURS after it was made). A result is provisional when the account entered "
        "before then, or entered a challenge that opened before the account was made (for "
        "the daily, a day that began before it): it counts, marked provisional; on the "
        "public boards (the daily, events) it is ranked apart until its fair-play measure, "
        "minutes after it ends, says ok, and then takes its place. Nobody is refused for "
        "the age of their account"
    )
    challenges_from: datetime = Field(
        deprecated=True,
        description="Deprecated: provisional_until, the same time. No account is refused "
        "a challenge any longer",
    )
    stats: StatsRead = Field(description="Statistics of the games that ended")
    daily: list[DailyRecordRead] = Field(
        description="The daily challenge's streaks, a layout each (bots have their own: "
        "they play on the bots' boards)"
    )
    badges: list[BadgeRead] = Field(description="Monthly badges won, newest first")


class PlayerCreated(PlayerRead):
    """The new account and its key."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{**PLAYER_EXAMPLE, "key": "tpk.p8Yc1vQmS0aLk3XwZ2rNbg.Qm9vbkxpZ2h0"}]
        }
    )

    key: str = Field(
        description="The player key: send it as 'Authorization: Bearer'. Shown once, "
        "stored only as a hash; rotate_key replaces it."
    )


class PlayerKeyRead(BaseModel):
    key: str = Field(description="The new player key; the old one no longer works")


class FollowedRead(BaseModel):
    player_id: str = Field(description="The player followed")
    name: str | None = Field(description="Their display name; null without one, or deleted")
    kind: PlayerKind = Field(description="human or bot")
    since: datetime = Field(description="When the caller followed them")


FOLLOWING_EXAMPLE: Final[dict[str, Any]] = {
    "following": [
        {
            "player_id": "Jq3rT7uVw0xYz1aBc2dEfg",
            "name": "Grace",
            "kind": "human",
            "since": "2026-11-28T19:12:40Z",
        }
    ],
    "count": 1,
    "next": None,
}


class FollowingRead(BaseModel):
    """A page of the players the caller follows, the latest followed first."""

    model_config = ConfigDict(json_schema_extra={"examples": [FOLLOWING_EXAMPLE]})

    following: list[FollowedRead] = Field(description="This page")
    count: int = Field(description="Players the caller follows in all")
    next: str | None = Field(description="The cursor of the next page (also in Link), or null")
