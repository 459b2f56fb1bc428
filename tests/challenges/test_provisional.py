"""Nobody is refused for the age of their account (issue 47): a new account plays a
friend's challenge, the daily and an event's round; its result is provisional, ranked with
the others and marked on a challenge a player set, ranked apart on the public boards
until its fair-play measure says ok, then in its place. Through HTTP on SQLite and
PostgreSQL, the clock injected. An account's creation time is the server's real one: a
test that needs an account made at a given moment of its days sets it in the row
(``made_at``), as if the account had been made then."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, update

from app.challenges.deals import daily_rules
from app.engine import apply, get_layout, new_game
from app.engine.bots import STRATEGIES, HintSettings
from app.engine.view import player_view
from app.ops.fairplay import run
from app.players.models import Player
from app.settings import Settings
from tests.challenges.test_fair_play import SECRET, at, board, day_deal, greedy, play
from tests.challenges.test_set_challenges import enter
from tests.events.test_events import OPERATOR, TOKEN, iso
from tests.fixtures.games import new_player


def made_at(client: TestClient, player_id: str, moment: datetime) -> None:
    """The account ``player_id`` as if made at ``moment``."""
    engine = create_engine(client.app.state.settings.database_url)  # type: ignore[attr-defined]
    with engine.begin() as connection:
        connection.execute(update(Player).where(Player.id == player_id).values(created_at=moment))
    engine.dispose()


def finish(client: TestClient, game: dict[str, Any]) -> dict[str, Any]:
    end = greedy(client, game)
    if end["status"] == "in_progress":
        end = play(client, end, ["concede"])
    return end


def my_entry(client: TestClient, auth: dict[str, str], challenge: str) -> dict[str, Any]:
    mine = client.get("/v1/players/me/challenges", headers=auth).json()["challenges"]
    [entry] = [c["entry"] for c in mine if c["challenge"]["id"] == challenge]
    assert isinstance(entry, dict)
    return entry


def measure(settings: Settings, now: datetime, challenge: str) -> Any:
    """What the servers' scheduled job does, at ``now``: the challenge's results due
    measured (those of the other tests' challenges are left alone)."""
    return asyncio.run(run(settings, now, 100, challenge))


def names(entries: list[dict[str, Any]]) -> list[str]:
    return [e["name"] for e in entries]


@pytest.mark.slow
def test_a_friend_with_a_new_account_plays_the_link_ranked_and_marked(
    client_with: Callable[..., TestClient], settings: Settings
) -> None:
    """The friend's account is made after the challenge opened: they enter (201), their
    result ranks with the others at once, marked provisional, and their entry says what
    that means; measured, it stays where it was."""
    client = client_with()
    setter, setter_auth = new_player(client, name="Setter")
    opened = datetime.fromisoformat(setter["created_at"])
    at(client, opened)
    r = client.post(
        "/v1/challenges",
        json={"name": "For Rin", "closes_at": iso(opened + timedelta(hours=48))},
        headers=setter_auth,
    )
    assert r.status_code == 201, r.text
    challenge = r.json()["id"]
    friend, friend_auth = new_player(client, name="Rin")
    made = datetime.fromisoformat(friend["created_at"])
    assert made > opened
    assert datetime.fromisoformat(friend["provisional_until"]) == made + timedelta(hours=24)
    assert friend["challenges_from"] == friend["provisional_until"]  # deprecated, the same
    at(client, made + timedelta(minutes=1))
    for auth in (setter_auth, friend_auth):
        finish(client, enter(client, challenge, auth))

    shown = board(client, challenge)
    assert shown["ranked"] == 2
    marks = {e["name"]: e["provisional"] for e in shown["entries"]}
    assert marks == {"Setter": True, "Rin": True}  # both accounts are hours old
    assert board(client, challenge, fair_play="provisional")["entries"] == []
    entry = my_entry(client, friend_auth, challenge)
    assert entry["ranked"] is True and entry["side"] == "board"
    assert entry["provisional"] is True
    assert "ranks with the others" in entry["provisional_note"]
    assert entry["fair_play"]["status"] == "pending"

    done = measure(settings, made + timedelta(minutes=2), challenge)
    assert done.kept == 2
    after = board(client, challenge)
    assert after["ranked"] == 2 and {e["fair_play"]["status"] for e in after["entries"]} == {"ok"}
    assert {e["provisional"] for e in after["entries"]} == {False}  # measured: it stands
    # The challenge is open: the measure's figures would tell of its deal.
    assert {e["fair_play"]["p_value"] for e in after["entries"]} == {None}
    assert all(e["fair_play"]["measured_at"] is not None for e in after["entries"])


@pytest.mark.slow
def test_a_new_account_plays_the_daily_apart_until_its_measure_says_ok(
    client_with: Callable[..., TestClient], settings: Settings
) -> None:
    """An account made at 08:00 of the day plays it (201): its result is ranked apart
    from the established ones (fair_play=provisional) until its measure, taken while the
    day lasts, says ok; then it takes its place. The figures show once the day is over."""
    day = datetime(2044, 6, 1, tzinfo=UTC)
    challenge = "2044-06-01.tripeaks"
    client = client_with(challenge_secret=SECRET)
    _, old_auth = new_player(client, name="Olga")  # made in 2026: established in 2044
    new, new_auth = new_player(client, name="Nova")
    made_at(client, new["id"], day + timedelta(hours=8))
    at(client, day + timedelta(hours=9))
    profile = client.get("/v1/players/me", headers=new_auth).json()
    assert datetime.fromisoformat(profile["provisional_until"]) == day + timedelta(hours=32)
    for auth in (old_auth, new_auth):
        finish(client, enter(client, challenge, auth))

    shown = board(client, challenge)
    assert names(shown["entries"]) == ["Olga"] and shown["ranked"] == 1
    assert shown["entries"][0]["provisional"] is False
    apart = board(client, challenge, fair_play="provisional")
    assert names(apart["entries"]) == ["Nova"] and apart["ranked"] == 1
    [nova] = apart["entries"]
    assert nova["provisional"] is True and nova["fair_play"]["status"] == "pending"
    entry = my_entry(client, new_auth, challenge)
    assert entry["ranked"] is False and entry["side"] == "provisional"
    assert "ranked apart" in entry["provisional_note"]
    r = client.get(
        f"/v1/challenges/{challenge}/leaderboard", params={"around": "me"}, headers=new_auth
    )
    assert r.status_code == 404 and "fair_play=provisional" in r.json()["detail"]

    done = measure(settings, day + timedelta(hours=9, minutes=5), challenge)
    assert (done.ok, done.flagged) == (2, 0)
    shown = board(client, challenge)
    assert sorted(names(shown["entries"])) == ["Nova", "Olga"] and shown["ranked"] == 2
    assert board(client, challenge, fair_play="provisional")["entries"] == []
    entry = my_entry(client, new_auth, challenge)
    assert entry["ranked"] is True and entry["side"] == "board"
    assert "taken its place" in entry["provisional_note"]
    assert entry["fair_play"]["status"] == "ok" and entry["fair_play"]["p_value"] is None
    around = client.get(
        f"/v1/challenges/{challenge}/leaderboard", params={"around": "me"}, headers=new_auth
    )
    assert around.status_code == 200, around.text

    at(client, day + timedelta(days=1, hours=1))
    closed = board(client, challenge)
    assert all(e["fair_play"]["p_value"] is not None for e in closed["entries"])


@pytest.mark.slow
def test_a_new_account_plays_an_event_round_apart_until_its_measure_says_ok(
    client_with: Callable[..., TestClient], settings: Settings
) -> None:
    """An account made after an event's edition opened joins it and plays a round (201);
    on the round's board and the edition's, its result is apart until measured ok."""
    client = client_with(operator_token=TOKEN, challenge_secret=SECRET)
    start = datetime(2045, 4, 7, tzinfo=UTC)
    at(client, start)
    r = client.post(
        "/v1/operator/events",
        json={
            "name": "Newcomers' cup",
            "starts_at": iso(start),
            "ends_at": iso(start + timedelta(days=1)),
        },
        headers=OPERATOR,
    )
    assert r.status_code == 201, r.text
    event = r.json()
    new, new_auth = new_player(client, name="Nova")
    made_at(client, new["id"], start + timedelta(minutes=30))
    _, old_auth = new_player(client, name="Olga")
    at(client, start + timedelta(hours=1))
    for auth in (old_auth, new_auth):
        joined = client.post(f"/v1/events/{event['id']}/join", headers=auth)
        assert joined.status_code == 200, joined.text
        r = client.post(f"/v1/events/{event['id']}/rounds/1/games", headers=auth)
        assert r.status_code == 201, r.text
        finish(client, r.json())
    round_id = f"{event['id']}.0.1"
    edition = f"/v1/events/{event['id']}/editions/0/leaderboard"

    def boards(query: dict[str, str]) -> tuple[list[str], list[str]]:
        r = client.get(edition, params=query)
        assert r.status_code == 200, r.text
        return names(board(client, round_id, **query)["entries"]), names(r.json()["entries"])

    assert boards({}) == (["Olga"], ["Olga"])
    assert boards({"fair_play": "provisional"}) == (["Nova"], ["Nova"])
    measure(settings, start + timedelta(hours=1, minutes=5), round_id)
    rounds, totals = boards({})
    assert sorted(rounds) == sorted(totals) == ["Nova", "Olga"]
    assert boards({"fair_play": "provisional"}) == ([], [])


def hint_bot_line(day: str) -> list[str]:
    """The server's hint, seeing only the player's view, playing the day's deal."""
    rules, layout = daily_rules("tripeaks"), get_layout("tripeaks")
    strategy = STRATEGIES["hint"](rules, layout, HintSettings(samples=16, seconds=None))
    state = new_game(day_deal(day), rules, layout)
    moves: list[str] = []
    while not state.is_over:
        move = strategy(player_view(state), len(moves)).move
        moves.append(move)
        state = apply(state, move)
    return moves


# Four days' hint-bot games and their measures: a minute a database.
@pytest.mark.slow
def test_an_honest_new_player_is_never_flagged(
    client_with: Callable[..., TestClient], settings: Settings
) -> None:
    """New accounts (made the morning of the day) playing fixed days' deals with the
    server's hint, which sees only their view: every result is measured ok, and each
    takes its place on the board."""
    client = client_with(challenge_secret=SECRET)
    days = ["2044-06-10", "2044-06-11", "2044-06-12", "2044-06-13"]
    players = []
    for day in days:
        start = datetime.fromisoformat(day).replace(tzinfo=UTC)
        player, auth = new_player(client)
        made_at(client, player["id"], start + timedelta(hours=7))
        at(client, start + timedelta(hours=8))
        play(client, enter(client, f"{day}.tripeaks", auth), hint_bot_line(day))
        players.append(player["id"])
    last = datetime.fromisoformat(days[-1]).replace(tzinfo=UTC) + timedelta(hours=9)
    for day, player_id in zip(days, players, strict=True):
        done = measure(settings, last, f"{day}.tripeaks")
        assert (done.ok, done.flagged) == (1, 0)
        [entry] = board(client, f"{day}.tripeaks")["entries"]
        assert entry["player_id"] == player_id and entry["fair_play"]["status"] == "ok"
