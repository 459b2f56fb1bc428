"""The lock (requirements/*.txt, `make lock`) is what every install takes: it pins each
dependency pyproject.toml names within its range, with hashes; the runtime's pins are the
dev lock's (the tests run on what the image ships); and the image, `make run` and
`make setup` install from it."""

from __future__ import annotations

import re
import tomllib

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.fixtures.servers import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)(?: ; (.*?))? \\$", re.M)


def pins(name: str) -> dict[str, str]:
    """The lock's ``name``: each package's pinned version for this interpreter (the lock
    holds every platform's: a package may be pinned under a marker or two)."""
    text = (ROOT / "requirements" / name).read_text(encoding="utf-8")
    found: dict[str, str] = {}
    for package, version, markers in PIN.findall(text):
        if markers and not Marker(markers).evaluate():
            continue
        key = canonicalize_name(package)
        assert found.setdefault(key, version) == version, f"{name}: {package} pinned twice"
    # Every pin carries its hashes (pip's --require-hashes refuses the lock otherwise).
    blocks = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n", 2)[2])
    assert all("--hash=sha256:" in block for block in blocks if "==" in block), name
    return found


def check_ranges(requirements: list[str], locked: dict[str, str], lock: str) -> None:
    for line in requirements:
        requirement = Requirement(line)
        version = locked.get(canonicalize_name(requirement.name))
        assert version is not None, f"{lock} lacks {requirement.name}: run `make lock`"
        assert requirement.specifier.contains(version, prereleases=True), (
            f"{lock} pins {requirement.name}=={version} outside {requirement.specifier}: "
            "run `make lock`"
        )


def test_the_runtime_lock_pins_every_dependency_within_its_range() -> None:
    check_ranges(PYPROJECT["project"]["dependencies"], pins("runtime.txt"), "runtime.txt")


def test_the_dev_lock_pins_the_runtime_and_the_dev_group() -> None:
    dev = pins("dev.txt")
    check_ranges(
        [*PYPROJECT["project"]["dependencies"], *PYPROJECT["dependency-groups"]["dev"]],
        dev,
        "dev.txt",
    )
    runtime = pins("runtime.txt")
    differ = {name: (v, dev.get(name)) for name, v in runtime.items() if dev.get(name) != v}
    assert not differ, f"the runtime's pins differ from the tests' (runtime, dev): {differ}"


def test_every_install_takes_the_lock_with_its_hashes() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert "COPY requirements/runtime.txt ./" in dockerfile
    assert "pip install --no-cache-dir --require-hashes -r runtime.txt" in dockerfile
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "LOCK_DEV := requirements/dev.txt" in makefile
    assert "LOCK_RUN := requirements/runtime.txt" in makefile
    installs = re.findall(r"pip install --quiet (.*)", makefile)
    assert "--require-hashes -r $(LOCK_DEV)" in installs  # make setup, CI
    assert "--require-hashes -r $(LOCK_RUN)" in installs  # make run
    # The project itself on top, without resolving anything again.
    assert installs.count("--no-deps -e .") == 2
