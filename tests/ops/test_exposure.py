"""What a deployment shows besides the API: the interactive docs and the spec
(DOCS_ENABLED) and the metrics (METRICS_TOKEN), through a real server."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest

from app.ops.migrations import upgrade
from tests.fixtures.servers import ROOT, live_server

pytestmark = pytest.mark.slow

TOKEN = "scrape-me-0123456789abcdef"
DOCS = ("/docs", "/redoc", "/openapi.json")


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite:///{tmp_path_factory.mktemp('exposure') / 'db.sqlite3'}"
    upgrade(url)
    return url


@pytest.fixture(scope="module")
def closed(database: str) -> Iterator[httpx.Client]:
    """A server as the image runs it: no docs, metrics behind a token."""
    with (
        live_server(database, DOCS_ENABLED="false", METRICS_TOKEN=TOKEN) as base,
        httpx.Client(base_url=base, timeout=30) as c,
    ):
        yield c


@pytest.fixture(scope="module")
def default(database: str) -> Iterator[httpx.Client]:
    with live_server(database) as base, httpx.Client(base_url=base, timeout=30) as c:
        yield c


def test_docs_are_served_by_default_and_not_when_disabled(
    default: httpx.Client, closed: httpx.Client
) -> None:
    for path in DOCS:
        assert default.get(path).status_code == 200, path
        r = closed.get(path)
        assert r.status_code == 404, path
        assert r.headers["content-type"] == "application/problem+json"
    assert closed.get("/v1/layouts").status_code == 200  # the API itself is all there
    assert closed.get("/docs/oauth2-redirect").status_code == 404


def _references(html: str) -> list[str]:
    """Every URL a page loads or links: src and href attributes, and spec-url/url: ..."""
    found = re.findall(r'(?:src|href|spec-url)="([^"]*)"', html)
    found += re.findall(r"\burl: '([^']*)'", html)
    return found


def test_the_docs_load_nothing_from_elsewhere(default: httpx.Client, closed: httpx.Client) -> None:
    """/docs and /redoc work offline: their scripts, styles and icon are served here."""
    for page, script in (("/docs", "swagger-ui-bundle.js"), ("/redoc", "redoc.standalone.js")):
        html = default.get(page).text
        assert "http://" not in html and "https://" not in html and "//" + "cdn" not in html
        refs = _references(html)
        assert any(ref.endswith(script) for ref in refs), (page, refs)
        assert "/openapi.json" in refs, (page, refs)
        for ref in refs:
            assert ref.startswith("/") and not ref.startswith("//"), (page, ref)
            asset = default.get(ref)
            assert asset.status_code == 200, (page, ref)
            assert len(asset.content) > 0, (page, ref)
            if ref.endswith(".js"):
                assert "javascript" in asset.headers["content-type"], ref
                assert len(asset.content) > 100_000, ref  # the bundle itself, not a stub
            assert closed.get(ref).status_code == 404, ref  # DOCS_ENABLED=false: none of it


def test_the_committed_spec_is_checked_whatever_docs_enabled_says() -> None:
    env = {**os.environ, "DOCS_ENABLED": "false", "METRICS_TOKEN": TOKEN}
    check = subprocess.run(
        [sys.executable, "-m", "app.openapi", "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0, check.stderr


def test_without_a_token_metrics_public_false_serves_no_metrics(database: str) -> None:
    """As the image runs (METRICS_PUBLIC=false) before a deployment gives a token: no
    /metrics at all, a 404 problem, whatever the request carries."""
    with (
        live_server(database, METRICS_PUBLIC="false") as base,
        httpx.Client(base_url=base, timeout=30) as c,
    ):
        for headers in ({}, {"Authorization": f"Bearer {TOKEN}"}):
            r = c.get("/metrics", headers=headers)
            assert r.status_code == 404, r.text
            assert r.headers["content-type"] == "application/problem+json"
        assert c.get("/healthz").status_code == 200


def test_metrics_need_the_token_when_one_is_set(
    default: httpx.Client, closed: httpx.Client
) -> None:
    assert default.get("/metrics").status_code == 200  # none set: open, as before
    for headers in (
        {},
        {"Authorization": "Bearer wrong-token-0123456789"},
        {"Authorization": f"Bearer {TOKEN}x"},
        {"Authorization": f"Basic {TOKEN}"},
        {"Authorization": TOKEN},
    ):
        r = closed.get("/metrics", headers=headers)
        assert r.status_code == 401, headers
        assert r.headers["content-type"] == "application/problem+json"
        assert r.json()["type"] == "/problems/metrics-unauthorized"
        assert r.headers["www-authenticate"].startswith("Bearer ")
        assert TOKEN not in r.text
    r = closed.get("/metrics", headers={"Authorization": f"bearer {TOKEN}"})
    assert r.status_code == 200
    assert "tripeaks_http_requests_total" in r.text
