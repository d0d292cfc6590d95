"""Fault injection for every live source, against a loopback HTTP server.

Shared by tests/test_faults.py (which asserts every scenario) and
scripts/reliability_table.py (which writes docs/reliability.md from the observed results).

For each fault, every live source but one is pointed at a server that misbehaves in that
way while a control source is served a good payload; each source first holds good data
(replayed from its fixture). Observed: the failing sources' named error, whether the run
still published, whether the control source went live, and whether the failing sources'
last good data stayed in force.
"""

from __future__ import annotations

import json
import shutil
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import duckdb

FIXTURES = Path(__file__).resolve().parent / "fixtures"

# source -> (good fixture, format). Every registered source must have an entry
# (tests/test_faults.py::test_every_live_source_is_in_the_fault_matrix).
GOOD_FIXTURES: dict[str, tuple[str, str]] = {
    "azure": ("azure/eastus2_gpu_page_6items.json", "json"),
    "skypilot": ("skypilot/lambda_vms_tiny.csv", "csv"),
    "lambda": ("lambda/lambda_2026_tabs_min.html", "html"),
}
# the control source served good data while the others fail; its own faults use the other
CONTROLS = ("lambda", "azure")

TIMEOUT_S = 0.4  # client read timeout during the fault runs
SIZE_CAP = 64 * 1024  # client size cap during the fault runs

Reply = tuple[int, dict[str, str], bytes]


@dataclass(frozen=True)
class Fault:
    name: str
    description: str
    expected: frozenset[str]  # error names that count as the right, named error


FAULTS = [
    Fault("http_500", "HTTP 500 on every request", frozenset({"HttpStatusError"})),
    Fault("http_429", "HTTP 429 with Retry-After: 0, every time",
          frozenset({"HttpStatusError"})),
    Fault("timeout", "no response within the read timeout", frozenset({"UnreachableError"})),
    Fault("connection_reset", "TCP reset before any response",
          frozenset({"UnreachableError"})),
    Fault("truncated_body", "Content-Length promises more than is sent, then close",
          frozenset({"TruncatedResponseError"})),
    Fault("changed_layout", "200 with a well-formed document of another layout",
          frozenset({"ParseError"})),
    Fault("empty_catalog", "200 with a well-formed document holding no offers",
          frozenset({"EmptyPayloadError"})),
    Fault("over_size_cap", "a body larger than the size cap",
          frozenset({"ResponseTooLargeError"})),
    Fault("non_utf8", "200 with bytes that are not UTF-8", frozenset({"ParseError"})),
    Fault("wrong_content_type", "200 with a document of another type (HTML for JSON...)",
          frozenset({"ParseError"})),
]


@contextmanager
def fast_clients() -> Iterator[None]:
    """Short timeouts, a small size cap, no backoff, one SkyPilot cloud; restored after."""
    import importlib

    import catalog.http
    from catalog import sources

    patches: list[tuple[object, str, object]] = [
        (catalog.http, "DEFAULT_TIMEOUT", (TIMEOUT_S, TIMEOUT_S)),
        (catalog.http, "DEFAULT_MAX_BYTES", SIZE_CAP),
        (catalog.http, "HTML_MIN_INTERVAL_S", 0.0),
        (sources.get("skypilot"), "CLOUDS", ("lambda",)),
    ]
    for name in sources.names():
        module = importlib.import_module(sources._MODULES[name])
        if hasattr(module, "BACKOFF_S"):
            patches.append((module, "BACKOFF_S", 0.0))
    saved = [(obj, attr, getattr(obj, attr)) for obj, attr, _ in patches]
    for obj, attr, value in patches:
        setattr(obj, attr, value)
    try:
        yield
    finally:
        for obj, attr, value in saved:
            setattr(obj, attr, value)


def good_body(source: str, *, for_live: bool = True) -> bytes:
    path, fmt = GOOD_FIXTURES[source]
    body = (FIXTURES / path).read_bytes()
    if for_live and fmt == "json":  # a single page: never follow a recorded NextPageLink
        doc = json.loads(body)
        doc["NextPageLink"] = None
        body = json.dumps(doc).encode()
    return body


