"""The reference web client, played in a real browser.

A live server (SQLite, roomy rate limits) serves the page at ``/``; ``play.mjs`` drives
Debian's Chromium headless with playwright-core through one scenario of
``scenarios.mjs`` a test: a whole game by clicks and keys on the desktop (refusals, undo,
a reload, a stale move, the win, its summary and analysis, hints, golf and six peaks); a
win and a loss at each screen size; a double tap on the stock after the last draw on a
phone; a tapped button's colour on a touch screen; rapid taps on a slow network; a bad
link; every card of every layout on every screen; the daily challenge to its leaderboard;
a challenge set among friends, its link copied and opened in another browser, played, its
board read among the people followed, then closed and practised; the player page's daily
streaks and badges; events the operator made, listed, joined, a round played and the
cohort's board.
After each step it checks what the page shows against the API's state; axe-core checks
the page at several states; the table's geometry (card width, rank size, the table's share
of the height, no control over a card) is asserted at each screen size. Each browser
context is a player with an address of its own (X-Forwarded-For, trusted from 127.0.0.1),
as players behind a proxy are. Screenshots go to ``var/screenshots/`` (or
``$SCREENSHOT_DIR``; ``make screenshots`` runs these tests for them alone).

Needs ``/usr/bin/chromium`` (or ``$CHROMIUM``) and ``tests/web/node_modules`` (``npm ci``
there); ``make test`` installs both. Without them the tests are skipped, except under CI.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from app.engine import Rules, apply, legal_moves, new_game, numbered_deal
from app.engine.solver import SearchBudget, solve_clear
from app.main import create_app
from app.ops.migrations import upgrade
from app.settings import Settings
from tests.fixtures.deals import TRIPEAKS_CLEAR_ORDER, chain_deal, losing_deal, verify_commitment
from tests.fixtures.servers import ROOT, live_server

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "play.mjs"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SCREENSHOTS = Path(os.environ.get("SCREENSHOT_DIR", ROOT / "var" / "screenshots"))
SCREENS = ("desktop", "portrait", "landscape")
# The server's operator token: the tests make events through the operator's API.
OPERATOR_TOKEN = "operator-token-of-the-browser-tests-0123456789"


def _missing() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed"
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium, or make test)"
    for package in ("playwright-core", "axe-core"):
        if not (HERE / "node_modules" / package).is_dir():
            return f"{package} is not installed (npm ci in tests/web, or make test)"
    return None


@pytest.fixture(scope="module")
def browser_ready() -> None:
    missing = _missing()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the browser test: {missing}")
        pytest.skip(missing)


@pytest.fixture(scope="module")
def server(browser_ready: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One live server for the module's scenarios, on a database of its own."""
    url = f"sqlite:///{tmp_path_factory.mktemp('web') / 'web.sqlite3'}"
    upgrade(url)
    # The scenarios' players are made now and play today's daily: their results are
    # provisional until the server's scheduled fair-play measure (on, as in production)
    # finds them fair. A challenge set for a tier draws for up to 25 s: on a loaded
    # machine 10 s can run out.
    with live_server(
        url,
        OPERATOR_TOKEN=OPERATOR_TOKEN,
        SCHEDULED_JOBS="true",
        DIFFICULTY_BUDGET_MS="25000",
        # Each browser context is a player with an address of its own (lib.mjs), passed
        # in X-Forwarded-For as a proxy would: the server trusts it from 127.0.0.1.
        FORWARDED_ALLOW_IPS="127.0.0.1",
    ) as base:
        yield base


def winning_deal() -> list[str]:
    """chain_deal (won in one streak from an Ace) with the fourth Ace on top of the stock,
    so that a draw first keeps the chain going."""
    deal = chain_deal()
    stock = deal[29:]
    ace = next(c for c in stock if c.startswith("A"))
    stock.remove(ace)
    return [*deal[:29], ace, *stock]


@functools.cache
def lost_winnable_deal_number() -> int:
    """A classic deal that can be cleared but is lost by drawing the whole stock first and
    then playing the first card that fits: its analysis has a move where the win was lost."""
    rules = Rules.for_layout("tripeaks")
    for number in range(200):
        state = start = new_game(numbered_deal(number), rules)
        while not state.is_over:
            moves = [str(m) for m in legal_moves(state)]
            state = apply(state, "draw" if "draw" in moves else moves[0])
        if state.outcome.value == "lost" and solve_clear(start, SearchBudget(seconds=2)).winnable:
            return number
    raise AssertionError("no such deal among the first 200")


