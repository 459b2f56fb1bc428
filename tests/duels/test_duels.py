"""Ranked duels through HTTP on SQLite and PostgreSQL, with the server's clock set by the
test (never by sleeping) and the scheduled job run at the moments the test sets: a duel
from its request to its result (one deal for both, secret until the end, no hints), the
ratings as OpenSkill moves them, the board and history, matching by rating and its
widening, never the same opponent twice in a row, people and bots apart, expiry, the
forfeit of a player out of time, the fair-play verdict taken into the result, a deleted
player's duels."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from math import ceil
from typing import Any

from fastapi.testclient import TestClient
from openskill.models import PlackettLuce
from sqlalchemy import text

from app.engine import commitment, parse_deal
from tests.conftest import portal_of
from tests.duels.helpers import (
    finish,
    get_duel,
    player,
    ratings_of,
    request_duel,
    run_job,
)
from tests.fixtures.clock import NOON

MINUTE = timedelta(minutes=1)
HOUR = timedelta(hours=1)
# The model as the docs give it: 1500, give or take 500, beta 250, tau 5.
MODEL = PlackettLuce(mu=1500, sigma=500, beta=250, tau=5)
POOL: dict[str, Any] = {"layout": "tripeaks", "preset": "no-wrap"}


def played(
    client: TestClient, pool: tuple[str, str], host_draws: int, challenger_draws: int
) -> tuple[dict[str, Any], tuple[str, dict[str, str]], tuple[str, dict[str, str]]]:
    """A whole duel between two new players: the host's and the challenger's games drawn
    then conceded; the host's final view of it, and both players."""
    layout, preset = pool
    host = player(client, "Host")
    challenger = player(client, "Challenger")
    opened = request_duel(client, host[1], layout=layout, preset=preset)
    finish(client, opened, host[1], host_draws)
    taken = request_duel(client, challenger[1], layout=layout, preset=preset)
    assert taken["id"] == opened["id"], "the waiting duel is taken"
    finish(client, taken, challenger[1], challenger_draws)
    return get_duel(client, opened["id"], host[1]), host, challenger


