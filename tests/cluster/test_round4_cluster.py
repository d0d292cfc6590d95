"""Hostile round 4, cluster mode (issue 40): each case a named, one-line refusal or a recovery.

- a cached snapshot file replaced by other bytes of the same size is hashed, found out and
  downloaded again (it used to be trusted on its size);
- a warehouse object that trickles is given up at the minimum transfer rate, and a huge
  CURRENT is refused from its Content-Length before a byte of it is read;
- a publish that shrinks the snapshot is refused against CURRENT (the embedded guard);
- `cluster down` finds its servers by their pid records when servers.json is damaged;
- an Iceberg commit that keeps conflicting is retried past pyiceberg's own retries, and a
  second `cluster refresh` is refused by name (or queued);
- a publish run no publisher worker starts is cancelled within a bounded wait, and a worker
  that comes back later does not run it.

Plain functions against the session's servers (tests/cluster/conftest.py), a fake S3 server
on loopback for the slow and huge objects, and a few `sleep` processes for `down`.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import subprocess
import sys
import threading
import time
import tracemalloc
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gpucost.cluster.objects import ObjectStore, ObjectStoreUnavailableError
from gpucost.cluster.settings import FIELDS, ClusterSettings, write_settings
from gpucost.cluster.snapshot import (
    CURRENT_KEY,
    CURRENT_MAX_BYTES,
    SnapshotCorruptError,
    SnapshotShrinkError,
    publish_snapshot,
    read_current,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
H100_SKU = "gpu_8x_h100_sxm5"


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A local published warehouse: SkyPilot's GCP and Lambda tiny catalogs, then Lambda's
    again with its H100 price one cent up (as tests/cluster/test_snapshot.py builds it)."""
    from test_snapshot import _local_publish

    from gpucost.flows.ingest import ingest_files

    data = tmp_path_factory.mktemp("round4") / "data"
    for name, day in (("gcp_vms_tiny.csv", 27), ("lambda_vms_tiny.csv", 28)):
        ingest_files("skypilot", [FIXTURES / "skypilot" / name], data_dir=data, rebuild=False,
                     observed_at=datetime(2026, 2, day, tzinfo=UTC))
    _local_publish(data, 1)
    return data


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A publisher's fresh data dir: an empty build, published locally (no local baseline,
    so the embedded guard lets it through)."""
    from gpucost.flows import steps

    data = tmp_path_factory.mktemp("fresh") / "data"
    steps.build_and_publish(data)
    return data


def _reader_env(monkeypatch: pytest.MonkeyPatch, config: Path, data: Path) -> None:
    for env in FIELDS.values():
        monkeypatch.delenv(env, raising=False)
    monkeypatch.setenv("GPUCOST_CLUSTER_CONFIG", str(config))
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(data))


# -- the remote cache hashes what it opens ------------------------------------------------

def test_a_planted_cache_file_of_the_right_size_is_downloaded_again(
        cluster: ClusterSettings, local: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The figure: lambda_vms_tiny.csv lists gpu_8x_h100_sxm5 at 31.92 $/h; the fixture
    publishes it again one cent up (test_snapshot._local_publish, n=1): 31.93 is the highest
    H100 price of that SKU in the snapshot. A cached copy whose bytes were replaced (same
    size) answers nothing: it is hashed, removed, downloaded again, and a note says so."""
    from gpucost.flows.cli.main import main
    from gpucost.flows.cli.output import EXIT_OK

    publish_snapshot(local, cluster, allow_shrink=True)  # CURRENT: this test's snapshot
    _reader_env(monkeypatch, write_settings(cluster, tmp_path / "cluster.json"),
                tmp_path / "reader")
    query = f"select max(price_per_hour) from gpu_offers where sku = '{H100_SKU}'"
    capsys.readouterr()
    assert main(["sql", "--remote", query, "--format", "csv"]) == EXIT_OK
    assert capsys.readouterr().out.splitlines()[-1] == "31.93"

    current = read_current(cluster)
    cached = tmp_path / "reader" / "remote-cache" / current["key"].rsplit("/", 1)[-1]
    good = cached.read_bytes()
    planted = bytearray(good)
    planted[-4096:] = os.urandom(4096)  # same size, other bytes
    cached.write_bytes(bytes(planted))
    assert cached.stat().st_size == current["size"]

    assert main(["sql", "--remote", query, "--format", "csv"]) == EXIT_OK
    out, err = capsys.readouterr()
    assert out.splitlines()[-1] == "31.93"
    notes = [line for line in err.splitlines() if "does not match CURRENT's sha256" in line]
    assert len(notes) == 1 and notes[0].startswith("note: the cached "), err
    assert hashlib.sha256(cached.read_bytes()).hexdigest() == current["sha256"]


