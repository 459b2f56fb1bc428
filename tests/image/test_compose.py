"""deploy/compose.yaml, started as the README and docs/ops/deploying.md say, with Debian's
docker-compose (1.29):
PostgreSQL and Redis healthy, the migration run once to exit 0, two replicas healthy
behind the proxy, a whole game played through the proxy (both replicas serve it), one
rate-limit budget a client for both replicas (Redis), and a ranked result measured by the
replicas' own scheduling.

The images it names for PostgreSQL, Redis and HAProxy cannot be pulled here (no registry
is reachable): make image-test builds stand-ins from Debian's packages with the same role
(tests/image/standins/) and tags them, in its own engine, under the official names. The
server's image is the one under test (TRIPEAKS_IMAGE)."""

from __future__ import annotations

import re
import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import yaml

from tests.fixtures.servers import ROOT, free_port
from tests.image.containers import (
    MEASURE_TIMEOUT_S,
    measured,
    play_ranked_daily,
    play_whole_game,
    unique_name,
)
from tests.image.engine import Docker
from tests.ops.servers import metric_samples

pytestmark = pytest.mark.slow

COMPOSE_FILE = ROOT / "deploy" / "compose.yaml"
METRICS_TOKEN = "compose-scrape-0123456789abcdef"
UP_TIMEOUT_S = 300.0
# A service's image as Docker Hub's official images are named: no registry, no namespace.
OFFICIAL = re.compile(r"^(postgres|redis|haproxy):[0-9][\w.-]*$")


