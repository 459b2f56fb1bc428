"""A TriPeaks bot over plain HTTP: ``python clients/python/bot.py --games 80`` plays fixed
deals, ``python clients/python/bot.py --duels 5`` plays ranked duels on the bot ladder.

It plays as a bot player (its games are its own, and so are its rate-limit budgets): each
game from the state the server answers, whose legal moves are objects to post back as
they are, so a move is one request. It plays the free card nearest the bottom of the table
that fits, else draws, else concedes; it waits as a 429's or a 503's Retry-After says.

With ``--duels N`` it asks for N ranked duels: each is a server-drawn deal that another
bot plays too (the server matches bots of a similar rating, and never the same two twice
in a row). A duel asked for while the bot's game of another is unfinished is refused with
409 duel-game-in-progress: the bot resumes that game instead. Once its games are played it
waits (``--wait`` seconds at most) for its opponents' results, then prints each duel's
result, its rating in the pool and its place on the pool's bot board. Its rating belongs
to its account: ``--key`` (or ``TRIPEAKS_BOT_KEY``) plays on as the same bot.
"""

import argparse
import os
import sys
import time
from typing import Any

import httpx

Json = dict[str, Any]
POLL_SECONDS = 2.0  # between two reads of a duel whose opponent is still playing


def send(client: httpx.Client, method: str, url: str, **kw: Any) -> httpx.Response:
    while (r := client.request(method, url, **kw)).status_code in (429, 503):
        why = "rate-limited" if r.status_code == 429 else "server busy"
        print(f"  {why}: waiting {r.headers['Retry-After']} s")
        time.sleep(float(r.headers["Retry-After"]))
    return r


def call(client: httpx.Client, method: str, url: str, **kw: Any) -> Json:
    r = send(client, method, url, **kw)
    r.raise_for_status()
    answer: Json = r.json()
    return answer


def choose(state: Json) -> Json:
    plays = [m for m in state["legal_moves"] if m["kind"] == "play"]
    draws = [m for m in state["legal_moves"] if m["kind"] in ("draw", "redeal")]
    return max(plays, key=lambda m: m["position"]) if plays else (draws or [{"move": "concede"}])[0]


def play(client: httpx.Client, state: Json, auth: dict[str, str]) -> Json:
    while state["status"] == "in_progress":
        moves = f"/v1/games/{state['id']}/moves"
        state = call(client, "POST", moves, json=choose(state), headers=auth)
    return state


def play_games(client: httpx.Client, auth: dict[str, str], first: int, games: int) -> None:
    for deal in range(first, first + games):
        state = call(client, "POST", "/v1/games", json={"deal_number": deal}, headers=auth)
        state = play(client, state, auth)
        print(f"deal {deal}: {state['status']}, score {state['score']['total']}")


def ask_duel(client: httpx.Client, auth: dict[str, str], pool: str) -> tuple[Json, Json] | None:
    """A duel and its game's state: a new duel, or the one whose game is unfinished;
    None when the bot has as many duels waiting for an opponent as it may."""
    layout, preset = pool.split(".", 1)
    body = {"layout": layout, "preset": preset}
    r = send(client, "POST", "/v1/duels", json=body, headers=auth)
    if r.status_code == 409:
        problem = r.json()
        if problem["type"] != "/problems/duel-game-in-progress":
            print(f"  {problem['detail']}")  # too many duels waiting for an opponent
            return None
        print(f"  resuming game {problem['game_id']} of duel {problem['duel_id']}")
        duel = call(client, "GET", f"/v1/duels/{problem['duel_id']}", headers=auth)
        return duel, call(client, "GET", f"/v1/games/{problem['game_id']}", headers=auth)
    r.raise_for_status()
    duel = r.json()
    return duel, duel["game"]


