"""Cluster mode against the embedded path: `make bench-cluster` (`python -m benchmarks.cluster`).

Starts a whole cluster on this machine (cluster/servers.py `up`: SeaweedFS, PostgreSQL, a
Prefect server, two fetcher workers and one publisher, all on loopback) in a temporary
folder, and measures side by side:

1. A refresh of the 12 sources of tests/cluster/test_cluster_refresh.py, served their good
   live walks by tests/support/fault_matrix.py's MatrixServer (no fault): the embedded path
   (`refresh_plain`, before the cluster starts) and the pools (`run_cluster_refresh`, 3
   batches), RUNS times each on the same data (the later runs find nothing changed), then
   1-batch cluster runs; the cluster runs split by their flow runs' state timestamps. All
   again with the HTTP client's per-host pacing off (every source is one loopback host here,
   so pacing serializes the fetches: the "off" rows show the work and the orchestration).
2. One month of a synthetic price history (24 months x ~100,000 rows) read back: from the
   Iceberg `price_observations` on S3 with month pruning and without, from a local DuckDB
   table, and as month-partitioned Parquet (local, and on S3 through DuckDB 2.0 with
   `register_filesystem(s3_filesystem(settings))`): one month's file against the glob.

Stops the cluster and removes the folder at the end, also on failure. Writes its section of
benchmarks/RESULTS.md (between the `cluster` markers; `make bench` keeps it). Progress goes
to stderr. Nothing here runs in the test suite. Options: --rows-per-month, --no-write.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "RESULTS.md"
START, END = "<!-- cluster:start -->", "<!-- cluster:end -->"
# the sources of tests/cluster/test_cluster_refresh.py
TWELVE = ["coreweave", "crusoe", "datacrunch", "digitalocean", "fluidstack", "hyperstack",
          "lambda", "nebius", "paperspace", "runpod", "vast", "voltagepark"]
RUNS = 3
MONTHS = [f"{y}-{m:02d}" for y in (2024, 2025) for m in range(1, 13)]
MONTH = "2025-06"  # the month read back
NAMESPACE = "bench"  # the synthetic history's Iceberg tables (the refresh's are in `raw`)
S3_PARQUET = "bench/price_observations/months"  # in the published bucket (the reader key)
PROVIDERS = ("aws", "azure", "gcp", "lambda", "nebius", "runpod", "vast", "coreweave")
REGIONS = tuple(f"region-{i}" for i in range(20))

_T0 = time.monotonic()


def say(text: str) -> None:
    print(f"[{time.monotonic() - _T0:7.1f} s] {text}", file=sys.stderr, flush=True)


def load() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def timed(fn: Callable[[], Any], runs: int = RUNS) -> tuple[list[float], Any]:
    """Seconds of `runs` calls of fn, and the last call's result."""
    seconds, result = [], None
    for _ in range(runs):
        t = time.perf_counter()
        result = fn()
        seconds.append(time.perf_counter() - t)
    return seconds, result


def med(xs: list[float]) -> float:
    return statistics.median(xs)


def query(con: Any, sql: str, params: list | None = None) -> Callable[[], Any]:
    """A call that runs `sql` on DuckDB `con` into an Arrow table."""
    return lambda: con.sql(sql, params=params).to_arrow_table()


# ---- 1. the refresh -------------------------------------------------------------------------

def job_env(server: Any) -> dict[str, str]:
    """What the runs need to fetch from the loopback server (as the test gives them)."""
    env = dict(server.env)
    env.update({"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
                "GPUCOST_FETCH_DEADLINE_S": "30"})
    return env


