"""``make image-test``: build the image in a Docker engine of our own and test it as ops
run it. ``python -m tests.image.harness [--cache DIR] -- PYTEST_COMMAND...``

The steps, each timed (the times are printed at the end, also when a step failed):

1. install what is missing, from Debian's packages: docker.io (dockerd 20.10, containerd,
   runc), mmdebstrap, docker-compose (1.29). Services are never started by the install
   (a policy-rc.d says no while apt runs).
2. start the private engine (tests/image/engine.py: its own socket, data root and exec
   root under the cache, never touching the machine's firewall or forwarding).
3. the base image. No registry is reachable here, so ``python:3.11-slim`` cannot be
   pulled: its stand-in is Debian bookworm, minbase, with Debian's python3, python3-venv,
   python-is-python3, ca-certificates and tzdata (and, as in Debian's slim images,
   without manuals, documentation or translations), made by mmdebstrap from the
   machine's own apt sources. The tarball is cached under a key of what it holds, and
   imported once into the engine (whose data root is cached too).
4. the image: the project's Dockerfile with the legacy builder (BuildKit would fetch its
   ``# syntax`` frontend from a registry), ``PYTHON_IMAGE`` set to the base above. pip
   in the build stage must trust the TLS proxy these machines reach PyPI through: the
   locally added certificates of Debian's trust store are passed as ``BUILD_CA_CERTS``,
   which only the build stage reads (tests/image/test_image.py checks that the runtime
   image holds none of them). Its size is printed.
5. the stand-ins for the images deploy/compose.yaml names that cannot be pulled here
   (PostgreSQL, Redis, HAProxy): the same role from Debian's packages, on the same base,
   tagged in this private engine under the official names (tests/image/standins/).
6. the tests: the given pytest command, with the engine's address and the image's tag in
   its environment.
7. everything removed (containers, networks, volumes; images stay as the cache), the
   engine stopped by its PID, its bridges and mounts removed, and the machine's IP
   forwarding and FORWARD policy checked unchanged.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

import yaml

from tests.image.engine import (
    Docker,
    Engine,
    EngineError,
    EnginePaths,
    dockerd_pids,
    machine_state,
)

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
DEFAULT_CACHE = ROOT / ".cache" / "image"
LOCK_FILE = Path("/run/lock/tripeaks-image-test.lock")
DOCKER = "/usr/bin/docker"  # Debian's client, the engine's own version
PACKAGES = ("docker.io", "mmdebstrap", "docker-compose")

IMAGE_TAG = "tripeaks:image-test"
BASE_REPOSITORY = "tripeaks-test/python"
BASE_SUITE = "bookworm"
BASE_PACKAGES = ("python3", "python3-venv", "python-is-python3", "ca-certificates", "tzdata")
# As Debian's slim images: no manuals, documentation (but the copyrights) or translations.
BASE_DPKG_OPTIONS = (
    "path-exclude=/usr/share/man/*",
    "path-exclude=/usr/share/doc/*",
    "path-include=/usr/share/doc/*/copyright",
    "path-exclude=/usr/share/locale/*",
    "path-exclude=/usr/share/info/*",
)
LOCAL_CA_DIR = Path("/usr/local/share/ca-certificates")
# Which stand-in plays each service of deploy/compose.yaml that runs someone else's image.
STANDINS = {"db": "postgres", "redis": "redis", "proxy": "haproxy"}
COMPOSE_FILE = ROOT / "deploy" / "compose.yaml"


class StepFailedError(Exception):
    pass


@dataclass
class Steps:
    """Each step's name and seconds, in order; printed at the end."""

    times: list[tuple[str, float, str]] = field(default_factory=list)

    @contextlib.contextmanager
    def step(self, name: str) -> Iterator[list[str]]:
        """Time the block; what it appends to the yielded list is noted beside the time."""
        notes: list[str] = []
        print(f"image-test: {name}...", flush=True)
        start = time.monotonic()
        try:
            yield notes
        except BaseException:
            notes.append("FAILED")
            raise
        finally:
            self.times.append((name, time.monotonic() - start, ", ".join(notes)))

    def report(self) -> str:
        lines = ["image-test: the steps' times"]
        for name, seconds, note in self.times:
            lines.append(f"  {name:<34} {seconds:7.1f} s{'  (' + note + ')' if note else ''}")
        lines.append(f"  {'total':<34} {sum(t for _, t, _ in self.times):7.1f} s")
        return "\n".join(lines)


