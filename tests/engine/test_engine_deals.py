"""Deals: numbered deals pinned for ever, explicit deals validated, the commitment.

A change to the numbering algorithm (docs/deals.md) must fail these tests: deal N is the
same deal on every server and in every release.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from app.engine import (
    DEAL_ALGORITHM,
    JOKER,
    MAX_DEAL_NUMBER,
    DealError,
    Rules,
    commitment,
    format_deal,
    new_game,
    numbered_deal,
    ordered_deck,
    parse_card,
    parse_deal,
    validate_deal,
)
from app.engine.deals import SplitMix64

# The first eight cards of one-deck deals, computed once with splitmix64-fisher-yates-v1.
PINNED_ONE_DECK = {
    0: "8s Jh 9c 2s 2d Qd 6s Tc",
    1: "7d 9c 4d 8h 8d 5s Jd 6d",
    2: "Qh 3s 4c 5h 7h 2d Kh Td",
    12345: "6h 9h 6s 9s As Tc Kd 8s",
    2**53 - 1: "4h 5h 3c 2s 9c 6d 5d 8c",
}


def test_algorithm_name() -> None:
    assert DEAL_ALGORITHM == "splitmix64-fisher-yates-v1"
    assert MAX_DEAL_NUMBER == 2**53 - 1


@pytest.mark.parametrize(("number", "start"), PINNED_ONE_DECK.items())
def test_pinned_one_deck_deals(number: int, start: str) -> None:
    deal = numbered_deal(number)
    assert format_deal(deal[:8]) == start
    validate_deal(deal)
    assert numbered_deal(number) == deal


def test_pinned_two_deck_deal_with_jokers() -> None:
    deal = numbered_deal(7, decks=2, jokers=2)
    assert len(deal) == 106
    assert format_deal(deal[:8]) == "5h 9s Ts 6d 7s Ad 9s 6s"
    assert [i for i, c in enumerate(deal) if c == JOKER] == [75, 76]
    validate_deal(deal, decks=2, jokers=2)


def test_splitmix64_reference_outputs() -> None:
    # The published first outputs of SplitMix64 for seeds 0 and 1234567.
    rng = SplitMix64(0)
    assert [rng.next() for _ in range(3)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
    ]
    rng = SplitMix64(1234567)
    assert [rng.next() for _ in range(2)] == [6457827717110365317, 3203168211198807973]


def test_doc_states_deal_zero() -> None:
    doc = (Path(__file__).parents[2] / "docs" / "deals.md").read_text()
    assert f"Deal 0 (one deck) starts `{PINNED_ONE_DECK[0]} …`" in doc


def test_different_numbers_give_different_deals() -> None:
    deals = {numbered_deal(n) for n in range(200)}
    assert len(deals) == 200


def test_ordered_deck() -> None:
    assert format_deal(ordered_deck()[:14]) == "Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ad"
    assert ordered_deck()[-1] == parse_card("Ks")
    assert len(ordered_deck(2, 1)) == 105
    assert ordered_deck(2, 1)[-1] == JOKER
    assert ordered_deck(2)[52:] == ordered_deck()


@pytest.mark.parametrize("bad", [-1, 2**53, 2**64, True, 1.5, "3", None])
def test_deal_number_out_of_range(bad: Any) -> None:
    with pytest.raises(DealError, match="deal number must be"):
        numbered_deal(bad)


def test_explicit_deal_round_trip() -> None:
    deal = numbered_deal(99)
    text = format_deal(deal)
    assert parse_deal(text) == deal
    assert parse_deal(text.lower().replace(" ", ", ")) == deal
    assert parse_deal(text.split()) == deal
    assert parse_deal(text.replace("T", "10")) == deal


def test_missing_card() -> None:
    codes = format_deal(ordered_deck()).split()
    codes.remove("7h")
    with pytest.raises(DealError, match="missing 7h") as err:
        parse_deal(codes)
    assert "has 52 cards, not 51" in str(err.value)


def test_doubled_card() -> None:
    codes = format_deal(ordered_deck()).split()
    codes[codes.index("7h")] = "Qs"
    with pytest.raises(DealError, match="Qs is there 2 times, not 1") as err:
        parse_deal(codes)
    assert "missing 7h" in str(err.value)


def test_unknown_card_for_the_deck() -> None:
    codes = [*format_deal(ordered_deck()).split(), "JK"]
    with pytest.raises(DealError, match="JK is not in a deck of 1 deck and 0 jokers"):
        parse_deal(codes)
    # With a joker in the rules the same deal is fine.
    assert parse_deal(codes, jokers=1)[-1] == JOKER


def test_unreadable_card_in_a_deal() -> None:
    codes = format_deal(ordered_deck()).split()
    codes[5] = "Zz"
    with pytest.raises(DealError, match="deal card 5: unknown card 'Zz'"):
        parse_deal(codes)


def test_two_deck_deal_validation() -> None:
    deal = list(numbered_deal(3, decks=2))
    validate_deal(deal, decks=2)
    with pytest.raises(DealError, match="has 104 cards, not 52"):
        validate_deal(deal[:52], decks=2)
    i = deal.index(parse_card("Ah"))
    deal[i] = parse_card("Kh")
    with pytest.raises(DealError, match="Kh is there 3 times, not 2"):
        validate_deal(deal, decks=2)


def test_new_game_validates_its_deal() -> None:
    with pytest.raises(DealError, match="missing"):
        new_game(numbered_deal(0)[:-1], Rules())
    with pytest.raises(DealError, match="has 104 cards"):
        new_game(numbered_deal(0), Rules.for_layout("six_peaks"))
    with pytest.raises(DealError, match="JK"):
        new_game(numbered_deal(0), Rules(jokers=1))


def test_commitment_matches_sha256() -> None:
    deal = numbered_deal(0)
    text = "tripeaks-deal-v1:00ff:" + " ".join(c.code for c in deal)
    expected = hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert commitment(deal, "00ff") == expected
    assert expected == "4bb8519be12d92c5fcb4eed6bcf0d86bed4a3c7f50faec8b170e3f07a0290420"
    assert commitment(deal, "00fe") != expected
    assert commitment(numbered_deal(1), "00ff") != expected
