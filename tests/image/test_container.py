"""The container as ops run it on one machine: a read-only root filesystem, a volume for
the SQLite file, a tmpfs on /tmp (where the workers' metrics meet and the solver's
process pool keeps its socket), MIGRATE_ON_START=true on a fresh volume. It migrates,
answers /healthz and /readyz, reaches Docker's own `healthy`, runs every process as uid
10001, serves a whole game (a hint included) and the web client through the published
port, runs its scheduled jobs (the purge's first turn as it starts, a ranked result's
fair-play measure), and the purge command beside the server; the migrating init
container of deploy/kubernetes/ runs the image as its manifest says."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
import yaml

from app.ops.migrations import head_revision
from tests.fixtures.servers import ROOT
from tests.image.containers import (
    MEASURE_TIMEOUT_S,
    SCRAPE,
    Container,
    container,
    measured,
    play_ranked_daily,
    play_whole_game,
    unique_name,
)
from tests.image.engine import Docker
from tests.ops.servers import metric_value

pytestmark = pytest.mark.slow

# Docker's first health check comes one interval after the start: the image's 15 s would
# make the test wait that long. The check itself is the image's.
HEALTH_INTERVAL = "2s"


def read_only_options(volume: str) -> list[str]:
    return ["--read-only", "--tmpfs", "/tmp", "--volume", f"{volume}:/data"]


@pytest.fixture(scope="module")
def served(docker: Docker, image: str) -> Iterator[Container]:
    volume = docker.out("volume", "create", unique_name("tripeaks-data"))
    try:
        with container(
            docker,
            image,
            env={"MIGRATE_ON_START": "true"},
            options=[*read_only_options(volume), "--health-interval", HEALTH_INTERVAL],
        ) as box:
            yield box
    finally:
        docker.run("volume", "rm", "--force", volume, check=False)


def test_it_migrates_a_fresh_volume_and_is_ready(served: Container) -> None:
    assert httpx.get(f"{served.base}/healthz", timeout=10).json() == {"status": "ok"}
    r = httpx.get(f"{served.base}/readyz", timeout=10)
    assert r.status_code == 200, r.text
    assert r.json()["revision"] == head_revision()
    assert "migrations at head" in served.logs()


def test_dockers_healthcheck_reaches_healthy(served: Container) -> None:
    served.wait_until("healthy", lambda: served.state()["Health"]["Status"] == "healthy")
    last = served.state()["Health"]["Log"][-1]
    assert last["ExitCode"] == 0 and '"status":"ok"' in last["Output"].replace(" ", "")


def test_every_process_runs_as_uid_10001(served: Container, docker: Docker) -> None:
    table = docker.out("top", served.name, "-o", "pid,uid,args").splitlines()[1:]
    uids = [line.split()[1] for line in table]
    assert len(uids) >= 3, table  # the supervisor and its two workers at least
    assert set(uids) == {"10001"}, table


def test_the_root_filesystem_is_read_only(served: Container, docker: Docker) -> None:
    assert served.inspect()["HostConfig"]["ReadonlyRootfs"] is True
    wrote = docker.run("exec", served.name, "touch", "/app/written", check=False)
    assert wrote.returncode != 0 and "Read-only file system" in wrote.stderr


def test_a_whole_game_with_a_hint_through_the_published_port(served: Container) -> None:
    game = play_whole_game([served.base])
    # The hint ran in the solver's process pool, whose socket is on the /tmp tmpfs.
    assert game.hint["move"]["kind"] in ("play", "draw")
    assert game.final["status"] in ("won", "lost")


def test_the_web_client_is_served(served: Container) -> None:
    page = httpx.get(f"{served.base}/", timeout=10)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert httpx.get(f"{served.base}/web/js/main.js", timeout=10).status_code == 200


def test_its_metrics_need_the_token(served: Container) -> None:
    """The image serves /metrics to a scraper with METRICS_TOKEN alone (without a token
    set it serves none: METRICS_PUBLIC=false, tests/ops/test_exposure.py)."""
    assert httpx.get(f"{served.base}/metrics", timeout=10).status_code == 401
    r = httpx.get(f"{served.base}/metrics", headers=SCRAPE, timeout=10)
    assert r.status_code == 200 and "tripeaks_http_requests_total" in r.text


def test_the_purge_runs_beside_the_server(served: Container, docker: Docker) -> None:
    created = httpx.post(f"{served.base}/v1/games", json={}, timeout=30).json()
    later = (datetime.now(UTC) + timedelta(days=400)).isoformat()
    purge = docker.run(
        "exec", served.name, "python", "-m", "app.ops.purge", "--as-of", later, check=False
    )
    assert purge.returncode == 0, purge.stderr
    line = json.loads(purge.stderr.strip().splitlines()[-1])
    assert line["message"] == "purged" and line["deleted"]["abandoned"] >= 1
    auth = {"Authorization": f"Bearer {created['token']}"}
    gone = httpx.get(f"{served.base}/v1/games/{created['id']}", headers=auth, timeout=10)
    assert gone.status_code == 404
    # It shares the server's metrics directory, so the server's /metrics counts it.
    text = httpx.get(f"{served.base}/metrics", headers=SCRAPE, timeout=10).text
    assert metric_value(text, "tripeaks_games_purged_total", reason="abandoned") >= 1


def test_the_server_runs_its_scheduled_jobs(served: Container) -> None:
    """The purge takes its first turn as the server starts (its line in the log), and a
    ranked result is measured by the server's own scheduling: no command, no cron."""
    served.wait_until("the scheduled purge", lambda: '"message": "purged"' in served.logs())
    result = play_ranked_daily(served.base)
    served.wait_until(
        "the result's fair-play measure",
        lambda: measured(served.base, result) != "pending",
        timeout=MEASURE_TIMEOUT_S,
    )


def test_the_migrating_init_container_runs_the_image_as_its_manifest_says(
    served: Container, docker: Docker, image: str
) -> None:
    """The server pod's init container: its args through the image's entrypoint, with its
    security context (uid, a read-only root, no capability, no privilege escalation) and
    /tmp as its volume."""
    said = "migrations at head"
    spec = yaml.safe_load((ROOT / "deploy" / "kubernetes" / "deployment.yaml").read_text())
    pod = spec["spec"]["template"]["spec"]
    [container] = pod["initContainers"]
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["securityContext"]["capabilities"]["drop"] == ["ALL"]
    user = f"{pod['securityContext']['runAsUser']}:{pod['securityContext']['runAsGroup']}"
    data = next(m["Name"] for m in served.inspect()["Mounts"] if m["Destination"] == "/data")
    result = docker.run(
        "run", "--rm", "--network", "none", "--user", user, "--read-only",
        "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
        "--tmpfs", "/tmp", "--volume", f"{data}:/data",
        image, *container["args"], check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert said in result.stderr


def test_without_a_writable_tmp_it_exits_2_naming_the_directory(docker: Docker, image: str) -> None:
    result = docker.run(
        "run", "--rm", "--network", "none", "--read-only", "--volume", "/data", image, check=False
    )
    lines = (result.stdout + result.stderr).strip().splitlines()
    assert result.returncode == 2, lines
    assert lines == [
        "invalid configuration: PROMETHEUS_MULTIPROC_DIR: '/tmp/tripeaks-metrics' is not a "
        "writable directory (got '/tmp/tripeaks-metrics')"
    ]
