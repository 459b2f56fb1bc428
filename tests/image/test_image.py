"""The image itself: small, run as uid 10001, trusting no certificate its build was given,
and refusing a bad setting with one line and exit code 2."""

from __future__ import annotations

import base64
import os
import re
import subprocess
import tarfile

import pytest

from tests.image.engine import Docker

pytestmark = pytest.mark.slow

# The stand-in base is 125 MB and the virtualenv about 90: the production server, Granian,
# is a 21.7 MB binary with nothing left to strip (since issue 48; the goal was 200 MB
# before it). A dependency that grows the image past this is a decision to make here.
SIZE_GOAL_MB = 220


def test_the_image_is_under_its_size_goal(docker: Docker, image: str) -> None:
    size_mb = int(docker.out("image", "inspect", "--format", "{{.Size}}", image)) / 1e6
    print(f"\n{image}: {size_mb:.1f} MB")
    assert size_mb < SIZE_GOAL_MB


def test_it_runs_as_uid_10001_with_a_healthcheck(docker: Docker, image: str) -> None:
    config = docker.inspect(image, kind="image")[0]["Config"]
    assert isinstance(config, dict)
    assert config["User"] == "10001:10001"
    assert config["Healthcheck"]["Test"] == ["CMD", "python", "/app/docker/healthcheck.py"]
    out = docker.out("run", "--rm", "--network", "none", "--entrypoint", "id", image)
    assert out == "uid=10001(tripeaks) gid=10001(tripeaks) groups=10001(tripeaks)"


def test_the_solver_runs_its_c_search_in_the_image(docker: Docker, image: str) -> None:
    """The build stage compiles the solver's C searches for the image's Python;
    a deal's best score comes from them, and the pure Python search agrees."""
    script = (
        "from app.engine import Rules, new_game, numbered_deal, solver; "
        "from app.engine.solver import accel; "
        "assert accel.active is not None, 'no C search'; "
        "state = new_game(numbered_deal(7), Rules()); "
        "fast = solver.solve_best(state); "
        "accel.active = None; "
        "slow = solver.solve_best(state); "
        "assert fast.score == slow.score is not None, (fast.score, slow.score); "
        "print(fast.score)"
    )
    out = docker.out(
        "run", "--rm", "--network", "none", "--entrypoint", "python", image, "-c", script
    )
    assert int(out) > 0


def pem_certificates(text: str) -> list[bytes]:
    """The DER bytes of each PEM certificate in ``text``."""
    bodies = re.findall(r"-----BEGIN CERTIFICATE-----(.*?)-----END CERTIFICATE-----", text, re.S)
    return [base64.b64decode("".join(body.split())) for body in bodies]


def needles(der: bytes) -> list[bytes]:
    """What a copy of a certificate would hold, in PEM or in DER: one whole line of its
    base64 (64 characters, as every PEM writer cuts them) from the middle, and 48 bytes
    of its DER from the middle."""
    pem_lines = re.findall(rb".{64}", base64.b64encode(der))
    middle = len(der) // 2
    return [pem_lines[len(pem_lines) // 2], der[middle : middle + 48]]


def test_the_runtime_image_holds_no_certificate_the_build_was_given(
    docker: Docker, image: str
) -> None:
    """The harness gave the build stage the machine's locally added CAs (a TLS proxy's)
    in BUILD_CA_CERTS; none of them may be in the image ops would publish: not in a file,
    not in its history or configuration."""
    certificates = pem_certificates(os.environ.get("TRIPEAKS_BUILD_CA_CERTS", ""))
    if not certificates:
        pytest.skip("this machine adds no CA to its trust store: the build was given none")
    wanted = [n for der in certificates for n in needles(der)]

    found: list[str] = []
    scanned: set[str] = set()
    box = docker.out("create", image)
    try:
        with subprocess.Popen(
            [docker.binary, "export", box], env=docker.env(), stdout=subprocess.PIPE
        ) as export:
            assert export.stdout is not None
            with tarfile.open(fileobj=export.stdout, mode="r|") as tar:
                for member in tar:
                    if not member.isfile():
                        continue
                    data = tar.extractfile(member)
                    assert data is not None
                    content = data.read()
                    scanned.add(member.name)
                    found += [member.name for n in wanted if n in content]
        assert export.returncode == 0
    finally:
        docker.run("rm", "--force", box)
    assert "etc/ssl/certs/ca-certificates.crt" in scanned and len(scanned) > 1000
    assert not found, found

    history = docker.out("history", "--no-trunc", "--format", "{{.CreatedBy}}", image)
    configuration = docker.out("image", "inspect", image)
    for text in (history, configuration):
        assert "BUILD_CA_CERTS" not in text
        assert not [n for n in wanted if n.decode("latin-1") in text]


def one_run(docker: Docker, image: str, *env: str) -> subprocess.CompletedProcess[str]:
    args = [a for e in env for a in ("--env", e)]
    return docker.run("run", "--rm", "--network", "none", *args, image, check=False)


def test_a_bad_setting_exits_2_with_one_line_and_no_traceback(docker: Docker, image: str) -> None:
    result = one_run(docker, image, "PORT=eighty")
    lines = (result.stdout + result.stderr).strip().splitlines()
    assert result.returncode == 2, lines
    assert len(lines) == 1, lines
    assert lines[0].startswith("invalid configuration: PORT: "), lines
    assert "'eighty'" in lines[0]


def test_a_bad_secret_setting_is_named_but_not_echoed(docker: Docker, image: str) -> None:
    result = one_run(docker, image, "DATABASE_URL=mysql://tripeaks:hunter2@db/tripeaks")
    lines = (result.stdout + result.stderr).strip().splitlines()
    assert result.returncode == 2, lines
    assert len(lines) == 1 and lines[0].startswith("invalid configuration: DATABASE_URL: ")
    assert "hunter2" not in lines[0] and "Traceback" not in lines[0]