def test_a_duel_is_one_deal_for_two_players_secret_until_it_ends(
    client: TestClient, set_clock: Callable[[datetime], None]
) -> None:
    ada_id, ada = player(client, "Ada")
    bob_id, bob = player(client, "Bob")
    opened = request_duel(client, ada, layout="tripeaks", preset="no-wrap")
    assert opened["status"] == "waiting" and opened["role"] == "host"
    assert opened["opponent"] is None and opened["result"] is None
    assert opened["pool"] == "tripeaks.no-wrap" and opened["tier"] == "medium"
    game = opened["game"]
    assert game["id"] == opened["game_id"] and game["token"]
    assert game["rules"]["wrap"] is False and game["rules"]["undo"] is False
    assert game["commitment"] == opened["commitment"]
    # No hint in a duel's game, and its challenge is the duel's alone.
    hint = client.get(f"/v1/games/{game['id']}/hint", headers=ada)
    assert hint.status_code == 409 and hint.json()["type"] == "/problems/ranked-game"
    for path in ("", "/leaderboard"):
        assert client.get(f"/v1/challenges/{opened['id']}{path}").status_code == 404
    assert client.post(f"/v1/challenges/{opened['id']}/games", headers=bob).status_code == 404

    set_clock(NOON + 5 * MINUTE)
    ended = finish(client, opened, ada, draws=0)
    assert ended["reveal"] is None, "the deal stays secret until the duel ends"
    seen = client.get(f"/v1/games/{game['id']}", headers=ada).headers["ETag"]
    waiting = get_duel(client, opened["id"], ada)
    assert waiting["status"] == "waiting" and waiting["you"]["finished"] is True
    assert waiting["you"]["score"] == 0

    taken = request_duel(client, bob, layout="tripeaks", preset="no-wrap")
    assert taken["id"] == opened["id"] and taken["role"] == "challenger"
    assert taken["status"] == "matched" and taken["commitment"] == opened["commitment"]
    assert taken["opponent"]["player_id"] == ada_id and taken["opponent"]["name"] == "Ada"
    assert taken["opponent"]["score"] is None, "the score to beat is not shown"
    assert taken["game"]["id"] != game["id"]
    # The same deal: the same table in view.
    assert taken["game"]["tableau"] == game["tableau"]
    assert get_duel(client, opened["id"], ada)["opponent"]["player_id"] == bob_id
    # A stranger reads nothing of it.
    _, eve = player(client, "Eve")
    assert client.get(f"/v1/duels/{opened['id']}", headers=eve).status_code == 404

    set_clock(NOON + 9 * MINUTE)
    last = finish(client, taken, bob, draws=3)
    assert last["reveal"] is not None, "the move that ends the duel reveals its deal"
    # The host's game changed with no move of theirs: its tag says so.
    again = client.get(f"/v1/games/{game['id']}", headers={**ada, "If-None-Match": seen})
    assert again.status_code == 200 and again.json()["reveal"] is not None
    assert again.headers["ETag"] == seen[:-1] + '.r"'
    fresh = {**ada, "If-None-Match": again.headers["ETag"]}
    assert client.get(f"/v1/games/{game['id']}", headers=fresh).status_code == 304
    mine = get_duel(client, opened["id"], ada)
    theirs = get_duel(client, opened["id"], bob)
    assert mine["status"] == "finished" and mine["result"] == "won"
    assert theirs["result"] == "lost" and theirs["opponent"]["score"] == 0
    assert mine["opponent"]["score"] == -15 and mine["ended_at"] is not None
    # The ratings as OpenSkill moves them.
    [[won], [lost]] = MODEL.rate([[MODEL.rating()], [MODEL.rating()]], ranks=[1, 2])
    assert mine["you"]["rating_change"] == round(won.mu) - 1500
    assert mine["opponent"]["rating_change"] == round(lost.mu) - 1500
    assert theirs["you"]["rating_change"] == round(lost.mu) - 1500
    ada_rating = ratings_of(client, ada_id)["tripeaks.no-wrap"]
    assert ada_rating["rating"] == round(won.mu) and ada_rating["deviation"] == round(won.sigma)
    assert ada_rating["provisional"] and (ada_rating["games"], ada_rating["wins"]) == (1, 1)
    assert ada_rating["recent"][0]["before"] == 1500
    # Both games reveal the deal now, and it is the one committed to.
    for auth, game_id in ((ada, game["id"]), (bob, taken["game"]["id"])):
        reveal = client.get(f"/v1/games/{game_id}", headers=auth).json()["reveal"]
        deal = parse_deal(" ".join(reveal["deal"]))
        assert commitment(deal, reveal["salt"]) == opened["commitment"]

    # The board, around the caller, among whom they follow; the history; my duels.
    board = client.get("/v1/ratings/tripeaks.no-wrap").json()
    places = [(e["player_id"], e["rank"]) for e in board["entries"]]
    assert places.index((ada_id, 1)) < places.index((bob_id, board["rated"]))
    around = client.get("/v1/ratings/tripeaks.no-wrap?around=me&limit=1", headers=bob).json()
    assert [e["player_id"] for e in around["entries"]][-1] == bob_id
    assert client.put(f"/v1/players/me/following/{bob_id}", headers=ada).status_code in (200, 204)
    among = client.get("/v1/ratings/tripeaks.no-wrap?among=following", headers=ada).json()
    assert [(e["player_id"], e["rank"]) for e in among["entries"]] == [(ada_id, 1), (bob_id, 2)]
    history = client.get(f"/v1/players/{bob_id}/ratings/tripeaks.no-wrap/history").json()
    assert [(c["before"], c["after"]) for c in history["changes"]] == [(1500, round(lost.mu))]
    listed = client.get("/v1/players/me/duels", headers=bob).json()
    assert [d["id"] for d in listed["duels"]] == [opened["id"]]
    no_rating = client.get("/v1/ratings/tripeaks.no-wrap?around=me", headers=eve)
    assert no_rating.status_code == 404 and no_rating.json()["type"] == "/problems/no-rating"
    assert client.get("/v1/ratings/tripeaks.nothing").status_code == 404


