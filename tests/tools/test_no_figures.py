"""The check that keeps measured figures out of app/ (tools/no_figures.py, run by ``make
lint``): it passes on this tree and fails on a figure in a comment, a docstring or a C
comment, while a rule's own numbers and the code's strings pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools import no_figures

ROOT = Path(__file__).resolve().parents[2]


def _tree(root: Path, name: str, source: str) -> Path:
    (root / "app" / "engine").mkdir(parents=True)
    (root / "app" / "engine" / name).write_text(source, encoding="utf-8")
    return root


def test_this_tree_passes() -> None:
    assert no_figures.check(ROOT) == []
    assert no_figures.main([str(ROOT)]) == 0


@pytest.mark.parametrize(
    ("name", "source", "figure"),
    [
        ("hints.py", '"""The hint bot won 349 games (58.2%)."""\n', "58.2%"),
        ("limits.py", "SIZE = 100_000  # what it remembers (17 MB, measured)\n", "17 MB"),
        ("solver.py", 'def f() -> None:\n    """Its search takes 0.35 s a deal."""\n', "0.35 s"),
        ("accel.py", "# The C search runs 12x faster than the pure one.\nX = 1\n", "12x faster"),
        ("clear.c", "/* a table of\n * 64 MiB at most */\nint x;\n", "64 MiB"),
        ("server.py", "# it served 1,200 req/s on the bench machine\nX = 1\n", "1,200 req/s"),
    ],
)
def test_a_figure_fails(
    tmp_path: Path, name: str, source: str, figure: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _tree(tmp_path, name, source)
    [found] = no_figures.check(root)
    assert (found.path, found.text) == (f"app/engine/{name}", figure)
    assert no_figures.main([str(root)]) == 1
    assert f"app/engine/{name}:" in capsys.readouterr().out


def test_rules_and_strings_pass(tmp_path: Path) -> None:
    source = (
        '"""At most 100 ms between tries; the 95% interval; 2^23 slots of 16 bytes."""\n'
        'HELP = "a 2.5% margin, 4 MB"  # a string of the code is no comment\n'
    )
    assert no_figures.check(_tree(tmp_path, "rules.py", source)) == []
