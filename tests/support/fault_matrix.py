"""Fault injection for every live source, against a loopback HTTP server.

Shared by tests/system/test_faults.py (which asserts every scenario) and
scripts/reliability_table.py (which writes docs/reliability.md from the observed results).
The method is METHOD below, printed at the top of docs/reliability.md.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb
import live_walk
import loopback
from live_walk import Doc, Live, make_zip

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

METHOD = """\
* **Baseline.** Every source first holds good data, replayed from its fixtures under
  `tests/fixtures/<source>/` (`BASELINE` in its `live.py`), and the warehouse is published.
* **One loopback server** (127.0.0.1, a thread per connection) serves every source's whole good
  live walk, built from the same fixtures by `documents()` in `tests/fixtures/<source>/live.py`
  (table "Live walks" below; the matrix knows no source by name): AWS offer index -> EC2
  region index -> regional CSV, gpuhunt version file -> catalog zip, the two OCI estimator
  documents, Vast's POST search, the MLPerf contents listings -> system files, each TechPowerUp
  page and ROCm file, both crosscheck tables. Every source is pointed at it through
  `GPUCOST_SOURCE_URL_<NAME>` (crosscheck's second table through
  `GPUCOST_SOURCE_URL_CROSSCHECK_CLOUDGPUS`), and the real `refresh` (`refresh_plain`: fetch
  all sources concurrently, save raw, parse, load, build, check, publish) runs against it.
* **Which requests a fault hits.** In a run, each source is given one fault or none (a
  control). Transport faults (HTTP 500, HTTP 429, timeout, connection reset, truncated body,
  over the size cap, a body dribbled one byte at a time, a redirect to another host, a gzip
  bomb) hit EVERY request of the failing source, navigation documents included,
  and every retry: the host misbehaves, so a multi-step walk fails at its first request.
  Content faults (changed layout, empty catalog, non-UTF-8 bytes, wrong content type, nested
  brackets) hit every
  DATA document of the failing source, i.e. every document its parser reads; the navigation
  documents that only lead to them (AWS indexes, gpuhunt version file, MLPerf listings) stay
  good so the fault reaches the parser. Bodies are per document format (JSON, CSV, HTML,
  RST/MyST markup, zip); "empty catalog" is the source's own well-formed document with no
  offer or accelerator (an Azure page with `Items: []`, a CSV header, a list-table header,
  `{}`, a system description without accelerator...). `robots.txt` is always 404.
* **Schedule** (18 refresh runs, each (source, fault) pair exactly once): two runs for each
  fault that holds a request until a client limit (timeout, slow body), half of the sources
  failing while the other half are controls; then 14 runs in which source *i* (alphabetical)
  gets slot (*i* + *k*) mod 14 of [the 12 other faults, control, control], so every run has 2
  to 4 controls while the other sources fail, each with its own fault, at the same time.
  Faults therefore run side by side, which tests isolation harder than one fault at a time
  and needs 18 publishes instead of 196. Each run works on its
  own copy of the baseline. Runs are pipelined in two threads: run k+1 starts, and the server
  switches to its faults, only once every request of run k is over (fetch phases never
  overlap), while run k's loading, model build and publish go on.
* **A scenario passes** when every fetch row the run recorded for the failing source is
  `failed` with an expected named error, the run still published, every control of the run
  went live, the failing source's rows in force are unchanged (and were > 0), and no source's
  rows in force dropped in that run.
