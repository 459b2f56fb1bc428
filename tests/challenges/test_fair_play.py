"""The fair-play measure on the board, through HTTP on SQLite and PostgreSQL: measured by
the function the servers' scheduled job and ``python -m app.ops.fairplay`` run, while the
challenge is open, its figures shown once it has closed; a player who plays the deal's
best line is flagged and ranked apart at once, a greedy player is not;
``fair_play=flagged`` lists the flagged; the player's own view says why; the operator's
threshold decides; a short game of the best line, which its own measure cannot flag, is
flagged with the player's earlier results combined, and a result that shows nothing
itself never is; the stock's evidence of each result, summed over the player's last
results (the operator's window), flags a player who knew the stock and tells them why.
The test knows the server's secret, so it derives the day's deal (and its best line) as
the server does; the days are in 2044, which no other test plays (the app commits for
real)."""

from __future__ import annotations

import asyncio
import math
import zlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.challenges.deals import daily_rules, find_daily_deal
from app.engine import Deal, apply, get_layout, new_game
from app.engine.fairplay import PLAYER_LEAN, combined, peeking_move, stock_evidence
from app.engine.game import legal_moves
from app.engine.moves import Concede, Undo
from app.engine.solver import solve_best
from app.ops.fairplay import main, run
from app.settings import Settings
from tests.challenges.test_set_challenges import enter
from tests.fixtures.games import new_player

# A secret whose day's deal has a best line with 11 telling decisions (p = 4e-5).
SECRET = "fair-play-test-secret-06-0123456789abcdef"


def at(client: TestClient, moment: datetime) -> None:
    client.app.state.clock = lambda: moment  # type: ignore[attr-defined]


def day_deal(day: str) -> Deal:
    """The day's deal, derived as the server does."""
    deal, _ = find_daily_deal(SECRET.encode(), day, "tripeaks", 60)
    assert deal is not None
    return deal


def best_line(day: str) -> list[str]:
    start = new_game(day_deal(day), daily_rules("tripeaks"), get_layout("tripeaks"))
    return [m for m in solve_best(start).line if m != "concede"]


def stock_line(day: str) -> list[str]:
    """A player who knows the stock's order (the hint's sampling, the stock known)."""
    state = new_game(day_deal(day), daily_rules("tripeaks"), get_layout("tripeaks"))
    moves: list[str] = []
    while not state.is_over:
        choices = [str(m) for m in legal_moves(state) if not isinstance(m, Undo | Concede)]
        move = choices[0]
        if len(choices) > 1:
            move = peeking_move(state, "stock", samples=24, seed=len(moves))
        moves.append(move)
        state = apply(state, move)
    return moves


def evidence(day: str, moves: list[str]) -> float:
    """The stock's evidence of a game, as the server measures it."""
    seed = zlib.crc32(f"{day}.tripeaks".encode())
    rules, layout = daily_rules("tripeaks"), get_layout("tripeaks")
    return stock_evidence(day_deal(day), rules, moves, layout, seed=seed).z


def play(client: TestClient, game: dict[str, Any], moves: list[str]) -> dict[str, Any]:
    auth = {"Authorization": f"Bearer {game['token']}"}
    state = game
    for move in moves:
        r = client.post(f"/v1/games/{game['id']}/moves", json={"move": move}, headers=auth)
        assert r.status_code == 200, r.text
        state = r.json()
    return state


def greedy(client: TestClient, game: dict[str, Any]) -> dict[str, Any]:
    """Play the card holding up the most cards when one fits, else draw, to the end."""
    auth = {"Authorization": f"Bearer {game['token']}"}
    state = game
    while state["status"] == "in_progress":
        legal = [m["move"] for m in state["legal_moves"]]
        plays = [m for m in legal if m.startswith("play ")]
        move = min(plays, key=lambda m: int(m.split()[1])) if plays else "draw"
        if move not in legal:
            move = "concede"
        r = client.post(f"/v1/games/{game['id']}/moves", json={"move": move}, headers=auth)
        assert r.status_code == 200, r.text
        state = r.json()
    return state


def measure(settings: Settings, now: datetime, challenge: str) -> Any:
    return asyncio.run(run(settings, now, 100, challenge))


def board(client: TestClient, challenge: str, **query: str) -> Any:
    r = client.get(f"/v1/challenges/{challenge}/leaderboard", params=query)
    assert r.status_code == 200, r.text
    return r.json()


