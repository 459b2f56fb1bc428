"""The duel tests' fixtures: a fresh database of a test's own, on each backend."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.ops.migrations import upgrade
from tests.fixtures.postgres import new_postgres_database


@pytest.fixture(params=["sqlite", "postgresql"])
def scratch_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh database of the test's own, migrated: nobody else's duels to match."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'duels.sqlite3'}"
        upgrade(url)
        yield url
    else:
        with new_postgres_database() as url:
            upgrade(url)
            yield url
