"""The daily challenge's streaks and monthly badges, kept as each daily ends, through HTTP
on SQLite and PostgreSQL: dailies won by playing the solver's line of each day's deal
(the test knows the server's secret, so it derives the deals as the server does), with
the server's clock set by the test.

The days are in 2041, which no other test plays: the app here commits for real."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta
from functools import cache
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.challenges.deals import daily_rules, find_daily_deal
from app.engine import get_layout, new_game
from app.engine.solver import solve_clear
from tests.fixtures.games import new_player

SECRET = "streaks-and-badges-test-secret-0123456789"
JUNE = [date(2041, 6, d) for d in range(1, 31)]


@cache
def win_line(day: date, layout: str = "tripeaks") -> tuple[str, ...]:
    deal, _ = find_daily_deal(SECRET.encode(), day.isoformat(), layout, seconds=60)
    assert deal is not None
    line = solve_clear(new_game(deal, daily_rules(layout), get_layout(layout))).line
    assert line
    return line


class Days:
    """A player's dailies on a server whose clock the test sets."""

    def __init__(self, client: TestClient) -> None:
        self.client = client

    def at(self, moment: datetime) -> None:
        self.client.app.state.clock = lambda: moment  # type: ignore[attr-defined]

    def play(self, auth: dict[str, str], day: date, *, win: bool) -> None:
        self.at(datetime.combine(day, time(9), tzinfo=UTC))
        r = self.client.post(f"/v1/challenges/{day.isoformat()}.tripeaks/games", headers=auth)
        assert r.status_code == 201, r.text
        game = r.json()["id"]
        for move in win_line(day) if win else ("concede",):
            r = self.client.post(f"/v1/games/{game}/moves", json={"move": move}, headers=auth)
            assert r.status_code == 200, r.text
        assert r.json()["status"] == ("won" if win else "conceded")

    def profile(self, player_id: str, moment: datetime) -> dict[str, Any]:
        self.at(moment)
        r = self.client.get(f"/v1/players/{player_id}")
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        return body


def _evening(day: date) -> datetime:
    return datetime.combine(day, time(21), tzinfo=UTC)


@pytest.mark.slow
def test_streaks_across_a_month_and_badges_at_10_20_and_every_day(
    client_with: Callable[..., TestClient],
) -> None:
    days = Days(client_with(challenge_secret=SECRET))
    ada, auth = new_player(days.client, name="ada")

    def daily(moment: datetime) -> dict[str, Any]:
        [record] = days.profile(ada["id"], moment)["daily"]
        assert isinstance(record, dict)
        return record

    def badges(moment: datetime) -> list[tuple[str, str, int]]:
        got = days.profile(ada["id"], moment)["badges"]
        return [(b["month"], b["tier"], b["wins"]) for b in got]

    for n, day in enumerate(JUNE, start=1):
        days.play(auth, day, win=True)
        if n == 9:
            assert badges(_evening(day)) == []
        if n == 10:
            assert badges(_evening(day)) == [("2041-06", "bronze", 10)]
        if n == 19:
            assert badges(_evening(day)) == [("2041-06", "bronze", 19)]
        if n == 20:
            assert badges(_evening(day)) == [("2041-06", "silver", 20)]
    june_30 = JUNE[-1]
    assert badges(_evening(june_30)) == [("2041-06", "gold", 30)]
    record = daily(_evening(june_30))
    assert (record["won_streak"], record["won_longest"], record["played_streak"]) == (30, 30, 30)
    assert record["last_won"] == "2041-06-30"

    # The run is current through the next day, and goes on into July.
    july_1 = date(2041, 7, 1)
    assert daily(datetime.combine(july_1, time(23, 59), tzinfo=UTC))["won_streak"] == 30
    days.play(auth, july_1, win=True)
    assert daily(_evening(july_1))["won_streak"] == 31
    # July has one win: no badge; June's stays.
    assert badges(_evening(july_1)) == [("2041-06", "gold", 30)]
    # Once July 2's challenge is over without a result, the run shows as broken.
    july_3 = datetime(2041, 7, 3, tzinfo=UTC)
    assert daily(july_3 - timedelta(microseconds=1))["won_streak"] == 31
    broken = daily(july_3)
    assert (broken["won_streak"], broken["won_longest"], broken["played_streak"]) == (0, 31, 0)
    assert broken["played_longest"] == 31


@pytest.mark.slow
def test_a_missed_day_and_a_lost_day_break_their_runs_and_bots_keep_their_own(
    client_with: Callable[..., TestClient],
) -> None:
    days = Days(client_with(challenge_secret=SECRET))
    bo, auth = new_player(days.client, name="bo")
    june = JUNE
    days.play(auth, june[0], win=True)
    days.play(auth, june[1], win=False)  # played, not won: the won run breaks
    record = days.profile(bo["id"], _evening(june[1]))["daily"][0]
    assert (record["won_streak"], record["played_streak"]) == (0, 2)
    assert (record["won_longest"], record["played_longest"]) == (1, 2)
    # June 3 missed.
    days.play(auth, june[3], win=True)
    record = days.profile(bo["id"], _evening(june[3]))["daily"][0]
    assert (record["won_streak"], record["won_longest"]) == (1, 1)
    assert (record["played_streak"], record["played_longest"]) == (1, 2)
    assert record["last_played"] == "2041-06-04"

    robot, robot_auth = new_player(days.client, name="robo", kind="bot")
    days.play(robot_auth, june[3], win=True)
    own = days.profile(robot["id"], _evening(june[3]))
    assert own["kind"] == "bot" and own["daily"][0]["won_streak"] == 1
    # The human's record is untouched by the bot's.
    assert days.profile(bo["id"], _evening(june[3]))["daily"][0]["won_longest"] == 1

    # A deleted account's streaks and badges go with its statistics.
    assert days.client.delete("/v1/players/me", headers=auth).status_code == 204
    assert days.client.get(f"/v1/players/{bo['id']}").status_code == 404