@pytest.mark.slow
def test_the_best_line_is_flagged_while_the_day_lasts_and_ranked_apart(
    client_with: Callable[..., TestClient], settings: Settings
) -> None:
    day = datetime(2044, 5, 10, tzinfo=UTC)
    challenge = "2044-05-10.tripeaks"
    client = client_with(challenge_secret=SECRET)
    cheat, cheat_auth = new_player(client, name="Clair")
    honest, honest_auth = new_player(client, name="Honor")
    at(client, day + timedelta(hours=9))
    for auth, moves in ((cheat_auth, best_line("2044-05-10")), (honest_auth, None)):
        game = enter(client, challenge, auth)
        end = greedy(client, game) if moves is None else play(client, game, moves)
        if end["status"] == "in_progress":
            play(client, end, ["concede"])

    # Before the measure every result is pending, on the board.
    open_board = board(client, challenge)
    assert [e["name"] for e in open_board["entries"]] == ["Clair", "Honor"]
    assert {e["fair_play"]["status"] for e in open_board["entries"]} == {"pending"}

    # Measured while the day lasts: the best line is flagged and leaves the board at once,
    # the greedy game is not; the figures wait for the day's end (they would tell of a
    # deal still in play).
    during = measure(settings, day + timedelta(hours=9, minutes=5), challenge)
    assert (during.ok, during.flagged) == (1, 1)
    assert (
        measure(settings, day + timedelta(hours=9, minutes=10), challenge).kept == 0
    )  # measured once
    shown = board(client, challenge)
    assert [e["player_id"] for e in shown["entries"]] == [honest["id"]]
    assert shown["entries"][0]["fair_play"]["status"] == "ok"
    assert shown["entries"][0]["fair_play"]["p_value"] is None
    [hidden] = board(client, challenge, fair_play="flagged")["entries"]
    assert hidden["player_id"] == cheat["id"] and hidden["fair_play"]["telling"] is None
    mine = client.get("/v1/players/me/challenges", headers=cheat_auth).json()["challenges"]
    [entry_view] = [c["entry"] for c in mine if c["challenge"]["id"] == challenge]
    assert "shown once the challenge closes" in entry_view["fair_play_reason"]

    # Once it is over, the figures.
    at(client, day + timedelta(days=1, hours=1))
    shown = board(client, challenge)
    assert shown["ranked"] == 1
    [entry] = shown["entries"]
    assert entry["player_id"] == honest["id"] and entry["rank"] == 1
    assert entry["fair_play"]["status"] == "ok" and entry["fair_play"]["p_value"] > 0.01
    flagged = board(client, challenge, fair_play="flagged")
    assert flagged["ranked"] == 1
    [apart] = flagged["entries"]
    assert apart["player_id"] == cheat["id"] and apart["rank"] == 1
    assert apart["fair_play"]["status"] == "flagged"
    figures = apart["fair_play"]
    assert figures["telling"] >= 4 and figures["resolved"] == figures["telling"]
    assert figures["p_value"] < 0.01
    # The board around the flagged player has no result of theirs; their own view says why.
    r = client.get(
        f"/v1/challenges/{challenge}/leaderboard", params={"around": "me"}, headers=cheat_auth
    )
    assert r.status_code == 404 and r.json()["type"] == "/problems/no-ranked-result"
    mine = client.get("/v1/players/me/challenges", headers=cheat_auth).json()["challenges"]
    [entry_view] = [c["entry"] for c in mine if c["challenge"]["id"] == challenge]
    assert entry_view["ranked"] is False and entry_view["fair_play"]["status"] == "flagged"
    assert "flagged side" in entry_view["fair_play_reason"]
    theirs = client.get("/v1/players/me/challenges", headers=honest_auth).json()["challenges"]
    [honest_view] = [c["entry"] for c in theirs if c["challenge"]["id"] == challenge]
    assert honest_view["fair_play"]["status"] == "ok" and honest_view["fair_play_reason"] is None
    # One view at a time.
    r = client.get(
        f"/v1/challenges/{challenge}/leaderboard",
        params={"fair_play": "flagged", "around": "me"},
        headers=cheat_auth,
    )
    assert r.status_code == 422


@pytest.mark.slow
def test_the_operator_s_threshold_decides_what_is_flagged(
    client_with: Callable[..., TestClient], settings: Settings
) -> None:
    day = datetime(2044, 5, 11, tzinfo=UTC)
    challenge = "2044-05-11.tripeaks"
    client = client_with(challenge_secret=SECRET)
    _, auth = new_player(client)
    at(client, day + timedelta(hours=9))
    game = enter(client, challenge, auth)
    end = play(client, game, best_line("2044-05-11"))
    if end["status"] == "in_progress":
        play(client, end, ["concede"])
    lenient = settings.model_copy(update={"fair_play_threshold": 1e-12})
    assert measure(lenient, day + timedelta(days=1), challenge).flagged == 0
    at(client, day + timedelta(days=1, hours=1))
    [entry] = board(client, challenge)["entries"]
    assert entry["fair_play"]["status"] == "ok"
    assert entry["fair_play"]["telling"] > 0 and entry["fair_play"]["measured_at"] is not None
    assert board(client, challenge, fair_play="flagged")["entries"] == []


