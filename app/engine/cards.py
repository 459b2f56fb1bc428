"""Cards: ranks A 2-9 T J Q K, suits c d h s, and jokers.

A card's canonical code is two characters: rank then suit (``7h``, ``Td``, ``Ks``); a
joker is ``JK``. Codes are read case-insensitively and ``10`` is accepted for ``T``.
Suits never matter to the rules; only ranks do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from app.engine.errors import CardError

RANKS: Final = "A23456789TJQK"
SUITS: Final = "cdhs"
JOKER_CODE: Final = "JK"
JOKER_RANK: Final = 0
KING: Final = 13
ACE: Final = 1


@dataclass(frozen=True, slots=True)
class Card:
    """A playing card. ``rank`` is 1 (Ace) to 13 (King), or 0 for a joker."""

    rank: int
    suit: str

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER_RANK

    @property
    def code(self) -> str:
        if self.rank == JOKER_RANK:
            return JOKER_CODE
        return RANKS[self.rank - 1] + self.suit

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card.parse({self.code!r})"

    @staticmethod
    def parse(text: str) -> Card:
        return parse_card(text)


JOKER: Final = Card(JOKER_RANK, "")
STANDARD_CARDS: Final = tuple(Card(r, s) for s in SUITS for r in range(1, 14))
_BY_CODE: Final = {c.code.lower(): c for c in (*STANDARD_CARDS, JOKER)}


# Cards by their canonical code ("7h", "Td", "jk"), as a stored deal holds them.
_CANONICAL: Final = {c.code: c for c in (*STANDARD_CARDS, JOKER)}


def parse_card(text: str) -> Card:
    """Read a card code such as ``7h``, ``TD``, ``10s`` or ``jk``."""
    canonical = _CANONICAL.get(text) if type(text) is str else None
    if canonical is not None:
        return canonical
    if not isinstance(text, str):
        raise CardError(f"card code must be a string, not {type(text).__name__}")
    key = text.strip().lower()
    if key.startswith("10") and len(key) == 3:
        key = "t" + key[2]
    card = _BY_CODE.get(key)
    if card is None:
        raise CardError(
            f"unknown card {text!r}: expected a rank of {RANKS} (or 10) and a suit of "
            f"{SUITS}, like '7h' or 'Td', or {JOKER_CODE!r} for a joker"
        )
    return card


def parse_cards(text: str) -> tuple[Card, ...]:
    """Read cards separated by white space or commas."""
    return tuple(parse_card(t) for t in text.replace(",", " ").split())


def format_cards(cards: tuple[Card, ...] | list[Card]) -> str:
    return " ".join(c.code for c in cards)


def ranks_adjacent(a: int, b: int, *, wrap: bool) -> bool:
    """Whether two ranks (1-13) are one apart, counting King-Ace when ``wrap``."""
    d = abs(a - b)
    return d == 1 or (wrap and d == KING - ACE)
