"""Helpers for the engine tests: building explicit deals by hand and playing move lists.

``build_deal`` places chosen cards at chosen places of the deal (tableau positions, the
waste card, stock cards) and fills every other place with the cards left over, in the
order of the ordered deck, so that the result is always a valid deck and the test knows
exactly which cards matter.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from app.engine import (
    Card,
    GameState,
    Layout,
    Rules,
    apply,
    get_layout,
    new_game,
    ordered_deck,
    parse_card,
)


def build_deal(
    placed: Mapping[int, str],
    *,
    decks: int = 1,
    jokers: int = 0,
) -> tuple[Card, ...]:
    """A deal with ``placed[i]`` at deal index ``i`` (negative counts from the end) and
    the rest of the deck, in ordered-deck order, everywhere else."""
    deck = ordered_deck(decks, jokers)
    size = len(deck)
    slots: list[Card | None] = [None] * size
    left = Counter(deck)
    for index, code in placed.items():
        i = index % size
        assert slots[i] is None, f"deal index {index} placed twice"
        card = parse_card(code)
        assert left[card] > 0, f"{code} placed more often than the deck holds"
        left[card] -= 1
        slots[i] = card
    rest = iter(c for c in deck if _take(left, c))
    return tuple(c if c is not None else next(rest) for c in slots)


def _take(left: Counter[Card], card: Card) -> bool:
    if left[card] > 0:
        left[card] -= 1
        return True
    return False


def tripeaks_deal(
    tableau: Mapping[int, str],
    waste: str | None = None,
    stock: Iterable[str] = (),
    *,
    last: Iterable[str] = (),
    size: int = 28,
    decks: int = 1,
    jokers: int = 0,
) -> tuple[Card, ...]:
    """A deal for a layout of ``size`` positions: chosen tableau cards, the waste card
    (none under free_start), the first stock cards and the very last cards of the stock."""
    placed: dict[int, str] = dict(tableau)
    first_stock = size
    if waste is not None:
        placed[size] = waste
        first_stock = size + 1
    for i, code in enumerate(stock):
        placed[first_stock + i] = code
    last_cards = list(last)
    for i, code in enumerate(last_cards):
        placed[i - len(last_cards)] = code
    return build_deal(placed, decks=decks, jokers=jokers)


def play_all(state: GameState, moves: Iterable[str]) -> GameState:
    for move in moves:
        state = apply(state, move)
    return state


def start(
    deal: tuple[Card, ...], layout: str | Layout = "tripeaks", **options: object
) -> GameState:
    lay = layout if isinstance(layout, Layout) else get_layout(layout)
    return new_game(deal, Rules.for_layout(lay, **options), lay)


def chain_ranks(start_rank: int, count: int, step: int = 1) -> list[int]:
    """``count`` ranks following ``start_rank`` one apart, going round King-Ace."""
    out = []
    r = start_rank
    for _ in range(count):
        r = (r - 1 + step) % 13 + 1
        out.append(r)
    return out


def cards_for_ranks(ranks: Iterable[int], pool: Counter[Card]) -> list[str]:
    """Pick a card of each rank from ``pool`` (suits c, d, h, s in turn), removing it."""
    out = []
    for rank in ranks:
        card = next(c for c in sorted(pool, key=lambda c: c.suit) if c.rank == rank and pool[c])
        pool[card] -= 1
        out.append(card.code)
    return out


# The order in which a classic table of 28 positions (numbered from ``base``) can be
# cleared completely: bottom row, row three, row two, then the three tips.
def clearing_order(base: int = 0) -> list[int]:
    return [base + p for p in [*range(18, 28), *range(9, 18), *range(3, 9), 0, 1, 2]]


def at(positions: int | Iterable[int], codes: str) -> dict[int, str]:
    """``codes`` (separated by spaces) at consecutive positions from an int, or at the
    positions listed."""
    cards = codes.split()
    where = range(positions, positions + len(cards)) if isinstance(positions, int) else positions
    return dict(zip(where, cards, strict=True))
