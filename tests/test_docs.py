"""The documents a client author reads say what the server does: every problem type in the
spec's catalogue, which the docs' problem page is made from; every rule option, layout and
scheme in docs/rules.md; the docs the code points to present; and the shell transcripts
(the README's taste, Getting started's whole game) play a real game on a real server and
print what the text says they print."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import app.main  # noqa: F401  (every router, so every problem type, is imported)
from app.engine import LAYOUTS, Scoring
from app.engine.rules import OPTIONS
from app.kit.problems import problem_types
from app.ops.migrations import upgrade
from docs.hooks import MARKER, OPERATIONS, operation_table, problem_table
from tests.fixtures.servers import ROOT, live_server

README = (ROOT / "README.md").read_text(encoding="utf-8")
RULES = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
GETTING_STARTED = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
SPEC = json.loads((ROOT / "openapi" / "openapi.json").read_text(encoding="utf-8"))


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start : end if end != -1 else len(text)]


def test_the_spec_catalogues_every_problem_type_and_the_docs_show_it() -> None:
    kinds = problem_types()
    assert len(kinds) >= 25
    catalogue = {entry["type"]: entry for entry in SPEC["x-problem-types"]}
    assert set(catalogue) == {kind.type_uri() for kind in kinds}
    table = problem_table(SPEC)
    for kind in kinds:
        entry = catalogue[kind.type_uri()]
        assert (entry["status"], entry["title"]) == (kind.status, kind.title)
        assert len(kind.when) > 10, f"{kind.__name__} says not when it is sent"
        assert f"| `{kind.type_uri()}` | {kind.status} | {kind.title} |" in table
    # The page is made from the spec as the site is built: its source holds no table.
    page = (ROOT / "docs" / "api" / "problems.md").read_text(encoding="utf-8")
    assert MARKER in page and "| `/problems/" not in page


def test_the_api_reference_lists_every_operation_from_the_spec() -> None:
    table = operation_table(SPEC)
    ids = [
        operation["operationId"]
        for item in SPEC["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and "operationId" in operation
    ]
    assert len(ids) >= 40
    for operation_id in ids:
        assert f"| `{operation_id}` |" in table
    page = (ROOT / "docs" / "api" / "index.md").read_text(encoding="utf-8")
    assert OPERATIONS in page


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
        named |= set(re.findall(r"docs/[\w/-]+\.md", path.read_text(encoding="utf-8")))
    assert "docs/rules.md" in named
    missing = sorted(name for name in named if not (ROOT / name).is_file())
    assert not missing, missing
    assert not re.search(r"(?<!docs/)\bRULES\.md", "".join(named))


def _comments_printed(script: str) -> list[str]:
    """The outputs a transcript says its commands print (``# {...}`` after a command),
    but for those holding what is random in a game (its id, token, salt)."""
    return re.findall(r"^# (\{.*\}|deal \d+: same cards)$", script, re.M)


def _run_transcript(script: str, tmp_path: Path) -> str:
    database = f"sqlite:///{tmp_path / 'transcript.sqlite3'}"
    upgrade(database)
    with live_server(database) as base:
        port = base.rsplit(":", 1)[1]
        script = script.replace(".venv/bin/python", sys.executable)
        # The reader exports the port make run serves on; the test's server has its own.
        script = script.replace("export PORT=8000", f"export PORT={port}")
        script = script.replace("API=http://127.0.0.1:8000", f"API=http://127.0.0.1:{port}")
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    return done.stdout


TOOLS = ("bash", "curl", "jq", "sha256sum")


@pytest.mark.slow
@pytest.mark.skipif(
    not all(shutil.which(tool) for tool in TOOLS),
    reason="the transcripts need bash, curl, jq and sha256sum",
)
def test_the_getting_started_transcript_plays_a_game_and_prints_what_it_says(
    tmp_path: Path,
) -> None:
    section = _section(GETTING_STARTED, "## Play a game from the shell")
    script = "\n".join(re.findall(r"```sh\n(.*?)```", section, re.S))
    assert script.startswith("export PORT=8000\nAPI=http://127.0.0.1:$PORT\n")
    assert '"deal_number": 7' in script  # a fixed deal: the outputs can match
    check = (
        '[ "$(printf \'tripeaks-deal-v1:%s:%s\' "$SALT" "$DEAL" | sha256sum | cut -d" " -f1)"'
        ' = "$(jq -r .commitment <<<"$GAME")" ] && echo COMMITMENT-OK'
    )
    stdout = _run_transcript(f"{script}\n{check}\n", tmp_path)
    assert '"status": "conceded"' in stdout
    printed = _comments_printed(script)
    assert len(printed) >= 4, printed
    for line in printed:
        assert line in stdout, f"the page says {line!r}; the game printed:\n{stdout}"
    # The state shown in full is deal 7's, but for its random id and commitment.
    shown = re.search(r"```json\n(\{\n  \"id\".*?)```", section, re.S)
    assert shown is not None
    first = json.loads(shown[1])
    played = json.loads(stdout[: stdout.index("\n}\n") + 2])
    for field in ("waste_top", "stock_count", "cards_left", "free", "legal_moves"):
        assert first[field] == played[field], field
    assert stdout.rstrip().endswith("COMMITMENT-OK"), stdout


@pytest.mark.slow
@pytest.mark.skipif(
    not all(shutil.which(tool) for tool in TOOLS),
    reason="the transcripts need bash, curl, jq and sha256sum",
)
def test_the_readme_taste_prints_what_it_says(tmp_path: Path) -> None:
    section = _section(README, "## A taste of the API")
    script = "\n".join(re.findall(r"```sh\n(.*?)```", section, re.S))
    stdout = _run_transcript(script, tmp_path)
    printed = _comments_printed(script)
    assert len(printed) == 3, printed
    assert stdout.splitlines() == printed


def test_the_readme_is_a_front_door() -> None:
    assert len(README.splitlines()) <= 150
    for where in ("http://127.0.0.1:8000/", "http://127.0.0.1:8000/docs", "make run", "make test"):
        assert where in README
    for link in re.findall(r"\]\((docs/[^)#]+)", README):
        assert (ROOT / link).is_file(), link