# -- slow and huge objects ----------------------------------------------------------------

class _FakeS3(http.server.ThreadingHTTPServer):
    """Answers every GET: CURRENT as `current` (bytes, or a huge Content-Length when
    `current_claims`), any other key trickling 4 bytes every 0.25 s."""

    daemon_threads = True
    current: bytes = b""
    current_claims: int = 0
    sent: int = 0
    trickled: int = 0
    stop = threading.Event()


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _FakeS3

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if self.path.split("?")[0].endswith("/" + CURRENT_KEY):
            body = self.server.current
            self.send_response(200)
            self.send_header("Content-Length", str(self.server.current_claims or len(body)))
            self.end_headers()
            if not self.server.current_claims:
                self.wfile.write(body)
                self.server.sent += len(body)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(10_000_000))
        self.end_headers()
        while not self.server.stop.is_set():
            try:
                self.wfile.write(b"DUCK")
                self.wfile.flush()
            except OSError:
                return  # the reader gave up
            self.server.trickled += 4
            time.sleep(0.25)


@pytest.fixture
def fake_s3() -> Iterator[_FakeS3]:
    server = _FakeS3(("127.0.0.1", 0), _Handler)
    server.stop = threading.Event()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.stop.set()
    server.shutdown()
    server.server_close()


def _fake_settings(server: _FakeS3) -> ClusterSettings:
    return ClusterSettings(s3_endpoint=f"http://127.0.0.1:{server.server_address[1]}",
                           reader_key="reader", reader_secret="reader-secret-round4",
                           timeout_s=1.0)


