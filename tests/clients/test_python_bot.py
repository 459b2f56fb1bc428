"""clients/python/bot.py, the bot guide's example, run as a bot author runs it against a
live server: it plays its games from each state's legal moves, meets the game-creation
rate limit, waits as Retry-After says, and prints every game's result."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.fixtures.servers import ROOT, live_server

pytestmark = pytest.mark.slow


def test_the_example_bot_plays_its_games_through_a_rate_limit(database_url: str) -> None:
    # Two games a second a client: the bot's third creation meets a 429.
    with live_server(database_url, RATE_LIMIT_CREATE="2/second") as base:
        done = subprocess.run(
            [sys.executable, "clients/python/bot.py", "--base", base, "--games", "5"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    results = re.findall(r"^deal (\d+): (won|lost), score (-?\d+)$", done.stdout, re.M)
    assert [int(deal) for deal, _, _ in results] == [1, 2, 3, 4, 5], done.stdout
    assert "rate-limited: waiting" in done.stdout