"""

# source -> the fixtures (under tests/fixtures) its baseline is replayed from and its good live
# documents are built from: BASELINE of tests/fixtures/<source>/live.py. Every registered
# source must have one (tests/system/test_faults.py::test_every_live_source_is_in_the_fault_matrix).
GOOD_FIXTURES: dict[str, tuple[str, ...]] = {
    name: tuple(module.BASELINE) for name, module in live_walk.walks().items()}

TIMEOUT_S = 1.0  # client read timeout during the fault runs (0.4 s flaked: a loopback reply
# can wait that long for the GIL while the previous run builds and publishes)
DEADLINE_S = 4.0  # a source's whole fetch during the fault runs (production: 600 s)
# faults that hold a request until a client limit: two runs each, half of the sources failing
SLOW_FAULTS = ("timeout", "slow_body")
SIZE_CAP = 256 * 1024  # client size cap during the fault runs (Vast's fixture is 100 KB)

Reply = tuple[int, dict[str, str], bytes]
Action = str  # "timeout" | "connection_reset" | "truncated_body": the handler misbehaves


@dataclass(frozen=True)
class Fault:
    name: str
    description: str
    expected: frozenset[str]  # error names that count as the right, named error
    transport: bool  # hits every request (True) or the data documents only (False)


FAULTS = [
    Fault("http_500", "HTTP 500 on every request", frozenset({"HttpStatusError"}), True),
    Fault("http_429", "HTTP 429 with Retry-After: 0, every time",
          frozenset({"HttpStatusError"}), True),
    Fault("timeout", "no response within the read timeout", frozenset({"UnreachableError"}),
          True),
    Fault("connection_reset", "TCP reset before any response",
          frozenset({"UnreachableError"}), True),
    Fault("truncated_body", "Content-Length promises more than is sent, then close",
          frozenset({"TruncatedResponseError"}), True),
    Fault("over_size_cap", "a body larger than the size cap",
          frozenset({"ResponseTooLargeError"}), True),
    Fault("changed_layout", "200 with a well-formed document of another layout",
          frozenset({"ParseError"}), False),
    Fault("empty_catalog", "200 with a well-formed document holding no offers / accelerators",
          frozenset({"EmptyPayloadError"}), False),
    Fault("non_utf8", "200 with bytes that are not UTF-8", frozenset({"ParseError"}), False),
    Fault("slow_body", "a 200 whose body comes one byte per 50 ms: every read is within the "
          "read timeout, the whole never within the fetch deadline",
          frozenset({"DeadlineExceededError"}), True),
    Fault("off_host_redirect", "302 to another host (127.0.0.2)",
          frozenset({"OffHostLinkError"}), True),
    Fault("gzip_bomb", "a gzip body that expands past the size cap (64 MiB of zeros in "
          "64 KiB)", frozenset({"ResponseTooLargeError"}), True),
    Fault("nested_brackets", "200 with 100,000 nested brackets (HTML: nested divs): a "
          "RecursionError for a JSON parser", frozenset({"ParseError", "UnexpectedPayloadError"}),
          False),
    Fault("wrong_content_type", "200 with a document of another type (HTML for JSON...)",
          frozenset({"ParseError"}), False),
]
FAULT = {f.name: f for f in FAULTS}

# (fault, source) -> the named errors expected instead of the fault's, with the reason
EXPECTED_INSTEAD: dict[tuple[str, str], tuple[frozenset[str], str]] = {
    ("empty_catalog", "mlperf"): (
        frozenset({"RowCountCollapseError"}),
        "a system description without accelerator is valid (a CPU-only system: a reject, no "
        "figure), so the loader's row-count guard refuses it against the stream's last good "
        "rows"),
    ("empty_catalog", "mlperf_training"): (
        frozenset({"RowCountCollapseError", "EmptyPayloadError"}),
        "a system description without accelerator is valid (a reject, no row: the row-count "
        "guard refuses it); a run log without a run and a scaling.json without a factor are "
        "empty"),
    ("empty_catalog", "mlperf_results"): (
        frozenset({"RowCountCollapseError", "EmptyPayloadError"}),
        "a system description without accelerator is valid (a reject, no row: the row-count "
        "guard refuses it); a LoadGen summary without a throughput line is empty"),
}


def expected_errors(fault: str, source: str) -> frozenset[str]:
    return EXPECTED_INSTEAD.get((fault, source), (FAULT[fault].expected, ""))[0]


# ---- the schedule ---------------------------------------------------------------------------

def schedule(names: list[str]) -> list[dict[str, str | None]]:
    """Runs as {source: fault name, or None for a control}; each (source, fault) exactly once."""
    names = sorted(names)
    runs: list[dict[str, str | None]] = [
        {s: (slow if i % 2 == parity else None) for i, s in enumerate(names)}
        for slow in SLOW_FAULTS for parity in (0, 1)
    ]
    slots: list[str | None] = [f.name for f in FAULTS if f.name not in SLOW_FAULTS] + [None,
                                                                                         None]
    for k in range(len(slots)):
        runs.append({s: slots[(i + k) % len(slots)] for i, s in enumerate(names)})
    return runs


# ---- the good live documents of every source ------------------------------------------------

def live_documents(source: str, base: str) -> Live:
    """What `source`'s live fetch requests from a server at `base`, served good (its
    tests/fixtures/<source>/live.py)."""
    return live_walk.walk(source).documents(base)


# ---- what a failing source is sent ---------------------------------------------------------

CONTENT_TYPES = {"json": "application/json", "csv": "text/csv", "html": "text/html",
                 "markup": "text/plain; charset=utf-8", "zip": "application/zip",
                 "text": "text/plain"}
CHANGED_CSV = b"gpu,hourly_usd\nH100,2.5\nA100,1.2\n"
CHANGED_LAYOUT = {
    "json": b'{"data": {"prices": [{"gpu": "H100", "usd": 2.5}]}, "next": null}',
    "csv": CHANGED_CSV,
    "html": b"<html><body><h1>New pricing</h1><div class='card'>H100 from $2.49</div>"
            b"</body></html>",
    "markup": b"# GPU specifications\n\n| Model | VRAM | Peak TFLOPS |\n| --- | --- | --- |\n"
              b"| MI300X | 192 GB | 1307.4 |\n",
    "zip": make_zip({"nebius.csv": CHANGED_CSV}),
    "text": b"Benchmark report\n================\nmodel: llama2-70b\nthroughput: 24000 tok/s\n",
}
ERROR_PAGE = b"<!doctype html><html><body><p>Service temporarily moved</p></body></html>"


def _gzip_zeros(mebibytes: int) -> bytes:
    co = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"\0" * (1 << 20)
    return b"".join(co.compress(block) for _ in range(mebibytes)) + co.flush()


GZIP_BOMB = _gzip_zeros(64)
NESTED = b"[" * 100_000
NESTED_HTML = b"<html><body>" + b"<div>" * 20_000 + b"</body></html>"


def fault_reply(fault: str, doc: Doc) -> Reply | Action:
    """What the server sends for `doc` to a source failing with `fault`."""
    ctype = {"Content-Type": CONTENT_TYPES[doc.fmt]}
    if not FAULT[fault].transport and doc.nav:
        return 200, ctype, doc.good
    if fault == "http_500":
        return 500, {}, b"internal error"
    if fault == "http_429":
        return 429, {"Retry-After": "0"}, b"slow down"
    if fault in ("timeout", "connection_reset", "truncated_body"):
        return fault
    if fault == "slow_body":
        return "dribble"
    if fault == "off_host_redirect":
        return 302, {"Location": f"http://127.0.0.2:9{doc.path}"}, b""
    if fault == "gzip_bomb":
        return 200, {**ctype, "Content-Encoding": "gzip"}, GZIP_BOMB
    if fault == "nested_brackets":
        return 200, ctype, NESTED_HTML if doc.fmt == "html" else NESTED
    if fault == "over_size_cap":
        return 200, ctype, doc.good + b" " * (SIZE_CAP * 2)
    if fault == "changed_layout":
        return 200, ctype, CHANGED_LAYOUT[doc.fmt]
    if fault == "empty_catalog":
        return 200, ctype, doc.empty
    if fault == "non_utf8":
        return 200, ctype, bytes(range(128, 256)) * 64
    if fault == "wrong_content_type":
        if doc.fmt == "html":
            return 200, {"Content-Type": "application/json"}, b'{"message": "moved"}'
        return 200, {"Content-Type": "text/html"}, ERROR_PAGE
    raise ValueError(fault)


# ---- the loopback server --------------------------------------------------------------------

@contextmanager
def loopback_server(route: Callable[[str, str], Reply | Action]) -> Iterator[str]:
    """A threaded loopback server (tests/support/loopback.py); `route(method, path)` gives a
    reply or an action. Every connection has its own thread, so a request held back (the
    timeout fault) never delays the other sources' requests."""
    with loopback.serve(lambda method, path, body, headers: route(method, path),
                        hold_s=TIMEOUT_S * 3) as base:
        yield base


