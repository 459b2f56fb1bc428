"""When two deals are the same game (app/engine/equivalence.py): each change the key
forgives is checked to play alike, move for move, on random playouts of numbered deals,
and the key is checked to tell deals apart otherwise."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from app.engine import (
    LAYOUTS,
    Card,
    Deal,
    GameState,
    Play,
    Rules,
    apply,
    get_layout,
    legal_moves,
    new_game,
    numbered_deal,
)
from app.engine.cards import KING
from app.engine.equivalence import deal_key, deal_keys, game_key, mirror_of

SUITS = {"c": "h", "h": "s", "s": "d", "d": "c"}


def suits_swapped(deal: Deal) -> Deal:
    return tuple(c if c.rank == 0 else Card(c.rank, SUITS[c.suit]) for c in deal)


def reversed_ranks(deal: Deal) -> Deal:
    return tuple(c if c.rank == 0 else Card(KING + 1 - c.rank, c.suit) for c in deal)


def rotated(deal: Deal, shift: int = 5) -> Deal:
    return tuple(c if c.rank == 0 else Card((c.rank - 1 + shift) % KING + 1, c.suit) for c in deal)


def mirrored(deal: Deal, layout: str) -> Deal:
    image = mirror_of(get_layout(layout))
    assert image is not None
    n = len(image)
    return tuple(deal[image[i]] for i in range(n)) + deal[n:]


def play_alike(a: GameState, b: GameState, image: tuple[int, ...] | None, seed: int) -> None:
    """Random playout of ``a``, each move made in ``b`` too (a play at the mirror image
    of its position): the legal moves, the score and the end agree at every step."""
    rng = random.Random(seed)

    def mapped(move: object) -> object:
        if isinstance(move, Play) and image is not None:
            return Play(image[move.position])
        return move

    while not a.is_over:
        moves_a = legal_moves(a)
        assert sorted(map(str, (mapped(m) for m in moves_a))) == sorted(map(str, legal_moves(b)))
        move = rng.choice(moves_a)
        a, b = apply(a, move), apply(b, mapped(move))  # type: ignore[arg-type]
        assert a.score.total == b.score.total and a.outcome == b.outcome
    assert b.is_over


CHANGES: list[tuple[str, dict[str, bool], Callable[[Deal, str], Deal], bool]] = [
    ("suits", {}, lambda d, _: suits_swapped(d), False),
    ("reversal", {"wrap": False}, lambda d, _: reversed_ranks(d), False),
    ("reversal with wrap", {"wrap": True}, lambda d, _: reversed_ranks(d), False),
    ("rotation with wrap", {"wrap": True}, lambda d, _: rotated(d), False),
    ("mirror", {}, mirrored, True),
]


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize(("name", "options", "change", "mirrors"), CHANGES)
def test_each_change_plays_alike_and_keeps_the_key(
    layout: str,
    name: str,
    options: dict[str, bool],
    change: Callable[[Deal, str], Deal],
    mirrors: bool,
) -> None:
    lay = get_layout(layout)
    if mirrors and mirror_of(lay) is None:
        pytest.skip(f"{layout} is not symmetric")
    rules = Rules.for_layout(layout, **options)
    for number in range(12):
        deal = numbered_deal(number, lay.decks, rules.jokers)
        image = change(deal, layout)
        assert image != deal
        assert game_key(image, rules, lay) == game_key(deal, rules, lay), name
        play_alike(
            new_game(deal, rules, lay),
            new_game(image, rules, lay),
            mirror_of(lay) if mirrors else None,
            seed=number,
        )


def test_the_usual_layouts_are_symmetric() -> None:
    assert all(mirror_of(get_layout(name)) is not None for name in ("tripeaks", "golf"))


def test_changes_the_rules_do_not_allow_change_the_key() -> None:
    lay = get_layout("tripeaks")
    deal = numbered_deal(7)
    no_wrap = Rules.for_layout("tripeaks", wrap=False)
    assert game_key(rotated(deal), no_wrap, lay) != game_key(deal, no_wrap, lay)
    strict = Rules.for_layout("tripeaks", wrap=False, king_stops=True)
    assert game_key(reversed_ranks(deal), strict, lay) != game_key(deal, strict, lay)
    # Another deal is another game; another layout, another key.
    wrap = Rules.for_layout("tripeaks")
    assert game_key(numbered_deal(8), wrap, lay) != game_key(deal, wrap, lay)
    golf = get_layout("golf")
    assert deal_key(deal, golf, rotation=True, reversal=True) != game_key(deal, wrap, lay)


def test_a_deal_s_keys_find_it_under_any_rules() -> None:
    """A game stored under any rules is found from a deal's keys: the deal itself under
    every rules, and its image under the changes the stored game's rules allow."""
    lay = get_layout("tripeaks")
    deal = numbered_deal(3)
    for options in ({}, {"wrap": False}, {"wrap": False, "king_stops": True}):
        assert game_key(deal, Rules.for_layout("tripeaks", **options), lay) in deal_keys(deal, lay)
    image = rotated(reversed_ranks(suits_swapped(deal)))
    assert game_key(deal, Rules.for_layout("tripeaks"), lay) in deal_keys(image, lay)
    strict = Rules.for_layout("tripeaks", wrap=False, king_stops=True)
    assert game_key(deal, strict, lay) not in deal_keys(image, lay)
