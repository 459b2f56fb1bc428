"""Layouts as data (a new one needs no engine code) and every rule option validated."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine import (
    GOLF,
    LAYOUTS,
    OPTIONS,
    SIX_PEAKS,
    TRIPEAKS,
    GameStatus,
    Layout,
    LayoutError,
    Rules,
    RulesError,
    Scoring,
    TriPeaksError,
    apply,
    get_layout,
    legal_moves,
    new_game,
    player_view,
)
from tests.engine.engine_helpers import build_deal, play_all

# A six-card pyramid: tip 0 on 1 and 2, which lie on 3-4 and 4-5.
MINI_PYRAMID: dict[str, Any] = {
    "name": "mini_pyramid",
    "title": "Mini pyramid",
    "decks": 1,
    "positions": [
        {"index": 0, "row": 0, "x": 2, "covered_by": [1, 2], "face_up": False, "peak": True},
        {"index": 1, "row": 1, "x": 1, "covered_by": [3, 4], "face_up": False},
        {"index": 2, "row": 1, "x": 3, "covered_by": [4, 5], "face_up": False},
        {"index": 3, "row": 2, "x": 0, "face_up": True},
        {"index": 4, "row": 2, "x": 2, "face_up": True},
        {"index": 5, "row": 2, "x": 4, "face_up": True},
    ],
}


def test_a_new_layout_is_data_and_plays_to_a_win() -> None:
    layout = Layout.from_dict(MINI_PYRAMID)
    assert layout.size == 6
    assert layout.peaks == (0,)
    assert layout.covers[4] == (1, 2)
    assert layout.covers[0] == ()
    rules = Rules.for_layout(layout)
    assert rules.layout == "mini_pyramid"
    # 3=Th on the waste's 9c, 4=Jh, 5=Qh, then 1=Kh, 2=Ah (wrap) and the tip 0=2h.
    deal = build_deal({3: "Th", 4: "Jh", 5: "Qh", 1: "Kh", 2: "Ah", 0: "2h", 6: "9c"})
    state = new_game(deal, rules, layout)
    assert len(state.stock) == 45
    view = player_view(state)
    assert [t["card"] for t in view["tableau"]] == [None, None, None, "Th", "Jh", "Qh"]
    state = play_all(state, ["play 3", "play 4", "play 5"])
    assert player_view(state)["tableau"][1]["card"] == "Kh"  # turned face up
    state = play_all(state, ["play 1", "play 2", "play 0"])
    assert state.outcome is GameStatus.WON
    # A streak of six (21) and the only peak, which is the last: 30.
    assert state.score.total == 21 + 30
    assert legal_moves(state) == []


def test_a_custom_layout_must_be_passed_to_new_game() -> None:
    layout = Layout.from_dict(MINI_PYRAMID)
    rules = Rules.for_layout(layout)
    deal = build_deal({})
    with pytest.raises(LayoutError, match="unknown layout 'mini_pyramid'"):
        new_game(deal, rules)
    with pytest.raises(TriPeaksError, match="rules are for layout 'tripeaks'"):
        new_game(deal, Rules(), layout)


@pytest.mark.parametrize("layout", list(LAYOUTS.values()), ids=lambda lay: lay.name)
def test_registered_layouts_round_trip_as_data(layout: Layout) -> None:
    data = layout.to_dict()
    again = Layout.from_dict(data)
    assert again == layout
    assert again.covers == layout.covers
    assert again.peaks == layout.peaks
    assert get_layout(layout.name) is layout


def test_registered_layout_shapes() -> None:
    assert TRIPEAKS.size == 28 and TRIPEAKS.decks == 1 and TRIPEAKS.peaks == (0, 1, 2)
    assert [p.index for p in TRIPEAKS.positions if p.face_up] == list(range(18, 28))
    assert TRIPEAKS.positions[0].covered_by == (3, 4)
    assert TRIPEAKS.positions[4].covered_by == (10, 11)
    assert TRIPEAKS.positions[17].covered_by == (26, 27)
    assert TRIPEAKS.covers[21] == (11, 12)
    assert SIX_PEAKS.size == 56 and SIX_PEAKS.decks == 2
    assert SIX_PEAKS.positions[28].covered_by == (31, 32)
    assert GOLF.size == 35 and all(p.face_up for p in GOLF.positions)
    assert GOLF.positions[0].covered_by == (7,)
    assert GOLF.positions[28].covered_by == ()
    assert dict(GOLF.defaults) == {"wrap": False, "scoring": "cards_left"}
    with pytest.raises(LayoutError, match="unknown layout 'hexagon'"):
        get_layout("hexagon")


def _mini(**changes: Any) -> dict[str, Any]:
    data = {**MINI_PYRAMID, "positions": [dict(p) for p in MINI_PYRAMID["positions"]]}
    for key, value in changes.items():
        if key.startswith("at"):
            index, field = key[2:].split("_", 1)
            data["positions"][int(index)][field] = value
        else:
            data[key] = value
    return data


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"at3_covered_by": [0]}, "position 3 is covered by 0, which is not a later position"),
        ({"at1_covered_by": [1]}, "position 1 is covered by 1, which is not a later position"),
        ({"at2_covered_by": [6]}, "position 2 is covered by 6"),
        ({"at5_face_up": False}, "position 5 is covered by nothing, so it must be dealt face up"),
        ({"at2_covered_by": [4, 4]}, "position 2 names a cover twice"),
        ({"at4_index": 7}, "position 4 is numbered 7"),
        ({"decks": 3}, "decks must be 1 or 2"),
        ({"name": "my layout!"}, "must be letters, digits and '_'"),
        ({"positions": []}, "it has no positions"),
    ],
)
def test_invalid_layouts_are_refused(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(LayoutError, match=message):
        Layout.from_dict(_mini(**changes))


def test_malformed_layout_data() -> None:
    with pytest.raises(LayoutError, match="incomplete or malformed"):
        Layout.from_dict({"name": "x"})
    with pytest.raises(LayoutError, match="incomplete or malformed"):
        Layout.from_dict({"name": "x", "positions": [{"index": 0, "row": 0}]})


def test_too_many_positions_for_the_deck() -> None:
    positions = [{"index": i, "row": 0, "x": 2 * i, "face_up": True} for i in range(52)]
    with pytest.raises(LayoutError, match="52 positions do not fit in the deck"):
        Layout.from_dict({"name": "big", "positions": positions})


# Rule options.


def test_defaults_and_layout_defaults() -> None:
    rules = Rules()
    assert rules.to_dict() == {
        "layout": "tripeaks",
        "wrap": True,
        "king_stops": False,
        "open_peaks": False,
        "free_start": False,
        "jokers": 0,
        "redeals": 0,
        "undo": False,
        "scoring": "classic",
        "draw_penalty": 5,
        "deal_cost": 0,
    }
    assert tuple(rules.to_dict()) == OPTIONS
    golf = Rules.for_layout("golf")
    assert golf.wrap is False and golf.scoring is Scoring.CARDS_LEFT
    assert Rules.for_layout("golf", wrap=True, scoring="classic").wrap is True
    assert Rules.for_layout("six_peaks").to_dict() == {**rules.to_dict(), "layout": "six_peaks"}


def test_rules_round_trip_as_data() -> None:
    rules = Rules.for_layout("golf", king_stops=True, jokers=2, redeals=3, undo=True)
    assert Rules.from_dict(rules.to_dict()) == rules
    assert Rules.from_dict({"layout": "golf"}) == Rules.for_layout("golf")
    assert Rules.from_dict({}, GOLF) == Rules.for_layout("golf")
    assert Rules.from_dict({"scoring": "msc"}).scoring is Scoring.MSC


BAD_OPTIONS: list[tuple[str, Any, str]] = [
    ("wrap", "yes", "must be true or false"),
    ("wrap", 1, "must be true or false"),
    ("king_stops", None, "must be true or false"),
    ("open_peaks", "false", "must be true or false"),
    ("free_start", 0, "must be true or false"),
    ("undo", 1.0, "must be true or false"),
    ("jokers", "1", "must be a whole number"),
    ("jokers", True, "must be a whole number"),
    ("jokers", 1.0, "must be a whole number"),
    ("jokers", 3, "must be 0 to 2"),
    ("jokers", -1, "must be 0 to 2"),
    ("redeals", 10, "must be 0 to 9"),
    ("redeals", -1, "must be 0 to 9"),
    ("redeals", None, "must be a whole number"),
    ("draw_penalty", -1, "must be 0 to 1000 points"),
    ("draw_penalty", 1001, "must be 0 to 1000 points"),
    ("draw_penalty", "5", "must be a whole number"),
    ("deal_cost", -52, "must be 0 to 1000 points"),
    ("deal_cost", 10**6, "must be 0 to 1000 points"),
    ("scoring", "fast", "'fast' is not one of classic, cards_left, msc"),
    ("scoring", 1, "is not one of"),
    ("layout", "hexagon", "unknown layout 'hexagon'"),
    ("speed", 3, "unknown rule option"),
]


@pytest.mark.parametrize(("option", "value", "message"), BAD_OPTIONS)
def test_every_option_is_validated(option: str, value: Any, message: str) -> None:
    with pytest.raises(RulesError, match=message) as err:
        Rules.from_dict({option: value})
    assert err.value.option == option
    assert str(err.value).startswith(f"{option}: ")


def test_every_option_has_a_bad_value_tested() -> None:
    assert {o for o, _, _ in BAD_OPTIONS} >= set(OPTIONS)


def test_option_combinations() -> None:
    with pytest.raises(RulesError) as err:
        Rules.for_layout("tripeaks", scoring="msc", draw_penalty=0)
    assert err.value.option == "draw_penalty"
    with pytest.raises(RulesError) as err:
        Rules.for_layout("golf", deal_cost=52)  # golf counts the cards left
    assert err.value.option == "deal_cost"
    with pytest.raises(RulesError) as err:
        Rules.for_layout("tripeaks", wrap=True, king_stops=True)
    assert err.value.option == "king_stops"
    with pytest.raises(RulesError, match="'golf' contradicts 'tripeaks'") as err:
        Rules.from_dict({"layout": "golf"}, TRIPEAKS)
    assert err.value.option == "layout"
    with pytest.raises(RulesError, match="'tripeaks' contradicts 'golf'"):
        Rules.from_dict({"layout": "tripeaks"}, GOLF)
    with pytest.raises(RulesError, match="must be an object of rule options") as err:
        Rules.from_dict(["wrap"])  # type: ignore[arg-type]
    assert err.value.option == "rules"
    # The default value of a classic-only option is fine under any scheme.
    assert Rules.for_layout("tripeaks", scoring="msc", draw_penalty=5).scoring is Scoring.MSC


def test_rules_are_immutable_and_hashable() -> None:
    rules = Rules()
    with pytest.raises(AttributeError):
        rules.wrap = False  # type: ignore[misc]
    assert hash(rules) == hash(Rules.from_dict({}))


def test_state_of_a_golf_game_shows_its_rules() -> None:
    state = new_game(build_deal({}), Rules.for_layout("golf"))
    assert player_view(state)["rules"]["wrap"] is False
    with pytest.raises(TriPeaksError):
        apply(state, "play 0")


@pytest.mark.parametrize(
    "data",
    [
        _mini(at2_row="top"),
        _mini(decks="two"),
        _mini(defaults=["abc"]),
        _mini(positions="abc"),
        _mini(at3_covered_by=5),
    ],
)
def test_malformed_values_are_layout_errors(data: dict[str, Any]) -> None:
    with pytest.raises(LayoutError, match="incomplete or malformed"):
        Layout.from_dict(data)


def test_layout_defaults_are_rule_options() -> None:
    layout = Layout.from_dict(_mini(defaults={"speed": 3}))
    with pytest.raises(RulesError, match="defaults of layout 'mini_pyramid'") as err:
        Rules.for_layout(layout)
    assert err.value.option == "speed"
    layout = Layout.from_dict(_mini(defaults={"wrap": "no"}))
    with pytest.raises(RulesError) as err:
        Rules.for_layout(layout)
    assert err.value.option == "wrap"
    layout = Layout.from_dict(_mini(defaults={"wrap": False, "redeals": 2}))
    rules = Rules.for_layout(layout)
    assert (rules.wrap, rules.redeals) == (False, 2)
    assert Rules.for_layout(layout, wrap=True).wrap is True  # options go on top


@pytest.mark.parametrize("bad", [[], {}, None, 5])
def test_a_layout_name_that_is_not_a_string(bad: Any) -> None:
    with pytest.raises(LayoutError, match="unknown layout"):
        get_layout(bad)
    with pytest.raises(RulesError) as err:
        Rules.from_dict({"layout": bad})
    assert err.value.option == "layout"


def test_layout_flags_must_be_booleans() -> None:
    data = TRIPEAKS.to_dict()
    data["name"] = "strict"
    data["positions"][0]["face_up"] = "false"
    with pytest.raises(LayoutError, match="face_up must be true or false"):
        Layout.from_dict(data)
