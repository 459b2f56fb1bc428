"""Events through HTTP on SQLite and PostgreSQL: the operator's token, editions made by the
clock alone (set by the test, never by sleeping), joining and cohorts, rounds and their
totals, and the events file.

The apps here commit for real (``client_with``): each test's events are its own, by id.
The test knows the server's secret, so it derives a round's deal as the server does and
wins it with the solver's line where it needs a winner."""

from __future__ import annotations

import asyncio
import threading
import zlib
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, select

from app.challenges.deals import find_round_deal
from app.engine import Rules, format_deal, get_layout, new_game
from app.engine.difficulty import DifficultySettings, Tier
from app.engine.fairplay import measure
from app.engine.solver import solve_best, solve_clear
from app.events.models import Event
from app.ops.fairplay import run
from tests.fixtures.games import new_player
from tests.fixtures.servers import live_server

SECRET = "events-test-secret-0123456789-abcdefghij"
TOKEN = "operator-token-for-the-events-tests-0123"
OPERATOR = {"Authorization": f"Bearer {TOKEN}"}
FRIDAY = datetime(2042, 1, 3, tzinfo=UTC)  # a Friday
WEEK = timedelta(days=7)


def iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


class Server:
    """An app of the test's own (OPERATOR_TOKEN and CHALLENGE_SECRET set) and its clock."""

    def __init__(self, client: TestClient) -> None:
        self.client = client

    def at(self, moment: datetime) -> None:
        self.client.app.state.clock = lambda: moment  # type: ignore[attr-defined]

    def create(self, expect: int = 201, **body: Any) -> dict[str, Any]:
        body.setdefault("name", "Weekend league")
        body.setdefault("starts_at", iso(FRIDAY))
        r = self.client.post("/v1/operator/events", json=body, headers=OPERATOR)
        assert r.status_code == expect, r.text
        answer: dict[str, Any] = r.json()
        return answer

    def join(self, event: dict[str, Any], auth: dict[str, str], expect: int = 200) -> Any:
        r = self.client.post(f"/v1/events/{event['id']}/join", headers=auth)
        assert r.status_code == expect, r.text
        return r.json()

    def start(
        self, event: dict[str, Any], round_: int, auth: dict[str, str], expect: int = 201
    ) -> Any:
        r = self.client.post(f"/v1/events/{event['id']}/rounds/{round_}/games", headers=auth)
        assert r.status_code == expect, r.text
        return r.json()

    def play(self, game: dict[str, Any], auth: dict[str, str], moves: tuple[str, ...]) -> Any:
        r = None
        for move in moves:
            r = self.client.post(f"/v1/games/{game['id']}/moves", json={"move": move}, headers=auth)
            assert r.status_code == 200, r.text
        assert r is not None
        return r.json()

    def board(self, event: dict[str, Any], number: int, query: str = "", **headers: str) -> Any:
        url = f"/v1/events/{event['id']}/editions/{number}/leaderboard{query}"
        r = self.client.get(url, headers=headers)
        assert r.status_code == 200, r.text
        return r.json()


@pytest.fixture
def server(client_with: Callable[..., TestClient]) -> Iterator[Server]:
    yield Server(client_with(operator_token=TOKEN, challenge_secret=SECRET))


def win_line(round_id: str, rules: dict[str, Any]) -> tuple[str, ...]:
    found = find_round_deal(SECRET.encode(), round_id, rules, True, 60)
    assert found is not None
    deal, _ = found
    assert deal is not None
    game_rules = Rules.from_dict(rules)
    line = solve_clear(new_game(deal, game_rules, get_layout(game_rules.layout))).line
    assert line
    return line