@contextmanager
def fault_server(route: Callable[[str], Reply | Action]) -> Iterator[str]:
    """A loopback server; `route(path)` gives a reply or an action (timeout, reset...)."""
    with loopback_server(lambda method, path: route(path)) as base:
        yield base


class MatrixServer:
    """Serves every source's good live walk; `assignment` says which source fails and how."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.assignment: dict[str, str | None] = {}
        self.docs: dict[str, tuple[str, Doc]] = {}
        self.env: dict[str, str] = {}
        self.base = ""

    def route(self, method: str, path: str) -> Reply | Action:
        if path.split("?", 1)[0] == "/robots.txt":
            return 404, {}, b""
        found = self.docs.get(path.split("?", 1)[0])
        if found is None:
            return 404, {}, b"not found"
        source, doc = found
        fault = self.assignment.get(source)
        if fault is None:
            if method != doc.method:
                return 405, {}, b"method not allowed"
            return 200, {"Content-Type": CONTENT_TYPES[doc.fmt]}, doc.good
        return fault_reply(fault, doc)

    @contextmanager
    def serving(self) -> Iterator[MatrixServer]:
        with loopback_server(self.route) as base:
            self.base = base
            for source in self.names:
                live = live_documents(source, base)
                for suffix, path in live.env.items():
                    self.env[f"GPUCOST_SOURCE_URL_{suffix}"] = base + path
                self.env.update(live.extra_env)
                for doc in live.docs:
                    self.docs[doc.path] = (source, doc)
            yield self


# ---- client settings, baseline, runs --------------------------------------------------------

# multi-part sources limited to the parts their fixtures cover (GPUCOST_SOURCE_PARTS_<NAME>)
PARTS = {name: tuple(module.PARTS) for name, module in live_walk.walks().items()
         if hasattr(module, "PARTS")}


@contextmanager
def fast_clients() -> Iterator[None]:
    """Short timeouts, a small size cap, no backoff or politeness delay, and each multi-part
    source limited to the parts its fixtures cover; restored after."""
    import os

    import gpucost.catalog.http

    patches: list[tuple[object, str, object]] = [
        (gpucost.catalog.http, "DEFAULT_TIMEOUT", (TIMEOUT_S, TIMEOUT_S)),
        (gpucost.catalog.http, "DEFAULT_MAX_BYTES", SIZE_CAP),
        (gpucost.catalog.http, "HTML_MIN_INTERVAL_S", 0.0),
        (gpucost.catalog.http, "ROBOTS_TIMEOUT", (TIMEOUT_S, TIMEOUT_S)),
        (gpucost.catalog.http, "PACING", 0.0),
        (gpucost.catalog.http, "DEFAULT_BACKOFF_S", 0.0),
        (gpucost.catalog.http, "FETCH_DEADLINE_S", DEADLINE_S),
    ]
    env = {f"GPUCOST_SOURCE_PARTS_{name.upper()}": ",".join(keys)
           for name, keys in PARTS.items()}
    saved = [(obj, attr, getattr(obj, attr)) for obj, attr, _ in patches]
    saved_env = {k: os.environ.get(k) for k in env}
    for obj, attr, value in patches:
        setattr(obj, attr, value)
    os.environ.update(env)
    try:
        yield
    finally:
        for obj, attr, value in saved:
            setattr(obj, attr, value)
        for k, v in saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def baseline_files(source: str, tmp: Path) -> list[Path]:
    """The files replayed for `source`'s baseline (its live.py may replay them otherwise, as
    OCI's two documents zipped as fetched live)."""
    module = live_walk.walk(source)
    if hasattr(module, "baseline_files"):
        return module.baseline_files(tmp)
    return [FIXTURES / f for f in GOOD_FIXTURES[source]]


