"""No copy of an open challenge's deal: create_game refuses a deal, explicit or numbered,
whose tableau is an open challenge's or the same under the changes that leave a game the
same, whatever its waste card and stock, and deals it once the challenge has closed.
Through HTTP on SQLite and PostgreSQL; the test knows the server's secret, so it derives
the day's deal as the server does. The days are in 2043, which no other test plays (the
app commits for real)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi.testclient import TestClient

from app.challenges.deals import candidate_number, find_daily_deal
from app.engine import Card, Deal, format_cards, get_layout, numbered_deal
from app.engine.cards import KING
from app.engine.equivalence import mirror_of
from tests.engine.test_engine_equivalence import restocked

SECRET = "copies-test-secret-0123456789-abcdefghij"
DAY = datetime(2043, 3, 10, 12, tzinfo=UTC)


def codes(deal: Deal) -> list[str]:
    return format_cards(deal).split()


def suits_swapped(deal: Deal) -> Deal:
    swap = {"c": "d", "d": "c", "h": "s", "s": "h"}
    return tuple(Card(c.rank, swap[c.suit]) for c in deal)


def reversed_ranks(deal: Deal) -> Deal:
    return tuple(Card(KING + 1 - c.rank, c.suit) for c in deal)


def rotated(deal: Deal, shift: int) -> Deal:
    return tuple(Card((c.rank - 1 + shift) % KING + 1, c.suit) for c in deal)


def mirrored(deal: Deal) -> Deal:
    image = mirror_of(get_layout("tripeaks"))
    assert image is not None
    return tuple(deal[image[i]] for i in range(len(image))) + deal[len(image) :]


def assert_refused(r: Any, name: str, closing_day: str) -> None:
    """The copy's answer: the open challenge's 409, naming no card."""
    assert r.status_code == 409, (name, r.text)
    problem = r.json()
    assert problem["type"] == "/problems/open-challenge-deal", name
    assert problem["closes_at"].startswith(f"{closing_day}T00:00:00"), name
    assert "Ks" not in r.text and "deal" in problem["detail"]  # no card named back


def test_an_open_challenge_s_deal_is_not_dealt_again_until_it_closes(
    client_with: Callable[..., TestClient],
) -> None:
    client = client_with(challenge_secret=SECRET)
    client.app.state.clock = lambda: DAY  # type: ignore[attr-defined]
    daily = client.get("/v1/challenges/daily?layout=tripeaks")
    assert daily.status_code == 200, daily.text
    deal, k = find_daily_deal(SECRET.encode(), "2043-03-10", "tripeaks", 60)
    assert deal is not None
    number = candidate_number(SECRET.encode(), "2043-03-10", "tripeaks", k)
    assert numbered_deal(number) == deal

    def create(**body: Any) -> Any:
        return client.post("/v1/games", json=body)

    copies: dict[str, dict[str, Any]] = {
        "the deal": {"deal": codes(deal)},
        "its number": {"deal_number": number},
        "its number, without wrap": {"deal_number": number, "rules": {"wrap": False}},
        "suits swapped": {"deal": codes(suits_swapped(deal))},
        "ranks reversed": {"deal": codes(reversed_ranks(deal))},
        "ranks turned (the daily has wrap)": {"deal": codes(rotated(deal, 4))},
        "mirrored": {"deal": codes(mirrored(deal))},
        "all at once": {"deal": codes(mirrored(rotated(reversed_ranks(suits_swapped(deal)), 9)))},
    }
    for name, body in copies.items():
        assert_refused(create(**body), name, "2043-03-11")
    # Another deal, and a layout of its own, are dealt.
    assert create(deal_number=number + 1).status_code == 201
    assert create(deal_number=number, layout="golf").status_code == 201

    # Once the day is over, the same deals are dealt.
    client.app.state.clock = lambda: DAY + timedelta(days=1)  # type: ignore[attr-defined]
    for name, body in copies.items():
        r = create(**body)
        assert r.status_code == 201, (name, r.text)


def test_a_near_copy_of_an_open_daily_is_refused_whatever_its_stock(
    client_with: Callable[..., TestClient],
) -> None:
    """The cheater's near copy (the day's deal with its last two stock cards swapped, whose
    analysis plays move for move on the real deal), its images with the stock reshuffled,
    and the same tableau under free_start or open_peaks: each is the exact copy's 409."""
    day = DAY + timedelta(days=2)
    client = client_with(challenge_secret=SECRET)
    client.app.state.clock = lambda: day  # type: ignore[attr-defined]
    assert client.get("/v1/challenges/daily?layout=tripeaks").status_code == 200
    deal, _ = find_daily_deal(SECRET.encode(), "2043-03-12", "tripeaks", 60)
    assert deal is not None
    assert deal[-1].rank != deal[-2].rank  # the swap changes the stock's ranks

    def create(**body: Any) -> Any:
        return client.post("/v1/games", json=body)

    near: dict[str, dict[str, Any]] = {
        "last two stock cards swapped": {
            "deal": codes(restocked(deal, "tripeaks", "last two swapped"))
        },
        "suits, stock shuffled": {
            "deal": codes(restocked(suits_swapped(deal), "tripeaks", "shuffled"))
        },
        "reversal, stock reversed": {
            "deal": codes(restocked(reversed_ranks(deal), "tripeaks", "reversed"))
        },
        "rotation, stock shuffled": {
            "deal": codes(restocked(rotated(deal, 6), "tripeaks", "shuffled"))
        },
        "mirror, another waste card": {
            "deal": codes(restocked(mirrored(deal), "tripeaks", "another waste card"))
        },
        "free_start": {
            "deal": codes(restocked(deal, "tripeaks", "shuffled")),
            "rules": {"free_start": True},
        },
        "open_peaks": {
            "deal": codes(restocked(deal, "tripeaks", "last two swapped")),
            "rules": {"open_peaks": True},
        },
    }
    for name, body in near.items():
        assert_refused(create(**body), name, "2043-03-13")
    # A tableau one card apart (a tableau card traded for the waste card) is another deal.
    n = get_layout("tripeaks").size
    assert deal[0].rank != deal[n].rank
    traded = (deal[n], *deal[1:n], deal[0], *deal[n + 1 :])
    assert create(deal=codes(traded)).status_code == 201

    client.app.state.clock = lambda: day + timedelta(days=1)  # type: ignore[attr-defined]
    for name, body in near.items():
        r = create(**body)
        assert r.status_code == 201, (name, r.text)
