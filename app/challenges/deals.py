"""The daily deal: derived from a server secret and the date, proved winnable.

For day ``D`` (``YYYY-MM-DD``, UTC) and layout ``L`` the candidates are numbered deals
``N(k)`` for ``k = 0, 1, 2, ...`` where

    N(k) = first 8 bytes, big-endian, of HMAC-SHA256(secret, "tripeaks-daily-v1:D:L:k")
           modulo (MAX_DEAL_NUMBER + 1)

and the day's deal is the first candidate the solver proves winnable under the layout's
default rules (undo off), each proof cut at ``NODES_PER_DEAL`` search nodes so that the
choice does not depend on the machine's speed. The salt of its commitment is the first 16
bytes, in hex, of HMAC-SHA256(secret, "tripeaks-daily-salt-v1:D:L").

Without the secret nobody can compute a day's deal or salt, so nobody can know the deal
before playing it; the commitment is published from the day's first second, and deal and
salt once the day is over, when anyone can check one against the other (docs/deals.md).

Standard library and engine only: this runs in the solver's processes.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable

from app.engine import MAX_DEAL_NUMBER, Deal, Rules, get_layout, new_game, numbered_deal
from app.engine.difficulty import Difficulty, DifficultySettings, Tier, difficulty
from app.engine.solver import SearchBudget, solve_clear

NODES_PER_DEAL = 200_000


def daily_rules(layout: str) -> Rules:
    """A challenge's rules: the layout's defaults, undo off."""
    return Rules.for_layout(layout, undo=False)


def candidate_number(secret: bytes, day: str, layout: str, k: int) -> int:
    digest = hmac.new(secret, f"tripeaks-daily-v1:{day}:{layout}:{k}".encode(), hashlib.sha256)
    return int.from_bytes(digest.digest()[:8], "big") % (MAX_DEAL_NUMBER + 1)


def daily_salt(secret: bytes, day: str, layout: str) -> str:
    digest = hmac.new(secret, f"tripeaks-daily-salt-v1:{day}:{layout}".encode(), hashlib.sha256)
    return digest.hexdigest()[:32]


def find_daily_deal(
    secret: bytes, day: str, layout: str, seconds: float, first: int = 0
) -> tuple[Deal | None, int]:
    """The day's deal (see the module's doc) and its candidate's ``k``, trying candidates
    from ``first`` (every one before it known not proved winnable); or None and the first
    candidate not tried yet, when ``seconds`` ran out first. Each proof is cut by nodes,
    not time, so a later call given that candidate goes on where this one stopped and
    finds the same deal: a search slowed down (a loaded machine) still gets there."""
    rules = daily_rules(layout)
    lay = get_layout(layout)
    deadline = time.perf_counter() + seconds
    k = first
    while time.perf_counter() < deadline:
        deal = numbered_deal(candidate_number(secret, day, layout, k), lay.decks, rules.jokers)
        if solve_clear(new_game(deal, rules, lay), SearchBudget(max_nodes=NODES_PER_DEAL)).winnable:
            return deal, k
        k += 1
    return None, k


# -- an event's rounds ----------------------------------------------------------------------
# Round ``R`` of edition ``E`` (its challenge id "E.R") is dealt as the daily is, from its
# own label: candidates N(k) of HMAC-SHA256(secret, "tripeaks-event-v1:E.R:k"), the first
# proved winnable under the event's rules (or the first candidate, for an event that does
# not ask for winnable deals); its salt, HMAC-SHA256(secret, "tripeaks-event-salt-v1:E.R").


def round_candidate(secret: bytes, round_id: str, k: int) -> int:
    digest = hmac.new(secret, f"tripeaks-event-v1:{round_id}:{k}".encode(), hashlib.sha256)
    return int.from_bytes(digest.digest()[:8], "big") % (MAX_DEAL_NUMBER + 1)


def round_salt(secret: bytes, round_id: str) -> str:
    digest = hmac.new(secret, f"tripeaks-event-salt-v1:{round_id}".encode(), hashlib.sha256)
    return digest.hexdigest()[:32]


def find_round_deal(
    secret: bytes,
    round_id: str,
    rules: dict[str, object],
    winnable_only: bool,
    seconds: float,
    tier: Tier | None = None,
    settings: DifficultySettings | None = None,
) -> tuple[Deal, Difficulty | None] | None:
    """A round's deal (see above), as ``find_daily_deal`` searches (proofs cut by nodes,
    not time, so that every server finds the same deal), and its difficulty when the
    event asks for a ``tier``: then the first candidate (proved winnable, if asked) of
    that tier (``first_of_tier``); None when ``seconds`` ran out first."""
    game_rules = Rules.from_dict(rules)
    return first_of_tier(
        lambda k: round_candidate(secret, round_id, k),
        game_rules,
        winnable_only,
        seconds,
        tier,
        settings,
    )


# -- a deal of a tier -------------------------------------------------------------------------


def first_of_tier(
    candidate: Callable[[int], int],
    rules: Rules,
    winnable_only: bool,
    seconds: float,
    tier: Tier | None = None,
    settings: DifficultySettings | None = None,
) -> tuple[Deal, Difficulty | None] | None:
    """The first of the numbered deals ``candidate(0)``, ``candidate(1)``, ... proved
    winnable (when ``winnable_only``; cut at ``NODES_PER_DEAL`` nodes) and, when ``tier``
    is given, of that tier (``app.engine.difficulty``, measured with ``settings``; by
    nodes too, so the choice does not depend on the machine's speed), with its difficulty
    (None when no tier was asked); None when ``seconds`` ran out first."""
    lay = get_layout(rules.layout)
    deadline = time.perf_counter() + seconds
    k = 0
    while (left := deadline - time.perf_counter()) > 0:
        deal = numbered_deal(candidate(k), lay.decks, rules.jokers)
        k += 1
        if winnable_only:
            budget = SearchBudget(max_nodes=NODES_PER_DEAL)
            if not solve_clear(new_game(deal, rules, lay), budget).winnable:
                continue
        if tier is None:
            return deal, None
        # (None: out of time, or ruled out of the tier after some of its games)
        found = difficulty(deal, rules, lay, settings, seconds=left, only=tier)
        if found is not None and found.tier is tier:
            return deal, found
    return None


def draw_of_tier(
    rules: Rules,
    winnable_only: bool,
    seconds: float,
    tier: Tier,
    settings: DifficultySettings | None = None,
) -> tuple[Deal, Difficulty | None] | None:
    """A deal for a challenge a player sets: random numbered deals (from the system's
    secure generator: nobody can predict the number) until one is of ``tier``
    (``first_of_tier``)."""
    return first_of_tier(
        lambda _: secrets.randbelow(MAX_DEAL_NUMBER + 1),
        rules,
        winnable_only,
        seconds,
        tier,
        settings,
    )
