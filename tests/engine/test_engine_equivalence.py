"""When two deals are the same game (app/engine/equivalence.py): each change the key
forgives is checked to play alike, move for move, on random playouts of numbered deals,
and the key is checked to tell deals apart otherwise. The key covers the tableau alone: an
image with its waste card and stock in any order shares it, a tableau one card apart does
not."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine import (
    LAYOUTS,
    Card,
    Deal,
    GameState,
    Layout,
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


def restocked(deal: Deal, layout: str, how: str, seed: int = 0) -> Deal:
    """``deal`` with its tableau kept and the cards after it (the first waste card, the
    stock) in another order."""
    n = get_layout(layout).size
    tableau, waste, stock = deal[:n], deal[n], list(deal[n + 1 :])
    if how == "last two swapped":
        stock[-2:] = stock[-1], stock[-2]
    elif how == "reversed":
        stock.reverse()
    elif how == "shuffled":
        random.Random(seed).shuffle(stock)
    elif how == "another waste card":
        waste, stock[-1] = stock[-1], waste
    return (*tableau, waste, *stock)


STOCK_ORDERS = ["last two swapped", "reversed", "shuffled", "another waste card"]


CHANGES: list[tuple[str, dict[str, bool], Callable[[Deal, str], Deal], bool]] = [
    ("suits", {}, lambda d, _: suits_swapped(d), False),
    ("reversal", {"wrap": False}, lambda d, _: reversed_ranks(d), False),
    ("reversal with wrap", {"wrap": True}, lambda d, _: reversed_ranks(d), False),
    ("rotation with wrap", {"wrap": True}, lambda d, _: rotated(d), False),
    ("mirror", {}, mirrored, True),
]


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize(("name", "options", "change", "mirrors"), CHANGES)
def test_each_change_plays_alike_and_keeps_the_key_whatever_follows_the_tableau(
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
        for how in STOCK_ORDERS:
            near = restocked(image, layout, how, seed=number)
            assert game_key(near, rules, lay) == game_key(deal, rules, lay), (name, how)
            assert game_key(deal, rules, lay) in deal_keys(near, lay), (name, how)


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


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_tableau_one_card_apart_is_another_key(layout: str) -> None:
    """Each tableau position in turn takes a stock card of another rank: the key moves,
    under the rules of the deal and under any rules the lookup tries."""
    lay = get_layout(layout)
    rules = Rules.for_layout(layout)
    deal = numbered_deal(11, lay.decks)
    for p in range(lay.size):
        s = next(i for i in range(lay.size + 1, len(deal)) if deal[i].rank != deal[p].rank)
        other = list(deal)
        other[p], other[s] = deal[s], deal[p]
        assert game_key(tuple(other), rules, lay) not in deal_keys(deal, lay), p


def lopsided() -> Layout:
    """The classic table with its left tip dealt face up: no longer symmetric."""
    positions = get_layout("tripeaks").positions
    return Layout(
        name="lopsided",
        title="Lopsided",
        decks=1,
        positions=tuple(replace(p, face_up=True) if p.index == 0 else p for p in positions),
    )


@pytest.mark.parametrize("how", STOCK_ORDERS)
def test_the_mirror_only_for_a_symmetric_layout(how: str) -> None:
    deal = numbered_deal(6)
    near = restocked(mirrored(deal, "tripeaks"), "tripeaks", how)
    tripeaks, lop = get_layout("tripeaks"), lopsided()
    assert mirror_of(lop) is None
    assert deal_key(near, tripeaks, rotation=True, reversal=True) == deal_key(
        deal, tripeaks, rotation=True, reversal=True
    )
    assert deal_key(near, lop, rotation=True, reversal=True) != deal_key(
        deal, lop, rotation=True, reversal=True
    )
    assert deal_key(restocked(deal, "tripeaks", how), lop, rotation=True, reversal=True) == (
        deal_key(deal, lop, rotation=True, reversal=True)
    )


@pytest.mark.parametrize("how", STOCK_ORDERS)
def test_rotation_only_under_wrap_and_reversal_not_under_king_stops(how: str) -> None:
    lay = get_layout("tripeaks")
    deal = numbered_deal(9)
    wrap = Rules.for_layout("tripeaks")
    no_wrap = Rules.for_layout("tripeaks", wrap=False)
    strict = Rules.for_layout("tripeaks", wrap=False, king_stops=True)
    turned = restocked(rotated(deal), "tripeaks", how)
    assert game_key(turned, wrap, lay) == game_key(deal, wrap, lay)
    assert game_key(turned, no_wrap, lay) != game_key(deal, no_wrap, lay)
    flipped = restocked(reversed_ranks(deal), "tripeaks", how)
    assert game_key(flipped, no_wrap, lay) == game_key(deal, no_wrap, lay)
    assert game_key(flipped, strict, lay) != game_key(deal, strict, lay)
    assert game_key(restocked(deal, "tripeaks", how), strict, lay) == game_key(deal, strict, lay)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    number=st.integers(0, 10_000),
    layout=st.sampled_from(sorted(LAYOUTS)),
    shift=st.integers(0, KING - 1),
    flip=st.booleans(),
    mirror=st.booleans(),
    order=st.randoms(use_true_random=False),
)
def test_any_image_with_any_order_after_the_tableau_shares_the_key(
    number: int, layout: str, shift: int, flip: bool, mirror: bool, order: random.Random
) -> None:
    """Under wrap (rotation and reversal both allowed): suits, a turn, a flip, the mirror,
    and the cards after the tableau in any order, the waste card among them."""
    lay = get_layout(layout)
    rules = Rules.for_layout(layout, wrap=True, king_stops=False)
    deal = numbered_deal(number, lay.decks)
    image = suits_swapped(rotated(deal, shift))
    if flip:
        image = reversed_ranks(image)
    if mirror:
        image = mirrored(image, layout)
    rest = list(image[lay.size :])
    order.shuffle(rest)
    assert game_key((*image[: lay.size], *rest), rules, lay) == game_key(deal, rules, lay)