# A minute a database (three days' measures, the stock's evidence of each): slow.
@pytest.mark.slow
def test_a_player_s_results_are_combined_and_flag_one_that_leans_that_way(
    client_with: Callable[..., TestClient], settings: Settings
) -> None:
    """Two best lines whose measures (0.00073 each) a threshold of 1e-4 does not flag
    alone, and their player's, combined, does (8e-6); a greedy game of the same player
    after them, combined with them under the threshold too, is not flagged: it shows
    nothing itself (its own p-value over PLAYER_LEAN). The other player's greedy games
    stay ok."""
    client = client_with(challenge_secret=SECRET)
    cheat, cheat_auth = new_player(client, name="Clair")
    honest, honest_auth = new_player(client, name="Greedy")
    days = ["2044-05-16", "2044-05-17", "2044-05-19"]
    for day in days:
        at(client, datetime.fromisoformat(day).replace(tzinfo=UTC) + timedelta(hours=9))
        for player, auth in ((cheat, cheat_auth), (honest, honest_auth)):
            game = enter(client, f"{day}.tripeaks", auth)
            cheating = player is cheat and day != days[-1]
            end = play(client, game, best_line(day)) if cheating else greedy(client, game)
            if end["status"] == "in_progress":
                play(client, end, ["concede"])
    strict = settings.model_copy(update={"fair_play_threshold": 1e-4, "fair_play_results": 3})
    shown: dict[tuple[str, str], dict[str, Any]] = {}
    for day in days:
        start = datetime.fromisoformat(day).replace(tzinfo=UTC)
        measure(strict, start + timedelta(days=1, minutes=5), f"{day}.tripeaks")
        at(client, start + timedelta(days=2))
        for view in ({}, {"fair_play": "flagged"}):
            for e in board(client, f"{day}.tripeaks", **view)["entries"]:
                shown[day, e["player_id"]] = e["fair_play"]
    first, second, third = (shown[day, cheat["id"]] for day in days)
    # Neither best line is flagged by its own measure; the second is by the two combined.
    assert 1e-4 < first["p_value"] <= PLAYER_LEAN and 1e-4 < second["p_value"] <= PLAYER_LEAN
    assert first["status"] == "ok" and first["player_p_results"] == 1
    assert first["player_p_value"] == pytest.approx(first["p_value"])
    assert second["status"] == "flagged" and second["player_p_results"] == 2
    both = combined([first["p_value"], second["p_value"]])
    assert second["player_p_value"] == pytest.approx(both) and both < 1e-4
    # The greedy game after them: under the threshold combined, but not leaning itself.
    assert third["player_p_results"] == 3 and third["player_p_value"] < 1e-4
    assert third["p_value"] > PLAYER_LEAN and third["status"] == "ok"
    assert all(shown[day, honest["id"]]["status"] == "ok" for day in days)
    assert shown[days[-1], honest["id"]]["player_p_results"] == 3
    # The player's view, on a server of the measure's threshold, says why.
    same = client_with(challenge_secret=SECRET, fair_play_threshold=1e-4)
    at(same, datetime.fromisoformat(days[-1]).replace(tzinfo=UTC) + timedelta(days=2))
    mine = same.get("/v1/players/me/challenges", headers=cheat_auth).json()["challenges"]
    [entry] = [c["entry"] for c in mine if c["challenge"]["id"] == f"{days[1]}.tripeaks"]
    assert "over your last 2 results together" in entry["fair_play_reason"]


def moves_of(client: TestClient, game_id: str, auth: dict[str, str]) -> list[str]:
    r = client.get(f"/v1/games/{game_id}/moves", params={"limit": 1000}, headers=auth)
    assert r.status_code == 200, r.text
    return [m["move"] for m in r.json()["moves"]]