def fault_reply(fault: str, fmt: str, source: str) -> Reply | str:
    """What the server sends for a fault: a reply, or an action name the handler performs."""
    ctype = {"json": "application/json", "csv": "text/csv", "html": "text/html"}[fmt]
    if fault == "http_500":
        return 500, {}, b"internal error"
    if fault == "http_429":
        return 429, {"Retry-After": "0"}, b"slow down"
    if fault in ("timeout", "connection_reset", "truncated_body"):
        return fault
    if fault == "changed_layout":
        body = {
            "json": b'{"data": {"prices": [{"gpu": "H100", "usd": 2.5}]}, "next": null}',
            "csv": b"gpu,hourly_usd\nH100,2.5\nA100,1.2\n",
            "html": b"<html><body><h1>New pricing</h1><div class='card'>H100 from $2.49"
                    b"</div></body></html>",
        }[fmt]
        return 200, {"Content-Type": ctype}, body
    if fault == "empty_catalog":
        if fmt == "json":
            body = b'{"BillingCurrency": "USD", "Items": [], "NextPageLink": null, "Count": 0}'
        elif fmt == "csv":
            body = good_body(source).splitlines(keepends=True)[0]
        else:
            body = (FIXTURES / "lambda" / "layout_without_prices.html").read_bytes()
        return 200, {"Content-Type": ctype}, body
    if fault == "over_size_cap":
        return 200, {"Content-Type": ctype}, good_body(source) + b" " * (SIZE_CAP * 2)
    if fault == "non_utf8":
        return 200, {"Content-Type": ctype}, bytes(range(128, 256)) * 64
    if fault == "wrong_content_type":
        if fmt == "html":
            return 200, {"Content-Type": "application/json"}, b'{"message": "moved"}'
        return 200, {"Content-Type": "text/html"}, (
            b"<!doctype html><html><body><p>Service temporarily moved</p></body></html>")
    raise ValueError(fault)


@contextmanager
def fault_server(route: Callable[[str], Reply | str]) -> Iterator[str]:
    """A loopback server; `route(path)` gives a reply or an action (timeout, reset...)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            reply = route(self.path)
            if reply == "timeout":
                time.sleep(TIMEOUT_S * 3)
                return
            if reply == "connection_reset":
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                           struct.pack("ii", 1, 0))
                self.connection.close()
                return
            if reply == "truncated_body":
                self.send_response(200)
                self.send_header("Content-Length", "5000")
                self.end_headers()
                self.wfile.write(b"x" * 1000)
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            status, headers, body = reply  # type: ignore[misc]
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@dataclass
class Observed:
    fault: str
    source: str
    status: str  # the source's status in the run summary
    error_type: str | None
    error: str | None
    published: bool
    control_live: bool
    rows_before: int
    rows_after: int
    expected: frozenset[str]

    @property
    def ok(self) -> bool:
        return (self.status in ("failed", "stale") and self.error_type in self.expected
                and self.published and self.control_live and self.rows_after == self.rows_before
                and self.rows_before > 0)


def _rows_in_force(data_dir: Path) -> dict[str, int]:
    con = duckdb.connect(str(data_dir / "gpucost.duckdb"), read_only=True)
    try:
        return dict(con.execute("select source, rows_in_force from source_health").fetchall())
    finally:
        con.close()


def make_baseline(data_dir: Path) -> None:
    """Every source holds good data, replayed from its fixture, and is published."""
    from flows.pipeline import ingest_files

    for source, (path, _) in GOOD_FIXTURES.items():
        ingest_files(source, [FIXTURES / path], data_dir=data_dir, rebuild=False)
    from flows.pipeline import publish

    publish(data_dir)


def run_fault(fault: Fault, baseline: Path, work: Path, setenv: Callable[[str, str], None],
              ) -> list[Observed]:
    """Run `fault` against every source (two runs: all-but-control, then the control)."""
    from flows.refresh import refresh_plain

    observed: list[Observed] = []
    for control in CONTROLS:
        failing = [s for s in GOOD_FIXTURES if s != control]
        if control == CONTROLS[1]:
            failing = [CONTROLS[0]]
        data_dir = work / f"{fault.name}-{control}"
        shutil.copytree(baseline, data_dir)
        before = _rows_in_force(data_dir)

        def route(path: str, failing: list[str] = failing, control: str = control
                  ) -> Reply | str:
            top = path.lstrip("/").split("/", 1)[0]
            if path.endswith("/robots.txt") or path == "/robots.txt":
                return 404, {}, b""
            if top == control:
                return 200, {}, good_body(control)
            return fault_reply(fault.name, GOOD_FIXTURES[top][1], top)

        with fault_server(route) as base:
            for source in [*failing, control]:
                setenv(f"GPUCOST_SOURCE_URL_{source.upper()}", f"{base}/{source}/feed")
            summary = refresh_plain([*failing, control], data_dir=data_dir)
        after = _rows_in_force(data_dir) if summary.published else {}
        by_source = {s.source: s for s in summary.sources}
        for source in failing:
            s = by_source[source]
            observed.append(Observed(
                fault=fault.name, source=source, status=s.status, error_type=s.error_type,
                error=s.error, published=summary.published,
                control_live=by_source[control].status in ("live", "unchanged"),
                rows_before=before.get(source, 0), rows_after=after.get(source, 0),
                expected=fault.expected,
            ))
    return observed