def test_operator_routes_are_absent_without_a_token_and_refuse_a_wrong_one(
    client_with: Callable[..., TestClient],
) -> None:
    body = {"name": "x", "starts_at": iso(FRIDAY), "ends_at": iso(FRIDAY + WEEK)}
    bare = client_with()
    for method, path in (
        ("POST", "/v1/operator/events"),
        ("PATCH", "/v1/operator/events/AAAAAAAAAAAAAAAAAAAAAA"),
        ("POST", "/v1/operator/events/AAAAAAAAAAAAAAAAAAAAAA/cancel"),
        ("GET", "/v1/operator/events/AAAAAAAAAAAAAAAAAAAAAA/changes"),
    ):
        r = bare.request(method, path, json=body if method != "GET" else None, headers=OPERATOR)
        assert r.status_code == 404, (path, r.text)
        assert r.json()["type"] == "/problems/not-found"
    guarded = client_with(operator_token=TOKEN)
    r = guarded.post("/v1/operator/events", json=body)
    assert r.status_code == 401 and r.json()["type"] == "/problems/unauthorized"
    r = guarded.post("/v1/operator/events", json=body, headers={"Authorization": "Bearer wrong"})
    assert r.status_code == 403 and r.json()["type"] == "/problems/operator-token-refused"
    _, key = new_player(guarded)
    assert guarded.post("/v1/operator/events", json=body, headers=key).status_code == 403
    assert guarded.post("/v1/operator/events", json=body, headers=OPERATOR).status_code == 201


def test_a_weekly_event_across_two_editions(server: Server) -> None:
    """Golf (cards left, fewer first), two rounds, two attempts, cohorts of two. A round
    not played counts every tableau card (35); the best of two attempts counts."""
    event = server.create(
        layout="golf",
        rounds=2,
        attempts=2,
        cohort_size=2,
        schedule="weekly",
        weekday="friday",
        starts_at=iso(FRIDAY - timedelta(days=2)),  # a Wednesday: the first Friday after
    )
    assert event["starts_at"] == iso(FRIDAY) and event["state"] == "upcoming"
    server.at(FRIDAY - timedelta(seconds=1))
    _, ann = new_player(server.client, name="ann")
    early = server.client.post(f"/v1/events/{event['id']}/join", headers=ann)
    assert early.status_code == 409
    assert datetime.fromisoformat(early.json()["next_opens_at"]) == FRIDAY
    assert server.client.get(f"/v1/events/{event['id']}/editions/0").status_code == 409

    server.at(FRIDAY + timedelta(hours=9))
    players = {}
    for name in ("ann", "bob", "cy", "di", "eve"):
        who, auth = new_player(server.client, name=name)
        place = server.join(event, auth)
        players[name] = (who, auth, place)
    assert [p[2]["cohort"] for p in players.values()] == [0, 0, 1, 1, 2]
    assert [p[2]["number"] for p in players.values()] == [1, 2, 3, 4, 5]
    assert server.join(event, players["ann"][1]) == players["ann"][2]  # again: the same
    # The player's place, read again: the edition among their challenges.
    mine = server.client.get("/v1/players/me/challenges", headers=players["eve"][1]).json()
    place = next(m for m in mine["challenges"] if m["challenge"]["kind"] == "edition")
    assert (place["entry"]["number"], place["entry"]["cohort"]) == (5, 2)
    edition = server.client.get(f"/v1/events/{event['id']}/editions/0").json()
    assert edition["state"] == "open" and edition["entrants"] == 5
    assert [r["challenge_id"] for r in edition["rounds"]] == [
        f"{edition['id']}.1",
        f"{edition['id']}.2",
    ]
    assert all(r["reveal"] is None for r in edition["rounds"])
    rules = server.client.get(f"/v1/events/{event['id']}").json()["rules"]

    ann, bob, cy = players["ann"][1], players["bob"][1], players["cy"][1]
    # ann wins round 1 (0 cards) and leaves round 2: 0 + 35.
    game = server.start(event, 1, ann)
    assert game["challenge"]["id"] == f"{edition['id']}.1" and game["reveal"] is None
    hint = server.client.get(f"/v1/games/{game['id']}/hint", headers=ann)
    assert hint.status_code == 409
    assert server.play(game, ann, win_line(f"{edition['id']}.1", rules))["status"] == "won"
    # bob concedes round 1 twice: the better (fewer moves) counts; and round 2 once.
    first = server.play(server.start(event, 1, bob), bob, ("draw", "concede"))
    assert first["cards_left"] == 35
    server.play(server.start(event, 1, bob), bob, ("concede",))
    r = server.client.post(f"/v1/events/{event['id']}/rounds/1/games", headers=bob)
    assert r.status_code == 409 and r.json()["type"] == "/problems/already-entered"
    server.play(server.start(event, 2, bob), bob, ("concede",))
    # cy plays nothing: not ranked.
    board = server.board(event, 0)
    assert board["ranked"] == 2
    assert [(e["name"], e["score"], e["moves"], e["rank"]) for e in board["entries"]] == [
        ("ann", 35, len(win_line(f"{edition['id']}.1", rules)), 1),
        ("bob", 70, 2, 2),
    ]
    # The cohort board: ann and bob are cohort 0; cy's cohort (1) has no result yet.
    mine = server.board(event, 0, "?cohort=mine", **ann)
    assert [(e["name"], e["rank"], e["global_rank"]) for e in mine["entries"]] == [
        ("ann", 1, 1),
        ("bob", 2, 2),
    ]
    assert server.board(event, 0, "?cohort=mine", **cy)["entries"] == []
    assert server.board(event, 0, "?around=me&limit=1", **players["bob"][1])["ranked"] == 2
    # The same board is the edition's challenge's.
    same = server.client.get(f"/v1/challenges/{edition['id']}/leaderboard").json()
    assert same["entries"] == board["entries"]

    # The next week: a new edition, with deals of its own; the first is closed, revealed.
    server.at(FRIDAY + WEEK + timedelta(hours=1))
    now = server.client.get(f"/v1/events/{event['id']}").json()
    assert now["current_edition"] == 1 and now["state"] == "running"
    assert server.join(event, cy)["edition_id"] == f"{event['id']}.1"
    second = server.client.get(f"/v1/events/{event['id']}/editions/1").json()
    assert {r["commitment"] for r in second["rounds"]}.isdisjoint(
        {r["commitment"] for r in edition["rounds"]}
    )
    closed = server.client.get(f"/v1/events/{event['id']}/editions/0").json()
    assert closed["state"] == "closed"
    assert all(r["reveal"] is not None and r["best_score_searched"] for r in closed["rounds"])
    assert server.board(event, 0)["entries"] == board["entries"]  # kept
    listed = server.client.get(f"/v1/events/{event['id']}/editions").json()["editions"]
    assert [e["number"] for e in listed] == [1, 0]
    # A closed edition's round is practised as any closed challenge.
    practice = server.client.post(f"/v1/challenges/{edition['id']}.2/practice")
    assert practice.status_code == 201
    assert practice.json()["practice"]["challenge_id"] == f"{edition['id']}.2"
    # The generic start of a challenge does not start an event's round.
    r = server.client.post(f"/v1/challenges/{second['id']}.1/games", headers=cy)
    assert r.status_code == 404


