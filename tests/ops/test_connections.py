"""The production server's limits on connections (python -m app.ops.serve, through the
container's entrypoint), on uvicorn's public options and the app's own: a request head
over MAX_HEADER_BYTES is a 431 problem and never served; bytes that are no HTTP request
get uvicorn's 400, never a 500; the keep-alive timeout (KEEP_ALIVE_TIMEOUT_S); and a
limit on concurrent connections (MAX_CONNECTIONS, uvicorn's limit_concurrency, answered
by uvicorn in text). A client too slow to send its head or its body is the reverse
proxy's to cut off (tests/image/test_compose.py). Raw sockets, since an HTTP client
would not misbehave on purpose."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path

import pytest

from tests.ops.servers import Server, entrypoint_server

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
    # 8 MiB of one header: uvicorn reads it all (it has no limit of its own: the proxy's
    # buffer is the bound in front of it), and the request is never served.
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
    uvicorn's own default (5 s) is still served."""
    with connect(guarded) as sock:
        sock.sendall(GET_HEALTHZ)
        assert read_answer(sock)[0] == 200
        time.sleep(6)
        sock.sendall(GET_HEALTHZ)
        assert read_answer(sock)[0] == 200


def test_requests_over_max_connections_get_a_503(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    with (
        entrypoint_server(url, tmp_path, MIGRATE_ON_START="true", MAX_CONNECTIONS="3") as server,
        ExitStack() as stack,
    ):
        held = [stack.enter_context(served_connection(server)) for _ in range(3)]
        with connect(server) as extra:
            extra.sendall(GET_HEALTHZ)
            status, headers, _ = read_answer(extra)
            assert status == 503 and headers["connection"] == "close"  # uvicorn's own
        held.pop().close()  # one leaves: there is room again
        with served_connection(server):
            pass


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
