"""A scheduled job that fails says so in the log as what it is: the database away (a lost
connection, a timeout) is a warning, as a request's 503 is, since the job runs again at its
next turn; anything else is an error with its traceback, a bug to look at."""

from __future__ import annotations

import logging

import psycopg
import pytest
from sqlalchemy.exc import OperationalError

from app.ops.jobs import failed


def test_a_job_failing_on_the_database_away_is_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    lost = OperationalError("SELECT 1", {}, psycopg.OperationalError("server closed"))
    with caplog.at_level(logging.INFO, logger="app.jobs"):
        failed(lost, "the prepare job failed: it runs again at its next turn")
    (record,) = caplog.records
    assert record.levelno == logging.WARNING
    assert record.getMessage().startswith("the prepare job failed")
    assert "the database is unavailable: OperationalError" in record.getMessage()
    assert record.exc_info is None


def test_a_job_failing_otherwise_is_an_error_with_its_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    try:
        raise ValueError("a bug")
    except ValueError as e:
        with caplog.at_level(logging.INFO, logger="app.jobs"):
            failed(e, "the purge job failed: it runs again at its next turn")
    (record,) = caplog.records
    assert record.levelno == logging.ERROR
    assert record.getMessage() == "the purge job failed: it runs again at its next turn"
    assert record.exc_info is not None and record.exc_info[0] is ValueError