def test_joining_rules_bots_and_rounds_that_open_one_a_day(server: Server) -> None:
    event = server.create(
        rounds=3,
        round_opening="one_per_day",
        join_required=True,
        ends_at=iso(FRIDAY + timedelta(days=3)),
    )
    server.at(FRIDAY + timedelta(hours=1))
    _, human = new_player(server.client)
    _, robot = new_player(server.client, kind="bot")
    r = server.client.post(f"/v1/events/{event['id']}/join", headers=robot)
    assert r.status_code == 403 and r.json()["type"] == "/problems/kind-not-admitted"
    assert r.json()["admits"] == "humans"
    r = server.client.post(f"/v1/events/{event['id']}/rounds/1/games", headers=human)
    assert r.status_code == 409 and r.json()["type"] == "/problems/not-joined"
    server.join(event, human)
    server.start(event, 1, human)
    r = server.client.post(f"/v1/events/{event['id']}/rounds/2/games", headers=human)
    assert r.status_code == 409 and r.json()["type"] == "/problems/challenge-not-open"
    assert (
        server.client.post(f"/v1/events/{event['id']}/rounds/4/games", headers=human).status_code
        == 404
    )
    server.at(FRIDAY + timedelta(days=1))  # round 2's day
    server.start(event, 2, human)
    # An event where playing joins, open to both kinds, on boards apart.
    both = server.create(entrants="both", join_required=False, ends_at=iso(FRIDAY + WEEK))
    server.play(server.start(both, 1, robot), robot, ("concede",))
    server.play(server.start(both, 1, human), human, ("concede",))
    assert server.board(both, 0)["ranked"] == 1
    assert server.board(both, 0, "?kind=bot")["ranked"] == 1
    # A bots-only event lists under kind=bot, not kind=human.
    bots = server.create(entrants="bots", ends_at=iso(FRIDAY + WEEK))
    for_bots = server.client.get("/v1/events?kind=bot&state=running&limit=100").json()["events"]
    for_humans = server.client.get("/v1/events?kind=human&state=running&limit=100").json()["events"]
    assert bots["id"] in {e["id"] for e in for_bots}
    assert bots["id"] not in {e["id"] for e in for_humans}
    assert event["id"] in {e["id"] for e in for_humans}


