"""A Docker engine of the image tests' own: started for ``make image-test``, stopped after.

Debian's ``dockerd`` (package docker.io) on a private socket, data root and exec root
under the project's cache directory (``.cache/image``, gitignored), so that it shares
nothing with any other engine and its images stay cached from one run to the next. It is
always started with ``--iptables=false --ip-forward=false --ip-masq=false``: with its
defaults it rewrites the machine's firewall (FORWARD policy DROP, NAT rules) and turns on
IP forwarding, which disturbs every other service on the machine. The tests need neither:
a published port is served by docker-proxy on the host's loopback, containers on one
network talk over their bridge, and a container on the host network reaches the host's
PostgreSQL. Nothing a container sends can leave the machine (no NAT, no forwarding).

Docker rather than Podman (which also runs here, with rlimit workarounds): ops run the
image with Docker and compose; Docker's daemon runs the image's HEALTHCHECK itself, where
Podman needs systemd timers, which these machines lack; and docker-compose speaks
Docker's API.

It is stopped by its PID, and what it leaves behind is removed: the bridges it made
(``docker0``, compose's ``br-…``), the mounts under the cache directory (its network
namespace), the empty directories it made under /run. :func:`machine_state` reads what
must not change (IP forwarding, the FORWARD policy), so that the harness can check it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 60.0
# Unix socket paths hold at most 107 bytes; containerd's lives under the exec root.
MAX_SOCKET_PATH = 100
# What dockerd and its containerd make under /run whatever their exec root (removed when
# empty and no engine runs).
RUN_DIRS = (Path("/run/docker/plugins"), Path("/run/docker"), Path("/run/containerd/s"),
            Path("/run/containerd"))  # fmt: skip
DOCKER_BRIDGE = re.compile(r"^(docker0|br-[0-9a-f]{12})$")


class EngineError(RuntimeError):
    """The engine did not start, or a docker command failed."""


@dataclass(frozen=True)
class EnginePaths:
    """Where the private engine keeps everything, under one cache directory.

    Its sockets live under ``run``; a unix socket's path holds at most 107 bytes, so
    where the cache's own path is too long for them (a deep checkout), ``run`` is reached
    through a short symbolic link in /tmp (:meth:`link_run`)."""

    cache: Path

    @property
    def real_run(self) -> Path:
        return self.cache / "run"

    @property
    def run(self) -> Path:
        longest = self.real_run / "exec" / "containerd" / "containerd.sock.ttrpc"
        if len(str(longest)) <= MAX_SOCKET_PATH:
            return self.real_run
        digest = hashlib.sha256(str(self.cache).encode()).hexdigest()[:12]
        return Path("/tmp") / f"tripeaks-engine-{digest}"

    def link_run(self) -> None:
        self.real_run.mkdir(parents=True, exist_ok=True)
        if self.run != self.real_run:
            self.run.unlink(missing_ok=True)
            self.run.symlink_to(self.real_run, target_is_directory=True)

    @property
    def socket(self) -> Path:
        return self.run / "docker.sock"

    @property
    def data_root(self) -> Path:
        return self.cache / "data"

    @property
    def exec_root(self) -> Path:
        return self.run / "exec"

    @property
    def pidfile(self) -> Path:
        return self.cache / "dockerd.pid"

    @property
    def log(self) -> Path:
        return self.cache / "dockerd.log"

    @property
    def config(self) -> Path:
        return self.cache / "daemon.json"

    @property
    def client_config(self) -> Path:
        return self.cache / "client"

    @property
    def host(self) -> str:
        return f"unix://{self.socket}"


@dataclass(frozen=True)
class Docker:
    """The docker client, pointed at one engine (and no one's ~/.docker)."""

    host: str
    binary: str = "docker"
    config_dir: str | None = None

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("DOCKER_CONTEXT", "DOCKER_TLS")}
        env.update(DOCKER_HOST=self.host, DOCKER_BUILDKIT="0", COMPOSE_DOCKER_CLI_BUILD="0")
        if self.config_dir:
            env["DOCKER_CONFIG"] = self.config_dir
        env.update(extra)
        return env

    def run(
        self,
        *args: str,
        check: bool = True,
        timeout: float = 120.0,
        input: str | None = None,
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """``docker ARGS``; with ``check``, an EngineError carrying its output on failure."""
        result = subprocess.run(
            [self.binary, *args],
            env=env or self.env(),
            input=input,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if check and result.returncode != 0:
            raise EngineError(
                f"docker {' '.join(args)[:300]} exited {result.returncode}:\n"
                f"{result.stdout[-3000:]}{result.stderr[-3000:]}"
            )
        return result

    def out(self, *args: str, timeout: float = 120.0) -> str:
        return self.run(*args, timeout=timeout).stdout.strip()

    def inspect(self, *names: str, kind: str = "container") -> list[dict[str, object]]:
        data = json.loads(self.out(kind, "inspect", *names))
        assert isinstance(data, list)
        return data

    def remove_everything(self) -> None:
        """Every container, custom network and volume of this engine (all of them are the
        tests'): images stay, as the cache."""
        ids = self.out("ps", "--all", "--quiet").split()
        if ids:
            self.run("rm", "--force", "--volumes", *ids, timeout=180)
        self.run("network", "prune", "--force")
        self.run("volume", "prune", "--force")


@dataclass(frozen=True)
class MachineState:
    """What the engine must leave as it found it."""

    ip_forward: str
    forward_policy: str


def machine_state() -> MachineState:
    forward = Path("/proc/sys/net/ipv4/ip_forward").read_text().strip()
    try:
        rules = subprocess.run(
            ["iptables", "-S", "FORWARD"], capture_output=True, text=True, check=False, timeout=30
        ).stdout
    except FileNotFoundError:
        rules = ""
    policy = next((line for line in rules.splitlines() if line.startswith("-P FORWARD")), "")
    return MachineState(forward, policy or "-P FORWARD (no iptables)")


def dockerd_pids() -> list[int]:
    """Every dockerd on the machine, ours or not."""
    found = subprocess.run(["pgrep", "-x", "dockerd"], capture_output=True, text=True, check=False)
    return [int(p) for p in found.stdout.split()]


def _processes_under(*roots: Path) -> list[int]:
    """Processes whose command line names one of ``roots`` (our dockerd's containerd and
    shims, should any outlive it)."""
    marks = [str(r).encode() for r in roots]
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if any(m in cmdline for m in marks):
            pids.append(int(entry.name))
    return pids


def _mounts_under(root: Path) -> list[str]:
    """Mount points at or under ``root``, deepest first."""
    prefix = str(root)
    points = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        point = line.split()[4].encode().decode("unicode_escape")  # \040 for a space
        if point == prefix or point.startswith(prefix + "/"):
            points.append(point)
    return sorted(set(points), key=len, reverse=True)


def _bridges() -> set[str]:
    out = subprocess.run(
        ["ip", "-o", "link", "show", "type", "bridge"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return {line.split(":")[1].strip().split("@")[0] for line in out.splitlines() if ":" in line}


def _stop_pid(pid: int, timeout: float) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while _alive(pid):
        if time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            break
        time.sleep(0.2)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with contextlib.suppress(ChildProcessError):
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return False
    # A zombie of someone else's counts as gone.
    with contextlib.suppress(OSError):
        if (Path("/proc") / str(pid) / "stat").read_text().split(") ")[-1].startswith("Z"):
            return False
    return True


def clean_up(paths: EnginePaths) -> list[str]:
    """Remove what an engine of ours left: its processes (by PID), the mounts under the
    cache, and, when no dockerd at all runs on the machine, Docker's bridges and its empty
    directories under /run. What was done, for the log."""
    done = []
    with contextlib.suppress(OSError, ValueError):
        pid = int(paths.pidfile.read_text().strip())
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes() if _alive(pid) else b""
        if b"dockerd" in cmdline and str(paths.data_root).encode() in cmdline:
            _stop_pid(pid, STOP_TIMEOUT_S)
            done.append(f"stopped a dockerd left running (pid {pid})")
    for pid in _processes_under(paths.exec_root, paths.real_run, paths.data_root):
        _stop_pid(pid, 10)
        done.append(f"stopped process {pid}")
    paths.pidfile.unlink(missing_ok=True)
    for point in _mounts_under(paths.cache):
        subprocess.run(["umount", point], check=False, capture_output=True)
        if point in _mounts_under(paths.cache):
            subprocess.run(["umount", "--lazy", point], check=False, capture_output=True)
        done.append(f"unmounted {point}")
    if paths.run != paths.real_run:
        paths.run.unlink(missing_ok=True)
    if not dockerd_pids():
        for bridge in sorted(_bridges()):
            if DOCKER_BRIDGE.match(bridge):
                subprocess.run(["ip", "link", "delete", bridge], check=False, capture_output=True)
                done.append(f"deleted bridge {bridge}")
        for directory in RUN_DIRS:
            with contextlib.suppress(OSError):
                directory.rmdir()  # only when empty
    return done


class Engine:
    """dockerd started as the module's doc says (:meth:`start`), and :meth:`stop`: every
    container, network and volume removed, dockerd stopped by its PID, its leftovers
    removed. Stop it in a ``finally``."""

    def __init__(self, paths: EnginePaths, dockerd: str = "dockerd", docker: str = "docker"):
        self.paths = paths
        self.dockerd = dockerd
        self.client = Docker(paths.host, docker, str(paths.client_config))
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Docker:
        paths = self.paths
        for line in clean_up(paths):
            print(f"image-test: {line} (left by an earlier run)")
        paths.link_run()
        for directory in (paths.data_root, paths.exec_root, paths.client_config):
            directory.mkdir(parents=True, exist_ok=True)
        paths.config.write_text("{}\n")  # not the machine's /etc/docker/daemon.json
        with paths.log.open("ab") as log:
            self.proc = subprocess.Popen(
                engine_command(paths, self.dockerd),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # a ^C reaches the harness, which stops it in order
            )
        _wait_ready(self.client, self.proc, paths)
        return self.client

    def stop(self) -> None:
        proc = self.proc
        if proc is None:
            clean_up(self.paths)
            return
        try:
            if proc.poll() is None:
                self.client.remove_everything()
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            self.proc = None
            clean_up(self.paths)


def engine_command(paths: EnginePaths, dockerd: str = "dockerd") -> Sequence[str]:
    return [
        dockerd,
        "--host", paths.host,
        "--data-root", str(paths.data_root),
        "--exec-root", str(paths.exec_root),
        "--pidfile", str(paths.pidfile),
        "--config-file", str(paths.config),
        "--iptables=false",
        "--ip-forward=false",
        "--ip-masq=false",
    ]  # fmt: skip


def _wait_ready(client: Docker, proc: subprocess.Popen[bytes], paths: EnginePaths) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        if paths.socket.exists():
            answer = client.run("version", "--format", "{{.Server.Version}}", check=False)
            if answer.returncode == 0:
                return
        if proc.poll() is not None or time.monotonic() > deadline:
            tail = paths.log.read_text(errors="replace")[-3000:]
            raise EngineError(f"dockerd did not start:\n{tail}")
        time.sleep(0.2)