def drive(base: str, scenario: str, timeout: float = 240, **config: Any) -> dict[str, Any]:
    """Run one scenario of scenarios.mjs against ``base``; answer what it saw."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    config = {
        "scenario": scenario,
        "base": base,
        "screenshots": str(SCREENSHOTS),
        "chromium": CHROMIUM,
        **config,
    }
    run = subprocess.run(
        ["node", str(DRIVER), json.dumps(config)],
        cwd=HERE,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    lines = run.stdout.strip().splitlines()
    seen: dict[str, Any] = json.loads(lines[-1]) if lines else {}
    assert run.returncode == 0, (
        f"the browser run failed: {seen.get('error') or run.stderr[-3000:]}\n"
        f"problems: {seen.get('problems')}\nsteps: {seen.get('steps')}"
    )
    for name in seen["screenshots"]:
        assert Path(name).stat().st_size > 5_000, name
    return seen


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


def test_the_page_uses_only_the_public_api_and_keeps_no_card_it_may_not_show() -> None:
    """The client's modules call /v1 (and the spec) only, and store only ids and keys."""
    sources = "\n".join(p.read_text() for p in sorted((ROOT / "web" / "js").glob("*.js")))
    paths = set(re.findall(r"[\"'`](/[a-z][^\"'`$?]*)", sources))
    assert paths, "no paths found"
    assert all(p.startswith(("/v1/", "/openapi.json")) for p in paths), paths
    stored = re.findall(r"localStorage\.setItem\(([^,]+),", sources)
    allowed = {"GAME_KEY", "OPTIONS_KEY", "ZOOM_KEY", "PLAYER_KEY"}
    assert {s.strip() for s in stored} <= allowed, stored


