"""The production server's limits on connections (python -m app.ops.serve, through the
container's entrypoint), on Granian's public options and the app's own: a request head
over MAX_HEADER_BYTES is a 431 problem and never served; bytes that are no HTTP request
get a 400, never a 500; KEEP_ALIVE_TIMEOUT_S keeps an idle connection open, and is the
deadline for every request's head: connections that trickle their heads in are closed
then, and lock nobody out meanwhile; and the connections a worker holds at once
(MAX_CONNECTIONS): one more waits until one of them closes; and a second server on a
busy port exits 1. Raw sockets, since an HTTP client would not misbehave on purpose."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path

import httpx
import pytest

from tests.fixtures.slowheads import SlowHeads
from tests.ops.servers import Server, entrypoint_env, entrypoint_server, run_entrypoint

pytestmark = pytest.mark.slow

MAX_HEADER_BYTES = 4096
PATIENCE_S = 20.0  # how long a test waits for the server to act: far beyond each setting
GET_HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"


def port_of(server: Server) -> int:
    return int(server.base.rsplit(":", 1)[1])


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("guarded")
    with entrypoint_server(
        f"sqlite:///{tmp / 'db.sqlite3'}",
        tmp,
        MIGRATE_ON_START="true",
        MAX_HEADER_BYTES=str(MAX_HEADER_BYTES),
        KEEP_ALIVE_TIMEOUT_S="30",
    ) as server:
        yield server


def connect(server: Server) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port_of(server)), timeout=PATIENCE_S)


def read_answer(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """One answer: status, headers, body (by its Content-Length)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed before an answer: {data!r}")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    while len(body) < int(headers.get("content-length", "0")):
        body += sock.recv(65536)
    return int(status_line.split()[1]), headers, body


def assert_problem(answer: tuple[int, dict[str, str], bytes], status: int, slug: str) -> None:
    code, headers, body = answer
    assert code == status, (code, body)
    assert headers["content-type"] == "application/problem+json"
    assert headers["connection"] == "close"
    assert json.loads(body)["type"] == f"/problems/{slug}"


def test_a_head_over_max_header_bytes_is_a_431(guarded: Server) -> None:
    big = b"X-Big: " + b"a" * MAX_HEADER_BYTES + b"\r\n"
    with connect(guarded) as sock:  # a whole head, too large
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\n" + big + b"\r\n")
        assert_problem(read_answer(sock), 431, "headers-too-large")
    # 8 MiB of one header: hyper stops reading at its buffer's size (a bare 431, or the
    # connection closed under the sender), and the request is never served.
    with connect(guarded) as sock:
        sender = threading.Thread(target=_send_quietly, args=(sock, 8 * 1024 * 1024))
        sender.start()
        try:
            status = read_answer(sock)[0]
        except (ConnectionError, OSError):
            status = None
        sender.join(timeout=PATIENCE_S)
        assert status in (431, None), status
    with connect(guarded) as sock:  # a head within the limit is served
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-Fine: " + b"a" * 3000 + b"\r\n\r\n")
        assert read_answer(sock)[0] == 200


def test_bytes_that_are_no_http_request_get_a_400_and_the_connection_is_closed(
    guarded: Server,
) -> None:
    with connect(guarded) as sock:
        sock.sendall(b"HELLO THERE\r\n\r\n")
        status, headers, _ = read_answer(sock)
        assert status == 400 and headers["connection"] == "close"


