"""The documents a client author reads say what the server does: every problem type in the
README, every rule option, layout and scheme in docs/rules.md, the docs the code points to
present, and the README's shell transcript plays a real game on a real server."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import app.main  # noqa: F401  (every router, so every problem type, is imported)
from app.engine import LAYOUTS, Scoring
from app.engine.rules import OPTIONS
from app.kit.errors import ProblemError
from app.ops.migrations import upgrade
from tests.fixtures.servers import ROOT, live_server

README = (ROOT / "README.md").read_text(encoding="utf-8")
RULES = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")


def _problem_types(base: type[ProblemError] = ProblemError) -> set[type[ProblemError]]:
    found = set()
    for sub in base.__subclasses__():
        found |= {sub, *_problem_types(sub)}
    return found


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start : end if end != -1 else len(text)]


def test_the_readme_lists_every_problem_type_with_its_status() -> None:
    table = _section(README, "### Problem types")
    kinds = _problem_types()
    assert len(kinds) >= 25
    for kind in kinds:
        row = f"| `{kind.type_uri()}` | {kind.status} |"
        assert row in table, f"README's problem types lack {row}"


def test_the_rules_page_describes_every_option_layout_and_scheme() -> None:
    for option in OPTIONS:
        if option != "layout":
            assert f"**`{option}`**" in RULES, f"docs/rules.md does not describe {option}"
            assert f"| `{option}` |" in RULES, f"docs/rules.md's table lacks {option}"
    for layout in LAYOUTS:
        assert f"### `{layout}`" in RULES, layout
    for scheme in Scoring:
        assert f"### `{scheme.value}`" in RULES, scheme


def test_the_docs_the_code_points_to_exist() -> None:
    named = set()
    for path in [*(ROOT / "app").rglob("*.py"), *(ROOT / "web" / "js").glob("*.js")]:
        named |= set(re.findall(r"docs/[\w-]+\.md", path.read_text(encoding="utf-8")))
    assert "docs/rules.md" in named
    missing = sorted(name for name in named if not (ROOT / name).is_file())
    assert not missing, missing
    assert not re.search(r"(?<!docs/)\bRULES\.md", "".join(named))


@pytest.mark.slow
@pytest.mark.skipif(
    not all(shutil.which(tool) for tool in ("bash", "curl", "jq", "sha256sum")),
    reason="the README's transcript needs bash, curl, jq and sha256sum",
)
def test_the_readme_transcript_plays_a_game(tmp_path: Path) -> None:
    section = _section(README, "## Play a game from the shell")
    script = "\n".join(re.findall(r"```sh\n(.*?)```", section, re.S))
    assert "API=http://127.0.0.1:${PORT:-8000}" in script  # follows make run's PORT
    database = f"sqlite:///{tmp_path / 'readme.sqlite3'}"
    upgrade(database)
    with live_server(database) as base:
        port = base.rsplit(":", 1)[1]
        script = script.replace(".venv/bin/python", sys.executable)
        check = (
            '[ "$(printf \'tripeaks-deal-v1:%s:%s\' "$SALT" "$DEAL" | sha256sum | cut -d" " -f1)"'
            ' = "$(jq -r .commitment <<<"$GAME")" ] && echo COMMITMENT-OK'
        )
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", f"{script}\n{check}\n"],
            cwd=ROOT,
            env={**os.environ, "PORT": port},
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    assert '"status": "conceded"' in done.stdout
    assert "same cards" in done.stdout
    assert done.stdout.rstrip().endswith("COMMITMENT-OK"), done.stdout