def test_the_day_boundary_of_a_daily_event(server: Server) -> None:
    event = server.create(schedule="daily", starts_at=iso(FRIDAY), ends_at=iso(FRIDAY + 2 * WEEK))
    _, auth = new_player(server.client)
    server.at(FRIDAY + timedelta(days=1) - timedelta(microseconds=1))
    assert server.join(event, auth)["edition_id"] == f"{event['id']}.0"
    server.at(FRIDAY + timedelta(days=1))
    assert server.join(event, auth)["edition_id"] == f"{event['id']}.1"
    assert server.client.get(f"/v1/events/{event['id']}").json()["current_edition"] == 1
    server.at(FRIDAY + 2 * WEEK)  # no edition starts from ends_at on
    after = server.client.get(f"/v1/events/{event['id']}").json()
    assert after["state"] == "finished" and after["current_edition"] is None
    r = server.client.post(f"/v1/events/{event['id']}/join", headers=auth)
    assert r.status_code == 409 and r.json()["next_opens_at"] is None


def test_updates_keep_a_started_edition_fair_and_every_change_is_logged(server: Server) -> None:
    event = server.create(rounds=2, ends_at=iso(FRIDAY + WEEK))
    url = f"/v1/operator/events/{event['id']}"
    r = server.client.patch(url, json={"rounds": 3}, headers=OPERATOR)
    assert r.status_code == 200 and r.json()["rounds"] == 3  # no edition yet: allowed
    server.at(FRIDAY + timedelta(hours=1))
    _, auth = new_player(server.client)
    server.join(event, auth)  # the edition is made
    r = server.client.patch(url, json={"rounds": 4}, headers=OPERATOR)
    assert r.status_code == 409 and r.json()["type"] == "/problems/event-started"
    assert r.json()["fields"] == ["rounds"]
    r = server.client.patch(url, json={"name": "Renamed", "max_size": 10}, headers=OPERATOR)
    assert r.status_code == 200 and r.json()["name"] == "Renamed"
    r = server.client.patch(url, json={"max_size": 5}, headers=OPERATOR)
    assert r.status_code == 409  # fewer: no
    r = server.client.patch(
        url, json={"ends_at": iso(FRIDAY + timedelta(hours=2))}, headers=OPERATOR
    )
    assert r.status_code == 409  # cuts the open edition short
    r = server.client.post(f"{url}/cancel", headers=OPERATOR)
    assert r.status_code == 200 and r.json()["state"] == "cancelled"
    edition = server.client.get(f"/v1/events/{event['id']}/editions/0").json()
    assert edition["state"] == "closed" and edition["rounds"][0]["reveal"] is not None
    changes = server.client.get(f"{url}/changes", headers=OPERATOR).json()["changes"]
    assert [(c["action"], c["source"]) for c in changes] == [
        ("created", "operator"),
        ("updated", "operator"),
        ("updated", "operator"),
        ("cancelled", "operator"),
    ]
    assert changes[1]["changes"] == [{"field": "rounds", "value": 3}]
    assert changes[2]["changes"] == [
        {"field": "name", "value": "Renamed"},
        {"field": "max_size", "value": 10},
    ]


EVENTS_FILE = """
[[event]]
key = "friday-golf"
name = "Friday golf"
description = "Golf every Friday."
layout = "golf"
rounds = 3
attempts = 2
cohort_size = 50
schedule = "weekly"
weekday = "friday"
starts_at = 2042-01-01T00:00:00Z
"""