def test_a_draw_is_a_draw(client: TestClient, set_clock: Callable[[datetime], None]) -> None:
    duel, host, _challenger = played(client, ("tripeaks", "no-wrap"), 2, 2)
    assert duel["result"] == "draw"
    [[a], [_b]] = MODEL.rate([[MODEL.rating()], [MODEL.rating()]], ranks=[1, 1])
    assert duel["you"]["rating_change"] == round(a.mu) - 1500 == 0
    assert ratings_of(client, host[0])["tripeaks.no-wrap"]["draws"] == 1


def test_matching_widens_with_waiting_and_never_repeats_an_opponent(
    client: TestClient, set_clock: Callable[[datetime], None]
) -> None:
    # Two duels make a 1658 (A, C) and a 1342 (B, D) twice over.
    _first, a, b = played(client, ("tripeaks", "no-wrap"), 0, 3)
    _second, _c, d = played(client, ("tripeaks", "no-wrap"), 0, 3)
    high = ratings_of(client, a[0])["tripeaks.no-wrap"]["rating"]
    low = ratings_of(client, d[0])["tripeaks.no-wrap"]["rating"]
    gap = high - low
    settings = client.app.state.settings  # type: ignore[attr-defined]
    start, per_minute = settings.duel_range_start, settings.duel_range_per_minute
    assert gap > start
    waited = ceil((gap - start) / per_minute)  # minutes until A's range reaches D

    set_clock(NOON + HOUR)
    x = request_duel(client, a[1], **POOL)
    assert x["status"] == "waiting"
    finish(client, x, a[1], 0)
    # Too far apart yet: D opens a duel of their own.
    set_clock(NOON + HOUR + (waited - 1) * MINUTE)
    y = request_duel(client, d[1], **POOL)
    assert y["status"] == "waiting" and y["id"] != x["id"]
    finish(client, y, d[1], 0)
    # B is as far from A, and A was B's last opponent: B takes D's duel instead (0 apart,
    # and D's last opponent was C).
    set_clock(NOON + HOUR + (waited + 5) * MINUTE)
    taken = request_duel(client, b[1], **POOL)
    assert taken["id"] == y["id"]
    finish(client, taken, b[1], 0)
    # Once A's range has widened enough, D takes A's duel.
    set_clock(NOON + HOUR + (waited + 6) * MINUTE)
    matched = request_duel(client, d[1], **POOL)
    assert matched["id"] == x["id"] and matched["opponent"]["player_id"] == a[0]
    assert matched["opponent"]["rating"] == high and matched["you"]["rating"] == low


def test_an_unmatched_duel_expires_and_a_late_player_loses(
    client: TestClient, set_clock: Callable[[datetime], None]
) -> None:
    settings = client.app.state.settings  # type: ignore[attr-defined]
    host_id, host = player(client, "Lonely")
    opened = request_duel(client, host, **POOL)
    finish(client, opened, host, 0)
    assert run_job(client, NOON + HOUR) == 0, "nothing is due yet"
    expiry = NOON + timedelta(hours=settings.duel_match_hours)
    set_clock(expiry)
    assert run_job(client, expiry) >= 1
    expired = get_duel(client, opened["id"], host)
    assert expired["status"] == "expired" and expired["result"] is None
    assert ratings_of(client, host_id) == {}, "an expired duel changes no rating"
    game = client.get(f"/v1/games/{opened['game_id']}", headers=host).json()
    assert game["reveal"] is not None, "its deal is revealed once it expired"

    # A challenger who never finishes loses once their time is up.
    set_clock(expiry + HOUR)
    quick_id, quick = player(client, "Quick")
    slow_id, slow = player(client, "Slow")
    duel = request_duel(client, quick, **POOL)
    finish(client, duel, quick, 5)
    taken = request_duel(client, slow, **POOL)
    assert taken["id"] == duel["id"]
    due = datetime.fromisoformat(taken["you"]["due_at"].replace("Z", "+00:00"))
    run_job(client, due - MINUTE)
    assert get_duel(client, duel["id"], quick)["status"] == "matched"
    set_clock(due + MINUTE)
    run_job(client, due + MINUTE)
    decided = get_duel(client, duel["id"], quick)
    assert decided["status"] == "finished" and decided["result"] == "won"
    assert decided["opponent"]["forfeit"] is True and decided["you"]["score"] == -25
    assert ratings_of(client, slow_id)["tripeaks.no-wrap"]["losses"] == 1
    assert ratings_of(client, quick_id)["tripeaks.no-wrap"]["wins"] == 1
    # The late game may still end: it changes nothing.
    set_clock(due + HOUR)
    finish(client, taken, slow, 0)
    assert get_duel(client, duel["id"], slow)["result"] == "lost"


