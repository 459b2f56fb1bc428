"""The ``tripeaks`` command line: solve, stats, bot; in process, and as installed (the
console script, run as a process with its defaults)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import main
from app.engine import Rules, apply, format_deal, get_layout, new_game, numbered_deal
from app.engine.bots import percentile
from app.engine.calibration import wilson
from app.engine.difficulty import DifficultySettings, difficulty


def run(argv: list[str], stdin: str = "") -> tuple[int, str]:
    out = io.StringIO()
    code = main(argv, stdin=io.StringIO(stdin), stdout=out)
    return code, out.getvalue()


def test_solve_reads_deals_from_standard_input() -> None:
    deals = f"{format_deal(numbered_deal(1))}\n\n# a comment\n{format_deal(numbered_deal(80))}\n"
    code, out = run(["solve", "--question", "clear", "--max-nodes", "2000"], deals)
    assert code == 0
    first, second = (json.loads(line) for line in out.splitlines())
    assert first["line"] == 1
    assert first["winnable"] is True
    state = new_game(numbered_deal(1), Rules())
    for move in first["win_line"]:
        state = apply(state, move)
    assert state.outcome.value == "won"
    assert second["line"] == 4
    assert second["winnable"] is None  # deal 80 is lost, proving it needs more nodes
    assert second["win_line"] is None
    assert "best_score" not in first
    assert first["seconds"] >= 0


def test_solve_best_from_a_file_with_rule_flags(tmp_path: Path) -> None:
    path = tmp_path / "deals.txt"
    path.write_text(format_deal(numbered_deal(1)) + "\n")
    code, out = run(["solve", str(path), "--draw-penalty", "0", "--deal-cost", "52"])
    assert code == 0
    record = json.loads(out)
    assert record["scoring"] == "classic"
    assert record["winnable"] is True
    assert isinstance(record["best_score"], int)
    state = new_game(numbered_deal(1), Rules(draw_penalty=0, deal_cost=52))
    for move in record["best_line"]:
        state = apply(state, move)
    assert state.score.total == record["best_score"]
    assert record["best_score"] > 88 - 52  # deal 1 scores 88 with draws at 5 points
    assert record["best_score_exact"] is True
    assert record["best_score_bound"] == record["best_score"]


def test_solve_six_peaks_answers_the_best_line_found_and_its_bound() -> None:
    """Where the search cannot finish (six peaks), the best line found within the budget,
    replayed to its score, and the bound no line passes."""
    deal = numbered_deal(1, decks=2)
    flags = ["--layout", "six_peaks", "--question", "best", "--max-nodes", "2000000"]
    code, out = run(["solve", *flags], format_deal(deal) + "\n")
    assert code == 0
    record = json.loads(out)
    assert record["best_score_exact"] is False
    assert 0 < record["best_score"] < record["best_score_bound"] <= 1701
    state = new_game(deal, Rules.for_layout("six_peaks"), get_layout("six_peaks"))
    for move in record["best_line"]:
        state = apply(state, move)
    assert state.score.total == record["best_score"]


def test_solve_reports_a_bad_line_and_goes_on() -> None:
    code, out = run(["solve", "--question", "clear"], "7h 7h\n" + format_deal(numbered_deal(1)))
    assert code == 1
    bad, good = (json.loads(line) for line in out.splitlines())
    assert "error" in bad and bad["line"] == 1
    assert good["winnable"] is True


def test_bad_rules_are_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = run(["solve", "--wrap", "--king-stops"], "")
    assert code == 2
    assert "king_stops" in capsys.readouterr().err


def test_stats() -> None:
    code, out = run(["stats", "--deals", "4", "--seed", "1", "--no-best", "--json"])
    assert code == 0
    report = json.loads(out)
    assert report["deals"] == 4
    assert report["winnable"] + report["unknown"] <= 4
    low, high = report["winnable_ci95"]
    assert 0 <= low <= report["winnable_share"] <= high <= 1
    code, text = run(["stats", "--deals", "2", "--layout", "golf", "--max-nodes", "500"])
    assert code == 0
    assert "winnable" in text and "best score (cards_left)" in text


@pytest.mark.slow
def test_stats_with_each_deal_s_difficulty() -> None:
    argv = ["stats", "--deals", "3", "--seed", "1", "--no-best", "--difficulty", "--playouts"]
    code, out = run([*argv, "4", "--json"])
    assert code == 0
    found = json.loads(out)["difficulty"]
    assert [d["deal"] for d in found["deals"]] == [1, 2, 3]
    for d in found["deals"]:
        rated = difficulty(numbered_deal(d["deal"]), Rules(), settings=DifficultySettings(4))
        assert rated is not None and d == {"deal": d["deal"], **rated.to_dict()}
    assert sum(found["tiers"].values()) == 3 and found["playouts"] == 4
    shares = [d["share"] for d in found["deals"]]
    assert found["mean_share"] == pytest.approx(sum(shares) / 3, abs=1e-4)
    code, text = run([*argv, "2", "--layout", "golf"])
    assert code == 0 and "difficulty (2 games by the hint a deal" in text


def test_bots_side_by_side_on_the_same_deals() -> None:
    argv = ["bot", "--games", "3", "--strategy", "random,greedy,pimc,hint", "--seed", "5"]
    argv += ["--hint-samples", "3", "--hint-nodes", "1000", "--hint-seconds", "0"]
    code, out = run([*argv, "--json"])
    assert code == 0
    report = json.loads(out)
    assert report["games"] == 3 and report["first_deal"] == 5
    by_name = {s["strategy"]: s for s in report["strategies"]}
    assert list(by_name) == ["random", "greedy", "pimc", "hint"]
    for s in by_name.values():
        assert s["games"] == 3 and 0 <= s["won"] <= 3
        low, high = s["win_rate_ci95"]
        assert low <= s["win_rate"] <= high
        assert 0 <= s["decision_seconds_p50"] <= s["decision_seconds_p99"]
    # The plain bots say no chance; the hints do, with a calibration table over it.
    assert by_name["greedy"]["brier"] is None and by_name["greedy"]["calibration"] == []
    for name in ("pimc", "hint"):
        table = by_name[name]["calibration"]
        assert sum(b["count"] for b in table) > 0
        assert 0 <= by_name[name]["brier"] <= 1
    # The same deals, seeds and sample counts: the same games again.
    assert json.loads(run([*argv, "--json"])[1])["strategies"][2]["won"] == by_name["pimc"]["won"]
    code, text = run(argv)
    assert code == 0
    assert "paired:" in text and "calibration of hint" in text


def test_bot_with_the_servers_time_budgeted_hint() -> None:
    argv = ["bot", "--games", "1", "--strategy", "hint", "--hint-seconds", "0.02"]
    code, out = run([*argv, "--hint-samples", "5", "--hint-nodes", "1000", "--json"])
    assert code == 0
    (hint,) = json.loads(out)["strategies"]
    assert hint["decisions"] >= 1
    assert 0 < hint["decision_seconds_p50"] <= hint["decision_seconds_p99"]


def test_an_unknown_strategy_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = run(["bot", "--games", "1", "--strategy", "greedy,clairvoyant"])
    assert code == 2
    assert "clairvoyant" in capsys.readouterr().err


def test_wilson_interval_and_percentile() -> None:
    low, high = wilson(90, 100)
    assert low == pytest.approx(0.8256, abs=1e-4)
    assert high == pytest.approx(0.9448, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)
    assert percentile([3.0, 1.0, 2.0], 0.5) == 2.0
    assert percentile([], 0.5) == 0.0


# The console script pyproject.toml installs beside this interpreter.
TRIPEAKS = Path(sys.executable).parent / "tripeaks"


def installed(argv: list[str], cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """The installed command, run from ``cwd`` (not the checkout) with its defaults."""
    return subprocess.run(
        [str(TRIPEAKS), *argv],
        input=stdin,
        cwd=cwd,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_the_installed_solve(tmp_path: Path) -> None:
    done = installed(["solve"], tmp_path, "7h 7h\n" + format_deal(numbered_deal(1)) + "\n")
    assert done.returncode == 1, done.stderr  # a bad line, then a deal
    bad, good = (json.loads(line) for line in done.stdout.splitlines())
    assert bad["line"] == 1 and "invalid deal" in bad["error"]
    assert good["winnable"] is True and good["best_score_exact"] is True
    won = new_game(numbered_deal(1), Rules())
    for move in good["win_line"]:
        won = apply(won, move)
    assert won.outcome.value == "won"
    best = new_game(numbered_deal(1), Rules())
    for move in good["best_line"]:
        best = apply(best, move)
    assert best.score.total == good["best_score"]


def test_the_installed_stats_and_bot(tmp_path: Path) -> None:
    stats = installed(["stats", "--deals", "3", "--seed", "1", "--json"], tmp_path)
    assert stats.returncode == 0, stats.stderr
    report = json.loads(stats.stdout)
    assert report["deals"] == 3 and report["first_deal"] == 1
    assert report["winnable"] + report["unknown"] == 3
    assert report["best_unknown"] < 3 and report["mean_best_score"] > 0

    bot = installed(["bot", "--games", "3", "--seed", "1", "--json"], tmp_path)
    assert bot.returncode == 0, bot.stderr
    (greedy,) = json.loads(bot.stdout)["strategies"]
    assert greedy["strategy"] == "greedy" and greedy["games"] == 3
    assert 0 <= greedy["won"] <= 3 and greedy["decisions"] > 0