# A minute a database (three days' measures, the stock's evidence of each): slow.
@pytest.mark.slow
def test_the_stock_s_evidence_is_summed_over_a_player_s_last_results(
    client_with: Callable[..., TestClient], settings: Settings
) -> None:
    client = client_with(challenge_secret=SECRET)
    stock, stock_auth = new_player(client, name="Stock")
    honest, honest_auth = new_player(client, name="Greedy")
    days = ["2044-05-12", "2044-05-13", "2044-05-14"]
    played: dict[tuple[str, str], list[str]] = {}
    for day in days:
        start = datetime.fromisoformat(day).replace(tzinfo=UTC)
        at(client, start + timedelta(hours=9))
        for player, auth in ((stock, stock_auth), (honest, honest_auth)):
            game = enter(client, f"{day}.tripeaks", auth)
            end = play(client, game, stock_line(day)) if player is stock else greedy(client, game)
            if end["status"] == "in_progress":
                play(client, end, ["concede"])
            played[day, player["id"]] = moves_of(client, game["id"], auth)

    def figures(day: str) -> dict[str, dict[str, Any]]:
        at(client, datetime.fromisoformat(day).replace(tzinfo=UTC) + timedelta(days=2))
        shown = {}
        for view in ({}, {"fair_play": "flagged"}):
            for e in board(client, f"{day}.tripeaks", **view)["entries"]:
                shown[e["player_id"]] = e["fair_play"]
        return shown

    def after(day: str) -> datetime:
        return datetime.fromisoformat(day).replace(tzinfo=UTC) + timedelta(days=1, minutes=5)

    # The first day: each result's evidence, its player's sum over one result.
    measure(settings, after(days[0]), f"{days[0]}.tripeaks")
    first = figures(days[0])
    for player in (stock, honest):
        fair = first[player["id"]]
        assert fair["status"] == "ok" and fair["stock_decisions"] > 0
        assert (fair["player_stock_results"], fair["player_stock_z"]) == (1, fair["stock_z"])
    z = evidence(days[0], played[days[0], stock["id"]])
    assert first[stock["id"]]["stock_z"] == round(z, 3)  # the server's is the engine's

    # The second day, summed over the player's last two results, against a threshold
    # between the two players' sums: the one who knew the stock is flagged, and told why.
    sums = {}
    for player in (stock, honest):
        z = evidence(days[1], played[days[1], player["id"]])
        sums[player["id"]] = (first[player["id"]]["stock_z"] + z) / math.sqrt(2)
    assert sums[stock["id"]] > sums[honest["id"]]
    threshold = (sums[stock["id"]] + sums[honest["id"]]) / 2
    assert threshold > 0
    strict = settings.model_copy(
        update={
            "fair_play_threshold": 1e-12,  # the game's own measure flags nothing here
            "fair_play_stock_z": threshold,
            "fair_play_results": 2,
        }
    )
    done = measure(strict, after(days[1]), f"{days[1]}.tripeaks")
    assert (done.ok, done.flagged) == (1, 1)
    second = figures(days[1])
    for player in (stock, honest):
        fair = second[player["id"]]
        assert fair["player_stock_results"] == 2
        assert math.isclose(fair["player_stock_z"], sums[player["id"]], abs_tol=0.01)
    assert second[stock["id"]]["status"] == "flagged"
    assert second[honest["id"]]["status"] == "ok"
    # The player's view, on a server of the same settings as the measure's, says why.
    same = client_with(
        challenge_secret=SECRET,
        fair_play_threshold=strict.fair_play_threshold,
        fair_play_stock_z=strict.fair_play_stock_z,
    )
    at(same, datetime.fromisoformat(days[-1]).replace(tzinfo=UTC) + timedelta(days=2))
    mine = same.get("/v1/players/me/challenges", headers=stock_auth).json()["challenges"]
    [entry] = [c["entry"] for c in mine if c["challenge"]["id"] == f"{days[1]}.tripeaks"]
    assert "over your last 2 results" in entry["fair_play_reason"]
    assert "stock's true order" in entry["fair_play_reason"]

    # The third day: the window keeps the last two results, not three.
    lenient = settings.model_copy(update={"fair_play_results": 2})
    measure(lenient, after(days[2]), f"{days[2]}.tripeaks")
    third = figures(days[2])
    for player in (stock, honest):
        fair = third[player["id"]]
        assert fair["player_stock_results"] == 2
        expected = (second[player["id"]]["stock_z"] + fair["stock_z"]) / math.sqrt(2)
        assert math.isclose(fair["player_stock_z"], expected, abs_tol=0.01)


@pytest.mark.slow
def test_results_are_measured_several_at_a_time_each_once(
    client_with: Callable[..., TestClient], settings: Settings
) -> None:
    """``--workers 2``: every result measured and kept once; the command refuses none."""
    day = datetime(2044, 5, 15, tzinfo=UTC)
    challenge = "2044-05-15.tripeaks"
    client = client_with(challenge_secret=SECRET)
    at(client, day + timedelta(hours=9))
    for _ in range(3):
        _, auth = new_player(client)
        greedy(client, enter(client, challenge, auth))
    after = day + timedelta(days=1, minutes=5)
    done = asyncio.run(run(settings, after, 100, challenge, workers=2))
    assert done.ok + done.flagged == 3
    assert asyncio.run(run(settings, after, 100, challenge, workers=2)).ok == 0
    at(client, day + timedelta(days=1, hours=1))
    shown = (
        board(client, challenge)["entries"]
        + board(client, challenge, fair_play="flagged")["entries"]
    )
    assert len(shown) == 3
    assert all(e["fair_play"]["player_stock_results"] == 1 for e in shown)
    with pytest.raises(SystemExit):
        main(["--workers", "0"])
