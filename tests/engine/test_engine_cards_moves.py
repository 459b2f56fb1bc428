"""Cards and moves: canonical codes that round-trip, and clear errors for bad input."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine import (
    CONCEDE,
    DRAW,
    JOKER,
    REDEAL,
    UNDO,
    Card,
    CardError,
    Move,
    MoveSyntaxError,
    Play,
    TriPeaksError,
    format_cards,
    ordered_deck,
    parse_card,
    parse_cards,
    parse_move,
)
from app.engine.cards import ranks_adjacent

ALL_CARDS = (*ordered_deck(), JOKER)


def test_all_codes_round_trip() -> None:
    codes = [c.code for c in ALL_CARDS]
    assert len(set(codes)) == 53
    assert codes[:3] == ["Ac", "2c", "3c"]
    assert codes[9:13] == ["Tc", "Jc", "Qc", "Kc"]
    assert codes[-1] == "JK"
    for card in ALL_CARDS:
        assert parse_card(card.code) == card
        assert parse_card(card.code.upper()) == card
        assert parse_card(card.code.lower()) == card
        assert parse_card(f"  {card.code} ") == card
        assert str(card) == card.code
        assert eval(repr(card), {"Card": Card}) == card


def test_card_fields() -> None:
    assert parse_card("Ah") == Card(1, "h")
    assert parse_card("kS") == Card(13, "s")
    assert parse_card("jk") == JOKER
    assert JOKER.is_joker
    assert JOKER.rank == 0
    assert not parse_card("Jc").is_joker


@pytest.mark.parametrize("suit", "cdhs")
def test_ten_may_be_written_10(suit: str) -> None:
    assert parse_card(f"10{suit}") == parse_card(f"T{suit}")
    assert parse_card(f"10{suit.upper()}").code == f"T{suit}"


@pytest.mark.parametrize(
    "bad", ["", " ", "1h", "0s", "Xh", "7x", "77h", "10", "10x", "11h", "JKK", "J", "Joker", "7 h"]
)
def test_bad_card_codes(bad: str) -> None:
    with pytest.raises(CardError, match="unknown card"):
        parse_card(bad)


@pytest.mark.parametrize("bad", [7, None, b"7h", Card(7, "h")])
def test_card_code_must_be_a_string(bad: Any) -> None:
    with pytest.raises(CardError, match="must be a string"):
        parse_card(bad)


def test_card_error_is_a_value_error() -> None:
    assert issubclass(CardError, TriPeaksError)
    assert issubclass(CardError, ValueError)


def test_parse_and_format_cards() -> None:
    cards = parse_cards("7h, td  10s\tJK")
    assert format_cards(cards) == "7h Td Ts JK"
    assert format_cards(list(cards)) == "7h Td Ts JK"
    assert parse_cards("") == ()


def test_ranks_adjacent() -> None:
    assert ranks_adjacent(1, 2, wrap=False)
    assert ranks_adjacent(13, 12, wrap=False)
    assert not ranks_adjacent(13, 1, wrap=False)
    assert ranks_adjacent(13, 1, wrap=True)
    assert ranks_adjacent(1, 13, wrap=True)
    assert not ranks_adjacent(5, 5, wrap=True)
    assert not ranks_adjacent(5, 7, wrap=True)


MOVES: list[Move] = [Play(0), Play(7), Play(55), DRAW, REDEAL, UNDO, CONCEDE]


@pytest.mark.parametrize("move", MOVES, ids=str)
def test_moves_round_trip(move: Move) -> None:
    text = str(move)
    assert parse_move(text) == move
    assert parse_move(text.upper()) == move
    assert parse_move(f"  {text}\n") == move
    namespace = {"Play": Play, **{type(m).__name__: type(m) for m in MOVES}}
    assert eval(repr(move), namespace) == move


def test_canonical_move_strings() -> None:
    assert [str(m) for m in MOVES] == [
        "play 0",
        "play 7",
        "play 55",
        "draw",
        "redeal",
        "undo",
        "concede",
    ]
    assert parse_move("Play   12") == Play(12)
    assert parse_move("play 007") == Play(7)
    assert str(parse_move("play 007")) == "play 7"


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "play",
        "play -1",
        "play x",
        "play 1 2",
        "play 1.5",
        "play ３",  # a full-width digit is a digit to str.isdigit, not to us
        "play ²",
        "jump",
        "draw 2",
        "drawn",
        "undo undo",
        "p 3",
        "play " + "1" * 40,
    ],
)
def test_move_syntax_errors(bad: str) -> None:
    with pytest.raises(MoveSyntaxError):
        parse_move(bad)


def test_move_syntax_error_messages() -> None:
    with pytest.raises(MoveSyntaxError, match=r"cannot read move 'jump': expected 'play <pos"):
        parse_move("jump")
    with pytest.raises(MoveSyntaxError, match="longer than 32 characters"):
        parse_move("x" * 33)
    with pytest.raises(MoveSyntaxError, match="must be a string, not int"):
        parse_move(3)  # type: ignore[arg-type]
