"""clients/python/bot.py, the bot guide's example, run as a bot author runs it against a
live server: it plays its games from each state's legal moves and prints every game's
result; when it meets the game-creation rate limit, it says so and waits as Retry-After
says."""

from __future__ import annotations

import re
import subprocess
import sys

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