def test_one_duel_game_at_a_time_and_a_bound_on_waiting_duels(
    client: TestClient, set_clock: Callable[[datetime], None]
) -> None:
    settings = client.app.state.settings  # type: ignore[attr-defined]
    _, host = player(client, "Busy")
    first = request_duel(client, host, **POOL)
    refused = request_duel(client, host, expect=409, **POOL)
    assert refused["type"] == "/problems/duel-game-in-progress"
    assert refused["duel_id"] == first["id"] and refused["game_id"] == first["game_id"]
    finish(client, first, host, 0)
    for _ in range(settings.duel_waiting_per_player - 1):
        finish(client, request_duel(client, host, **POOL), host, 0)
    full = request_duel(client, host, expect=409, **POOL)
    assert full["type"] == "/problems/too-many-waiting-duels"
    assert full["limit"] == settings.duel_waiting_per_player
    bad = client.post("/v1/duels", json={"preset": "speed"}, headers=host)
    assert bad.status_code == 422
    assert client.post("/v1/duels", json={}).status_code == 401


def test_people_and_bots_apart_unless_a_person_opts_in(
    client: TestClient, set_clock: Callable[[datetime], None]
) -> None:
    bot_id, bot = player(client, "bot-one", kind="bot")
    _, person = player(client, "Person")
    opened = request_duel(client, bot, **POOL)
    finish(client, opened, bot, 0)
    # A person is not matched with a bot's duel...
    set_clock(NOON + MINUTE)
    own = request_duel(client, person, **POOL)
    assert own["id"] != opened["id"] and own["role"] == "host"
    finish(client, own, person, 0)
    # ...unless they opt in: the bot's, waiting longer than the person's.
    _, willing = player(client, "Willing")
    taken = request_duel(client, willing, with_bots=True, **POOL)
    assert taken["id"] == opened["id"] and taken["opponent"]["kind"] == "bot"
    finish(client, taken, willing, 3)
    # Another bot takes the person's duel only if that person opted in: it did not.
    _, other_bot = player(client, "bot-two", kind="bot")
    bot_duel = request_duel(client, other_bot, **POOL)
    assert bot_duel["id"] != own["id"]
    # Each kind has its board.
    bots = client.get("/v1/ratings/tripeaks.no-wrap?kind=bot").json()
    assert bot_id in [e["player_id"] for e in bots["entries"]]
    people = client.get("/v1/ratings/tripeaks.no-wrap").json()
    assert bot_id not in [e["player_id"] for e in people["entries"]]


def set_verdict(client: TestClient, challenge_id: str, player_id: str, verdict: str) -> None:
    """What the fair-play measure writes of a result (app.challenges.fairplay)."""

    async def write() -> None:
        database = client.app.state.database  # type: ignore[attr-defined]
        async with database.sessions() as session:
            await session.execute(
                text(
                    "UPDATE challenge_entries SET fair_play = :verdict "
                    "WHERE challenge_id = :c AND player_id = :p"
                ),
                {"verdict": verdict, "c": challenge_id, "p": player_id},
            )
            await session.commit()

    portal_of(client).call(write)


def duel_status(client: TestClient, duel_id: str) -> str:
    """A duel's status as stored (for a duel nobody may read any more)."""

    async def read() -> str:
        database = client.app.state.database  # type: ignore[attr-defined]
        async with database.sessions() as session:
            found = await session.execute(
                text("SELECT status FROM duels WHERE id = :d"), {"d": duel_id}
            )
            return str(found.scalar_one())

    status: str = portal_of(client).call(read)
    return status


