"""Loopback HTTP servers for the tests (127.0.0.1 only, never another address).

`serve(route)` is the one server every test uses: a thread per connection, GET and POST, the
request body read. `route(method, path)` answers with (status, headers, body) or with an
action the handler performs instead: "timeout" (hold the request), "connection_reset" (TCP
RST before any response), "truncated_body" (promise more than is sent, then close),
"dribble" (a body of one byte per DRIBBLE_S, never finishing in time).

`LocalServer` is the recording form the source tests use through the `server` fixture of
tests/conftest.py: set `server.route` to `route(path)` or `route(method, path, body)`;
`server.requests` holds every request as a `Request`.
"""

from __future__ import annotations

import inspect
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, NamedTuple

Reply = tuple[int, dict[str, str], bytes]
Action = str  # "timeout" | "connection_reset" | "truncated_body" | "dribble"
HOLD_S = 1.2  # how long a "timeout" request is held
DRIBBLE_S = 0.05  # "dribble": one body byte per this many seconds, each within any timeout


class Request(NamedTuple):
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@contextmanager
def serve(route: Callable[[str, str, bytes, dict[str, str]], Reply | Action],
          hold_s: float = HOLD_S, host: str = "127.0.0.1") -> Iterator[str]:
    """A threaded loopback server; yields its base URL (http://127.0.0.1:<port>). `host`
    may be another loopback address (127.0.0.2 stands for "another host"), never more."""
    if not host.startswith("127."):
        raise ValueError(f"test servers bind loopback addresses only, not {host}")

    class Handler(BaseHTTPRequestHandler):
        def _answer(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            reply = route(method, self.path, body, dict(self.headers.items()))
            if reply == "timeout":
                time.sleep(hold_s)
                return
            if reply == "connection_reset":
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                           struct.pack("ii", 1, 0))
                self.connection.close()
                return
            if reply == "dribble":  # a 200 whose body comes one byte per DRIBBLE_S
                self.send_response(200)
                self.send_header("Content-Length", "100000")
                self.end_headers()
                try:
                    for _ in range(100000):
                        self.wfile.write(b"x")
                        self.wfile.flush()
                        time.sleep(DRIBBLE_S)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                return
            if reply == "truncated_body":
                self.send_response(200)
                self.send_header("Content-Length", "5000")
                self.end_headers()
                self.wfile.write(b"x" * 1000)
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            status, headers, content = reply  # type: ignore[misc]
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            try:
                self.wfile.write(content)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def do_GET(self) -> None:  # noqa: N802
            self._answer("GET")

        def do_POST(self) -> None:  # noqa: N802
            self._answer("POST")

        def log_message(self, *args: object) -> None:
            pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 128  # every source connects at once: never drop a SYN

    httpd = Server((host, 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01},
                              daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


@dataclass
class LocalServer:
    """A recording loopback server whose replies come from `route`."""

    route: Callable[..., Reply] = field(default=lambda path: (404, {}, b"not found"))
    requests: list[Request] = field(default_factory=list)
    base: str = ""

    def _answer(self, method: str, path: str, body: bytes, headers: dict[str, str]) -> Reply:
        self.requests.append(Request(method, path, headers, body))
        if len(inspect.signature(self.route).parameters) == 1:
            return self.route(path)
        return self.route(method, path, body)


@contextmanager
def local_server() -> Iterator[LocalServer]:
    state = LocalServer()
    with serve(state._answer) as base:
        state.base = base
        yield state


def fetch_each(module: Any) -> tuple[list[Any], dict[str, Any]]:
    """(payloads, {part: error}) of a source module's live fetch through its contract, also
    when nothing came (PartsFailedError then holds every part's own error)."""
    from gpucost.catalog.records import PartsFailedError

    try:
        fetched = module.SOURCE.fetch()
    except PartsFailedError as exc:
        return [], exc.errors
    return fetched.payloads, fetched.errors