def test_the_page_plays_a_game_to_its_end_in_chromium(server: str) -> None:
    deal = winning_deal()
    seen = drive(server, "classic", deal=deal, order=TRIPEAKS_CLEAR_ORDER)
    assert seen["checks"] >= 30
    assert "does not go on" in seen["refusal"]
    # What the page said at the end is what the API says.
    final = seen["final"]
    r = httpx.get(
        f"{server}/v1/games/{final['id']}",
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
    assert "cleared it" in final["analysis"]


@pytest.mark.parametrize("screen", SCREENS)
def test_a_classic_game_is_won_by_taps_and_clicks(server: str, screen: str) -> None:
    drive(server, "win", screen=screen, deal=winning_deal(), order=TRIPEAKS_CLEAR_ORDER)


@pytest.mark.parametrize("screen", SCREENS)
def test_a_lost_game_shows_where_the_win_slipped_away(server: str, screen: str) -> None:
    seen = drive(server, "loss", screen=screen, deal_number=lost_winnable_deal_number())
    assert "slipped away" in seen["lossAnalysis"]


def test_a_second_tap_after_the_last_draw_keeps_the_summary(server: str) -> None:
    """On a phone the end panel's "New deal" button landed where the stock was: the second
    tap of a double tap dealt a new game and skipped the summary."""
    drive(server, "doubleTap", losing=losing_deal())


def test_a_tapped_button_keeps_its_colour_on_a_touch_screen(server: str) -> None:
    """Hover styles stuck after a tap: the yellow primary button turned white."""
    drive(server, "touchHover")


def test_rapid_taps_on_a_slow_network_are_each_applied_once(server: str) -> None:
    """Taps while a move was on its way were dropped: three stock taps gave one draw."""
    drive(server, "rapid", deal=winning_deal(), order=TRIPEAKS_CLEAR_ORDER)


def test_a_bad_link_then_cancel_deals_a_game(server: str) -> None:
    """/?layout=klondike, then Cancel, left "Loading…" for ever."""
    drive(server, "badLink")


def test_every_card_of_every_layout_fits_every_screen(server: str) -> None:
    """Inside the screen, rank and suit legible (16 px), cards 36 px wide on a phone or a
    zoom and pan that reach every card at 40 px (on a small phone, 320 px), the pan's
    buttons beside the table, never over a card; upright, the table 80% of the height;
    six peaks was 623 px wide on a phone and the stock below the fold sideways."""
    seen = drive(server, "fitAll")
    assert len(seen["fit"]) == 4 * 3, seen["fit"]


def test_the_daily_challenge_is_played_to_its_leaderboard(server: str) -> None:
    drive(server, "daily")


PHONE_AND_DESKTOP = ("desktop", "portrait")


@pytest.mark.parametrize("screen", PHONE_AND_DESKTOP)
def test_a_challenge_is_set_shared_played_by_a_friend_and_practised(
    server: str, screen: str
) -> None:
    """Set a challenge and copy its link; a second browser (a new player) opens it and
    plays; she follows the setter from the board and reads it among those she follows;
    the setter closes it and she practises its deal."""
    seen = drive(server, "friends", screen=screen)
    challenge = httpx.get(f"{server}/v1/challenges/{seen['challenge']}", timeout=10).json()
    assert challenge["status"] == "closed" and challenge["entries"] == 2
    assert challenge["creator_id"] == seen["players"]["ada"]
    board = httpx.get(f"{server}/v1/challenges/{seen['challenge']}/leaderboard", timeout=10).json()
    assert {e["player_id"] for e in board["entries"]} == set(seen["players"].values())


@pytest.mark.parametrize("screen", PHONE_AND_DESKTOP)
def test_the_player_page_shows_the_daily_streaks_and_badges(server: str, screen: str) -> None:
    drive(server, "streak", screen=screen)


def call(base: str, method: str, path: str, key: str | None = None, **kw: Any) -> Any:
    """The API, as a client with ``key`` (a player's, or the operator's token)."""
    headers = kw.pop("headers", {})
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    r = httpx.request(method, f"{base}{path}", headers=headers, timeout=120, **kw)
    assert r.is_success, f"{method} {path}: {r.status_code} {r.text}"
    return r.json() if r.content else None


def measured(base: str, board: str, ranked: int) -> Any:
    """The board once ``ranked`` results are on it: new accounts' results are ranked
    apart until the server's scheduled fair-play measure (a few seconds each) finds them
    fair. Waits for that outcome, with room for a loaded machine."""
    deadline = time.monotonic() + 300
    while True:
        shown = call(base, "GET", board)
        if shown["ranked"] >= ranked or time.monotonic() > deadline:
            assert shown["ranked"] == ranked, shown
            return shown
        time.sleep(1)


def make_event(base: str, **fields: Any) -> dict[str, Any]:
    event: dict[str, Any] = call(base, "POST", "/v1/operator/events", OPERATOR_TOKEN, json=fields)
    return event


def player_named(base: str, name: str) -> str:
    key: str = call(base, "POST", "/v1/players", json={"kind": "human", "name": name})["key"]
    return key


def play_round(base: str, key: str, event_id: str, round_: int, moves: int) -> None:
    """An attempt at a round by the API: a card that fits (else a draw), ``moves`` times,
    then conceded."""
    state = call(base, "POST", f"/v1/events/{event_id}/rounds/{round_}/games", key)
    game, token = f"/v1/games/{state['id']}", state["token"]
    for _ in range(moves):
        legal = state["legal_moves"]
        move = next((m for m in legal if m["kind"] == "play"), None) or next(
            (m for m in legal if m["kind"] in ("draw", "redeal")), None
        )
        if state["status"] != "in_progress" or move is None:
            break
        version = {"If-Match": f'"v{state["version"]}"'}
        state = call(base, "POST", f"{game}/moves", token, json=move, headers=version)
    if state["status"] == "in_progress":
        version = {"If-Match": f'"v{state["version"]}"'}
        call(base, "POST", f"{game}/concede", token, headers=version)


@pytest.fixture(scope="module")
def golf_week(server: str) -> dict[str, Any]:
    """A weekly golf event whose three rounds open one a day (from 00:00 UTC today): the
    second and third open later. Its first round enters a player (no join)."""
    now = datetime.now(UTC)
    event = make_event(
        server,
        name="Golf week",
        description="A round a day, a week to play them.",
        layout="golf",
        rounds=3,
        round_opening="one_per_day",
        join_required=False,
        schedule="weekly",
        weekday=now.strftime("%A").lower(),
        starts_at=now.isoformat(),
    )
    play_round(server, player_named(server, "Gil"), event["id"], 1, moves=3)
    return event


LEAGUES = {"desktop": "Weekend league", "portrait": "Pocket league"}


@pytest.mark.parametrize("screen", PHONE_AND_DESKTOP)
def test_an_event_is_listed_joined_and_its_round_ranked_in_a_cohort(
    server: str, golf_week: dict[str, Any], screen: str
) -> None:
    """The operator makes a league (3 rounds, 2 tries each, cohorts of 3); Ann, Ben and Cy
    join and play (cohort 1), Dee and Eve too (cohort 2); the page lists the running
    events, opens the golf week (rounds that open later), joins the league (the sixth:
    cohort 2), plays round 1 and reads its cohort's board."""
    now = datetime.now(UTC)
    event = make_event(
        server,
        name=LEAGUES[screen],
        description="Three deals for everyone this weekend; the best of two tries at each.",
        rounds=3,
        attempts=2,
        cohort_size=3,
        starts_at=(now - timedelta(hours=1)).isoformat(),
        ends_at=(now + timedelta(days=2)).isoformat(),
    )
    for i, name in enumerate(["Ann", "Ben", "Cy", "Dee", "Eve"]):
        key = player_named(server, name)
        place = call(server, "POST", f"/v1/events/{event['id']}/join", key)
        assert (place["number"], place["cohort"]) == (i + 1, i // 3)
        play_round(server, key, event["id"], 1, moves=2 + 3 * i)
        if i < 2:
            play_round(server, key, event["id"], 2, moves=4)
    # Their accounts are new: their results are ranked apart until the server's scheduled
    # fair-play measure finds them fair, as the page's player's will be.
    measured(server, f"/v1/events/{event['id']}/editions/0/leaderboard?limit=100", 5)
    seen = drive(
        server, "events", screen=screen, event=event["id"], golf=golf_week["id"], timeout=480
    )
    me = seen["player"]
    path = f"/v1/events/{event['id']}/editions/0"
    edition = call(server, "GET", path)
    assert edition["entrants"] == 6 and [r["entries"] for r in edition["rounds"]] == [6, 2, 0]
    board = measured(server, f"{path}/leaderboard?limit=100", 6)
    assert me["id"] in {e["player_id"] for e in board["entries"]}
    cohort = call(server, "GET", f"{path}/leaderboard?cohort=mine", me["key"])
    assert [e["name"] for e in cohort["entries"]].count("Zoe") == 1
    assert {e["name"] for e in cohort["entries"]} == {"Dee", "Eve", "Zoe"}


def test_the_docs_render_under_their_content_security_policy(server: str) -> None:
    """/docs and /redoc, each with its CSP: the UI renders from the spec (an operation
    opens, ReDoc's search answers) and the browser reports no violation."""
    seen = drive(server, "docs")
    assert seen["violations"] == []


@pytest.fixture
def duel_server(browser_ready: None, tmp_path: Path) -> Iterator[str]:
    """A live server of its own for a duel scenario: a waiting duel another scenario left
    would be matched instead of opened."""
    url = f"sqlite:///{tmp_path / 'duels.sqlite3'}"
    upgrade(url)
    with live_server(
        url,
        SCHEDULED_JOBS="true",
        DIFFICULTY_BUDGET_MS="25000",
        FORWARDED_ALLOW_IPS="127.0.0.1",
    ) as base:
        yield base


@pytest.mark.parametrize("screen", PHONE_AND_DESKTOP)
def test_a_ranked_duel_is_played_by_two_players_to_their_ratings(
    duel_server: str, screen: str
) -> None:
    """Ada asks for a ranked duel and plays at once; Bea, in another browser, is matched to
    it and plays the same deal; both see the result and their rating's change; the rating
    board shows both (from the top, around Ada, among the people she follows); Ada's duels
    and her player page; Bea plays another. At the phone's size each screen's geometry."""
    base = duel_server
    seen = drive(base, "duel", screen=screen, timeout=480)
    ada, bea = seen["players"]["ada"], seen["players"]["bea"]
    duel = call(base, "GET", f"/v1/duels/{seen['duel']}", ada["key"])
    assert duel["status"] == "finished" and duel["opponent"]["player_id"] == bea["id"]
    assert duel["result"] in {"won", "lost", "draw"}
    board = call(base, "GET", "/v1/ratings/tripeaks.standard")
    assert {e["player_id"] for e in board["entries"]} == {ada["id"], bea["id"]}
    for who in (ada, bea):
        (rating,) = call(base, "GET", f"/v1/players/{who['id']}/ratings")["ratings"]
        assert rating["pool"] == "tripeaks.standard" and rating["games"] == 1
    mine = {e["player_id"]: e["rating"] for e in board["entries"]}
    assert mine[ada["id"]] == duel["you"]["rating"] + duel["you"]["rating_change"]
    if screen == "portrait":
        assert seen["geometry"]["rank"] >= 16