@dataclass
class Stack:
    docker: Docker
    project: str
    env: dict[str, str]
    base: str  # the proxy, from the host

    def compose(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return compose(self, *args, timeout=timeout)

    def container(self, service: str) -> dict[str, Any]:
        ids = self.compose("ps", "--all", "--quiet", service).stdout.split()
        assert len(ids) == 1, (service, ids)
        return self.docker.inspect(ids[0])[0]

    def logs(self) -> str:
        return self.compose("logs", "--no-color", timeout=60).stdout[-6000:]


def compose(stack: Stack, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("docker-compose")
    if binary is None:
        pytest.fail("docker-compose is not installed (make image-test installs it)")
    return subprocess.run(
        [binary, "--file", str(COMPOSE_FILE), "--project-name", stack.project, *args],
        env=stack.env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.fixture(scope="module")
def stack(docker: Docker, image: str) -> Iterator[Stack]:
    """The README's command, with the image under test and the proxy on a free port of
    127.0.0.1; taken down with its volumes afterwards."""
    port = free_port()
    env = docker.env(
        TRIPEAKS_IMAGE=image,
        POSTGRES_PASSWORD=secrets.token_hex(16),
        METRICS_TOKEN=METRICS_TOKEN,
        TRIPEAKS_PUBLISH=f"127.0.0.1:{port}",
    )
    running = Stack(docker, unique_name("tripeaks-compose"), env, f"http://127.0.0.1:{port}")
    try:
        up = running.compose("up", "--detach", "--no-build", timeout=UP_TIMEOUT_S)
        assert up.returncode == 0, up.stdout + up.stderr + running.logs()
        yield running
    finally:
        down = running.compose("down", "--volumes", "--remove-orphans", "--timeout", "30")
        assert down.returncode == 0, down.stdout + down.stderr


def test_the_file_names_the_official_images() -> None:
    services = yaml.safe_load(COMPOSE_FILE.read_text())["services"]
    for name in ("db", "redis", "proxy"):
        assert OFFICIAL.match(services[name]["image"]), services[name]["image"]
    assert services["server-1"]["image"] == "${TRIPEAKS_IMAGE:-tripeaks:latest}"


def test_it_starts_in_order(stack: Stack) -> None:
    migrate = stack.container("migrate")["State"]
    assert migrate["Status"] == "exited" and migrate["ExitCode"] == 0, migrate
    for service in ("db", "redis", "server-1", "server-2"):
        state = stack.container(service)["State"]
        assert state["Health"]["Status"] == "healthy", (service, state)
    assert stack.container("proxy")["State"]["Running"] is True
    logs = stack.compose("logs", "--no-color", "migrate").stdout
    assert "migrations at head" in logs


def test_the_servers_run_read_only_without_privileges(stack: Stack) -> None:
    for service in ("server-1", "server-2"):
        host = stack.container(service)["HostConfig"]
        assert host["ReadonlyRootfs"] is True
        assert host["CapDrop"] == ["ALL"] and "no-new-privileges:true" in host["SecurityOpt"]
        assert not host["PortBindings"]  # only the proxy is published


def replica_metrics(stack: Stack, service: str) -> str:
    """A replica's own /metrics, asked from inside it (it publishes no port), with the
    token the stack was given."""
    script = (
        "import urllib.request; "
        "r = urllib.request.Request('http://127.0.0.1:8000/metrics', "
        f"headers={{'Authorization': 'Bearer {METRICS_TOKEN}'}}); "
        "print(urllib.request.urlopen(r).read().decode())"
    )
    result = stack.compose("exec", "-T", service, "python", "-c", script)
    assert result.returncode == 0, result.stderr
    return result.stdout


def game_requests(metrics: str) -> float:
    """The requests a replica answered on the games' routes."""
    samples = metric_samples(metrics, "tripeaks_http_requests_total")
    return sum(v for labels, v in samples.items() if dict(labels)["route"].startswith("/v1/games"))


def test_a_whole_game_through_the_proxy_is_served_by_both_replicas(stack: Stack) -> None:
    before = [game_requests(replica_metrics(stack, s)) for s in ("server-1", "server-2")]
    game = play_whole_game([stack.base])
    assert game.final["status"] in ("won", "lost")
    after = [game_requests(replica_metrics(stack, s)) for s in ("server-1", "server-2")]
    served = [a - b for a, b in zip(after, before, strict=True)]
    # create, hint, legal moves before each move and after the last, the moves, the end
    assert sum(served) == 2 * game.moves + 4, served
    assert min(served) >= game.moves, served  # the proxy takes turns


def remaining(r: httpx.Response) -> int:
    found = re.search(r'"read";r=(\d+)', r.headers["RateLimit"])
    assert found, r.headers["RateLimit"]
    return int(found.group(1))


def test_a_fresh_stack_runs_the_example_events(stack: Stack) -> None:
    """examples/events.toml, mounted by the compose file: its daily event is running, and
    its edition open now is served (made by the replicas' scheduled job, or on this read)."""
    r = httpx.get(f"{stack.base}/v1/events", params={"state": "running"}, timeout=60)
    assert r.status_code == 200, r.text
    running = {e["name"]: e for e in r.json()["events"]}
    assert "Daily three" in running, running
    daily = running["Daily three"]
    edition = httpx.get(
        f"{stack.base}/v1/events/{daily['id']}/editions/{daily['current_edition']}", timeout=120
    )
    assert edition.status_code == 200, edition.text
    assert edition.json()["state"] == "open" and len(edition.json()["rounds"]) == 3


def test_a_ranked_result_is_measured_by_the_stack_s_own_scheduling(stack: Stack) -> None:
    """Nothing but the stack's services runs: the replicas' scheduled job measures it."""
    result = play_ranked_daily(stack.base)
    deadline = time.monotonic() + MEASURE_TIMEOUT_S
    while measured(stack.base, result) == "pending":
        assert time.monotonic() < deadline, stack.logs()
        time.sleep(1)


def test_the_replicas_share_one_budget_a_client(stack: Stack) -> None:
    """The proxy takes turns; were each replica (or worker) to keep its own budget, what
    remains would not go down by one on every request. A client of its own (a credential
    never seen: the budget is keyed by its hash) starts from a full budget."""
    client = {"Authorization": f"Bearer {secrets.token_urlsafe(24)}"}
    left = [
        remaining(httpx.get(f"{stack.base}/v1/layouts", headers=client, timeout=10))
        for _ in range(8)
    ]
    assert left == list(range(left[0], left[0] - 8, -1)), left


def test_the_readme_and_the_deploying_page_start_it_with_this_file() -> None:
    for page in ("README.md", "docs/ops/deploying.md"):
        text = (ROOT / page).read_text()
        assert "docker compose -f deploy/compose.yaml -p tripeaks up -d --build" in text, page


def _timeout_http_request_s() -> float:
    """deploy/haproxy.cfg's `timeout http-request`, in seconds."""
    found = re.search(r"timeout http-request (\d+)s", (ROOT / "deploy" / "haproxy.cfg").read_text())
    assert found, "deploy/haproxy.cfg sets no `timeout http-request` in seconds"
    return float(found.group(1))


def test_the_proxy_answers_408_to_clients_whose_heads_or_bodies_never_end(
    stack: Stack,
) -> None:
    """The servers bound the time a request's head or body takes (KEEP_ALIVE_TIMEOUT_S,
    BODY_TIMEOUT_S), and the proxy in front of them does too, holding each request until
    it is whole (`option http-buffer-request`): no slow client reaches a server. A client
    that sends half its headers, and one that sends half its body, each get HAProxy's 408
    and their connection closed once `timeout http-request` passes, while other clients
    are served meanwhile."""
    bound = _timeout_http_request_s()
    host, port = stack.base.removeprefix("http://").split(":")
    stalls = {
        "head": b"GET /healthz HTTP/1.1\r\nHost: tripeaks\r\nUser-Agent: slow",
        "body": (
            b"POST /v1/games HTTP/1.1\r\nHost: tripeaks\r\nContent-Type: application/json"
            b'\r\nContent-Length: 40\r\n\r\n{"layout": '
        ),
    }
    stalled = {name: socket.create_connection((host, int(port)), timeout=10) for name in stalls}
    try:
        for name, sent in stalls.items():
            stalled[name].sendall(sent)
        assert httpx.get(f"{stack.base}/healthz", timeout=10).status_code == 200
        for name, sock in stalled.items():
            # Six times the proxy's timeout: long enough for a busy machine, short of forever.
            sock.settimeout(6 * bound)
            answer = b""
            while chunk := sock.recv(4096):
                answer += chunk
            assert answer.startswith(b"HTTP/1.1 408"), (name, answer[:200])
    finally:
        for sock in stalled.values():
            sock.close()