def test_a_trickling_warehouse_object_is_given_up_at_the_minimum_rate(
        fake_s3: _FakeS3, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """4 bytes every 0.25 s (16 B/s) against the 64 KiB/s minimum over a 1 s window
    (GPUCOST_S3_TIMEOUT_S=1): `sql --remote` ends in about 1 s with one line, exit 1 (it
    held the reader past 90 s)."""
    from gpucost.flows.cli.main import main
    from gpucost.flows.cli.output import EXIT_FAILED

    key = "warehouse/20260301T000000Z-0123456789abcdef.duckdb"
    fake_s3.current = json.dumps({"key": key, "sha256": "a" * 64, "size": 10_000_000,
                                  "published_at": "2026-03-01T00:00:00+00:00",
                                  "tables": {}}).encode()
    settings = _fake_settings(fake_s3)
    _reader_env(monkeypatch, write_settings(settings, tmp_path / "cluster.json"),
                tmp_path / "reader")
    capsys.readouterr()
    start = time.monotonic()
    assert main(["sql", "--remote", "select 1"]) == EXIT_FAILED
    took = time.monotonic() - start
    err = capsys.readouterr().err
    assert took < 8, took
    assert err.startswith(f"error: reading s3://gpucost-published/{key}: the object store at "
                          f"{settings.s3_endpoint} is too slow: slower than 64 KiB/s"), err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert fake_s3.trickled <= 4 * 4 * 4  # given up within about a second of 16 B/s
    assert not [p for p in (tmp_path / "reader" / "remote-cache").iterdir()]  # no partial file
    with pytest.raises(ObjectStoreUnavailableError, match="too slow"):
        ObjectStore(settings, writer=False).get_bytes("gpucost-published", key)


def test_a_huge_current_is_refused_unread(fake_s3: _FakeS3) -> None:
    """A CURRENT whose Content-Length says 300 MB is refused from the header (it used to be
    read into memory, 992 MB peak): nothing of its body is read."""
    fake_s3.current_claims = 300_000_000
    tracemalloc.start()
    try:
        with pytest.raises(SnapshotCorruptError) as refused:
            read_current(_fake_settings(fake_s3))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    message = str(refused.value)
    assert message == (
        f"s3://gpucost-published/{CURRENT_KEY} is not a valid snapshot record (a record is at "
        f"most {CURRENT_MAX_BYTES} bytes; 300000000 bytes, more than the {CURRENT_MAX_BYTES} "
        "allowed: refused unread)"), message
    assert peak < 20 << 20, peak


def test_a_current_over_the_cap_on_the_real_store_is_refused(cluster: ClusterSettings) -> None:
    store = ObjectStore(cluster, writer=True)
    bucket = cluster.published_bucket
    try:
        good: bytes | None = store.get_bytes(bucket, CURRENT_KEY)
    except Exception:
        good = None
    try:
        store.put_bytes(bucket, CURRENT_KEY, b" " * (CURRENT_MAX_BYTES + 1))
        with pytest.raises(SnapshotCorruptError, match="refused unread"):
            read_current(cluster)
    finally:
        if good is not None:
            store.put_bytes(bucket, CURRENT_KEY, good)
        else:
            store.delete(bucket, CURRENT_KEY)


# -- the shrink guard on CURRENT ------------------------------------------------------------

def test_a_snapshot_that_shrinks_is_refused_against_current(
        cluster: ClusterSettings, local: Path, fresh: Path) -> None:
    """A publisher on a fresh data dir (an empty build: no local baseline, so the embedded
    guard passes) would replace CURRENT with an empty snapshot: refused, nothing uploaded,
    CURRENT and the exports unchanged; --allow-shrink publishes it."""
    publish_snapshot(local, cluster, allow_shrink=True)
    before = read_current(cluster)
    skypilot = before["health"]["skypilot"]
    assert skypilot > 0 and before["tables"]["price_history"] > 0
    store = ObjectStore(cluster, writer=False)
    exports = store.list(cluster.published_bucket, "exports/")
    warehouses = store.list(cluster.published_bucket, "warehouse/")

    with pytest.raises(SnapshotShrinkError) as refused:
        publish_snapshot(fresh, cluster)
    message = str(refused.value)
    assert message.startswith("refused: the new snapshot would hold far fewer rows than the "
                              f"one CURRENT names ({before['key']}: ")
    assert f"skypilot {skypilot} -> 0 rows in force" in message and "\n" not in message
    assert message.endswith("To publish anyway: --allow-shrink")
    assert read_current(cluster) == before
    assert store.list(cluster.published_bucket, "exports/") == exports
    assert store.list(cluster.published_bucket, "warehouse/") == warehouses

    record = publish_snapshot(fresh, cluster, allow_shrink=True)
    assert read_current(cluster)["key"] == record.key != before["key"]
    publish_snapshot(local, cluster, allow_shrink=True)  # back to the fixture's snapshot


def test_refresh_upload_names_the_shrink_in_one_line(
        cluster: ClusterSettings, local: Path, fresh: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`gpucost refresh --upload` from a small data dir: the local publish stands, the upload
    is refused in one line, exit 3."""
    from gpucost.flows.cli.refresh import _upload_snapshot

    publish_snapshot(local, cluster, allow_shrink=True)
    before = read_current(cluster)
    _reader_env(monkeypatch, write_settings(cluster, tmp_path / "cluster.json"), fresh)
    capsys.readouterr()
    assert _upload_snapshot() is False
    out = capsys.readouterr().out
    assert out.startswith("object storage: NOT uploaded (SnapshotShrinkError: refused: the new "
                          "snapshot would hold far fewer rows"), out
    assert out.count("\n") == 1 and out.rstrip().endswith("the local publish stands")
    assert read_current(cluster) == before


# -- cluster down without servers.json ------------------------------------------------------

def _sleepers(dir: Path, names: list[str]) -> list[int]:
    """Start `names` as this cluster's servers would be (their own session, cwd in `dir`,
    pid records), each a process that sleeps; servers.json records them."""
    from gpucost.cluster.processes import Server, _spawn, _write_servers

    servers = []
    for name in names:
        cwd = dir / "sleepers" / name
        cwd.mkdir(parents=True)
        # the command line of a worker (`python -m prefect worker ...`), as the scan knows it
        argv = [sys.executable, "-c", "import time; time.sleep(600)", "prefect", "worker"]
        server = Server(name, argv, {}, str(cwd), 0, [], "http:/", grace=2.0)
        _spawn(dir, server)
        servers.append(server)
    _write_servers(dir, servers)
    return [s.pid for s in servers]


def _gone(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


def test_down_finds_its_servers_by_their_pid_records(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """servers.json damaged while the cluster runs: `cluster down` stopped 0 servers and
    left all running. Now it reads each server's pid record and stops them, and a process
    no record names (its record damaged too) is found by the scan of the cluster folder."""
    from gpucost.flows.cli.main import main

    names = ["master", "volume-1", "s3", "fetcher-1"]
    pids = _sleepers(tmp_path, names)
    (tmp_path / "servers.json").write_text('{"servers": [{"name": "mas', encoding="utf-8")
    (tmp_path / "pids" / "fetcher-1.json").write_text("{damaged", encoding="utf-8")
    # the same command outside the folder, and another command inside it: never touched
    sleep = [sys.executable, "-c", "import time; time.sleep(600)"]
    outsider = subprocess.Popen([*sleep, "prefect", "worker"], cwd=tmp_path.parent,
                                start_new_session=True)
    shell = subprocess.Popen(sleep, cwd=tmp_path, start_new_session=True)
    try:
        capsys.readouterr()
        assert main(["cluster", "down", "--dir", str(tmp_path)]) == 0
        out, err = capsys.readouterr()
        assert f"{tmp_path / 'servers.json'} is missing or damaged: found 3 servers by their " \
               "pid records" in err, err
        assert "1 more processes run in" in err
        assert out.startswith(f"stopped 4 servers in {tmp_path}: master, volume-1, s3, pid "), out
        deadline = time.monotonic() + 10
        while not all(_gone(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert all(_gone(p) for p in pids)
        assert outsider.poll() is None and shell.poll() is None
    finally:
        for proc in (outsider, shell):
            proc.kill()
            proc.wait()


def test_status_of_the_real_cluster_reads_the_pid_records(
        cluster: ClusterSettings, cluster_dir: Path) -> None:
    """The session's ten servers, found with servers.json damaged."""
    from gpucost.cluster import servers

    path = cluster_dir / "servers.json"
    good = path.read_bytes()
    try:
        path.write_text("{not json", encoding="utf-8")
        rows = servers.status(cluster_dir)
        assert [r.name for r in rows] == ["master", "volume-1", "volume-2", "filer", "s3",
                                          "postgres", "prefect", "fetcher-1", "fetcher-2",
                                          "publisher-1"]
        assert all(r.up for r in rows), rows
        assert servers.read_servers_from(cluster_dir)[1] == "pid records"
    finally:
        path.write_bytes(good)


# -- commit conflicts and concurrent refreshes ----------------------------------------------

@pytest.fixture
def raw(cluster: ClusterSettings) -> Iterator[object]:
    from test_shared_raw import _namespace

    from gpucost.cluster.shared_raw import SharedRaw

    with SharedRaw(cluster, namespace=_namespace()) as shared:
        shared.ensure_tables()
        yield shared


def _no_pyiceberg_retries(raw: object, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Tables loaded with commit.retry.num-retries 0 (one pyiceberg attempt per round), a
    commit budget of 0.3 s, and commits that lose their race while the returned counter is
    above 0 (_lose_then_win)."""
    import gpucost.cluster.shared_raw as shared_raw

    monkeypatch.setattr(shared_raw, "COMMIT_BUDGET_S", 0.3)
    catalog = raw.catalog  # type: ignore[attr-defined]
    real_load = catalog.load_table

    def load(identifier):  # type: ignore[no-untyped-def]
        table = real_load(identifier)
        table.metadata = table.metadata.model_copy(update={"properties": {
            **table.metadata.properties, "commit.retry.num-retries": "0"}})
        return table

    monkeypatch.setattr(catalog, "load_table", load)
    conflicts = [0]
    monkeypatch.setattr(catalog, "commit_table", _lose_then_win(raw, conflicts))
    return conflicts


def test_a_conflict_that_outlasts_pyiceberg_retries_is_retried(
        raw: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two lost races, the first after the whole budget: the append gave up "after 1
    attempts"; now it makes its COMMIT_MIN_ROUNDS rounds and lands once."""
    from test_shared_raw import _prices

    from gpucost.cluster import raw_tables

    conflicts = _no_pyiceberg_retries(raw, monkeypatch)
    conflicts[0] = 2
    fetch_id = raw.append_fetch({"source": "conflicted"},  # type: ignore[attr-defined]
                                _prices(3, datetime(2026, 3, 1, tzinfo=UTC)))
    assert conflicts[0] == 0
    assert [m["fetch_id"] for m in raw.markers()] == [fetch_id]  # type: ignore[attr-defined]
    assert raw.observations().num_rows == 3  # type: ignore[attr-defined]
    table = raw.table(raw_tables.OBSERVATIONS)  # type: ignore[attr-defined]
    assert len(table.scan().to_arrow()) == 3


def _lose_then_win(raw: object, conflicts: list[int]):  # type: ignore[no-untyped-def]
    """A commit that loses its race (without landing) while conflicts[0] > 0; the first
    loss comes after a pause longer than the budget."""
    from pyiceberg.exceptions import CommitFailedException

    from gpucost.cluster import raw_commits
    from gpucost.cluster.raw_commits import CountingSqlCatalog

    catalog = raw.catalog  # type: ignore[attr-defined]
    seen = [0]

    def commit(table, requirements, updates):  # type: ignore[no-untyped-def]
        if conflicts[0] > 0:
            conflicts[0] -= 1
            seen[0] += 1
            if seen[0] == 1:
                time.sleep(0.4)
            catalog.stats.count("attempts")
            catalog.stats.count("conflicts")
            raw_commits._THREAD.attempts = getattr(raw_commits._THREAD, "attempts", 0) + 1
            raw_commits._THREAD.conflicts = getattr(raw_commits._THREAD, "conflicts", 0) + 1
            raise CommitFailedException("Requirement failed: branch main has changed: "
                                        "expected id 1, found 2")
        return CountingSqlCatalog.commit_table(catalog, table, requirements, updates)

    return commit


def test_a_conflict_that_never_ends_is_named_with_its_attempts(
        raw: object, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_shared_raw import _prices

    from gpucost.cluster.raw_errors import SharedRawCommitError

    conflicts = _no_pyiceberg_retries(raw, monkeypatch)
    conflicts[0] = 10_000
    with pytest.raises(SharedRawCommitError) as failed:
        raw.append_fetch({"source": "never"},  # type: ignore[attr-defined]
                         _prices(2, datetime(2026, 3, 2, tzinfo=UTC)))
    message = str(failed.value)
    assert "(gave up after 3 rounds, 3 commit attempts of which 3 conflicts, in " in message
    assert "CommitFailedException: Requirement failed: branch main has changed" in message
    assert "\n" not in message
    assert raw.markers() == []  # type: ignore[attr-defined]


def test_a_second_cluster_refresh_is_refused_by_name_or_queued(
        cluster: ClusterSettings, cluster_dir: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    from gpucost.cluster import flows
    from gpucost.flows.cli.main import main
    from gpucost.flows.cli.output import EXIT_FAILED

    with flows.refresh_lock(cluster):
        with pytest.raises(flows.ClusterRefreshBusyError) as busy:
            with flows.refresh_lock(cluster):
                pass
        message = str(busy.value)
        assert message.startswith("refused: another cluster refresh is running (gpucost "
                                  f"cluster refresh on {os.uname().nodename}"[:90]), message
        assert f"pid {os.getpid()} since " in message
        capsys.readouterr()
        start = time.monotonic()
        assert main(["cluster", "refresh", "--dir", str(cluster_dir)]) == EXIT_FAILED
        assert time.monotonic() - start < 5  # refused before anything is registered or run
        err = capsys.readouterr().err
        assert err.startswith("error: ClusterRefreshBusyError: refused: another cluster "
                              "refresh is running (gpucost cluster refresh on ")
        assert err.count("\n") == 1

    # queued: a second one waits for the first to end, then runs
    held = threading.Event()
    release = threading.Event()

    def first() -> None:
        with flows.refresh_lock(cluster):
            held.set()
            release.wait(10)

    thread = threading.Thread(target=first)
    thread.start()
    try:
        assert held.wait(10)
        threading.Timer(1.5, release.set).start()
        start = time.monotonic()
        with flows.refresh_lock(cluster, wait_s=20):
            waited = time.monotonic() - start
        assert 1.0 < waited < 10, waited
    finally:
        release.set()
        thread.join()


# -- the publisher down ---------------------------------------------------------------------

def test_a_publish_run_nobody_starts_is_cancelled_and_never_publishes(
        cluster: ClusterSettings, cluster_dir: Path) -> None:
    """The publisher worker stopped: the publish run is cancelled after the bounded wait
    (3 s here, GPUCOST_CLUSTER_PUBLISH_START_S in production) with a line saying why; when
    the worker is back it does not run it, and CURRENT stays."""
    from prefect import get_client

    from gpucost.cluster import flows, servers
    from gpucost.cluster.prefect_pools import WORKER_QUERY_SECONDS

    flows.deploy(cluster)
    try:
        before = read_current(cluster)["key"]
    except Exception:
        before = None
    servers.stop_server(cluster_dir, "publisher-1")
    try:
        start = time.monotonic()
        result = flows.run_publish(cluster, start_s=3.0, timeout_s=60)
        took = time.monotonic() - start
    finally:
        servers.start_server(cluster_dir, "publisher-1")
    assert result["state"] == "CANCELLED", result
    assert took < 20, took
    assert result["detail"].startswith(
        "no publisher worker started the publish run within 3 s (pool gpucost-publisher: ")
    assert result["detail"].endswith("the run is cancelled and will not publish later "
                                     "(GPUCOST_CLUSTER_PUBLISH_START_S sets the wait)")
    time.sleep(2 * float(WORKER_QUERY_SECONDS) + 1)  # the worker polled its pool since
    with get_client(sync_client=True) as client:
        states = [s.type.value for s in client.read_flow_run_states(result["id"])]
    assert "RUNNING" not in states and states[-1] == "CANCELLED", states
    try:
        after = read_current(cluster)["key"]
    except Exception:
        after = None
    assert after == before


def test_cluster_refresh_says_the_publish_run_was_cancelled(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI's last line for a cancelled publish run is its reason, exit 1."""
    from gpucost.cluster import flows
    from gpucost.flows.cli.main import main
    from gpucost.flows.cli.output import EXIT_FAILED

    detail = ("no publisher worker started the publish run within 120 s (pool "
              "gpucost-publisher: 0 of 1 workers online); the run is cancelled and will not "
              "publish later (GPUCOST_CLUSTER_PUBLISH_START_S sets the wait)")
    run = flows.ClusterRun(fetch_runs=[{"id": "f1", "sources": ["lambda"],
                                        "state": "COMPLETED"}],
                           publish_run={"id": "p1", "state": "CANCELLED", "detail": detail},
                           sources={"lambda": ("ok", 3, None)})
    monkeypatch.setattr(flows, "run_cluster_refresh", lambda *a, **k: run)
    settings = ClusterSettings(s3_endpoint="http://127.0.0.1:9", writer_key="w",
                               writer_secret="writer-secret-round4",
                               postgres_url="postgresql://u:p@127.0.0.1:9/gpucost",
                               prefect_api_url="http://127.0.0.1:9/api")
    write_settings(settings, tmp_path / "cluster.json")
    for env in FIELDS.values():
        monkeypatch.delenv(env, raising=False)
    capsys.readouterr()
    assert main(["cluster", "refresh", "--dir", str(tmp_path)]) == EXIT_FAILED
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2] == "1 of 1 sources refreshed; NOT published (the previous snapshot stays)"
    assert lines[-1] == f"NOT published: {detail}"
    # a failed publish run: its named error, in the same line
    run.publish_run = {"id": "p2", "state": "FAILED", "detail": (
        "Flow run encountered an exception: SnapshotShrinkError: refused: the new snapshot "
        "would hold far fewer rows than the one CURRENT names")}
    assert main(["cluster", "refresh", "--dir", str(tmp_path)]) == EXIT_FAILED
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("NOT published: the publish run did not complete (Flow run "
                           "encountered an exception: SnapshotShrinkError: refused: "), last
    assert last.endswith("; its logs are on the Prefect server, http://127.0.0.1:9/api")


def test_the_publish_start_bound_is_read_from_the_environment(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from gpucost.cluster import flows

    monkeypatch.delenv(flows.PUBLISH_START_ENV, raising=False)
    assert flows.publish_start_s() == 120.0
    monkeypatch.setenv(flows.PUBLISH_START_ENV, "7.5")
    assert flows.publish_start_s() == 7.5
    for bad in ("nan", "-1", "0", "soon"):
        monkeypatch.setenv(flows.PUBLISH_START_ENV, bad)
        with pytest.raises(ValueError, match="GPUCOST_CLUSTER_PUBLISH_START_S must be"):
            flows.publish_start_s()


def test_settings_refuse_a_bad_minimum_rate(tmp_path: Path) -> None:
    from gpucost.cluster.settings import ClusterNotConfiguredError, load_settings

    config = tmp_path / "cluster.json"
    config.write_text(json.dumps({"s3_endpoint": "http://127.0.0.1:9", "min_rate_kbs": "x"}))
    with pytest.raises(ClusterNotConfiguredError,
                       match=r"min_rate_kbs \(GPUCOST_S3_MIN_RATE_KBS\) must be a rate"):
        load_settings(config)
    config.write_text(json.dumps({"s3_endpoint": "http://127.0.0.1:9", "min_rate_kbs": 8}))
    assert replace(load_settings(config)).min_rate_kbs == 8.0
