"""A TriPeaks bot over plain HTTP, in about 30 lines: ``python clients/python/bot.py --games 80``.

It makes a bot player (its games are its own, and so are its rate-limit budgets), then
plays each game from the state the server answers: every state carries its legal moves,
each an object to post back as it is, so a move is one request. It plays the free card
nearest the bottom of the table that fits, else draws, else concedes; it waits as a
429's Retry-After says; and it prints each game's result.
"""

import argparse
import time
from typing import Any

import httpx

Json = dict[str, Any]


def call(client: httpx.Client, method: str, url: str, **kw: Any) -> Json:
    while (r := client.request(method, url, **kw)).status_code == 429:
        print(f"  rate-limited: waiting {r.headers['Retry-After']} s")
        time.sleep(float(r.headers["Retry-After"]))
    r.raise_for_status()
    answer: Json = r.json()
    return answer


def choose(state: Json) -> Json:
    plays = [m for m in state["legal_moves"] if m["kind"] == "play"]
    draws = [m for m in state["legal_moves"] if m["kind"] in ("draw", "redeal")]
    return max(plays, key=lambda m: m["position"]) if plays else (draws or [{"move": "concede"}])[0]


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--base", default="http://127.0.0.1:8000")
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--first-deal", type=int, default=1)
    args = p.parse_args()
    with httpx.Client(base_url=args.base, timeout=30) as client:
        me = call(client, "POST", "/v1/players", json={"name": "example bot", "kind": "bot"})
        auth = {"Authorization": f"Bearer {me['key']}"}
        for deal in range(args.first_deal, args.first_deal + args.games):
            state = call(client, "POST", "/v1/games", json={"deal_number": deal}, headers=auth)
            while state["status"] == "in_progress":
                moves = f"/v1/games/{state['id']}/moves"
                state = call(client, "POST", moves, json=choose(state), headers=auth)
            print(f"deal {deal}: {state['status']}, score {state['score']['total']}")


if __name__ == "__main__":
    main()