@contextmanager
def environ(env: dict[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@contextmanager
def pacing(paced: bool) -> Iterator[None]:
    """This process's HTTP client with or without per-host pacing (catalog/http.py PACING)."""
    import gpucost.catalog.http as http

    saved = http.PACING
    http.PACING = saved if paced else 0.0
    try:
        yield
    finally:
        http.PACING = saved


def unpaced_env(env: dict[str, str], work: Path) -> dict[str, str]:
    """`env` plus a PYTHONPATH whose sitecustomize turns pacing off in the flow runs' processes
    (the workers pass the job variables' env to them; PACING has no variable of its own)."""
    hook = work / "no-pacing"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(
        "import gpucost.catalog.http\n\ngpucost.catalog.http.PACING = 0.0\n", encoding="utf-8")
    return {**env, "PYTHONPATH": str(hook)}


def embedded_runs(env: dict[str, str], data: Path, *, paced: bool = True) -> list[dict]:
    from gpucost.flows.steps import refresh_plain

    out = []
    with environ(env), pacing(paced):
        for i in range(RUNS):
            t = time.perf_counter()
            s = refresh_plain(TWELVE, data_dir=data)
            wall = time.perf_counter() - t
            statuses: dict[str, int] = {}
            for src in s.sources:
                statuses[src.status] = statuses.get(src.status, 0) + 1
            out.append({"wall": wall, "publish": s.publish_seconds, "published": s.published,
                        "statuses": statuses, "history_mode": s.history_mode})
            say(f"embedded run {i + 1}{'' if paced else ' (pacing off)'}: {wall:.1f} s "
                f"(publish {s.publish_seconds:.1f} s) {statuses}")
    return out


def _times(client: Any, run_id: str) -> dict[str, datetime]:
    """When a flow run was scheduled, first running, and final (its state timestamps)."""
    states = client.read_flow_run_states(run_id)
    first = {}
    for s in sorted(states, key=lambda s: s.timestamp):
        first.setdefault(s.type.value, s.timestamp)
    return {"scheduled": first.get("SCHEDULED") or min(s.timestamp for s in states),
            "running": first.get("RUNNING"),
            "final": max(s.timestamp for s in states if s.is_final())}


def cluster_run(settings: Any, env: dict[str, str], batches: int) -> dict:
    """One run_cluster_refresh, split by the flow runs' state timestamps: fetch = first fetch
    run scheduled -> last fetch run final; publish = publish run scheduled -> final (exec:
    running -> final); start = scheduled -> running of each flow run (worker poll, process
    start, imports)."""
    from prefect import get_client

    from gpucost.cluster import flows

    run = flows.run_cluster_refresh(TWELVE, batches=batches, env=env, timeout_s=600,
                                    settings=settings)
    with get_client(sync_client=True) as client:
        fetch = [_times(client, r["id"]) for r in run.fetch_runs]
        pub = _times(client, run.publish_run["id"])
    fetch_s = (max(t["final"] for t in fetch) - min(t["scheduled"] for t in fetch))
    starts = [(t["running"] - t["scheduled"]).total_seconds() for t in [*fetch, pub]
              if t["running"]]
    states = [r["state"] for r in run.fetch_runs] + [run.publish_run["state"]]
    return {"wall": run.seconds, "fetch": fetch_s.total_seconds(),
            "fetch_exec": [(t["final"] - t["running"]).total_seconds() for t in fetch
                           if t["running"]],
            "publish": (pub["final"] - pub["scheduled"]).total_seconds(),
            "publish_exec": (pub["final"] - pub["running"]).total_seconds()
            if pub["running"] else 0.0,
            "gap": (pub["scheduled"] - max(t["final"] for t in fetch)).total_seconds(),
            "start": starts, "states": states,
            "ok": all(s == "COMPLETED" for s in states)}


def cluster_runs(settings: Any, env: dict[str, str], batches: int) -> list[dict]:
    out = []
    for i in range(RUNS):
        r = cluster_run(settings, env, batches)
        say(f"cluster {batches}-batch run {i + 1}: {r['wall']:.1f} s (fetch {r['fetch']:.1f}, "
            f"publish {r['publish']:.1f}, starts {', '.join(f'{s:.1f}' for s in r['start'])}, "
            f"fetch runs {', '.join(f'{s:.1f}' for s in r['fetch_exec'])}) {r['states']}")
        out.append(r)
    return out


# ---- 2. the history read --------------------------------------------------------------------

def month_table(month: str, offers: int, seed: int) -> Any:
    """One month of daily observations of `offers` offers (~offers x days rows), without
    fetch_id and source (append_fetch adds them)."""
    import numpy as np
    import pyarrow as pa

    from gpucost.cluster.raw_tables import month_bounds

    start, end = month_bounds(month)
    days = (end - start).days
    n = offers * days
    rng = np.random.default_rng(seed)
    offer = np.tile(np.arange(offers), days)
    day = np.repeat(np.arange(days), offers)
    base_us = int(start.timestamp() * 1_000_000) + 12 * 3600 * 1_000_000
    observed = pa.array(base_us + day * 86_400_000_000, pa.timestamp("us", tz="UTC"))
    skus = pa.array([f"gpu-{i % 7 + 1}x-{i}" for i in range(offers)])
    providers = pa.array([PROVIDERS[i % len(PROVIDERS)] for i in range(offers)])
    regions = pa.array([REGIONS[i // len(PROVIDERS) % len(REGIONS)] for i in range(offers)])
    idx = pa.array(offer)
    price = np.round(rng.uniform(0.2, 40.0, n), 4)
    return pa.table({
        "provider": providers.take(idx), "sku": skus.take(idx), "region": regions.take(idx),
        "pricing_model": pa.array(np.where(offer % 3 == 0, "spot", "on_demand")),
        "os": pa.array(["linux"] * n), "currency": pa.array(["USD"] * n),
        "price_per_hour": pa.array(price), "gpu_name_raw": pa.array(["H100"] * n),
        "gpu_count": pa.array((offer % 7 + 1).astype("float64")),
        "observed_at": observed,
    })


def write_history(settings: Any, work: Path, offers: int) -> dict:
    """The same rows into the Iceberg table (one append_fetch per month), a local DuckDB
    table, local Parquet per month and S3 Parquet per month."""
    import duckdb
    import pyarrow as pa
    import pyarrow.parquet as pq

    from gpucost.cluster.objects import ObjectStore
    from gpucost.cluster.shared_raw import SharedRaw

    raw = SharedRaw(settings, writer=True, namespace=NAMESPACE)
    raw.ensure_tables()
    s3 = ObjectStore(settings, writer=True)
    local_months = work / "parquet" / "months"
    local_months.mkdir(parents=True)
    con = duckdb.connect(str(work / "history.duckdb"))
    out = {"rows": 0, "iceberg_s": 0.0, "generate_s": 0.0, "local_s": 0.0, "s3_parquet_s": 0.0}
    try:
        for i, month in enumerate(MONTHS):
            t = time.perf_counter()
            prices = month_table(month, offers, seed=i)
            out["generate_s"] += time.perf_counter() - t
            observed = prices["observed_at"][0].as_py()
            t = time.perf_counter()
            fid = raw.append_fetch({"source": "synthetic", "fetched_at": observed,
                                    "observed_at": observed}, prices)
            out["iceberg_s"] += time.perf_counter() - t
            full = prices.add_column(0, "source", pa.array(["synthetic"] * len(prices)))
            full = full.add_column(0, "fetch_id", pa.array([fid] * len(prices)))
            t = time.perf_counter()
            con.register("month_rows", full)
            con.execute("create table price_observations as select * from month_rows" if i == 0
                        else "insert into price_observations select * from month_rows")
            con.unregister("month_rows")
            pq.write_table(full, local_months / f"{month}.parquet", compression="zstd")
            out["local_s"] += time.perf_counter() - t
            t = time.perf_counter()
            pq.write_table(full, f"{settings.published_bucket}/{S3_PARQUET}/{month}.parquet",
                           filesystem=s3.fs, compression="zstd")
            out["s3_parquet_s"] += time.perf_counter() - t
            out["rows"] += len(prices)
            say(f"history {month}: {len(prices):,} rows (total {out['rows']:,})")
        con.execute("checkpoint")
    finally:
        con.close()
        raw.close()
    out["duckdb_mb"] = (work / "history.duckdb").stat().st_size / 1e6
    return out


class S3Bytes:
    """Counts the bytes s3fs fetches (what DuckDB reads through the registered filesystem)."""

    def __init__(self) -> None:
        import s3fs.core

        self.total = 0
        self._cls = s3fs.core.S3File
        self._orig = self._cls._fetch_range
        counter = self

        def fetch_range(file: Any, start: int, end: int) -> bytes:
            data = counter._orig(file, start, end)
            counter.total += len(data)
            return data

        self._cls._fetch_range = fetch_range

    def close(self) -> None:
        self._cls._fetch_range = self._orig


def read_history(settings: Any, work: Path) -> dict:
    """Each way of reading MONTH, RUNS times: rows, bytes, seconds."""
    import duckdb
    import pyarrow.compute as pc

    from gpucost.cluster.objects import s3_filesystem
    from gpucost.cluster.raw_tables import OBSERVATIONS, month_bounds, month_filter
    from gpucost.cluster.shared_raw import SharedRaw

    start, end = month_bounds(MONTH)
    raw = SharedRaw(settings, writer=False, namespace=NAMESPACE)
    table = raw.table(OBSERVATIONS)

    def planned(months: list[str] | None) -> tuple[int, int]:
        tasks = list(table.scan(row_filter=month_filter("observed_at", months)).plan_files())
        return len(tasks), sum(t.file.file_size_in_bytes for t in tasks)

    def unpruned() -> Any:
        rows = raw.observations()
        ts = rows["observed_at"]
        return rows.filter(pc.and_(pc.greater_equal(ts, start), pc.less(ts, end)))

    results: dict[str, dict] = {}

    def measure(key: str, fn: Callable[[], Any], files: int | None = None,
                nbytes: int | None = None, counter: S3Bytes | None = None) -> None:
        if counter:
            counter.total = 0
        seconds, result = timed(fn)
        if counter:
            nbytes = counter.total // RUNS
        results[key] = {"rows": result.num_rows, "seconds": seconds, "files": files,
                        "bytes": nbytes}
        say(f"read {key}: {result.num_rows:,} rows, median {med(seconds):.3f} s "
            f"({', '.join(f'{s:.3f}' for s in seconds)})")

    try:
        files, nbytes = planned([MONTH])
        measure("iceberg_month", lambda: raw.observations(months=[MONTH]), files, nbytes)
        files, nbytes = planned(None)
        measure("iceberg_all", unpruned, files, nbytes)
    finally:
        raw.close()

    con = duckdb.connect(str(work / "history.duckdb"), read_only=True)
    try:
        measure("duckdb_local", query(
            con, "select * from price_observations where observed_at >= $1 and observed_at < $2",
            [start, end]))
    finally:
        con.close()

    local = work / "parquet" / "months"
    con = duckdb.connect()
    try:
        one = local / f"{MONTH}.parquet"
        measure("parquet_local_month", query(con, f"select * from read_parquet('{one}')"),
                1, one.stat().st_size)
        glob = f"select * from read_parquet('{local}/*.parquet') where observed_at >= " \
               f"'{start.isoformat()}' and observed_at < '{end.isoformat()}'"
        measure("parquet_local_glob", query(con, glob), len(MONTHS),
                sum(p.stat().st_size for p in local.glob("*.parquet")))
    finally:
        con.close()

    fs = s3_filesystem(settings)
    counter = S3Bytes()
    con = duckdb.connect()
    try:
        con.register_filesystem(fs)
        base = f"s3://{settings.published_bucket}/{S3_PARQUET}"
        measure("parquet_s3_month",
                query(con, f"select * from read_parquet('{base}/{MONTH}.parquet')"),
                1, counter=counter)
        glob = f"select * from read_parquet('{base}/*.parquet') where observed_at >= " \
               f"'{start.isoformat()}' and observed_at < '{end.isoformat()}'"
        measure("parquet_s3_glob", query(con, glob), len(MONTHS),
                counter=counter)
        results["snapshot"] = snapshot_months(con, fs, settings, counter, measure)
    finally:
        con.close()
        counter.close()
    return results


def snapshot_months(con: Any, fs: Any, settings: Any, counter: S3Bytes,
                    measure: Callable[..., None]) -> dict:
    """The published snapshot's own price_history months (from the refresh above): its
    newest month's file vs the glob, when it has any."""
    from gpucost.cluster.snapshot import SnapshotError, latest_exports

    try:  # the export snapshot exports/latest.json names (cluster/snapshot.py)
        snap = latest_exports(settings)["prefix"]
    except SnapshotError:
        return {"months": []}
    prefix = f"{settings.published_bucket}/{snap}price_history/months"
    months = sorted(p.rsplit("/", 1)[1] for p in fs.glob(f"{prefix}/*.parquet"))
    if not months:
        return {"months": []}
    one = f"s3://{prefix}/{months[-1]}"
    measure("snapshot_month", query(con, f"select * from read_parquet('{one}')"), 1,
            counter=counter)
    measure("snapshot_glob", query(con, f"select * from read_parquet('s3://{prefix}/*.parquet')"),
            len(months), counter=counter)
    return {"months": months}


# ---- the run --------------------------------------------------------------------------------

def measure_all(offers: int) -> dict:
    work = Path(tempfile.mkdtemp(prefix="gpucost-bench-cluster-"))
    work.chmod(0o755)  # under root, PostgreSQL runs as `nobody` and must reach its data
    for name, value in {"PREFECT_HOME": str(work / "prefect-client"), "DO_NOT_TRACK": "1",
                        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
                        "GPUCOST_DATA_DIR": str(work / "data")}.items():
        os.environ[name] = value  # before anything imports prefect
    sys.path.insert(0, str(ROOT / "tests" / "support"))  # as tests/conftest.py does
    import fault_matrix  # tests/support/fault_matrix.py

    from gpucost.cluster import servers

    r: dict = {"started": datetime.now(UTC).isoformat(timespec="seconds"),
               "machine": machine(), "load": {"start": load()}}
    cluster_dir = work / "cluster"
    cluster_dir.mkdir()
    cluster_dir.chmod(0o755)
    t0 = time.perf_counter()
    try:
        server = fault_matrix.MatrixServer(TWELVE)
        with server.serving():
            env = job_env(server)
            say("embedded refreshes (no cluster running yet)")
            r["embedded"] = embedded_runs(env, work / "embedded")
            r["embedded_unpaced"] = embedded_runs(env, work / "embedded", paced=False)
            r["load"]["embedded"] = load()
            say("starting the cluster")
            t = time.perf_counter()
            settings = servers.up(cluster_dir, fetch_workers=2, say=say)
            r["up_s"] = time.perf_counter() - t
            from gpucost.cluster import flows

            t = time.perf_counter()
            flows.deploy(settings)
            r["deploy_s"] = time.perf_counter() - t
            say(f"cluster up in {r['up_s']:.1f} s, deployed in {r['deploy_s']:.1f} s")
            r["cluster3"] = cluster_runs(settings, env, 3)
            r["cluster1"] = cluster_runs(settings, env, 1)
            say("the same without pacing")
            unpaced = unpaced_env(env, work)
            r["cluster3_unpaced"] = cluster_runs(settings, unpaced, 3)
            r["cluster1_unpaced"] = cluster_runs(settings, unpaced, 1)
            r["load"]["refresh"] = load()
        say("writing the synthetic history")
        r["history_write"] = write_history(settings, work, offers)
        r["history"] = read_history(settings, work)
        r["load"]["history"] = load()
    finally:
        say("stopping the cluster")
        try:
            servers.down(cluster_dir)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    r["total_s"] = time.perf_counter() - t0
    return r


def machine() -> str:
    from benchmarks.bench import machine as describe

    return describe()


# ---- the section ----------------------------------------------------------------------------

def _s(x: float) -> str:
    return f"{x:.1f}"


def section(r: dict) -> str:
    lines = [
        START,
        "## Cluster mode vs the embedded path",
        "",
        f"Run {r['started']} with `make bench-cluster` (`python -m benchmarks.cluster`, "
        f"{r['total_s'] / 60:.1f} min in all) on {r['machine']}: every server on this one "
        "box, on loopback (SeaweedFS master, two volume servers, filer and S3 gateway; "
        "PostgreSQL 18; a Prefect server on it; two fetcher workers and one publisher), "
        f"started by `servers.up` in {_s(r['up_s'])} s. Load average (1/5/15 min) at the "
        f"start {r['load']['start']}, after the refreshes {r['load']['refresh']}, after the "
        f"history reads {r['load']['history']} (another session may have been running "
        "tests meanwhile).",
        "",
        "**A refresh of 12 sources** (those of tests/cluster/test_cluster_refresh.py, each "
        "served its good live walk by one loopback server, no fault), "
        f"{RUNS} runs each on the same data: the first loads everything, the later ones find "
        "nothing changed. Embedded: `refresh_plain` (fetch threads, then the publish), run "
        "before the cluster started. Cluster: `run_cluster_refresh` (the batches as flow "
        "runs of the fetcher pool, then one publish run), wall time in the calling process; "
        "fetch = first fetch run scheduled to last one finished; publish = the publish run "
        "scheduled to finished (running to finished in brackets: apply the markers, build, "
        "publish, upload the snapshot); start = scheduled to running of each flow run "
        "(worker poll, process start, imports), median. *Pacing*: the HTTP client spaces "
        "requests to one host (2 s between scraped pages; some APIs are paced too), and here "
        "all 12 sources are one host, so about 18 s of every paced fetch is waiting, on both "
        "paths (12 real hosts would wait in parallel). The *off* rows set catalog/http.py "
        "`PACING = 0` (in the process for the embedded path; for the flow runs through a "
        "`sitecustomize` on a PYTHONPATH in the job variables' env), leaving the work and "
        "the orchestration.",
        "",
        "| path | pacing | run | wall s | fetch s | publish s | start s per flow run |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]

    def median_run(xs: list[dict]) -> dict:
        return sorted(xs, key=lambda x: x["wall"])[len(xs) // 2]

    def row(key: str, paced: str, first: bool) -> str:
        runs = r[key]
        x = runs[0] if first else median_run(runs)
        label = "first" if first else f"median of {RUNS}"
        if key.startswith("embedded"):
            return (f"| embedded (`refresh_plain`) | {paced} | {label} | {_s(x['wall'])} | "
                    f"{_s(x['wall'] - x['publish'])} (fetch + load) | {_s(x['publish'])} | - |")
        path = "cluster, 1 batch" if key.startswith("cluster1") else \
            "cluster, 3 batches on 2 fetchers"
        return (f"| {path} | {paced} | {label} | {_s(x['wall'])} | {_s(x['fetch'])} | "
                f"{_s(x['publish'])} ({_s(x['publish_exec'])}) | {_s(med(x['start']))} |")

    lines += [row("embedded", "on", True), row("embedded", "on", False),
              row("cluster3", "on", True), row("cluster3", "on", False),
              row("cluster1", "on", False), row("embedded_unpaced", "off", False),
              row("cluster3_unpaced", "off", False), row("cluster1_unpaced", "off", False)]
    cluster = [x for k in ("cluster3", "cluster1", "cluster3_unpaced", "cluster1_unpaced")
               for x in r[k]]
    failed = [x["states"] for x in cluster if not x["ok"]]
    if failed:
        lines += ["", f"Not every flow run completed: {failed}."]
    starts = [s for x in cluster for s in x["start"]]
    per_run = med(starts)
    execs = [s for x in r["cluster3_unpaced"] + r["cluster1_unpaced"] for s in x["fetch_exec"]]
    walls = {k: med([x["wall"] for x in r[k]]) for k in
             ("embedded", "cluster3", "embedded_unpaced", "cluster3_unpaced")}
    lines += [
        "",
        "The off rows ran after the on rows, on the same data: all their runs find nothing "
        f"changed. All {len(starts)} cluster flow runs: start "
        f"{_s(min(starts))}-{_s(max(starts))} s, median {_s(per_run)} s (the third batch "
        "waits for a free fetcher: each worker takes one run at a time); fetch runs "
        f"executing (running to finished) with pacing off {_s(min(execs))}-"
        f"{_s(max(execs))} s; between the last fetch run's end and the publish run's "
        f"scheduling {_s(med([x['gap'] for x in cluster]))} s (the caller polls every "
        "0.5 s).",
        "",
    ]
    h, w = r["history"], r["history_write"]
    labels = {
        "iceberg_month": "(a) Iceberg on S3, `SharedRaw.observations(months=[...])`: pruned "
                         "to the month's data files",
        "iceberg_all": "(b) Iceberg on S3, `observations()` (every month), then filtered",
        "duckdb_local": "(c) local DuckDB table, `where observed_at >= ... and < ...`",
        "parquet_s3_month": "(d) S3 Parquet, the month's file (DuckDB 2.0, "
                            "`register_filesystem(s3_filesystem(settings))`)",
        "parquet_s3_glob": "(d) S3 Parquet, the glob of the 24 month files + the same `where`",
        "parquet_local_month": "(e) local Parquet, the month's file (DuckDB)",
        "parquet_local_glob": "(e) local Parquet, the glob + the same `where` (DuckDB)",
    }
    lines += [
        f"**One month of a price history read back**: a synthetic history of {len(MONTHS)} "
        f"months ({MONTHS[0]} to {MONTHS[-1]}), {w['rows']:,} rows (~{w['rows'] // 24:,} a "
        "month, daily rows of ~3,300 offers), written once per month with "
        f"`SharedRaw.append_fetch` (one fetch a month: {_s(w['iceberg_s'])} s for all 24), "
        f"into a local DuckDB table ({w['duckdb_mb']:.0f} MB file, rows in time order) and "
        "as zstd Parquet, one file per month, locally and to S3. Then "
        f"{MONTH} read back into an Arrow table, {RUNS} times each. Bytes: (a)/(b) the "
        "sizes of the data files the scan planned; (d) what s3fs fetched per read (DuckDB "
        "opens a file several times and s3fs reads ahead to the end of it); (e) the files' "
        "sizes.",
        "",
        "| read | rows | data files | MB | median s | runs s |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for key, label in labels.items():
        x = h.get(key)
        if not x:
            continue
        nbytes = x.get("bytes")
        mb = "-" if nbytes is None else f"{nbytes / 1e6:.1f}" if nbytes >= 1e5 else \
            f"{nbytes / 1e6:.3f}"
        files = x["files"] if x.get("files") is not None else "-"
        lines.append(f"| {label} | {x['rows']:,} | {files} | {mb} | {med(x['seconds']):.3f} | "
                     f"{', '.join(f'{s:.3f}' for s in x['seconds'])} |")
    snap = h.get("snapshot", {}).get("months", [])
    if snap and "snapshot_month" in h:
        one, glob = h["snapshot_month"], h["snapshot_glob"]
        lines += ["", f"The refresh's own snapshot holds {len(snap)} month file(s) of "
                  f"`price_history/months/` ({', '.join(m[:7] for m in snap)}; "
                  f"{one['rows']:,} rows): too little to compare, hence the dataset of (d). "
                  f"Its newest month's file read the same way: {med(one['seconds']):.3f} s, "
                  f"the glob {med(glob['seconds']):.3f} s."]
    else:
        lines += ["", "The refresh's own snapshot holds no month files of price_history."]
    a, b, c = (med(h[k]["seconds"]) for k in ("iceberg_month", "iceberg_all", "duckdb_local"))
    lines += [
        "",
        f"**Reading it**: on one box a flow run takes about {_s(per_run)} s to start, and "
        "a refresh makes at least two in a row (the fetch batches, then the publish), so "
        "12 sources through the pools take "
        f"{walls['cluster3_unpaced'] / walls['embedded_unpaced']:.1f}x the embedded path's "
        f"time without pacing ({_s(walls['cluster3_unpaced'])} s vs "
        f"{_s(walls['embedded_unpaced'])} s) and "
        f"{walls['cluster3'] / walls['embedded']:.1f}x with it ({_s(walls['cluster3'])} s "
        f"vs {_s(walls['embedded'])} s): worth it for many sources or several machines, not "
        f"for 12 sources on one box. Month pruning makes the Iceberg read of one month "
        f"{b / a:.0f}x cheaper than reading the whole table ({a:.2f} s vs {b:.2f} s), "
        f"but a local DuckDB table reads the same month in {c:.3f} s: the shared layer is "
        "for many writers and readers elsewhere, not for speed on the publisher.",
        END,
    ]
    return "\n".join(lines)


def write_section(text: str, out: Path = RESULTS) -> None:
    current = out.read_text(encoding="utf-8") if out.exists() else ""
    if START in current and END in current:
        head, rest = current.split(START, 1)
        current = head + text + rest.split(END, 1)[1]
    elif "\n## Notes" in current:  # before the notes, where report.py keeps it
        head, rest = current.split("\n## Notes", 1)
        current = head.rstrip("\n") + "\n\n" + text + "\n\n## Notes" + rest
    else:
        current = current.rstrip("\n") + "\n\n" + text + "\n"
    out.write_text(current, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows-per-month", type=int, default=100_000,
                   help="rows a month of the synthetic history (~; 24 months)")
    p.add_argument("--no-write", action="store_true", help="print, leave RESULTS.md alone")
    args = p.parse_args(argv)
    r = measure_all(max(1, args.rows_per_month // 30))
    print(json.dumps(r, indent=1))
    text = section(r)
    print(text)
    if not args.no_write:
        write_section(text)
    say(f"done in {r['total_s']:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
