"""The shared raw layer (cluster/shared_raw.py) against the real servers of the `cluster`
fixture: Iceberg tables in a SQL catalog on PostgreSQL, data files on SeaweedFS S3.

Every test works in a namespace of its own (a fresh pair of tables), so the counts are exact
whatever else the session wrote. The four-writer test prints its commit latency and retries
(`pytest -s` shows them).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from pyiceberg.expressions import EqualTo
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from gpucost.catalog.records import PriceObservation
from gpucost.cluster import raw_errors, raw_tables
from gpucost.cluster.raw_errors import SharedRawPermissionError, SharedRawUnavailableError
from gpucost.cluster.raw_tables import month_filter
from gpucost.cluster.settings import write_settings
from gpucost.cluster.shared_raw import SharedRaw
from gpucost.cluster.uuid7 import uuid7, uuid7_time

pytestmark = pytest.mark.cluster

WRITER = Path(__file__).resolve().parents[1] / "support" / "cluster_writer.py"
WRITERS, FETCHES, ROWS = 4, 25, 40


def _namespace() -> str:
    return f"t_{uuid.uuid4().hex[:10]}"


def _prices(n: int, observed_at: datetime, sku: str = "p5") -> list[dict[str, object]]:
    return [{"provider": "aws", "sku": f"{sku}.{i}", "region": "us-east-1",
             "pricing_model": "on_demand", "currency": "USD", "price_per_hour": 10.0 + i,
             "gpu_name_raw": "H100", "gpu_count": 8.0, "observed_at": observed_at}
            for i in range(n)]


@pytest.fixture
def raw(cluster):  # type: ignore[no-untyped-def]
    """A writer on a fresh namespace, its tables created."""
    with SharedRaw(cluster, namespace=_namespace()) as shared:
        shared.ensure_tables()
        yield shared


def _fresh_database(settings):  # type: ignore[no-untyped-def]
    """`settings` on a new, empty database of the same PostgreSQL, so that the writers also
    race to create the Iceberg catalog's own tables; `settings` unchanged when the user may
    not create databases."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.exc import DBAPIError

    url = make_url(settings.postgres_url)
    name = f"raw_race_{uuid.uuid4().hex[:8]}"
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            connection.execute(text(f'create database "{name}"'))
    except DBAPIError:
        return settings
    finally:
        engine.dispose()
    return replace(settings, postgres_url=url.set(database=name).render_as_string(
        hide_password=False))


