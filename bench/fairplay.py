"""The fair-play measure against cheaters and honest players, on daily-like deals.

``python -m bench fairplay`` deals daily-like deals (numbered deals drawn at random from a
seed, each proved winnable under the rules, as the daily's candidates are), plays each with
every player below, measures every game (``app.engine.fairplay.measure``) and prints, per
player: games, the share flagged at the threshold with its 95% interval, the mean number
of telling decisions, the share of them resolved the clairvoyant way, and the share of
games held to the null of a player who follows their view; then the share of a player's
results flagged as the server flags them with the player's earlier results, by the game
or by the player's last n measures combined (``flags_player``), for n = 2, 4, 10 (the
server's window), 4,000 draws of n of the player's games (the last one the result judged).

Players. Honest (they see only the player's view): ``hint32`` and ``hint8`` (the hint bot,
32 and 8 samples a decision, no time budget), ``greedy``, ``random``. Cheaters: ``exact``
(the deal's best line, from the solver), ``stock`` (the hint knowing the stock's order:
draws never surprise it) and ``face_down`` (the hint knowing the face-down cards).

Options: ``--deals N`` (default 300; ``--quick``: 10) from ``--seed S`` (default 777: the
measure's ``HONEST_RATE`` was fitted on seeds 0-39); ``--rules wrap|nowrap``;
``--threshold`` (default the server's); ``--samples`` of the measure's hint (default the
server's); ``--workers W`` processes (default 2); ``--out FILE`` keeps each game's measure
as a JSON line, and a later run with the same FILE plays only the deals not yet there.

``--stock`` measures instead the stock's evidence of every game
(``app.engine.fairplay.stock_evidence``, a randomization test valid for any honest player)
and prints, per player, its ``z`` (mean and spread), the share of games over the
server's threshold (``DEFAULT_STOCK_Z``, 3.0) alone, and the share of players flagged by
Stouffer's sum of ``z`` (``summed``) over 4, 8, 10 (the server's window) and 12 results,
each a different deal: 4,000 draws of that many of the player's games. Both tables give
the median seconds a game's measure took (``s/game``), in one process of the pool.

``--scheduled`` measures instead the measure as a deployment runs it: the time from a
result to its measure under the compose stack's settings (``bench/scheduled.py``).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from app.engine import Rules, apply, get_layout, legal_moves, new_game, numbered_deal
from app.engine.bots import STRATEGIES, HintSettings
from app.engine.calibration import wilson
from app.engine.fairplay import (
    DEFAULT_RESULTS,
    DEFAULT_SAMPLES,
    DEFAULT_STOCK_Z,
    DEFAULT_THRESHOLD,
    combined,
    flags_player,
    measure,
    needed,
    peeking_move,
    stock_evidence,
    summed,
)
from app.engine.game import GameState
from app.engine.moves import Concede, Undo
from app.engine.solver import SearchBudget, solve_best, solve_clear
from app.engine.view import player_view
from bench import scheduled

HONEST = ("hint32", "hint8", "greedy", "random")
CHEATERS = ("exact", "stock", "face_down")
WINNABLE_NODES = 200_000  # as the daily's proof (app.challenges.deals.NODES_PER_DEAL)
RESULTS = (4, 8, DEFAULT_RESULTS, 12)  # results of one player summed
PLAYER_RESULTS = (2, 4, DEFAULT_RESULTS)  # and combined


def daily_like(seed: int, rules: Rules) -> int:
    """A numbered deal drawn from ``seed`` and proved winnable under ``rules``."""
    rng = random.Random(seed)
    layout = get_layout(rules.layout)
    while True:
        number = rng.randrange(10**9)
        deal = numbered_deal(number, layout.decks, rules.jokers)
        game = new_game(deal, rules, layout)
        if solve_clear(game, SearchBudget(max_nodes=WINNABLE_NODES)).winnable:
            return number


def _choices(state: GameState) -> list[str]:
    return [str(m) for m in legal_moves(state) if not isinstance(m, Undo | Concede)]


def play(player: str, state: GameState, number: int) -> list[str]:
    """The moves ``player`` makes on the game ``state`` begins."""
    if player == "exact":
        line = solve_best(state, SearchBudget(max_nodes=None, seconds=60)).line
        return [m for m in line if m != "concede"]
    if player in ("stock", "face_down"):
        strategy = None
    else:
        name, samples = ("hint", int(player[4:])) if player.startswith("hint") else (player, 0)
        strategy = STRATEGIES[name](
            state.rules, state.layout, HintSettings(samples=samples, seconds=None)
        )
    moves: list[str] = []
    while not state.is_over:
        choices = _choices(state)
        if len(choices) == 1:
            move = choices[0]
        elif strategy is None:
            move = peeking_move(state, player, samples=32, seed=number * 1000 + len(moves))
        else:
            move = strategy(player_view(state), number).move
        moves.append(move)
        state = apply(state, move)
    return moves


def _game(job: tuple[str, int, str, int, bool]) -> dict[str, Any]:
    rule_set, seed, player, samples, stock = job
    rules = Rules.for_layout("tripeaks", undo=False, wrap=rule_set == "wrap")
    number = daily_like(seed, rules)
    layout = get_layout(rules.layout)
    deal = numbered_deal(number, layout.decks, rules.jokers)
    moves = play(player, new_game(deal, rules, layout), number)
    began = time.perf_counter()
    if stock:
        evidence = stock_evidence(deal, rules, moves, layout, seed=number)
        figures: dict[str, Any] = {"z": evidence.z, "decisions": evidence.decisions}
    else:
        figures = measure(deal, rules, moves, layout, samples=samples, seed=number).to_dict()
    seconds = time.perf_counter() - began
    return {"seed": seed, "deal": number, "player": player, **figures, "seconds": seconds}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench fairplay")
    p.add_argument("--deals", type=int, default=300)
    p.add_argument("--seed", type=int, default=777)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--rules", choices=("wrap", "nowrap"), default="wrap")
    p.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD)
    p.add_argument("--samples", type=int, default=DEFAULT_SAMPLES)
    p.add_argument("--players", default=",".join(HONEST + CHEATERS))
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--stock", action="store_true")
    return p


def run(argv: list[str]) -> None:
    if "--scheduled" in argv:
        scheduled.run(argv)
        return
    args, _ = _parser().parse_known_args([a for a in argv if a != "fairplay"])
    deals = 10 if args.quick else args.deals
    players = args.players.split(",")
    unknown = sorted(set(players) - set(HONEST + CHEATERS))
    if unknown:
        raise SystemExit(f"unknown players {unknown}: choose from {HONEST + CHEATERS}")
    kept: list[dict[str, Any]] = []
    if args.out is not None and args.out.exists():
        kept = [json.loads(line) for line in args.out.read_text().splitlines() if line]
    done = {(g["seed"], g["player"]) for g in kept}
    seeds = range(args.seed, args.seed + deals)
    jobs = [
        (args.rules, s, p, args.samples, args.stock)
        for s in seeds
        for p in players
        if (s, p) not in done
    ]
    with ProcessPoolExecutor(args.workers) as pool:
        for game in pool.map(_game, jobs):
            kept.append(game)
            if args.out is not None:
                with args.out.open("a") as f:
                    f.write(json.dumps(game) + "\n")
    games: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for g in kept:
        if g["seed"] in seeds and g["player"] in players:
            games[g["player"]].append(g)
    if args.stock:
        _stock_table(args, deals, players, games)
        return
    print(
        f"rules {args.rules}, {deals} daily-like deals from seed {args.seed}, threshold "
        f"{args.threshold} (a game needs {needed(args.threshold)} telling decisions to flag), "
        f"the measure's hint at {args.samples} samples"
    )
    head = f"  {'player':<10} {'games':>6} {'flagged':>8} {'95% CI':>15}"
    cols = " ".join(f"{f'n={n}':>7}" for n in PLAYER_RESULTS)
    print(f"{head} {'telling':>8} {'resolved':>9} {'view':>6} {cols} {'s/game':>7}")
    rng = random.Random(args.seed)
    for player in players:
        rows = games[player]
        flagged = sum(g["p_value"] < args.threshold for g in rows)
        low, high = wilson(flagged, len(rows))
        telling = sum(g["telling"] for g in rows)
        share = sum(g["resolved"] for g in rows) / telling if telling else 0.0
        view = sum(g["follows_view"] for g in rows) / max(1, len(rows))
        with_player = _with_player([g["p_value"] for g in rows], args.threshold, rng)
        print(
            f"  {player:<10} {len(rows):>6} {100 * flagged / max(1, len(rows)):>7.1f}%"
            f" {100 * low:>6.1f}-{100 * high:>5.1f}% {telling / max(1, len(rows)):>8.1f}"
            f" {100 * share:>8.1f}% {100 * view:>5.0f}% {with_player}"
            f" {_median_seconds(rows):>7}"
        )


def _with_player(ps: list[float], threshold: float, rng: random.Random) -> str:
    """The share of a player's results flagged with their n - 1 earlier ones, for each n
    of ``PLAYER_RESULTS``: by the game's own p-value or by ``flags_player``, on 4,000 draws
    of n of the player's games (on different deals)."""
    shares = []
    for n in PLAYER_RESULTS:
        if n > len(ps):
            shares.append(f"{'-':>7}")
            continue
        hits = 0
        for _ in range(4000):
            window = rng.sample(ps, n)
            own = window[0]
            hits += own < threshold or flags_player(own, combined(window), threshold)
        shares.append(f"{100 * hits / 4000:>6.1f}%")
    return " ".join(shares)


