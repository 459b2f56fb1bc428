"""The solver through HTTP: winnable_only deals, hints that never peek, and analysis."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient

from app import engine
from app.engine.solver import SearchBudget, solve_clear
from tests.fixtures.deals import TRIPEAKS_CLEAR_ORDER, chain_deal, losing_deal
from tests.fixtures.games import new_game_id


def test_winnable_only_deals_a_proven_winnable_deal_and_keeps_its_number_secret(
    client: TestClient,
) -> None:
    gid, auth = new_game_id(client, winnable_only=True, rules={"wrap": False})
    state = client.get(f"/v1/games/{gid}", headers=auth).json()
    assert state["deal_number"] is None
    ended = client.post(f"/v1/games/{gid}/concede", headers=auth).json()
    reveal = ended["reveal"]
    deal = engine.parse_deal(reveal["deal"])
    assert deal == engine.numbered_deal(reveal["deal_number"])
    rules = engine.Rules.for_layout(wrap=False)
    assert solve_clear(engine.new_game(deal, rules), SearchBudget(max_nodes=None)).winnable is True


def hidden_variant(deal: list[str]) -> list[str]:
    """The same deal as the player sees it at the start, with hidden cards swapped: two
    face-down cards with each other, and two stock cards with each other."""
    other = list(deal)
    other[0], other[5] = other[5], other[0]
    other[30], other[40] = other[40], other[30]
    return other


def test_a_hint_cannot_depend_on_hidden_cards(client: TestClient) -> None:
    deal = [c.code for c in engine.numbered_deal(31)]
    twin = hidden_variant(deal)
    assert twin != deal
    answers = []
    for d in (deal, twin):
        gid, auth = new_game_id(client, deal=d)
        view = client.get(f"/v1/games/{gid}", headers=auth).json()
        r = client.get(f"/v1/games/{gid}/hint?seed=7&samples=6", headers=auth)
        assert r.status_code == 200, r.text
        hint = r.json()
        assert hint["samples"] == 6
        assert hint["move"] in view["legal_moves"]
        # The calibrated chance, inside its interval; the clairvoyant share beside it.
        low, high = hint["win_chance_ci95"]
        assert 0 <= low <= hint["win_chance"] <= high <= 1
        assert 0 <= hint["sample_share"] <= 1
        answers.append(
            (
                view["tableau"],
                view["waste"],
                {
                    k: hint[k]
                    for k in ("move", "win_chance", "win_chance_ci95", "sample_share", "samples")
                },
            )
        )
    assert answers[0] == answers[1]


def test_hint_errors(client: TestClient) -> None:
    gid, auth = new_game_id(client, deal=losing_deal())
    assert client.get(f"/v1/games/{gid}/hint").status_code == 401
    assert client.get(f"/v1/games/{gid}/hint?samples=0", headers=auth).status_code == 422
    assert client.get(f"/v1/games/{gid}/hint?samples=65", headers=auth).status_code == 422
    client.post(f"/v1/games/{gid}/concede", headers=auth)
    r = client.get(f"/v1/games/{gid}/hint", headers=auth)
    assert r.status_code == 409 and r.json()["type"] == "/problems/game-over"


def test_hint_on_open_peaks_with_the_stock_known_is_exact(client: TestClient) -> None:
    gid, auth = new_game_id(client, deal=chain_deal(), rules={"open_peaks": True})
    for position in TRIPEAKS_CLEAR_ORDER[:-1]:
        client.post(f"/v1/games/{gid}/play", json={"position": position}, headers=auth)
    hint = client.get(f"/v1/games/{gid}/hint", headers=auth).json()
    assert hint["move"]["move"] == f"play {TRIPEAKS_CLEAR_ORDER[-1]}"
    assert hint["win_chance"] == 1.0


def test_analysis_only_after_the_end(client: TestClient) -> None:
    gid, auth = new_game_id(client, deal=chain_deal())
    r = client.get(f"/v1/games/{gid}/analysis", headers=auth)
    assert r.status_code == 409 and r.json()["type"] == "/problems/game-in-progress"
    for position in TRIPEAKS_CLEAR_ORDER:
        client.post(f"/v1/games/{gid}/play", json={"position": position}, headers=auth)
    a = client.get(f"/v1/games/{gid}/analysis", headers=auth).json()
    assert a["status"] == "won" and a["winnable"] is True and a["complete"] is True
    assert a["best_score"] == a["final_score"] == 466
    assert a["lost_at"] is None


def test_analysis_of_an_unwinnable_deal(client: TestClient) -> None:
    gid, auth = new_game_id(client, deal=losing_deal())
    for _ in range(23):
        client.post(f"/v1/games/{gid}/draw", headers=auth)
    a = client.get(f"/v1/games/{gid}/analysis", headers=auth).json()
    assert a["status"] == "lost" and a["winnable"] is False
    assert a["best_score"] == 0  # conceding at once beats every draw
    assert a["final_score"] == -115
    assert a["lost_at"] is None and a["win_line"] == []


def test_analysis_finds_where_a_winnable_game_was_lost(client: TestClient) -> None:
    """Drawing through the stock of a winnable deal loses it somewhere: the move the
    analysis names must turn a winnable position into one that is not, by the solver."""
    deal = chain_deal()
    gid, auth = new_game_id(client, deal=deal)
    for _ in range(23):
        r = client.post(f"/v1/games/{gid}/draw", headers=auth)
        if r.json()["status"] != "in_progress":
            break
    if r.json()["status"] == "in_progress":
        client.post(f"/v1/games/{gid}/concede", headers=auth)
    a = client.get(f"/v1/games/{gid}/analysis", headers=auth).json()
    assert a["winnable"] is True
    assert a["lost_at"] is not None
    moves = [m["move"] for m in client.get(f"/v1/games/{gid}/moves", headers=auth).json()["moves"]]
    assert a["lost_move"] == moves[a["lost_at"]]
    rules = engine.Rules.for_layout()
    before = engine.replay(engine.parse_deal(deal), rules, moves[: a["lost_at"]])
    after = engine.apply(before, moves[a["lost_at"]])
    assert solve_clear(before, SearchBudget(max_nodes=None)).winnable is True
    assert solve_clear(after, SearchBudget(max_nodes=None)).winnable is not True


def test_a_six_peaks_analysis_answers_the_best_line_found_and_its_bound(
    client_with: Callable[..., TestClient],
) -> None:
    """Six peaks' best-score search does not finish within an analysis's budget:
    the analysis answers the best line found (which the engine replays to its score, and
    which is at least the game's own) and the bound no line passes, marked not exact."""
    client = client_with(analysis_budget_ms=3000)
    gid, auth = new_game_id(client, layout="six_peaks", deal_number=1)
    state = client.get(f"/v1/games/{gid}", headers=auth).json()
    while state["status"] == "in_progress":  # the first card that fits, else a draw
        legal = [m["move"] for m in state["legal_moves"]]
        move = next((m for m in legal if m.startswith("play")), "draw")
        r = client.post(f"/v1/games/{gid}/moves", json={"move": move}, headers=auth)
        assert r.status_code == 200, r.text
        state = r.json()
    r = client.get(f"/v1/games/{gid}/analysis", headers=auth)
    assert r.status_code == 200, r.text
    a = r.json()
    assert a["best_score_exact"] is False and a["complete"] is False
    # the bound the search proved: at most every card in one streak and every peak
    assert a["best_score_bound"] <= 56 * 57 // 2 + 5 * 15 + 30
    assert state["score"]["total"] <= a["best_score"] < a["best_score_bound"]
    layout = engine.get_layout("six_peaks")
    line_end = engine.replay(
        engine.numbered_deal(1, layout.decks),
        engine.Rules.for_layout(layout),
        a["best_line"],
        layout,
    )
    assert line_end.score.total == a["best_score"] and line_end.is_over
    # Kept: the second call answers the same at once.
    assert client.get(f"/v1/games/{gid}/analysis", headers=auth).json() == a