def missing_packages() -> list[str]:
    missing = []
    for package in PACKAGES:
        status = subprocess.run(
            ["dpkg-query", "-W", "-f=${Status}", package],
            capture_output=True,
            text=True,
            check=False,
        ).stdout
        if "install ok installed" not in status:
            missing.append(package)
    return missing


def install(packages: Sequence[str]) -> None:
    """apt-get install, with services kept from starting: docker.io's scripts would start
    dockerd with its defaults, which rewrite the firewall."""
    policy = Path("/usr/sbin/policy-rc.d")
    made_policy = not policy.exists()
    if made_policy:
        policy.write_text("#!/bin/sh\n# image-test: no service starts while apt runs\nexit 101\n")
        policy.chmod(0o755)
    try:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-q"], check=True, env=env)
        subprocess.run(
            ["apt-get", "install", "-y", "-q", "--no-install-recommends", *packages],
            check=True,
            env=env,
        )
    finally:
        if made_policy:
            policy.unlink()


def apt_sources() -> list[Path]:
    """The machine's own apt sources (deb822 or one-line files)."""
    etc = Path("/etc/apt")
    found = [etc / "sources.list"] if (etc / "sources.list").is_file() else []
    found += sorted((etc / "sources.list.d").glob("*.list"))
    found += sorted((etc / "sources.list.d").glob("*.sources"))
    return [p for p in found if any(_is_source(line) for line in p.read_text().splitlines())]


def _is_source(line: str) -> bool:
    line = line.strip()
    return line.startswith(("deb ", "Types:", "URIs:"))


def base_key(sources: Sequence[Path]) -> str:
    what = {
        "suite": BASE_SUITE,
        "packages": BASE_PACKAGES,
        "dpkg": BASE_DPKG_OPTIONS,
        "sources": [p.read_text() for p in sources],
    }
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:12]


