"""``python -m bench hints``: strategies side by side, kept games, the calibration fit."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bench import hints


def test_hints_side_by_side_kept_and_resumed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["hints", "--deals", "3", "--first", "7", "--strategies", "greedy,hint"]
    argv += ["--samples", "3", "--seconds", "0", "--nodes", "2000", "--out", str(tmp_path)]
    hints.run([*argv, "--fit"])
    out = capsys.readouterr().out
    assert "rules wrap, deals 7-9" in out
    assert "paired:" in out and "calibration of hint" in out
    assert "KNOTS['wrap'] = " in out
    kept = (tmp_path / "wrap-hint.jsonl").read_text().splitlines()
    assert sorted(json.loads(line)["deal"] for line in kept) == [7, 8, 9]
    game = json.loads(kept[0])
    assert len(game["chances"]) == len(game["shares"]) <= len(game["seconds"])
    # A second run plays only the deals not kept yet: here none, then one more.
    hints.run(argv)
    assert len((tmp_path / "wrap-hint.jsonl").read_text().splitlines()) == 3
    hints.run([a if a != "3" or i != 2 else "4" for i, a in enumerate(argv)])
    assert len((tmp_path / "wrap-hint.jsonl").read_text().splitlines()) == 4


def test_an_unknown_strategy_is_refused() -> None:
    with pytest.raises(SystemExit, match="clairvoyant"):
        hints.run(["hints", "--deals", "1", "--strategies", "clairvoyant"])


def test_fairplay_flags_and_keeps_its_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``python -m bench fairplay``: every player's games measured and kept; a second run
    with the same file plays none again. The best line's short game (3 telling decisions)
    is flagged only with the player's other result."""
    from bench import fairplay

    out = tmp_path / "fairplay.jsonl"
    argv = ["fairplay", "--deals", "2", "--players", "greedy,exact", "--samples", "8"]
    fairplay.run([*argv, "--workers", "1", "--out", str(out)])
    text = capsys.readouterr().out
    assert "rules wrap, 2 daily-like deals from seed 777" in text
    assert "needs 4 telling decisions to flag" in text
    [exact] = [line.split() for line in text.splitlines() if line.startswith("  exact ")]
    assert (exact[2], exact[-4:-1]) == ("50.0%", ["100.0%", "-", "-"])
    kept = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted((g["player"], g["seed"]) for g in kept) == [
        ("exact", 777),
        ("exact", 778),
        ("greedy", 777),
        ("greedy", 778),
    ]
    assert all(g["resolved"] == g["telling"] for g in kept if g["player"] == "exact")
    fairplay.run([*argv, "--workers", "1", "--out", str(out)])
    assert len(out.read_text().splitlines()) == 4
    with pytest.raises(SystemExit, match="clairvoyant"):
        fairplay.run(["fairplay", "--players", "clairvoyant"])


