"""The container's entrypoint run as a process, outside Docker, for the ops tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from tests.fixtures.servers import ROOMY_RATE_LIMITS, ROOT, free_port, wait_healthy

ENTRYPOINT = ROOT / "docker" / "entrypoint.sh"
HEALTHCHECK = ROOT / "docker" / "healthcheck.py"
START_TIMEOUT = 120.0  # a busy 2-core machine can take long to start workers


def entrypoint_env(database_url: str, tmp: Path, **env: str) -> dict[str, str]:
    """The environment a container would have, with this virtualenv's tools on PATH."""
    base = {
        k: v
        for k, v in os.environ.items()
        if k
        not in (
            "PROMETHEUS_MULTIPROC_DIR",
            "MIGRATE_ON_START",
            "WORKERS",
            "LOG_FORMAT",
            "LOG_LEVEL",
        )
    }
    port = str(free_port())
    metrics_dir = tmp / f"metrics-{port}"  # one a server, as in one a container
    metrics_dir.mkdir(exist_ok=True)
    return {
        **base,
        **ROOMY_RATE_LIMITS,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "DATABASE_URL": database_url,
        "HOST": "127.0.0.1",
        "PORT": port,
        "WORKERS": "1",
        "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
        "SHUTDOWN_TIMEOUT_S": "20",
        **env,
    }


@dataclass
class Server:
    proc: subprocess.Popen[bytes]
    base: str
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self, timeout: float = 30) -> int:
        """SIGTERM, as a container runtime sends; the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise


def run_entrypoint(
    env: dict[str, str], log_path: Path, *args: str, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run the entrypoint to completion (for a bad configuration, or a one-off command)."""
    return subprocess.run(
        ["sh", str(ENTRYPOINT), *args],
        env=env,
        cwd=log_path.parent,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@contextmanager
def entrypoint_server(database_url: str, tmp: Path, **env: str) -> Iterator[Server]:
    """docker/entrypoint.sh with its default command (the production server), started
    from another directory, until /healthz answers; stopped with SIGTERM afterwards."""
    environment = entrypoint_env(database_url, tmp, **env)
    log_path = tmp / f"server-{environment['PORT']}.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            ["sh", str(ENTRYPOINT)],
            cwd=tmp,
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    server = Server(proc, f"http://127.0.0.1:{environment['PORT']}", log_path)
    try:
        wait_healthy(server.base, proc, START_TIMEOUT, lambda: server.log()[-3000:])
        yield server
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def metric_samples(text: str, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    """Every sample called ``name`` in an exposition text, by its sorted labels."""
    out: dict[tuple[tuple[str, str], ...], float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name:
                out[tuple(sorted(sample.labels.items()))] = sample.value
    return out


def metric_value(text: str, name: str, **labels: str) -> float:
    """The sum of the samples called ``name`` whose labels include ``labels``."""
    total = 0.0
    for key, value in metric_samples(text, name).items():
        if all((k, v) in key for k, v in labels.items()):
            total += value
    return total
