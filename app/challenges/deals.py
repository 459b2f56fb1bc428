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
import time

from app.engine import MAX_DEAL_NUMBER, Deal, Rules, get_layout, new_game, numbered_deal
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
    first: int = 0,
) -> tuple[Deal | None, int]:
    """A round's deal (see above) and its candidate's ``k``, as ``find_daily_deal``
    searches (proofs cut by nodes, not time, so that a retry from ``first`` finds the
    same deal)."""
    game_rules = Rules.from_dict(rules)
    lay = get_layout(game_rules.layout)
    deadline = time.perf_counter() + seconds
    k = first
    while time.perf_counter() < deadline:
        number = round_candidate(secret, round_id, k)
        deal = numbered_deal(number, lay.decks, game_rules.jokers)
        if not winnable_only:
            return deal, k
        budget = SearchBudget(max_nodes=NODES_PER_DEAL)
        if solve_clear(new_game(deal, game_rules, lay), budget).winnable:
            return deal, k
        k += 1
    return None, k