def make_baseline(data_dir: Path) -> None:
    """Every source holds good data, replayed from its fixtures, and is published."""
    from gpucost.flows.ingest import ingest_files
    from gpucost.flows.steps import build_and_publish

    with tempfile.TemporaryDirectory() as tmp:
        for source in GOOD_FIXTURES:
            ingest_files(source, baseline_files(source, Path(tmp)), data_dir=data_dir,
                         rebuild=False)
    build_and_publish(data_dir)


@dataclass
class Observed:
    run: int
    fault: str
    source: str
    status: str  # the source's status in the run summary
    error_types: list[str]  # the named errors of every fetch row the run recorded for it
    error: str | None  # the first of them (summary)
    published: bool
    controls: list[str]
    controls_live: bool
    rows_before: int
    rows_after: int
    lost: list[str]  # sources whose rows in force dropped in this run (must be none)
    expected: frozenset[str]

    @property
    def ok(self) -> bool:
        return (self.status in ("failed", "fallback") and bool(self.error_types)
                and set(self.error_types) <= self.expected and self.published
                and self.controls_live and self.rows_after == self.rows_before > 0
                and not self.lost)


def _rows_in_force(data_dir: Path) -> dict[str, int]:
    con = duckdb.connect(str(data_dir / "gpucost.duckdb"), read_only=True)
    try:
        return dict(con.execute("select source, rows_in_force from source_health").fetchall())
    finally:
        con.close()