def test_the_events_file_and_the_api_make_the_same_rows(
    client_with: Callable[..., TestClient], database_url: str, tmp_path: Path
) -> None:
    path = tmp_path / "events.toml"
    path.write_text(EVENTS_FILE, encoding="utf-8")
    from_file = client_with(events_file=str(path), operator_token=TOKEN)
    body = {
        "name": "Friday golf",
        "description": "Golf every Friday.",
        "layout": "golf",
        "rounds": 3,
        "attempts": 2,
        "cohort_size": 50,
        "schedule": "weekly",
        "weekday": "friday",
        "starts_at": "2042-01-01T00:00:00Z",
    }
    made = from_file.post("/v1/operator/events", json=body, headers=OPERATOR).json()
    listed = from_file.get("/v1/events?layout=golf&limit=100").json()["events"]
    keyed = next(e for e in listed if e["key"] == "friday-golf")
    engine = create_engine(database_url)
    with engine.connect() as conn:
        rows = {
            row.id: row
            for row in conn.execute(select(Event).where(Event.id.in_([made["id"], keyed["id"]])))
        }
    engine.dispose()
    skip = {"id", "key", "created_at", "updated_at"}
    columns = [c.name for c in Event.__table__.columns if c.name not in skip]
    assert [getattr(rows[made["id"]], c) for c in columns] == [
        getattr(rows[keyed["id"]], c) for c in columns
    ]
    # A second start with the same file changes nothing; a changed file updates the row.
    client_with(events_file=str(path))
    path.write_text(EVENTS_FILE.replace("Golf every Friday.", "Golf, Fridays."), encoding="utf-8")
    client_with(events_file=str(path))
    changes = from_file.get(f"/v1/operator/events/{keyed['id']}/changes", headers=OPERATOR)
    assert [(c["action"], c["source"]) for c in changes.json()["changes"]] == [
        ("created", "file"),
        ("updated", "file"),
    ]
    bad = tmp_path / "bad.toml"
    bad.write_text(
        '[[event]]\nkey = "x"\nname = "x"\nrounds = 40\nstarts_at = 2042-01-01T00:00:00Z\n'
    )
    with pytest.raises(Exception, match="rounds"):
        client_with(events_file=str(bad))


@pytest.mark.slow
def test_joins_racing_at_the_edge_of_a_cohort_and_of_max_size(database_url: str) -> None:
    """Six players join at once an edition with room for three, in cohorts of two: three
    get places 1, 2, 3 (cohorts 0, 0, 1), three are told it is full."""
    with (
        live_server(database_url, OPERATOR_TOKEN=TOKEN, CHALLENGE_SECRET=SECRET) as base,
        httpx.Client(base_url=base, timeout=60) as c,
    ):
        now = datetime.now(UTC)
        body = {
            "name": "race",
            "cohort_size": 2,
            "max_size": 3,
            "starts_at": iso(now - timedelta(hours=1)),
            "ends_at": iso(now + timedelta(hours=1)),
        }
        event = c.post("/v1/operator/events", json=body, headers=OPERATOR).json()
        c.get(f"/v1/events/{event['id']}/editions/0")  # made before the race
        keys = [new_player(c)[1] for _ in range(6)]
        start_line = threading.Barrier(6)
        answers: list[dict[str, Any]] = []

        def go(auth: dict[str, str]) -> None:
            with httpx.Client(base_url=base, timeout=60) as own:
                own.get("/healthz")
                start_line.wait()
                answers.append(own.post(f"/v1/events/{event['id']}/join", headers=auth).json())

        threads = [threading.Thread(target=go, args=(k,)) for k in keys]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        edition = c.get(f"/v1/events/{event['id']}/editions/0").json()
    placed = sorted((a["number"], a["cohort"]) for a in answers if "number" in a)
    assert placed == [(1, 0), (2, 0), (3, 1)]
    assert (
        sorted(a.get("type", "") for a in answers if "number" not in a)
        == ["/problems/challenge-full"] * 3
    )
    assert edition["entrants"] == 3