def base_tarball(cache: Path, notes: list[str]) -> tuple[Path, str]:
    """The base's root filesystem as a tarball (made once, then cached) and its key."""
    sources = apt_sources()
    if not sources:
        raise StepFailedError("no apt sources in /etc/apt: cannot make the base image")
    key = base_key(sources)
    tarball = cache / f"base-{key}.tar"
    if tarball.exists():
        notes.append(f"cached {tarball.name}")
        return tarball, key
    partial = tarball.with_suffix(".partial")
    command = [
        "mmdebstrap",
        "--variant=minbase",
        "--format=tar",
        "--include=" + ",".join(BASE_PACKAGES),
        "--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr",  # no usrmerge (and its perl)
        *[f"--dpkgopt={option}" for option in BASE_DPKG_OPTIONS],
        BASE_SUITE,
        str(partial),
        *[str(p) for p in sources],
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        partial.unlink(missing_ok=True)
        raise StepFailedError(f"mmdebstrap failed:\n{result.stderr[-3000:]}")
    for old in cache.glob("base-*.tar"):
        old.unlink()
    partial.rename(tarball)
    notes.append(f"made {tarball.name}, {tarball.stat().st_size / 1e6:.0f} MB")
    return tarball, key


def import_base(docker: Docker, tarball: Path, key: str, notes: list[str]) -> str:
    tag = f"{BASE_REPOSITORY}:{BASE_SUITE}-{key}"
    if docker.run("image", "inspect", tag, check=False).returncode == 0:
        notes.append("already imported")
        return tag
    docker.run("import", str(tarball), tag, timeout=600)
    notes.append(f"imported as {tag}")
    return tag


def local_ca_certificates() -> str:
    """The PEM certificates added to the machine's trust store by hand (a TLS-inspecting
    proxy's among them), or '' when there are none."""
    if not LOCAL_CA_DIR.is_dir():
        return ""
    pems = [p.read_text().strip() for p in sorted(LOCAL_CA_DIR.rglob("*.crt"))]
    return "\n".join(p for p in pems if "BEGIN CERTIFICATE" in p)


def build(
    docker: Docker, tag: str, context: Path, build_args: dict[str, str], timeout: float = 1200
) -> None:
    args = [arg for k, v in build_args.items() for arg in ("--build-arg", f"{k}={v}")]
    docker.run("build", "--network", "host", "--tag", tag, *args, str(context), timeout=timeout)


def image_size_mb(docker: Docker, tag: str) -> float:
    return int(docker.out("image", "inspect", "--format", "{{.Size}}", tag)) / 1e6


def compose_images() -> dict[str, str]:
    """The images that deploy/compose.yaml names for the services stood in for."""
    services = yaml.safe_load(COMPOSE_FILE.read_text())["services"]
    return {service: services[service]["image"] for service in STANDINS}


def build_standins(docker: Docker, base: str, notes: list[str]) -> None:
    for service, image in compose_images().items():
        build(docker, image, HERE / "standins" / STANDINS[service], {"BASE": base})
        notes.append(f"{image}")


def run_steps(docker: Docker, cache: Path, steps: Steps, pytest_command: list[str]) -> int:
    """Steps 3 to 6 of the module's doc, on a running engine; pytest's exit code."""
    with steps.step("base image: mmdebstrap tarball") as notes:
        tarball, key = base_tarball(cache, notes)
    with steps.step("base image: docker import") as notes:
        base = import_base(docker, tarball, key, notes)
    with steps.step("build the image") as notes:
        ca = local_ca_certificates()
        build_args = {"PYTHON_IMAGE": base}
        if ca:
            build_args["BUILD_CA_CERTS"] = ca
        build(docker, IMAGE_TAG, ROOT, build_args)
        size = image_size_mb(docker, IMAGE_TAG)
        notes.append(f"{size:.0f} MB")
    print(f"image-test: {IMAGE_TAG} is {size:.1f} MB (goal: under 220 MB)", flush=True)
    with steps.step("stand-ins for compose") as notes:
        build_standins(docker, base, notes)
    with steps.step("tests") as notes:
        env = docker.env(
            TRIPEAKS_DOCKER_HOST=docker.host,
            TRIPEAKS_DOCKER=docker.binary,
            TRIPEAKS_DOCKER_CONFIG=docker.config_dir or "",
            TRIPEAKS_IMAGE=IMAGE_TAG,
            TRIPEAKS_BUILD_CA_CERTS=ca,
        )
        code = subprocess.run(pytest_command, env=env, cwd=ROOT, check=False).returncode
        notes.append(f"pytest exited {code}")
    return code


def _raise_on_signal(signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.image.harness", description=__doc__)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("pytest", nargs=argparse.REMAINDER, help="-- then the pytest command")
    args = parser.parse_args(argv)
    pytest_command = [a for a in args.pytest if a != "--"] or [sys.executable, "-m", "pytest"]
    ci = bool(os.environ.get("CI"))

    if os.geteuid() != 0:
        print("image-test: needs root (it starts a Docker engine of its own)", file=sys.stderr)
        return 1 if ci else 0
    signal.signal(signal.SIGTERM, _raise_on_signal)
    signal.signal(signal.SIGHUP, _raise_on_signal)

    cache = args.cache.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    # One image test at a time on a machine (two checkouts, say): two engines would hand
    # out the same addresses on docker0. The lock goes with the process.
    lock = LOCK_FILE.open("a")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print(f"image-test: waiting for the image test that holds {LOCK_FILE}", flush=True)
        fcntl.flock(lock, fcntl.LOCK_EX)
    steps = Steps()
    before = machine_state()
    code = 1
    try:
        with steps.step("install what is missing") as notes:
            missing = missing_packages()
            if missing:
                install(missing)
            notes.append(f"installed {' '.join(missing)}" if missing else "nothing missing")
        # What the engine must leave as it found it is the machine after the install:
        # docker.io brings iptables, whose FORWARD chain then reads ACCEPT where there was
        # no iptables at all (the same: nothing filtered), on a machine that had none.
        before = machine_state()
        engine = Engine(EnginePaths(cache), "dockerd", DOCKER)
        try:
            with steps.step("start the engine"):
                docker = engine.start()
            code = run_steps(docker, cache, steps, pytest_command)
        finally:
            with steps.step("remove everything, stop the engine"):
                engine.stop()
    except (
        StepFailedError,
        EngineError,
        OSError,
        subprocess.SubprocessError,
        KeyboardInterrupt,
    ) as e:
        print(f"image-test: {type(e).__name__}: {e}", file=sys.stderr)
        code = 1
    finally:
        after = machine_state()
        print(steps.report())
        if after != before:
            print(f"image-test: the machine changed: {before} -> {after}", file=sys.stderr)
            code = 1
        left = dockerd_pids()
        if left:
            print(f"image-test: a dockerd still runs: {left}", file=sys.stderr)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
