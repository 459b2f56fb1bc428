"""clients/python/bot.py, the bot guide's example, run as a bot author runs it against a
live server: it plays its games from each state's legal moves and prints every game's
result; when it meets the game-creation rate limit, it says so and waits as Retry-After
says. Two of it, as two bot accounts, duel each other on the bot ladder (``--duels``)."""

from __future__ import annotations

import re
import subprocess
import sys

import httpx
import pytest

from tests.fixtures.servers import ROOT, live_server

pytestmark = pytest.mark.slow

RESULT = re.compile(r"^deal (\d+): (won|lost), score (-?\d+)$", re.M)


def bot(base: str, games: int) -> list[str]:
    return [sys.executable, "clients/python/bot.py", "--base", base, "--games", str(games)]


def test_the_example_bot_plays_its_games(database_url: str) -> None:
    with live_server(database_url) as base:
        done = subprocess.run(
            bot(base, 5), cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
        )
    assert done.returncode == 0, done.stderr
    results = RESULT.findall(done.stdout)
    assert [int(deal) for deal, _, _ in results] == [1, 2, 3, 4, 5], done.stdout
    assert {status for _, status, _ in results} <= {"won", "lost"}


def test_the_example_bot_waits_as_a_429_says(database_url: str) -> None:
    # Two games an hour: the third creation is refused however slow the machine is, and
    # the bot waits as Retry-After says rather than failing (the test stops it there).
    with (
        live_server(database_url, RATE_LIMIT_CREATE="2/hour") as base,
        subprocess.Popen(
            bot(base, 3), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        ) as proc,
    ):
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if "rate-limited" in line:
                break
        proc.terminate()
        stderr = proc.stderr.read() if proc.stderr else ""
    output = "".join(lines)
    assert [int(deal) for deal, _, _ in RESULT.findall(output)] == [1, 2], output + stderr
    waiting = re.search(r"rate-limited: waiting (\d+) s", output)
    assert waiting is not None, output + stderr
    assert 1 <= int(waiting[1]) <= 3600


PLAYED = re.compile(
    r"^duel (\S+): played as (host|challenger), (won|lost|conceded), score -?\d+$", re.M
)
DECIDED = re.compile(
    r"^duel (\S+): (won|lost|draw) against (.+), (-?\d+) to (-?\d+), rating 1500 -> (\d+)$", re.M
)
RATED = re.compile(r"^rating (\d+) \(provisional\) in tripeaks\.standard: 1 duel\(s\), ", re.M)
PLACE = re.compile(r"^place ([12]) of 2 on the bot board of tripeaks\.standard$", re.M)
OPPOSITE = {"won": "lost", "lost": "won", "draw": "draw"}


def duel_bot(base: str, *args: str) -> list[str]:
    return [sys.executable, "clients/python/bot.py", "--base", base, "--duels", "1", *args]


def test_two_bots_duel_each_other_on_the_bot_ladder(duel_server: str) -> None:
    """Two bot processes make a ladder, on a database of the test's own: bot B's account
    has a duel it opened and stopped playing after one move; bot A, a new account, is
    matched to that duel (bots duel bots), plays its game and waits for B's result; bot B,
    run with its key, is refused a new duel while that game is unfinished, resumes it and
    ends the duel. Both print the result (each the other's), their rating and their place
    on the bot board, where both are rated, and the people's board has neither."""
    with httpx.Client(base_url=duel_server, timeout=60) as client:
        b = client.post("/v1/players", json={"name": "bot B", "kind": "bot"}).json()
        b_auth = {"Authorization": f"Bearer {b['key']}"}
        opened = client.post("/v1/duels", json={}, headers=b_auth)
        assert opened.status_code == 201, opened.text
        duel = opened.json()
        moved = client.post(f"/v1/games/{duel['game_id']}/draw", headers=b_auth)
        assert moved.json()["status"] == "in_progress"

        a_command = duel_bot(duel_server, "--name", "bot A", "--wait", "120")
        with subprocess.Popen(
            a_command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        ) as a:
            assert a.stdout is not None
            a_lines = []
            for line in a.stdout:  # until A waits for its opponent (or ends, failing below)
                a_lines.append(line)
                if line.startswith("waiting up to"):
                    break
            b_command = duel_bot(duel_server, "--key", b["key"])
            b_done = subprocess.run(
                b_command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
            )
            a_rest, a_err = a.communicate(timeout=120)
        a_out = "".join(a_lines) + a_rest
        assert a.returncode == 0, a_out + a_err
        assert b_done.returncode == 0, b_done.stdout + b_done.stderr
        b_out = b_done.stdout

        assert PLAYED.findall(a_out)[0][:2] == (duel["id"], "challenger"), a_out
        assert "waiting up to 120 s for 1 duel(s) to be decided" in a_out
        assert f"resuming game {duel['game_id']} of duel {duel['id']}" in b_out, b_out
        assert PLAYED.findall(b_out)[0][:2] == (duel["id"], "host"), b_out
        a_result, b_result = DECIDED.findall(a_out), DECIDED.findall(b_out)
        assert len(a_result) == len(b_result) == 1, a_out + b_out
        (a_id, a_won, a_them, a_score, a_their, a_rating) = a_result[0]
        (b_id, b_won, b_them, b_score, b_their, b_rating) = b_result[0]
        assert a_id == b_id == duel["id"]
        assert (a_them, b_them) == ("bot B", "bot A")
        assert b_won == OPPOSITE[a_won] and (a_score, a_their) == (b_their, b_score)
        assert int(a_rating) - 1500 == 1500 - int(b_rating)
        assert RATED.search(a_out) and RATED.search(b_out), a_out + b_out
        places = {PLACE.findall(a_out)[0], PLACE.findall(b_out)[0]}
        assert places == ({"1"} if a_won == "draw" else {"1", "2"})

        bots = client.get("/v1/ratings/tripeaks.standard", params={"kind": "bot"}).json()
        assert bots["rated"] == 2
        assert {e["name"]: e["rating"] for e in bots["entries"]} == {
            "bot A": int(a_rating),
            "bot B": int(b_rating),
        }
        people = client.get("/v1/ratings/tripeaks.standard", params={"kind": "human"}).json()
        assert people["rated"] == 0
