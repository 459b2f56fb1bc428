"""A live server over a database of its own, for the tests of ranked duels.

Matching takes the nearest waiting duel of a pool, and a rating board counts every rated
player of it: on the run's shared database, a duel another test left waiting could be
taken in place of the test's own, and its players would share the board. A database made
for the test (migrated to head, on each backend) holds the test's players alone.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.ops.migrations import upgrade
from tests.fixtures.servers import live_server


@pytest.fixture
def duel_server(empty_database_url: str) -> Iterator[str]:
    """The base URL of a live server (production's settings) whose database holds only
    what the test makes."""
    upgrade(empty_database_url)
    with live_server(empty_database_url) as url:
        yield url