def test_a_flagged_result_loses_and_its_gain_is_taken_back(
    client: TestClient, set_clock: Callable[[datetime], None]
) -> None:
    duel, (host_id, host), (challenger_id, challenger) = played(
        client, ("tripeaks", "no-wrap"), 0, 3
    )
    assert duel["result"] == "won"
    gain = duel["you"]["rating_change"]
    # Until both results are measured, the duel stands as it is.
    set_verdict(client, str(duel["id"]), host_id, "flagged")
    run_job(client, NOON + HOUR)
    assert get_duel(client, str(duel["id"]), host)["result"] == "won"
    set_verdict(client, str(duel["id"]), challenger_id, "ok")
    run_job(client, NOON + HOUR)
    flagged = get_duel(client, str(duel["id"]), host)
    assert flagged["result"] == "lost" and flagged["you"]["flagged"] is True
    assert flagged["you"]["rating_change"] == 0 and flagged["opponent"]["rating_change"] == 0
    assert gain > 0
    mine = ratings_of(client, host_id)["tripeaks.no-wrap"]
    theirs = ratings_of(client, challenger_id)["tripeaks.no-wrap"]
    assert mine["rating"] == theirs["rating"] == 1500, "both changes are taken back"
    assert (mine["wins"], mine["losses"], theirs["wins"], theirs["losses"]) == (0, 1, 1, 0)
    assert mine["recent"][0]["taken_back"] is True
    assert get_duel(client, str(duel["id"]), challenger)["result"] == "won"
    board = client.get("/v1/ratings/tripeaks.no-wrap").json()
    assert {e["rank"] for e in board["entries"] if e["player_id"] in (host_id, challenger_id)} == {
        min(e["rank"] for e in board["entries"] if e["rating"] == 1500)
    }


def test_honest_results_measured_ok_change_nothing(
    client: TestClient, set_clock: Callable[[datetime], None]
) -> None:
    duel, (host_id, host), (challenger_id, _) = played(client, ("tripeaks", "no-wrap"), 0, 3)
    for player_id in (host_id, challenger_id):
        set_verdict(client, str(duel["id"]), player_id, "ok")
    run_job(client, NOON + HOUR)
    settled = get_duel(client, str(duel["id"]), host)
    assert settled["result"] == "won" and settled["you"]["rating_change"] > 0
    assert run_job(client, NOON + 2 * HOUR) == 0, "a settled duel is not looked at again"


def test_a_deleted_player_s_duels(
    client: TestClient, set_clock: Callable[[datetime], None]
) -> None:
    # Rated first (1658 and 1342), so that leaving the board shows.
    duel, (gone_id, gone), (stay_id, stay) = played(client, ("tripeaks", "no-wrap"), 0, 3)
    # The leaver has a duel waiting, and takes a newcomer's duel (once its range reaches
    # them) and leaves in the middle of its game.
    waiting = request_duel(client, gone, **POOL)
    finish(client, waiting, gone, 0)
    new_id, newcomer = player(client, "Newcomer")
    set_clock(NOON + MINUTE)
    theirs = request_duel(client, newcomer, **POOL)
    assert theirs["id"] != waiting["id"], "the leaver's 1658 is out of the newcomer's reach"
    set_clock(NOON + 30 * MINUTE)
    mid = request_duel(client, gone, **POOL)
    assert mid["id"] == theirs["id"]
    assert client.delete("/v1/players/me", headers=gone).status_code in (200, 204)

    # Their waiting duel expired; their ratings left the boards.
    assert duel_status(client, waiting["id"]) == "expired"
    board = client.get("/v1/ratings/tripeaks.no-wrap").json()
    assert gone_id not in [e["player_id"] for e in board["entries"]]
    assert client.get(f"/v1/players/{gone_id}/ratings").status_code == 404
    # The newcomer's duel: the leaver forfeits, the newcomer wins once they finish, and
    # no rating changes (the other side has none any more).
    finish(client, theirs, newcomer, 0)
    over = get_duel(client, theirs["id"], newcomer)
    assert over["status"] == "finished" and over["result"] == "won"
    assert over["opponent"]["forfeit"] is True and over["opponent"]["name"] is None
    assert over["you"]["rating_change"] == 0 and ratings_of(client, new_id) == {}
    # The past duel stays, its opponent shown as deleted.
    past = get_duel(client, str(duel["id"]), stay)
    assert past["result"] == "lost" and past["opponent"]["name"] is None
    assert ratings_of(client, stay_id)["tripeaks.no-wrap"]["games"] == 1