@pytest.fixture
def writer():  # type: ignore[no-untyped-def]
    """Starts tests/support/cluster_writer.py processes; kills those still running at the
    end of the test (a failed assertion must not leave writers behind)."""
    procs: list[subprocess.Popen[str]] = []

    def start(settings_file: Path, namespace: str, source: str, go: Path,
              *extra: str) -> subprocess.Popen[str]:
        proc = subprocess.Popen(
            [sys.executable, str(WRITER), str(settings_file), namespace, source, str(FETCHES),
             str(ROWS), str(go), *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs.append(proc)
        return proc

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _start(go: Path, procs: list[subprocess.Popen[str]]) -> None:
    """Let the writers go once all of them are ready (imports done, tables ensured)."""
    deadline = time.monotonic() + 60
    while len(list(go.parent.glob(f"{go.name}.ready.*"))) < len(procs):
        for proc in procs:
            if proc.poll() is not None:
                pytest.fail(f"writer exited early ({proc.returncode}): "
                            f"{proc.stderr.read() if proc.stderr else ''}")
        assert time.monotonic() < deadline, "writers not ready within 60 s"
        time.sleep(0.02)
    go.touch()


# ------------------------------------------------------------------------------------ ids


def test_uuid7_is_time_ordered_unique_and_version_7() -> None:
    before = datetime.now(UTC)
    ids = [uuid7() for _ in range(100_000)]
    after = datetime.now(UTC)
    assert len(set(ids)) == len(ids)
    assert ids == sorted(ids)  # text order is time order: fixed-width lowercase hex
    parsed = [uuid.UUID(v) for v in ids[:: 997]]
    assert {u.version for u in parsed} == {7}
    assert {u.variant for u in parsed} == {uuid.RFC_4122}
    # the 48-bit timestamp is the unix millisecond (within the counter's borrowed ms)
    assert before - timedelta(milliseconds=1) <= uuid7_time(ids[0])
    assert uuid7_time(ids[-1]) <= after + timedelta(seconds=1)


# ----------------------------------------------------------------------------- concurrency


def test_four_writer_processes_append_at_once_nothing_lost_nothing_doubled(
        cluster, writer, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """4 processes open a new catalog database and create the same tables at once (the
    creation races), then each appends 25 fetches of 40 rows simultaneously: every commit
    lands exactly once."""
    namespace, source = _namespace(), "four-writers"
    cluster = _fresh_database(cluster)
    settings_file = write_settings(cluster, tmp_path / "cluster.json")
    go = tmp_path / "go"
    procs = [writer(settings_file, namespace, source, go) for _ in range(WRITERS)]
    _start(go, procs)
    reports = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err[-3000:]
        reports.append(json.loads(out.strip().splitlines()[-1]))
    # the writers did overlap
    assert max(r["started"] for r in reports) < min(r["finished"] for r in reports)

    written = [fid for r in reports for fid in r["fetch_ids"]]
    assert len(written) == len(set(written)) == WRITERS * FETCHES
    with SharedRaw(cluster, namespace=namespace) as reader:
        markers = reader.markers()
        observations = reader.observations()
    assert len(markers) == WRITERS * FETCHES
    assert sorted(m["fetch_id"] for m in markers) == sorted(written)
    assert {m["rows"] for m in markers} == {ROWS}
    assert observations.num_rows == WRITERS * FETCHES * ROWS
    per_fetch = observations.group_by("fetch_id").aggregate([("sku", "count_distinct"),
                                                              ("sku", "count")])
    assert per_fetch.num_rows == WRITERS * FETCHES
    assert set(per_fetch["sku_count"].to_pylist()) == {ROWS}  # no fetch doubled
    assert set(per_fetch["sku_count_distinct"].to_pylist()) == {ROWS}

    seconds = sorted(s for r in reports for s in r["append_seconds"])
    attempts = sum(r["attempts"] for r in reports)
    conflicts = sum(r["conflicts"] for r in reports)
    wall = max(r["finished"] for r in reports) - min(r["started"] for r in reports)
    print(f"\n{WRITERS} writers x {FETCHES} fetches x 2 commits in {wall:.1f} s: "
          f"{attempts} catalog commit attempts, {conflicts} conflicts retried, "
          f"{sum(r['unknown_outcomes'] for r in reports)} unknown outcomes; per append "
          f"median {statistics.median(seconds) * 1000:.0f} ms, "
          f"p90 {seconds[int(len(seconds) * 0.9)] * 1000:.0f} ms, "
          f"max {seconds[-1] * 1000:.0f} ms")
    assert len(seconds) == WRITERS * FETCHES * 2
    assert attempts == WRITERS * FETCHES * 2 + conflicts


def test_threads_sharing_one_writer(raw: SharedRaw) -> None:
    """A fetcher appends its sources from a thread pool through one SharedRaw."""
    from concurrent.futures import ThreadPoolExecutor

    when = datetime(2026, 1, 20, tzinfo=UTC)
    with ThreadPoolExecutor(max_workers=4) as pool:
        ids = list(pool.map(lambda i: raw.append_fetch({"source": f"thread{i % 4}"},
                                                       _prices(3, when)), range(12)))
    assert len(set(ids)) == 12
    assert sorted(m["fetch_id"] for m in raw.markers()) == sorted(ids)
    assert raw.observations().num_rows == 36
    stats = raw.stats.as_dict()
    assert stats["attempts"] == 24 + stats["conflicts"]


def test_writer_dying_before_its_marker_leaves_its_rows_invisible(
        raw: SharedRaw, cluster, writer, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    settings_file = write_settings(cluster, tmp_path / "cluster.json")
    go = tmp_path / "go"
    go.touch()
    proc = writer(settings_file, raw.namespace, "dies", go, "--die-before-marker")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3, err[-3000:]

    # the rows are in the table, committed, but no marker names their fetch
    stored = raw.table(raw_tables.OBSERVATIONS).scan(row_filter=EqualTo("source", "dies"))
    orphans = stored.to_arrow()
    assert orphans.num_rows == ROWS
    assert raw.markers() == []
    assert raw.observations().num_rows == 0
    assert raw.observations(source="dies").num_rows == 0

    # a later writer's fetch is visible beside them, the orphans still are not
    raw.append_fetch({"source": "lives"}, _prices(5, datetime(2026, 1, 15, tzinfo=UTC)))
    assert raw.observations().num_rows == 5

    # repeating the dead writer's fetch under its fetch_id adds the marker only
    fetch_id = orphans["fetch_id"][0].as_py()
    again = raw.append_fetch({"fetch_id": fetch_id, "source": "dies"},
                             _prices(ROWS, datetime(2026, 1, 15, tzinfo=UTC)))
    assert again == fetch_id
    assert raw.observations(source="dies").num_rows == ROWS
    assert len(raw.table(raw_tables.OBSERVATIONS).scan().to_arrow()) == ROWS + 5


def test_commit_with_unknown_outcome_is_not_repeated(raw: SharedRaw) -> None:
    """The connection drops after Postgres committed the new metadata location (the commit
    landed, its answer was lost), then before a commit: each fetch lands exactly once."""
    real = raw.catalog.commit_table
    calls = []

    def flaky(table, requirements, updates):  # type: ignore[no-untyped-def]
        calls.append(table.name())
        if len(calls) == 1:
            real(table, requirements, updates)
            raise OperationalError("UPDATE iceberg_tables", {},
                                   Exception("server closed the connection unexpectedly"))
        if len(calls) == 2:
            raise OperationalError("UPDATE iceberg_tables", {}, Exception("connection reset"))
        return real(table, requirements, updates)

    raw.catalog.commit_table = flaky  # type: ignore[method-assign]
    when = datetime(2026, 2, 1, tzinfo=UTC)
    first = raw.append_fetch({"source": "flaky"}, _prices(7, when))
    raw.catalog.commit_table = real  # type: ignore[method-assign]
    assert raw.stats.unknown_outcomes == 2
    assert [m["fetch_id"] for m in raw.markers()] == [first]
    assert raw.observations().num_rows == 7
    assert len(raw.table(raw_tables.OBSERVATIONS).scan().to_arrow()) == 7
    assert len(raw.table(raw_tables.FETCHES).history()) == 1


def test_expired_snapshots_keep_the_rows_and_a_repeat_is_still_recognised(
        raw: SharedRaw) -> None:
    when = datetime(2026, 4, 2, tzinfo=UTC)
    ids = [raw.append_fetch({"source": "old"}, _prices(2, when)) for _ in range(4)]
    assert raw.expire_snapshots(keep=1, min_age=timedelta(0)) == 6
    for name in (raw_tables.OBSERVATIONS, raw_tables.FETCHES):
        assert len(raw.table(name).metadata.snapshots) == 1
    assert sorted(m["fetch_id"] for m in raw.markers()) == sorted(ids)
    assert raw.observations().num_rows == 8
    # the first fetch's snapshots are gone: its repeat is found in the rows instead
    raw.append_fetch({"fetch_id": ids[0], "source": "old"}, _prices(2, when))
    assert raw.observations().num_rows == 8
    assert len(raw.markers()) == 4
    assert raw.expire_snapshots() == 0  # nothing is old enough by default


# --------------------------------------------------------------------------------- reading


def test_reading_a_month_plans_only_that_months_data_files(raw: SharedRaw) -> None:
    months = [datetime(2025, m, 10, tzinfo=UTC) for m in (3, 4, 5)]
    for fetch in range(2):  # 2 fetches with rows in each of 3 months: 6 data files
        rows = [row for when in months for row in _prices(10, when, sku=f"f{fetch}")]
        raw.append_fetch({"source": "monthly"}, rows)

    table = raw.table(raw_tables.OBSERVATIONS)
    assert len(table.scan().plan_files()) == 6
    april = table.scan(row_filter=month_filter("observed_at", ["2025-04"])).plan_files()
    assert len(april) == 2
    assert {str(task.file.partition) for task in april} == {
        str(task.file.partition) for task in table.scan().plan_files()
        if task.file.file_path.count("observed_at_month=2025-04")}
    both = table.scan(row_filter=month_filter("observed_at", ["2025-03", "2025-05"]))
    assert len(both.plan_files()) == 4
    assert len(table.scan(row_filter=month_filter("observed_at", ["2025-06"])).plan_files()) == 0

    rows = raw.observations(months=["2025-04"])
    assert rows.num_rows == 20
    assert rows.schema == raw_tables.PRICE_ARROW
    observed = pc.unique(rows["observed_at"]).to_pylist()
    assert observed == [months[1]]
    assert raw.observations(months=["2025-03", "2025-05"]).num_rows == 40
    assert raw.observations(months=["2025-04"], source="other").num_rows == 0
    with pytest.raises(ValueError, match="YYYY-MM"):
        raw.observations(months=["April"])


def test_markers_and_already_loaded(raw: SharedRaw) -> None:
    t0 = datetime.now(UTC)
    observed = PriceObservation(provider="lambda", sku="gpu_1x_h100", region="us-east-1",
                                pricing_model="on_demand", price_per_hour=2.49,
                                gpu_name_raw="H100", gpu_count=1.0)
    ok = raw.append_fetch({"source": "lambda", "sha256": "a" * 64, "run_id": "r1",
                           "observed_at": t0, "payload_keys": ["raw/a.json", "raw/a.meta"],
                           "fetched_at": t0},
                          [observed])
    failed = raw.append_fetch({"source": "lambda", "status": "failed", "sha256": "b" * 64,
                               "error_type": "HttpError", "error": "HTTP 500",
                               "fetched_at": t0 + timedelta(seconds=1)})
    assert raw.already_loaded("lambda", "a" * 64)
    assert not raw.already_loaded("lambda", "b" * 64)  # a failed fetch loaded nothing
    assert not raw.already_loaded("vast", "a" * 64)

    markers = raw.markers()
    assert [m["fetch_id"] for m in markers] == [ok, failed]
    assert markers[0]["payload_keys"] == "raw/a.json;raw/a.meta"
    assert markers[0]["rows"] == 1 and markers[1]["rows"] == 0
    assert markers[0]["fetched_at"] == t0
    assert markers[1]["error_type"] == "HttpError"
    assert [m["fetch_id"] for m in raw.markers(since=t0 + timedelta(seconds=1))] == [failed]
    rows = raw.observations()
    assert rows.num_rows == 1
    # a row without its own date takes the fetch's observed_at
    assert rows["observed_at"][0].as_py() == t0
    assert rows["fetch_id"][0].as_py() == ok

    with pytest.raises(raw_errors.InvalidFetchError, match="only 'ok'"):
        raw.append_fetch({"source": "lambda", "status": "failed", "observed_at": t0},
                         [observed])
    with pytest.raises(raw_errors.InvalidFetchError, match="unknown fetch columns"):
        raw.append_fetch({"source": "lambda", "bytes": 3})
    with pytest.raises(raw_errors.InvalidFetchError, match="observed_at is required"):
        raw.append_fetch({"source": "lambda"}, [observed])  # no date anywhere


def test_arrow_prices_are_accepted(raw: SharedRaw) -> None:
    when = datetime(2026, 3, 1, tzinfo=UTC)
    table = pa.Table.from_pylist(_prices(3, when))
    raw.append_fetch({"source": "arrow"}, table)
    rows = raw.observations(source="arrow")
    assert rows.num_rows == 3
    assert rows["source"].to_pylist() == ["arrow"] * 3


# ------------------------------------------------------------------------- keys and errors


def test_reader_key_reads_but_cannot_append(raw: SharedRaw, cluster) -> None:  # type: ignore[no-untyped-def]
    fetch_id = raw.append_fetch({"source": "seen"}, _prices(4, datetime(2026, 1, 2, tzinfo=UTC)))
    with SharedRaw(cluster, writer=False, namespace=raw.namespace) as reader:
        reader.ensure_tables()  # the tables exist: nothing to write, so nothing refused
        assert [m["fetch_id"] for m in reader.markers()] == [fetch_id]
        assert reader.observations().num_rows == 4
        with pytest.raises(SharedRawPermissionError, match="reader key") as caught:
            reader.append_fetch({"source": "sneaky"},
                                _prices(2, datetime(2026, 1, 2, tzinfo=UTC)))
        assert "\n" not in str(caught.value)
        assert cluster.reader_secret not in str(caught.value)
    assert [m["fetch_id"] for m in raw.markers()] == [fetch_id]
    assert len(raw.table(raw_tables.OBSERVATIONS).scan().to_arrow()) == 4


def test_unreachable_servers_are_a_named_error(raw: SharedRaw, cluster) -> None:  # type: ignore[no-untyped-def]
    # a port nothing listens on: a loopback socket bound and closed again
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead_port = sock.getsockname()[1]
    url = make_url(cluster.postgres_url)
    password = url.password or "no password"
    dead_pg = url.set(port=dead_port).render_as_string(hide_password=False)
    started = time.monotonic()
    with pytest.raises(SharedRawUnavailableError, match="PostgreSQL") as caught:
        SharedRaw(replace(cluster, postgres_url=dead_pg))
    assert time.monotonic() - started < 10
    assert "\n" not in str(caught.value) and password not in str(caught.value)

    dead_s3 = replace(cluster, s3_endpoint=f"http://127.0.0.1:{dead_port}", timeout_s=1.0)
    with SharedRaw(dead_s3, namespace=raw.namespace) as blind:
        started = time.monotonic()
        with pytest.raises(SharedRawUnavailableError, match="S3") as caught:
            blind.markers()
        assert time.monotonic() - started < 20
        assert cluster.writer_secret not in str(caught.value)


def test_a_table_from_before_price_kind_gains_the_column(cluster) -> None:  # type: ignore[no-untyped-def]
    """raw.price_observations created before price_kind existed (issue 37 item 2): a reader
    sees its rows with a null kind ('instance' in the models), and the next writer adds the
    optional column before appending rows that carry one."""
    from pyiceberg.schema import Schema

    from gpucost.cluster.raw_commits import TABLE_PROPERTIES

    # the columns added since (price_kind; payment and available, issue 41) are all missing
    newer = ("price_kind", "payment", "available")
    old_schema = Schema(*(f for f in raw_tables.PRICE_SCHEMA.fields if f.name not in newer))
    when = datetime(2026, 3, 1, tzinfo=UTC)
    with SharedRaw(cluster, namespace=_namespace()) as shared:
        shared.catalog.create_namespace(shared.namespace)
        table = shared.catalog.create_table(
            (shared.namespace, raw_tables.OBSERVATIONS), schema=old_schema,
            partition_spec=raw_tables.PRICE_SPEC, properties=TABLE_PROPERTIES)
        shared.ensure_tables()  # raw.fetches only: the old observations table stays as it is
        old_id = uuid7()
        old_rows = raw_tables.price_rows(_prices(2, when), {"fetch_id": old_id, "source": "old"})
        table.append(old_rows.drop_columns([c for c in newer if c in old_rows.column_names]))
        shared.append_fetch({"source": "old", "fetch_id": old_id, "observed_at": when})
        assert shared.observations()["price_kind"].to_pylist() == [None, None]

        shape = PriceObservation(provider="oracle", sku="BM.GPU.MI355X.8", region="",
                                 pricing_model="on_demand", price_per_hour=68.8,
                                 gpu_name_raw="MI355X", gpu_count=8.0,
                                 price_kind="shape_per_gpu")
        shared.append_fetch({"source": "new", "observed_at": when}, [shape])
        assert "price_kind" in {f.name for f in shared.table(raw_tables.OBSERVATIONS)
                                .schema().fields}
        rows = shared.observations()
        assert sorted(zip(rows["source"].to_pylist(), rows["price_kind"].to_pylist(),
                          strict=True), key=str) == [
            ("new", "shape_per_gpu"), ("old", None), ("old", None)]