def _fetch_rows(data_dir: Path, run_id: str) -> dict[str, list[tuple[str, str | None]]]:
    con = duckdb.connect(str(data_dir / "raw.duckdb"), read_only=True)
    try:
        rows = con.execute("select source, status, error_type from fetches where run_id = ?"
                           " order by fetch_id", [run_id]).fetchall()
    finally:
        con.close()
    out: dict[str, list[tuple[str, str | None]]] = {}
    for source, status, error_type in rows:
        out.setdefault(source, []).append((status, error_type))
    return out


def run_one(index: int, assignment: dict[str, str | None], baseline: Path, work: Path,
            fetched: threading.Event | None = None) -> list[Observed]:
    """One refresh run of every source, each failing as `assignment` says (None: control).

    The refresh is refresh_plain's (run_refresh with fetch_threads); `fetched` is set once
    every request of the run is over (the fetch phase), so the next run may start then.
    """
    from gpucost.flows.steps import fetch_threads, run_refresh

    def fetch_all(names: list[str], on_fetched=None):  # type: ignore[no-untyped-def]
        try:
            return fetch_threads(names, on_fetched)
        finally:
            if fetched is not None:
                fetched.set()

    try:
        data_dir = work / f"run-{index:02d}"
        shutil.copytree(baseline, data_dir)
        before = _rows_in_force(data_dir)
        names = sorted(assignment)
        summary = run_refresh(names, fetch_all, data_dir)
    finally:
        if fetched is not None:
            fetched.set()
    after = _rows_in_force(data_dir) if summary.published else {}
    fetches = _fetch_rows(data_dir, summary.run_id)
    by_source = {s.source: s for s in summary.sources}
    controls = [s for s in names if assignment[s] is None]
    controls_live = all(by_source[c].status in ("live", "unchanged") for c in controls)
    lost = [s for s in names if after.get(s, 0) < before.get(s, 0)]
    observed = []
    for source in names:
        fault = assignment[source]
        if fault is None:
            continue
        rows = fetches.get(source, [])
        s = by_source[source]
        observed.append(Observed(
            run=index, fault=fault, source=source, status=s.status,
            error_types=[err or f"(status {status}, no error)" for status, err in rows],
            error=s.error, published=summary.published, controls=controls,
            controls_live=controls_live, rows_before=before.get(source, 0),
            rows_after=after.get(source, 0), lost=lost,
            expected=expected_errors(fault, source),
        ))
    return observed


PIPELINE_DEPTH = 2  # runs in flight: a run's load/build/publish overlaps the next run's fetch


def run_matrix(baseline: Path, work: Path, setenv: Callable[[str, str], None],
               names: list[str] | None = None) -> list[Observed]:
    """Every run of the schedule against one server; call inside fast_clients().

    Runs are pipelined in threads: run k+1 starts (and the server switches to its faults) only
    once every request of run k is over, so the fetch phases never overlap, while run k's
    loading, model build and publish (its own data directory) go on beside run k+1's fetch.
    """
    names = sorted(names or GOOD_FIXTURES)
    server = MatrixServer(names)
    with server.serving(), ThreadPoolExecutor(max_workers=PIPELINE_DEPTH) as pool:
        for key, value in server.env.items():
            setenv(key, value)
        futures: list[Future[list[Observed]]] = []
        for index, assignment in enumerate(schedule(names)):
            fetched = threading.Event()
            server.assignment = dict(assignment)
            future = pool.submit(run_one, index, assignment, baseline, work, fetched)
            futures.append(future)
            while not fetched.wait(0.05):  # this run's requests are over (or it failed)
                if future.done():
                    break
        return [o for future in futures for o in future.result()]
