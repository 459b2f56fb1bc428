"""Deals: the order of the whole deck, numbered or explicit.

A deal is a tuple of cards in dealing order: the tableau positions 0..n-1, then (unless
``free_start``) the first waste card, then the stock from the top.

Numbered deals follow DEAL_ALGORITHM, which is part of the public contract (see
docs/deals.md): deal N is the same on every server and in every release.

1. The ordered deck: for each deck, suits c, d, h, s, each Ace to King; then the jokers.
2. A SplitMix64 generator seeded with N (0 <= N < 2**53).
3. Fisher-Yates from the end: for i = len-1 down to 1, j = uniform(0..i) by rejection
   sampling (draw x; reject while x >= 2**64 - 2**64 % (i+1); j = x % (i+1)); swap i, j.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Final

from app.engine.cards import JOKER, STANDARD_CARDS, Card, parse_card
from app.engine.errors import CardError, DealError

DEAL_ALGORITHM: Final = "splitmix64-fisher-yates-v1"
MAX_DEAL_NUMBER: Final = 2**53 - 1
COMMITMENT_SCHEME: Final = "sha256-v1"

_MASK64: Final = (1 << 64) - 1

Deal = tuple[Card, ...]


def ordered_deck(decks: int = 1, jokers: int = 0) -> Deal:
    return STANDARD_CARDS * decks + (JOKER,) * jokers


class SplitMix64:
    """The SplitMix64 generator (Steele, Lea and Flood, 2014), 64-bit outputs."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in [0, n), without modulo bias."""
        limit = (1 << 64) - (1 << 64) % n
        while True:
            x = self.next()
            if x < limit:
                return x % n


def numbered_deal(number: int, decks: int = 1, jokers: int = 0) -> Deal:
    """Deal ``number`` of the documented algorithm."""
    if isinstance(number, bool) or not isinstance(number, int):
        raise DealError(f"deal number must be a whole number, not {number!r}")
    if not 0 <= number <= MAX_DEAL_NUMBER:
        raise DealError(f"deal number must be 0 to {MAX_DEAL_NUMBER}, not {number}")
    cards = list(ordered_deck(decks, jokers))
    rng = SplitMix64(number)
    for i in range(len(cards) - 1, 0, -1):
        j = rng.below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return tuple(cards)


def parse_deal(codes: str | Iterable[str], decks: int = 1, jokers: int = 0) -> Deal:
    """Read and validate an explicit deal: every card of the deck exactly once per deck."""
    items = codes.replace(",", " ").split() if isinstance(codes, str) else list(codes)
    cards: list[Card] = []
    for i, code in enumerate(items):
        try:
            cards.append(parse_card(code))
        except CardError as e:
            raise DealError(f"deal card {i}: {e}") from None
    validate_deal(cards, decks, jokers)
    return tuple(cards)


@lru_cache(maxsize=16)
def _deck_counts(decks: int, jokers: int) -> Counter[Card]:
    """How many of each card a deck holds (shared: never change it)."""
    return Counter(ordered_deck(decks, jokers))


def validate_deal(cards: Sequence[Card], decks: int = 1, jokers: int = 0) -> None:
    expected = _deck_counts(decks, jokers)
    got = Counter(cards)
    # Every game is rebuilt from its deal at each request, so be quick when all is well:
    # plain dict equality runs in C, where Counter's own == walks both in Python.
    if dict.__eq__(got, expected):
        return
    problems: list[str] = []
    deck = f"{decks} deck{'s' if decks > 1 else ''} and {jokers} joker{'s' if jokers != 1 else ''}"
    for card, n in got.items():
        if expected[card] == 0:
            problems.append(f"{card.code} is not in a deck of {deck}")
        elif n > expected[card]:
            problems.append(f"{card.code} is there {n} times, not {expected[card]}")
    missing = [c.code for c in expected if got[c] < expected[c]]
    if missing:
        problems.append(f"missing {' '.join(missing)}")
    size = sum(expected.values())
    if len(cards) != size:  # said only when it is so: a doubled card keeps the count
        problems.append(f"a deal of {deck} has {size} cards, not {len(cards)}")
    if problems:
        raise DealError("invalid deal: " + "; ".join(problems))


def format_deal(deal: Sequence[Card]) -> str:
    return " ".join(c.code for c in deal)


def commitment(deal: Sequence[Card], salt: str) -> str:
    """SHA-256 (hex) of the deal and a salt, as docs/deals.md defines it.

    The hashed text is ``"tripeaks-deal-v1:" + salt + ":" + deal codes joined by spaces``
    in UTF-8. Published at creation, it lets a player check at the end, once deal and salt
    are revealed, that the deal was fixed before the first move.
    """
    text = f"tripeaks-deal-v1:{salt}:{format_deal(deal)}"
    return hashlib.sha256(text.encode()).hexdigest()