def _send_quietly(sock: socket.socket, header_bytes: int) -> None:
    with suppress(OSError):
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-Huge: ")
        piece = b"a" * 65536
        for _ in range(header_bytes // len(piece)):
            sock.sendall(piece)
        sock.sendall(b"\r\n\r\n")


def test_a_keep_alive_connection_stays_open_for_keep_alive_timeout_s(guarded: Server) -> None:
    """KEEP_ALIVE_TIMEOUT_S=30: a connection idle between two requests for longer than
    the default (5 s) is still served."""
    with connect(guarded) as sock:
        sock.sendall(GET_HEALTHZ)
        assert read_answer(sock)[0] == 200
        time.sleep(6)
        sock.sendall(GET_HEALTHZ)
        assert read_answer(sock)[0] == 200


def test_a_second_server_on_a_busy_port_exits_1(guarded: Server, tmp_path: Path) -> None:
    """The server binds with SO_REUSEPORT (its workers share the port): without a check
    a second one would start there and take part of the first one's connections."""
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    env = entrypoint_env(url, tmp_path, PORT=str(port_of(guarded)))
    result = run_entrypoint(env, tmp_path / "second.log")
    assert result.returncode == 1, result.stderr[-2000:]
    assert f"127.0.0.1:{port_of(guarded)} is in use" in result.stderr


def test_a_connection_over_max_connections_waits_until_one_closes(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    env = {"MIGRATE_ON_START": "true", "MAX_CONNECTIONS": "3", "KEEP_ALIVE_TIMEOUT_S": "60"}
    with entrypoint_server(url, tmp_path, **env) as server, ExitStack() as stack:
        held = [stack.enter_context(served_connection(server)) for _ in range(3)]
        with connect(server) as extra:
            extra.sendall(GET_HEALTHZ)
            extra.settimeout(1)
            with pytest.raises(TimeoutError):  # not refused: waiting to be accepted
                extra.recv(1)
            extra.settimeout(PATIENCE_S)
            held.pop().close()  # one leaves: the one waiting takes its place
            assert read_answer(extra)[0] == 200


@contextmanager
def served_connection(server: Server) -> Iterator[socket.socket]:
    """A connection that has been served once, kept open (retried while the server still
    counts connections that have just closed)."""
    deadline = time.monotonic() + PATIENCE_S
    while True:
        sock = connect(server)
        sock.sendall(GET_HEALTHZ)
        if read_answer(sock)[0] == 200:
            break
        sock.close()
        assert time.monotonic() < deadline, "never served"
        time.sleep(0.1)
    with sock:
        yield sock


def test_connections_trickling_their_heads_are_closed_and_lock_nobody_out(
    tmp_path: Path,
) -> None:
    """Twice the connections a worker holds, from another address, each sending a
    header line every half second and never a whole head (slowloris), opened again as
    soon as they are closed: the server closes each at KEEP_ALIVE_TIMEOUT_S, serves none,
    and another client's reads, on a kept-alive connection and on new ones, answer 200.
    On uvicorn the same attack holds every place for as long as it lasts, and the other
    client's reads get 503."""
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    held = 20
    env = {"MIGRATE_ON_START": "true", "MAX_CONNECTIONS": str(held), "KEEP_ALIVE_TIMEOUT_S": "2"}
    with (
        entrypoint_server(url, tmp_path, **env) as server,
        SlowHeads(port_of(server), count=2 * held, interval_s=0.5) as attack,
    ):
        deadline = time.monotonic() + PATIENCE_S
        while attack.opened < 2 * held:  # every attacker has its connection (or waits)
            assert time.monotonic() < deadline, f"only {attack.opened} connections opened"
            time.sleep(0.1)
        with httpx.Client(base_url=server.base, timeout=PATIENCE_S) as kept:
            kept_statuses = [kept.get("/v1/layouts").status_code for _ in range(10)]
        new_statuses = [
            httpx.get(f"{server.base}/v1/layouts", timeout=PATIENCE_S).status_code for _ in range(3)
        ]
        assert kept_statuses == [200] * 10
        assert new_statuses == [200] * 3
        while attack.closed < 2 * held:  # the deadline closed at least a round of them
            assert time.monotonic() < deadline + PATIENCE_S, f"{attack.closed} closed"
            time.sleep(0.1)
    assert all(not a.startswith(b"HTTP/1.1 200") for a in attack.answers), attack.answers[:3]