@pytest.mark.slow
def test_fairplay_weighs_the_stocks_evidence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``python -m bench fairplay --stock``: each game's z kept, and the table of a game
    alone and of a player's results summed."""
    from bench import fairplay

    out = tmp_path / "stock.jsonl"
    argv = ["fairplay", "--stock", "--deals", "1", "--players", "greedy", "--workers", "1"]
    fairplay.run([*argv, "--out", str(out)])
    text = capsys.readouterr().out
    assert "the stock's evidence z (flagged over 3.0)" in text
    (game,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert (game["player"], game["seed"]) == ("greedy", 777)
    assert game["decisions"] > 0 and isinstance(game["z"], float)
    assert "  greedy          1" in text


@pytest.mark.slow
def test_difficulty_measures_keeps_and_predicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``python -m bench difficulty --quick``: every deal measured and kept; a second run
    measures none again and prints the same figures."""
    from bench import difficulty

    out = tmp_path / "difficulty.jsonl"
    argv = ["difficulty", "--quick", "--workers", "1", "--out", str(out)]
    difficulty.run(argv)
    first = capsys.readouterr().out
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 10 and sum(r["heldout"] for r in rows) == 4
    assert all(0 <= r["wins"] <= r["playouts"] == 6 for r in rows)
    assert all(
        isinstance(r["greedy"], bool) and isinstance(r["hint"], bool) for r in rows if r["heldout"]
    )
    assert "### 1. The distribution" in first and "### 2. What it predicts" in first
    difficulty.run(argv)
    again = capsys.readouterr().out
    assert "0 deals to measure (10 kept)" in again
    # The same figures from the deals kept (the draws are made again: their times differ).
    kept = [text.split("\n", 1)[1].split("### 3.")[0] for text in (first, again)]
    assert kept[0] == kept[1]
    for tier in ("easy", "medium", "hard"):
        assert f"  {tier}: 1 draws" in again
    assert len(out.read_text().splitlines()) == 10


def test_the_hints_tried_and_not_taken_play_and_never_peek(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from app.engine import Rules, apply, new_game, numbered_deal, player_view
    from app.engine.solver import SearchBudget
    from bench.hint_attempts import postponed_move, rollout_move

    names = "postponed,postponed3,rollout"
    argv = ["hints", "--deals", "2", "--first", "3", "--strategies", names]
    hints.run([*argv, "--samples", "4", "--seconds", "0", "--out", str(tmp_path)])
    assert "paired: " in capsys.readouterr().out
    for name in names.split(","):
        assert len((tmp_path / f"wrap-{name}.jsonl").read_text().splitlines()) == 2
    # Two games the player cannot tell apart (a face-down card and a stock card swapped):
    # the same moves, whatever the hidden cards.
    rules = Rules.for_layout("tripeaks")
    deal = list(numbered_deal(5))
    deal[0], deal[40] = deal[40], deal[0]
    a, b = new_game(numbered_deal(5), rules), new_game(tuple(deal), rules)
    assert a.tableau != b.tableau
    budget = SearchBudget(max_nodes=5_000)
    for _ in range(3):
        va, vb = player_view(a), player_view(b)
        assert va == vb
        for move in (postponed_move, rollout_move):
            chosen = [
                move(
                    v,
                    rules,
                    a.layout,
                    seed=2,
                    time_budget=None,
                    max_samples=6,
                    sample_budget=budget,
                )
                for v in (va, vb)
            ]
            assert chosen[0] == chosen[1] and chosen[0] in va["legal_moves"]
        a, b = apply(a, "draw"), apply(b, "draw")


@pytest.mark.slow
def test_servers_sets_the_production_server_against_uvicorn(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from bench import servers

    servers.run(["--rounds", "2", "--bare", "20", "--moves", "10"])
    out = capsys.readouterr().out
    rows = re.findall(r"^\| (granian|uvicorn) \| (\d+\.\d+) \| (\d+\.\d+) \|", out, re.M)
    assert [name for name, _, _ in rows] == ["granian", "uvicorn"], out
    assert all(float(bare) > 0 and float(move) > float(bare) for _, bare, move in rows), out
    assert re.search(r"uvicorn over granian, move: \d+\.\d+x", out), out


def test_http_lists_its_options_and_refuses_what_is_no_checkout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bench import http

    with pytest.raises(SystemExit) as listed:
        http.run(["http", "--help"])
    assert listed.value.code == 0
    out = capsys.readouterr().out
    for option in ("--quick", "--sqlite-only", "--baseline DIR", "--current DIR"):
        assert option in out
    # Refused before any server starts: a directory without its value, or no checkout.
    with pytest.raises(SystemExit) as bare:
        http.run(["http", "--baseline"])
    assert bare.value.code == 2
    assert "--baseline" in capsys.readouterr().err
    with pytest.raises(SystemExit, match=r"--baseline .*: no .*\(a checkout, after make setup\)"):
        http.run(["http", "--baseline", str(tmp_path)])
    with pytest.raises(SystemExit, match=r"--current .*: no "):
        http.run(["http", "--current", str(tmp_path)])


def test_duels_matches_and_reads_the_board_small(capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m bench duels`` at a small size: every request_duel matched (the bench
    refuses an opened one), the board's answers checked, both tables printed (SQLite, and
    PostgreSQL when one answers)."""
    from bench import duels

    argv = ["duels", "--players", "2000", "--duels", "200", "--rounds", "1", "--per-round", "2"]
    duels.run(argv)
    out = capsys.readouterr().out
    assert "### SQLite: 2,000 rated players loaded, 200 waiting duels" in out
    for call in (
        "request_duel (matched)",
        "board: among=following (first 20 of 101)",
        "nearest_waiting",
    ):
        assert call in out
    assert len(re.findall(r"^goal: .* a one-row read: \d+\.\d+x (met|MISSED)$", out, re.M)) >= 3
    with pytest.raises(SystemExit, match="--duels 5000"):
        duels.run(["duels", "--players", "2000", "--duels", "5000"])
