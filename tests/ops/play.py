"""Players for the load tests, and the check that every stored game is whole."""

from __future__ import annotations

import itertools
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from app import engine
from app.games.models import Game, Move

OK_STATUSES = {200, 201, 409, 412, 503}


@dataclass
class Record:
    """What the clients saw, shared by the player threads."""

    statuses: Counter[int] = field(default_factory=Counter)
    bad: list[str] = field(default_factory=list)  # answers no client should ever get
    applied: dict[tuple[str, int], str] = field(default_factory=dict)  # (game, version): move
    duplicates: list[tuple[str, int]] = field(default_factory=list)
    conflicts: int = 0  # 409 conflict + 412 answers
    unavailable: int = 0
    games: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def saw(self, r: httpx.Response, blind: bool = False) -> None:
        """Note an answer; ``blind``: a move sent without If-Match, which may find that a
        racing move already changed the game (a 400 illegal move is then right)."""
        with self.lock:
            self.statuses[r.status_code] += 1
            stale = blind and r.status_code == 400 and r.json()["type"] == "/problems/illegal-move"
            if r.status_code not in OK_STATUSES and not stale:
                self.bad.append(
                    f"{r.request.method} {r.request.url.path}: {r.status_code} {r.text}"
                )
            if r.status_code >= 400 and r.headers.get("content-type") != "application/problem+json":
                self.bad.append(f"{r.status_code} is not a problem: {r.text[:200]}")
            if r.status_code == 503:
                self.unavailable += 1
                if r.json().get("type") != "/problems/unavailable":
                    self.bad.append(f"503 of another type: {r.text}")
            if r.status_code == 412 or (
                r.status_code == 409 and r.json().get("type") == "/problems/conflict"
            ):
                self.conflicts += 1

    def moved(self, game_id: str, version: int, move: str) -> None:
        with self.lock:
            key = (game_id, version)
            if key in self.applied:
                self.duplicates.append(key)
            self.applied[key] = move


def play_games(
    bases: list[str],
    record: Record,
    *,
    until: float,
    game_id: str | None = None,
    token: str | None = None,
    if_match: bool = True,
    max_games: int = 1000,
) -> None:
    """Play (or join, given ``game_id`` and ``token``) games until ``until`` (monotonic),
    alternating between the servers at ``bases`` on every request. Races are expected:
    a 409/412 reloads, a 503 retries, an Idempotency-Key replay is not a new move."""
    turn = itertools.cycle(bases)
    clients = {b: httpx.Client(base_url=b, timeout=30) for b in bases}

    def call(method: str, url: str, blind: bool = False, **kw: Any) -> httpx.Response | None:
        try:
            r = clients[next(turn)].request(method, url, **kw)
        except httpx.TransportError as e:
            with record.lock:
                record.bad.append(f"{method} {url}: {type(e).__name__}")
            return None
        record.saw(r, blind)
        return r

    try:
        games = 0
        while time.monotonic() < until and games < max_games:
            if game_id is None:
                r = call("POST", "/v1/games", json={})
                if r is None or r.status_code != 201:
                    continue
                gid, tok = r.json()["id"], r.json()["token"]
                with record.lock:
                    record.games.add(gid)
            else:
                gid, tok = game_id, token or ""
            games += 1
            auth = {"Authorization": f"Bearer {tok}"}
            while time.monotonic() < until:
                r = call("GET", f"/v1/games/{gid}/legal-moves", headers=auth)
                if r is None or r.status_code != 200:
                    continue
                state = r.json()
                if state["status"] != "in_progress":
                    break
                move = next(m for m in state["legal_moves"] if m["kind"] != "concede")
                headers = {**auth, "Idempotency-Key": uuid.uuid4().hex}
                if if_match:
                    headers["If-Match"] = f'"v{state["version"]}"'
                r = call("POST", f"/v1/games/{gid}/moves", not if_match, json=move, headers=headers)
                if r is None or r.status_code != 200:
                    continue
                if r.headers.get("Idempotent-Replayed") != "true":
                    record.moved(gid, r.json()["version"], move["move"])
            if game_id is not None:
                return
    finally:
        for c in clients.values():
            c.close()


def check_stored_games(database_url: str, record: Record | None = None) -> int:
    """Every game's stored move log (seq 1..n) replays to its stored version, status,
    score and cards left; every move a client saw applied is the stored one at its
    version. The number of games checked."""
    db = create_engine(database_url)
    checked = 0
    try:
        with Session(db) as session:
            for game in session.scalars(select(Game)):
                rows = session.scalars(
                    select(Move).where(Move.game_id == game.id).order_by(Move.seq)
                ).all()
                assert [m.seq for m in rows] == list(range(1, len(rows) + 1)), game.id
                assert game.version == len(rows), game.id
                rules = engine.Rules.from_dict(game.rules)
                layout = engine.get_layout(game.layout)
                deal = engine.parse_deal(game.deal, layout.decks, rules.jokers)
                state = engine.replay(deal, rules, [m.move for m in rows], layout)
                assert state.moves_made == game.version, game.id
                assert state.outcome.value == game.status.value, game.id
                assert state.score.total == game.score, game.id
                assert state.cards_left == game.cards_left, game.id
                if record is not None:
                    for m in rows:
                        seen = record.applied.get((game.id, m.seq))
                        assert seen is None or seen == m.move, (game.id, m.seq, seen, m.move)
                checked += 1
        if record is not None:
            with Session(db) as session:
                stored = {
                    g.id: g.version
                    for g in session.scalars(select(Game).where(Game.id.in_(record.games)))
                }
            for gid, v in record.applied:
                assert v <= stored.get(gid, 0), (gid, v)  # an acknowledged move is stored
    finally:
        db.dispose()
    return checked