def _stock_table(
    args: argparse.Namespace, deals: int, players: list[str], games: dict[str, list[dict[str, Any]]]
) -> None:
    print(
        f"rules {args.rules}, {deals} daily-like deals from seed {args.seed}: the stock's "
        f"evidence z (flagged over {DEFAULT_STOCK_Z}), a game alone and summed over n results"
    )
    cols = " ".join(f"{f'n={n}':>7}" for n in RESULTS)
    head = f"  {'player':<10} {'games':>6} {'decisions':>9} {'z mean':>7} {'z sd':>5}"
    print(f"{head} {'game':>6} {cols} {'s/game':>7}")
    rng = random.Random(args.seed)
    for player in players:
        rows = [g for g in games[player] if "z" in g]  # not a --out file's other measures
        if not rows:
            continue
        zs = [g["z"] for g in rows]
        mean, sd = statistics.fmean(zs), statistics.pstdev(zs)
        decisions = statistics.fmean(g["decisions"] for g in rows)
        alone = sum(z > DEFAULT_STOCK_Z for z in zs) / len(zs)
        shares = []
        for n in RESULTS:
            if n > len(zs):
                shares.append(f"{'-':>7}")
                continue
            draws = [summed(rng.sample(zs, n)) for _ in range(4000)]
            shares.append(f"{100 * sum(z > DEFAULT_STOCK_Z for z in draws) / len(draws):>6.1f}%")
        print(
            f"  {player:<10} {len(zs):>6} {decisions:>9.1f} {mean:>7.2f} {sd:>5.2f}"
            f" {100 * alone:>5.1f}% {' '.join(shares)} {_median_seconds(rows):>7}"
        )


def _median_seconds(rows: list[dict[str, Any]]) -> str:
    """The median time a game's measure took (a game kept before it was timed: none)."""
    seconds = [g["seconds"] for g in rows if "seconds" in g]
    return f"{statistics.median(seconds):.2f}" if seconds else "-"