@pytest.mark.slow
def test_a_flagged_round_flags_the_edition_s_total(server: Server) -> None:
    """A round's fair-play measure settles the entrant's total on the edition's board:
    flagged (ranked apart) with its round, ok once its rounds are measured. The threshold
    is set near 1 (any telling decision resolved the clairvoyant way flags), and the test
    measures the line itself to know which to expect."""
    start = datetime(2045, 3, 3, tzinfo=UTC)
    event = server.create(starts_at=iso(start), ends_at=iso(start + timedelta(days=1)))
    server.at(start + timedelta(hours=1))
    cheat, cheat_auth = new_player(server.client, name="clair")
    honest, honest_auth = new_player(server.client, name="honor")
    for auth in (cheat_auth, honest_auth):
        server.join(event, auth)
    rules = server.client.get(f"/v1/events/{event['id']}").json()["rules"]
    round_id = f"{event['id']}.0.1"
    found = find_round_deal(SECRET.encode(), round_id, rules, True, 60)
    assert found is not None
    deal, _ = found
    assert deal is not None
    game_rules = Rules.from_dict(rules)
    layout = get_layout(game_rules.layout)
    line = [m for m in solve_best(new_game(deal, game_rules, layout)).line if m != "concede"]
    ended = server.play(server.start(event, 1, cheat_auth), cheat_auth, tuple(line))
    if ended["status"] == "in_progress":
        server.play(ended, cheat_auth, ("concede",))
    server.play(server.start(event, 1, honest_auth), honest_auth, ("concede",))
    threshold = 0.999999
    expected = measure(deal, game_rules, line, layout, seed=zlib.crc32(round_id.encode()))
    flags = expected.p_value < threshold

    board = server.board(event, 0)
    assert {e["fair_play"]["status"] for e in board["entries"]} == {"pending"}
    settings = server.client.app.state.settings.model_copy(  # type: ignore[attr-defined]
        update={"fair_play_threshold": threshold}
    )
    done = asyncio.run(run(settings, start + timedelta(days=1, minutes=5), 100, round_id))
    assert (done.ok, done.flagged) == (2 - flags, int(flags))
    server.at(start + timedelta(days=1, hours=1))
    board = server.board(event, 0)
    apart = server.board(event, 0, "?fair_play=flagged")
    if flags:
        assert [e["name"] for e in board["entries"]] == ["honor"]
        [entry] = apart["entries"]
        assert entry["player_id"] == cheat["id"] and entry["fair_play"]["status"] == "flagged"
        assert entry["fair_play"]["p_value"] == pytest.approx(expected.p_value)
    else:
        assert [e["name"] for e in board["entries"]] == ["clair", "honor"]
        assert apart["entries"] == []
    assert board["entries"][-1]["player_id"] == honest["id"]
    assert board["entries"][-1]["fair_play"]["status"] == "ok"


def test_an_event_s_rounds_are_dealt_of_its_tier(server: Server) -> None:
    """Each round's deal is the first of its candidates (proved winnable) of the event's
    tier, as the test derives it with the server's secret; its difficulty is shown once
    the edition has closed. The tier makes editions fair: fixed once one is made."""
    event = server.create(rounds=2, tier="easy", ends_at=iso(FRIDAY + WEEK))
    assert event["tier"] == "easy"
    url = f"/v1/operator/events/{event['id']}"
    r = server.client.patch(url, json={"tier": "hard"}, headers=OPERATOR)
    assert r.status_code == 200 and r.json()["tier"] == "hard"
    server.at(FRIDAY + timedelta(hours=1))
    edition = server.client.get(f"/v1/events/{event['id']}/editions/0").json()
    assert [r["difficulty"] for r in edition["rounds"]] == [None, None]
    r = server.client.patch(url, json={"tier": "easy"}, headers=OPERATOR)
    assert r.status_code == 409 and r.json()["fields"] == ["tier"]

    server.at(FRIDAY + WEEK)
    closed = server.client.get(f"/v1/events/{event['id']}/editions/0").json()
    for round_ in closed["rounds"]:
        found = find_round_deal(
            SECRET.encode(),
            round_["challenge_id"],
            event["rules"],
            True,
            60,
            Tier.HARD,
            DifficultySettings(playouts=4),
        )
        assert found is not None
        deal, rated = found
        assert rated is not None and rated.tier is Tier.HARD
        assert round_["reveal"]["deal"] == format_deal(deal).split()
        assert round_["difficulty"] == rated.to_dict()
    assert server.create(expect=422, tier="brutal")["type"] == "/problems/validation"
