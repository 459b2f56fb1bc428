"""When two deals are the same game, and a key for a deal's tableau: one key per class.

A deal and its image under any of these changes play move for move alike (the same legal
moves at every step, the same score, the same end), so knowing one is knowing the other:

- **suits**: no rule and no scoring scheme reads a card's suit, only its rank (a joker
  stays a joker);
- **rank reversal** (Ace for King, 2 for Queen, ... ``r -> 14 - r``): two ranks one apart
  stay one apart, and King-Ace stays King-Ace under wrap; not under ``king_stops``, where
  a King is special and an Ace is not;
- **rank rotation** (``r -> r + k`` modulo 13) under ``wrap``: ranks one apart modulo 13
  stay so; without wrap, King-Ace would become neighbours or stop being;
- **the mirror** of a layout symmetric left to right: the card of each position moves to
  its mirror image, which is covered by the mirror images of what covered it, face up or
  down and a peak alike; the waste and the stock stay as they are.

The key reads the **tableau's positions only**, not the waste card nor the stock: it is
what create_game's copy check compares, and what a copy of an open challenge's deal would
give away is in the tableau. A game turns its tableau's face-down cards up as it is
played, its hint and its analysis read them, and the analysis's line plays on the
challenge's deal move for move for as long as the two stocks agree, so a deal whose stock
differs only late (its last two cards swapped) previews the challenge as the deal itself
would. None of that needs the same waste card (face up from the start, seen by every
entrant) nor the same stock. A key blind to all that follows the tableau thus refuses
every such near copy, and with it a ``free_start`` game (no waste card) or an
``open_peaks`` one (the tableau dealt face up) over the same tableau, since it reads no
rule but which changes the rules allow. The changes keep their meaning on the tableau
alone: suits and ranks map card by card, and the mirror maps tableau positions only. The
key is coarser than "the same game" (two deals of one key play apart once their stocks
differ); its price is an honest deal refused while its tableau shares an open challenge's
class, and that deal would have to match the rank at every tableau position of one of
that class's few images, which no honest player meets.

``deal_key`` is the least of the images' rank sequences of the tableau under the changes
the rules allow, hashed with the layout's name and the changes allowed: two deals have the
same key exactly when one's tableau is an image of the other's under those changes.
``deal_keys`` gives a deal's key under each set of changes rules can allow, so that a deal
can be looked up against games stored under other rules.

Standard library and engine only.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from enum import StrEnum
from functools import lru_cache

from app.engine.cards import KING, Card
from app.engine.layouts import Layout
from app.engine.rules import Rules


class KeyScheme(StrEnum):
    """What a key reads, named in the text it hashes, so that keys of two schemes never
    meet."""

    TABLEAU = "tripeaks-tableau-key-v2"
    # The keys of the whole deal (the mirror moving the tableau's cards alone), which the
    # code of revisions 0006 to 0011 reads: the same algorithm over more cards, kept so
    # that those revisions' migrations (0006 up, 0012 down) write the keys it reads.
    WHOLE_DEAL = "tripeaks-deal-key-v1"


KEY_SCHEME = KeyScheme.TABLEAU


@lru_cache(maxsize=16)
def mirror_of(layout: Layout) -> tuple[int, ...] | None:
    """For each position, its mirror image left to right; None for a layout that is not
    symmetric (a position without an image, or an image that differs in being face up,
    a peak, or in what covers it)."""
    positions = layout.positions
    xs = [p.x for p in positions]
    axis = min(xs) + max(xs)
    at = {(p.row, p.x): p.index for p in positions}
    image: list[int] = []
    for p in positions:
        q = at.get((p.row, axis - p.x))
        if q is None:
            return None
        image.append(q)
    for p in positions:
        twin = positions[image[p.index]]
        if twin.face_up != p.face_up or twin.peak != p.peak:
            return None
        if sorted(image[c] for c in p.covered_by) != sorted(twin.covered_by):
            return None
    return tuple(image)


def _ranks(deal: Sequence[Card]) -> list[int]:
    return [card.rank for card in deal]  # a joker is rank 0


def deal_key(
    deal: Sequence[Card],
    layout: Layout,
    *,
    rotation: bool,
    reversal: bool,
    scheme: KeyScheme = KEY_SCHEME,
) -> str:
    """The key of the class of ``deal``'s tableau under suits, the mirror (of a symmetric
    layout) and, when asked, rank rotation and rank reversal (see the module's doc).
    ``scheme`` is ``KEY_SCHEME`` but for a migration back to older keys."""
    ranks = _ranks(deal if scheme is KeyScheme.WHOLE_DEAL else deal[: layout.size])
    orders = [ranks]
    image = mirror_of(layout)
    if image is not None:
        n = len(image)
        orders.append([ranks[image[i]] for i in range(n)] + ranks[n:])
    shifts = range(KING) if rotation else range(1)
    flips = (False, True) if reversal else (False,)
    best: tuple[int, ...] | None = None
    for order in orders:
        for shift in shifts:
            for flip in flips:
                mapped = tuple(_mapped(r, shift, flip) for r in order)
                if best is None or mapped < best:
                    best = mapped
    assert best is not None
    # The changes are part of the key: a deal that is already the least image of its class
    # must not have one key under two sets of changes.
    changes = f"{'rotation' if rotation else ''}+{'reversal' if reversal else ''}"
    text = f"{scheme.value}:{layout.name}:{changes}:" + ",".join(map(str, best))
    return hashlib.sha256(text.encode()).hexdigest()


def _mapped(rank: int, shift: int, flip: bool) -> int:
    if rank == 0:
        return 0  # a joker
    if flip:
        rank = KING + 1 - rank
    return (rank - 1 + shift) % KING + 1


def game_key(
    deal: Sequence[Card], rules: Rules, layout: Layout, *, scheme: KeyScheme = KEY_SCHEME
) -> str:
    """The key of the game ``deal`` makes under ``rules``: rotation under wrap, reversal
    unless king_stops."""
    return deal_key(deal, layout, rotation=rules.wrap, reversal=not rules.king_stops, scheme=scheme)


def deal_keys(deal: Sequence[Card], layout: Layout) -> frozenset[str]:
    """``deal``'s key under every set of changes some rules allow: a game stored under
    any rules whose key is one of these is an image of ``deal``."""
    return frozenset(
        deal_key(deal, layout, rotation=rotation, reversal=reversal)
        for rotation in (False, True)
        for reversal in (False, True)
    )