def result_line(duel: Json) -> str:
    if duel["status"] == "expired":
        return f"duel {duel['id']}: expired, nobody took it; no rating change"
    if duel["status"] != "finished":
        return f"duel {duel['id']}: not decided yet ({duel['status']})"
    you, them = duel["you"], duel["opponent"]
    after = you["rating"] + you["rating_change"]
    return (
        f"duel {duel['id']}: {duel['result']} against {them['name']}, "
        f"{you['score']} to {them['score']}, rating {you['rating']} -> {after}"
    )


def play_duels(
    client: httpx.Client, me: Json, auth: dict[str, str], pool: str, duels: int, wait: float
) -> None:
    played = []
    for _ in range(duels):
        asked = ask_duel(client, auth, pool)
        if asked is None:
            break
        duel, state = asked
        state = play(client, state, auth)
        print(
            f"duel {duel['id']}: played as {duel['role']}, {state['status']}, "
            f"score {state['score']['total']}"
        )
        played.append(duel["id"])
    read = [call(client, "GET", f"/v1/duels/{d}", headers=auth) for d in played]
    undecided = [d for d in read if d["status"] in ("waiting", "matched")]
    if undecided and wait > 0:
        print(f"waiting up to {wait:g} s for {len(undecided)} duel(s) to be decided")
        deadline = time.monotonic() + wait
        while undecided and time.monotonic() < deadline:
            time.sleep(POLL_SECONDS)
            read = [call(client, "GET", f"/v1/duels/{d}", headers=auth) for d in played]
            undecided = [d for d in read if d["status"] in ("waiting", "matched")]
    for duel in read:
        print(result_line(duel))
    ratings = call(client, "GET", f"/v1/players/{me['id']}/ratings")["ratings"]
    rating = next((r for r in ratings if r["pool"] == pool), None)
    if rating is None:
        print(f"no rating in {pool} yet: none of this bot's duels is decided")
        return
    mark = " (provisional)" if rating["provisional"] else ""
    print(
        f"rating {rating['rating']}{mark} in {pool}: {rating['games']} duel(s), "
        f"{rating['wins']} won, {rating['losses']} lost, {rating['draws']} drawn"
    )
    query = {"kind": me["kind"], "around": "me", "limit": 2}
    board = call(client, "GET", f"/v1/ratings/{pool}", params=query, headers=auth)
    place = next(e["rank"] for e in board["entries"] if e["player_id"] == me["id"])
    print(f"place {place} of {board['rated']} on the {me['kind']} board of {pool}")
    for e in board["entries"]:
        you = "  (this bot)" if e["player_id"] == me["id"] else ""
        print(f"  {e['rank']:>4}. {e['rating']:>5}  {e['name']}{you}")


def main() -> None:
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    p = argparse.ArgumentParser()
    p.add_argument("--base", default="http://127.0.0.1:8000")
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--first-deal", type=int, default=1)
    p.add_argument("--duels", type=int, default=0, help="play ranked duels instead of games")
    p.add_argument("--pool", default="tripeaks.standard", help="the duels' layout.preset")
    p.add_argument("--wait", type=float, default=300, help="seconds to wait for opponents")
    p.add_argument("--name", default="example bot")
    p.add_argument("--key", default=os.environ.get("TRIPEAKS_BOT_KEY"), help="play as it")
    args = p.parse_args()
    with httpx.Client(base_url=args.base, timeout=30) as client:
        if args.key:
            auth = {"Authorization": f"Bearer {args.key}"}
            me = call(client, "GET", "/v1/players/me", headers=auth)
        else:
            me = call(client, "POST", "/v1/players", json={"name": args.name, "kind": "bot"})
            auth = {"Authorization": f"Bearer {me['key']}"}
            if args.duels:
                print(f"bot {me['id']}: a new account; --key {me['key']} plays on as it")
        if args.duels:
            play_duels(client, me, auth, args.pool, args.duels, args.wait)
        else:
            play_games(client, auth, args.first_deal, args.games)


if __name__ == "__main__":
    main()
