"""The Dockerfile: multi-stage on a slim Python, a non-root user, a HEALTHCHECK on
/readyz, the entrypoint and the production server; clean under hadolint, and the
entrypoint clean under shellcheck (both installed from PyPI by the dev group)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.servers import ROOT

DOCKERFILE = (ROOT / "Dockerfile").read_text(encoding="utf-8")


def tool(name: str) -> str:
    found = shutil.which(
        name, path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    )
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is not installed: CI must lint the container files")
        pytest.skip(f"{name} is not installed (`make setup` installs it)")
    return found


def test_multi_stage_on_a_slim_python() -> None:
    stages = re.findall(r"^FROM\s+(\S+)\s+AS\s+(\w+)", DOCKERFILE, flags=re.MULTILINE)
    assert [name for _, name in stages] == ["build", "runtime"]
    assert re.search(r"^ARG PYTHON_IMAGE=python:3\.11-slim", DOCKERFILE, flags=re.MULTILINE)
    assert "COPY --from=build /opt/venv /opt/venv" in DOCKERFILE


def test_runs_as_a_non_root_user_with_a_healthcheck_and_the_entrypoint() -> None:
    users = re.findall(r"^USER\s+(\S+)", DOCKERFILE, flags=re.MULTILINE)
    assert users and users[-1].split(":")[0] not in ("root", "0")
    assert re.search(r"^HEALTHCHECK .*\n?.*docker/healthcheck\.py", DOCKERFILE, flags=re.M)
    assert "/readyz" in (ROOT / "docker" / "healthcheck.py").read_text(encoding="utf-8")
    assert 'ENTRYPOINT ["/app/docker/entrypoint.sh"]' in DOCKERFILE
    assert 'CMD ["python", "-m", "app.ops.serve"]' in DOCKERFILE
    assert os.access(ROOT / "docker" / "entrypoint.sh", os.X_OK)


def test_the_image_context_leaves_out_the_rest() -> None:
    ignore = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    assert ignore[ignore.index("**") + 1 :][:5] == [
        "!requirements/runtime.txt",
        "!alembic.ini",
        "!migrations/",
        "!app/",
        "!docker/",
    ]
    # Every source of every COPY from the context (all but its last word), globs included.
    for line in re.findall(r"^COPY (?!--from)(?:--\S+ )*(.+)$", DOCKERFILE, flags=re.M):
        for source in line.split()[:-1]:
            assert list(ROOT.glob(source)), source


def test_hadolint_passes() -> None:
    result = subprocess.run(
        [tool("hadolint"), "Dockerfile"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_shellcheck_passes_on_the_entrypoint() -> None:
    result = subprocess.run(
        [tool("shellcheck"), "docker/entrypoint.sh"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
