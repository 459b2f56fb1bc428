"""The reference web client, played in a real browser.

A live server (SQLite) serves the page at ``/``; ``play.mjs`` drives Debian's Chromium
headless with playwright-core: it opens a link to an explicit deal, refuses a covered and
an unfitting card with a reason, draws with the keyboard, plays with Enter, Space and
clicks, takes a play back, reloads mid-game (the game resumes), wins, and sees the deal
verified against the commitment; then golf from the new-game panel, six peaks from a
link, and the same on a phone-sized screen. After each step it checks what the page shows
against the API's state. Screenshots go to ``var/screenshots/`` (or ``$SCREENSHOT_DIR``).

Needs ``/usr/bin/chromium`` (or ``$CHROMIUM``) and ``tests/web/node_modules`` (``npm ci``
there); ``make test`` installs both. Without them the test is skipped, except under CI.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.ops.migrations import upgrade
from app.settings import Settings
from tests.fixtures.deals import TRIPEAKS_CLEAR_ORDER, chain_deal, verify_commitment
from tests.fixtures.servers import ROOT, live_server

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "play.mjs"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SCREENSHOTS = Path(os.environ.get("SCREENSHOT_DIR", ROOT / "var" / "screenshots"))


def _missing() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed"
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium, or make test)"
    if not (HERE / "node_modules" / "playwright-core").is_dir():
        return "playwright-core is not installed (npm ci in tests/web, or make test)"
    return None


@pytest.fixture(scope="module")
def browser_ready() -> None:
    missing = _missing()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the browser test: {missing}")
        pytest.skip(missing)


def test_the_page_is_served_at_the_root_outside_the_api() -> None:
    client = TestClient(create_app(Settings(database_url="sqlite://")))
    page = client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert '<script type="module" src="web/js/main.js">' in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    head = client.head("/")
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-type"] == page.headers["content-type"]
    script = client.get("/web/js/main.js")
    assert script.status_code == 200
    assert "javascript" in script.headers["content-type"]
    # The API's own answers are untouched: unknown paths are still problems.
    for method, path in [("GET", "/v1/nothing"), ("POST", "/v1/nothing"), ("GET", "/web/nope.js")]:
        r = client.request(method, path)
        assert r.status_code == 404, (method, path)
        assert r.headers["content-type"] == "application/problem+json"
    spec = client.get("/openapi.json").json()
    assert all(p.startswith("/v1/") or p in {"/healthz", "/readyz"} for p in spec["paths"])


def test_the_page_plays_a_game_to_its_end_in_chromium(
    browser_ready: None, tmp_path: Path, sqlite_url: str
) -> None:
    upgrade(sqlite_url)
    # chain_deal wins in one streak from an Ace; put the fourth Ace on top of the stock
    # so that a draw first keeps the chain going.
    deal = chain_deal()
    stock = deal[29:]
    ace = next(c for c in stock if c.startswith("A"))
    stock.remove(ace)
    deal = [*deal[:29], ace, *stock]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with live_server(sqlite_url) as base:
        config = {
            "base": base,
            "deal": deal,
            "order": TRIPEAKS_CLEAR_ORDER,
            "screenshots": str(SCREENSHOTS),
            "chromium": CHROMIUM,
        }
        run = subprocess.run(
            ["node", str(DRIVER), json.dumps(config)],
            cwd=HERE,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        lines = run.stdout.strip().splitlines()
        seen: dict[str, Any] = json.loads(lines[-1]) if lines else {}
        assert run.returncode == 0, (
            f"the browser run failed: {seen.get('error') or run.stderr[-3000:]}\n"
            f"problems: {seen.get('problems')}\nsteps: {seen.get('steps')}"
        )
        assert seen["checks"] >= 30
        assert "does not go on" in seen["refusal"]

        # What the page said at the end is what the API says.
        final = seen["final"]
        r = httpx.get(
            f"{base}/v1/games/{final['id']}",
            headers={"Authorization": f"Bearer {final['token']}"},
            timeout=10,
        )
        state = r.json()
        assert state["status"] == "won"
        # A draw (-5), one streak of 28 (406) and three peaks (15 + 15 + 30).
        assert state["score"]["total"] == int(final["score"]) == -5 + 406 + 60
        assert state["reveal"]["deal"] == deal
        assert verify_commitment(state["commitment"], deal, state["reveal"]["salt"])
        assert "deal verified ✓" in final["verify"]

    for name in seen["screenshots"]:
        assert Path(name).stat().st_size > 10_000, name
