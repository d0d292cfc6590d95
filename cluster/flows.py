"""The cluster's Prefect flows: fetchers on a process work pool, one publisher.

    gpucost cluster refresh
      -> cluster_refresh (anywhere)            splits the sources into batches
         -> fetch_batch  x N  (pool gpucost-fetchers, a worker per machine)
              each source: fetch -> payload objects (raw/<source>/<day>/<sha256>.<ext>)
                           -> price rows, then the fetch marker, into the shared raw layer
         -> publish      x 1  (pool gpucost-publisher, concurrency 1)
              new markers -> the publisher's own raw.duckdb, through the usual loader
              (plausibility gates, row-count guard, daily rollup), then the unchanged
              build/check/publish, then the snapshot to object storage, CURRENT last

The unit of fan-out is a batch of sources, not one source: a deployment run costs 8-12 s of
scheduling latency for about a second of fetching (issue 28's measurements).

One refresh at a time per cluster: `run_cluster_refresh` holds a PostgreSQL advisory lock
(on the cluster's database, so refreshes started on different machines see it) for its whole
run; a second one is refused by name (ClusterRefreshBusyError, naming the holder's host, pid
and start) or, with `wait_s`, queues behind it for that long. The lock is a session lock: a
refresh that dies releases it with its connection.

A publish run nobody picks up does not wait for ever: when the publish run has not started
within `publish_start_s` (GPUCOST_CLUSTER_PUBLISH_START_S, default 120 s: no publisher worker
online), it is set Cancelled, so a publisher that comes back later never runs it, and the
refresh says so ("NOT published: ... cancelled"). A run that started is waited for (timeout_s).

The publisher loads the verbatim payload objects, not the fetchers' parsed rows: its load is
the embedded path's own (the same gates, the same dedupe by content hash, so replaying a
marker twice adds nothing), and the shared `price_observations` table is the history any
reader can scan by month without the publisher's file.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import os
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from prefect import flow

from gpucost.catalog import sources
from gpucost.catalog.records import (
    EmptyPayloadError,
    FetchError,
    PartsFailedError,
    Payload,
    PriceObservation,
)
from gpucost.catalog.secrets import redact
from gpucost.catalog.sources.base import Fetched
from gpucost.cluster.settings import ClusterSettings, load_settings
from gpucost.flows import steps
from gpucost.warehouse.load import source_error
from gpucost.warehouse.raw_schema import RAW_ROW_MAX_CHARS
from gpucost.warehouse.refusals import check_row_cap

log = logging.getLogger(__name__)

REPO_ROOT = Path(__file__).resolve().parents[1]
FETCH_POOL = "gpucost-fetchers"
PUBLISH_POOL = "gpucost-publisher"
FETCH_DEPLOYMENT = "gpucost-fetch-batch/batch"
PUBLISH_DEPLOYMENT = "gpucost-publish/publish"
FETCH_THREADS = 4  # sources fetched at once inside one batch run
DEFAULT_BATCHES = 3
PUBLISH_START_ENV = "GPUCOST_CLUSTER_PUBLISH_START_S"
PUBLISH_START_S = 120.0  # a publish run not started by then is cancelled (module docstring)
REFRESH_LOCK_KEY = 0x67707563_72667368  # pg advisory lock of `cluster refresh` ("gpucrfsh")
# markers already applied are skipped by id; a marker is looked for this far back from the
# newest one applied (a fetcher's clock may lag, a commit may land late)
SYNC_OVERLAP = timedelta(hours=6)


def now() -> datetime:
    return datetime.now(UTC)


def worker_name() -> str:
    return os.environ.get("GPUCOST_WORKER_NAME") or socket.gethostname()


def _flow_run_id() -> str:
    try:
        from prefect.runtime import flow_run

        return str(flow_run.id or "") or steps.new_run_id()
    except Exception:  # outside a flow run
        return steps.new_run_id()


# -- fetchers ------------------------------------------------------------------------------

@dataclass
class FetchedSource:
    """What one source's fetch added to the shared raw layer (the batch run's result)."""

    source: str
    status: str  # ok | unchanged | failed
    fetch_ids: list[str] = field(default_factory=list)
    rows: int = 0
    objects_created: int = 0
    error: str | None = None


def _price_rows(name: str, payloads: list[Payload], fetched_at: datetime
                ) -> tuple[list[PriceObservation], datetime]:
    """Every price row the payloads parse to, each dated (its own date, else its payload's,
    else none: the shared raw layer then gives it the marker's), and the observation time:
    the date the payload states, else the fetch time."""
    parse = sources.get(name).parse
    rows: list[PriceObservation] = []
    observed = fetched_at
    parsed = 0
    for payload in payloads:
        check_row_cap(payload)
        try:
            result = parse(payload)
        except EmptyPayloadError:
            if len(payloads) > 1:
                continue  # a page without offers; an empty walk is refused below
            raise
        parsed += result.n_rows
        observed = result.observed_at or observed
        rows += [p if p.observed_at or not result.observed_at
                 else replace(p, observed_at=result.observed_at) for p in result.prices]
    if not parsed:
        raise EmptyPayloadError(f"{name}: {len(payloads)} payload(s) parsed to no rows")
    return rows, observed


def _marker(name: str, run_id: str, *, status: str, fetched_at: datetime,
            observed_at: datetime | None = None, stream: str | None = None,
            sha256: str | None = None, keys: list[str] | None = None, size: int = 0,
            rows: int = 0, error: BaseException | None = None) -> dict[str, Any]:
    return {
        "run_id": run_id, "worker": worker_name(), "source": name, "stream": stream,
        "status": status, "sha256": sha256, "payload_keys": ";".join(keys or []) or None,
        "payload_bytes": size, "observed_at": observed_at or fetched_at,
        "fetched_at": fetched_at, "rows": rows,
        "error_type": type(error).__name__ if error else None,
        "error": redact(" ".join(str(error).split()))[:RAW_ROW_MAX_CHARS] if error else None,
    }


def fetch_one(name: str, *, objects: Any, raw: Any, run_id: str) -> FetchedSource:
    """Fetch one source live and add it to the shared raw layer: its payloads as objects
    (uploaded only when new), then its price rows, then its marker. Bytes this source already
    loaded add nothing (status unchanged). Any failure is this source's alone: a marker with
    its named error."""
    fetched_at = now()
    try:
        fetched = steps.fetch_source(name)
    except Exception as exc:
        errors = exc.errors.items() if isinstance(exc, PartsFailedError) else [(None, exc)]
        ids = [raw.append_fetch(_marker(name, run_id, status="failed", fetched_at=fetched_at,
                                        stream=part, error=err)) for part, err in errors]
        return FetchedSource(name, "failed", ids, error=f"{type(exc).__name__}: {exc}")
    out = FetchedSource(name, "ok")
    day = fetched_at.strftime("%Y-%m-%d")
    keys, hashes, size = [], [], 0
    for payload in fetched.payloads:
        key, created = objects.put_payload(name, day, payload.content, payload.ext or "bin")
        keys.append(key)
        hashes.append(hashlib.sha256(payload.content).hexdigest())
        size += len(payload.content)
        out.objects_created += int(created)
    if hashes:
        sha = hashes[0] if len(hashes) == 1 else hashlib.sha256(
            "".join(hashes).encode()).hexdigest()
        if raw.already_loaded(name, sha):
            out.status = "unchanged"
        else:
            try:
                rows, observed = _price_rows(name, fetched.payloads, fetched_at)
                out.fetch_ids.append(raw.append_fetch(
                    _marker(name, run_id, status="ok", fetched_at=fetched_at,
                            observed_at=observed, sha256=sha, keys=keys, size=size,
                            rows=len(rows)), rows))
                out.rows = len(rows)
            except Exception as exc:  # the payload is kept; the publisher records the failure
                error = source_error(exc)
                out.fetch_ids.append(raw.append_fetch(
                    _marker(name, run_id, status="failed", fetched_at=fetched_at, sha256=sha,
                            keys=keys, size=size, error=error)))
                out.status, out.error = "failed", f"{type(error).__name__}: {error}"
    for part, err in sorted(fetched.errors.items()):
        out.fetch_ids.append(raw.append_fetch(
            _marker(name, run_id, status="failed", fetched_at=fetched_at, stream=part,
                    error=err)))
    return out


def fetch_sources(names: list[str], settings: ClusterSettings | None = None,
                  run_id: str | None = None) -> list[FetchedSource]:
    """Fetch `names` (FETCH_THREADS at a time) into the shared raw layer."""
    from gpucost.cluster.objects import ObjectStore
    from gpucost.cluster.shared_raw import SharedRaw

    settings = (settings or load_settings()).require(
        "s3_endpoint", "writer_key", "writer_secret", "postgres_url")
    objects = ObjectStore(settings, writer=True)
    raw = SharedRaw(settings, writer=True)
    raw.ensure_tables()
    run_id = run_id or _flow_run_id()
    for name in names:
        sources.get(name)  # an unknown name fails the batch before anything is fetched
    with ThreadPoolExecutor(max_workers=max(1, min(FETCH_THREADS, len(names)))) as pool:
        return list(pool.map(lambda n: fetch_one(n, objects=objects, raw=raw, run_id=run_id),
                             names))


@flow(name="gpucost-fetch-batch", log_prints=False, retries=0)
def fetch_batch(sources: list[str]) -> list[dict[str, Any]]:  # noqa: A002 (Prefect parameter)
    """One batch of sources fetched on whichever fetcher worker claimed this run."""
    return [asdict(r) for r in fetch_sources(sources)]


# -- the publisher -------------------------------------------------------------------------

_APPLIED_DDL = ("create table if not exists cluster_applied ("
                "fetch_id varchar primary key, fetched_at timestamptz, applied_at timestamptz)")


class _Replayed(FetchError):
    """Stands for a fetcher's named error in the publisher's raw layer (its class name is the
    fetcher's error type)."""


def _error_of(marker: dict[str, Any]) -> BaseException:
    kind = str(marker.get("error_type") or "FetchError")
    cls = type(kind, (_Replayed,), {})
    return cls(str(marker.get("error") or ""))


def _payload(objects: Any, settings: ClusterSettings, key: str) -> Payload:
    """A payload object as the loader takes it (its URL names the object)."""
    return Payload(name=key.rsplit("/", 1)[-1], content=objects.get_bytes(settings.raw_bucket, key),
                   url=f"s3://{settings.raw_bucket}/{key}", ext=key.rsplit(".", 1)[-1])


def apply_markers(data_dir: Path, settings: ClusterSettings) -> dict[str, int]:
    """Load every marker not applied yet into the publisher's raw.duckdb (the payload objects
    through the usual loader; a failed marker as a recorded failure). Idempotent: a marker is
    applied once (cluster_applied), and a payload already loaded adds nothing anyway."""
    from gpucost.cluster.objects import ObjectNotFoundError, ObjectStore
    from gpucost.cluster.shared_raw import SharedRaw
    from gpucost.warehouse.store import RawStore

    raw = SharedRaw(settings, writer=False)
    raw.ensure_tables()
    objects = ObjectStore(settings, writer=True)
    store = RawStore(data_dir)
    counts = {"applied": 0, "ok": 0, "failed": 0, "skipped": 0}
    run_id = steps.new_run_id()
    with store.connect() as con:
        con.execute(_APPLIED_DDL)
        newest = con.execute("select max(fetched_at) from cluster_applied").fetchone()[0]
        since = newest - SYNC_OVERLAP if newest else None
        applied = {r[0] for r in con.execute(
            "select fetch_id from cluster_applied where ? is null or fetched_at >= ?",
            [since, since]).fetchall()}
        for marker in raw.markers(since=since):
            fid = str(marker["fetch_id"])
            if fid in applied:
                continue
            name = str(marker["source"])
            try:
                sources.get(name)
            except Exception:
                counts["skipped"] += 1  # a source this publisher's code does not know
                continue
            started = steps.now()
            fetched_at = marker["fetched_at"]
            error: BaseException | None = None
            if marker["status"] == "ok" and marker.get("payload_keys"):
                try:
                    payloads = [_payload(objects, settings, key)
                                for key in str(marker["payload_keys"]).split(";")]
                except ObjectNotFoundError as exc:  # deleted since: this source's failure
                    error = exc
                else:
                    steps.load_live(store, con, run_id=run_id, source=name,
                                       fetched=Fetched(payloads), started_at=started,
                                       fetched_at=fetched_at)
                    counts["ok"] += 1
            else:
                error = _error_of(marker)
            if error is not None:
                steps.record_fetch_failure(store, con, run_id=run_id, source=name,
                                              error=error, started_at=started,
                                              stream=marker.get("stream"))
                counts["failed"] += 1
            con.execute("insert into cluster_applied values (?, ?, ?) on conflict do nothing",
                        [fid, fetched_at, steps.now()])
            counts["applied"] += 1
    return counts


@dataclass
class ClusterPublish:
    markers: dict[str, int]
    published: bool
    snapshot_key: str | None = None
    mart_rows: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    history_mode: str = ""
    snapshot_error: str | None = None
    alerts: list[str] = field(default_factory=list)  # PublishResult.alerts (flows/alerts.py)


def publish_cluster(data_dir: Path | None = None, settings: ClusterSettings | None = None,
                    allow_shrink: bool = False) -> ClusterPublish:
    """The publisher's run: new markers into its raw layer, the unchanged build, checks and
    local publish, then the snapshot on object storage (CURRENT written last)."""
    from gpucost.cluster.snapshot import publish_snapshot
    from gpucost.warehouse import data_dir as default_data_dir
    from gpucost.warehouse.publish import writer_lock

    start = time.perf_counter()
    settings = (settings or load_settings()).require(
        "s3_endpoint", "writer_key", "writer_secret", "postgres_url")
    data_dir = Path(data_dir or default_data_dir())
    with writer_lock(data_dir):
        markers = apply_markers(data_dir, settings)
        result = steps.build_and_publish(data_dir, allow_shrink=allow_shrink)
    out = ClusterPublish(markers, True, mart_rows=result.mart_rows,
                         history_mode=result.history_mode, alerts=result.alerts)
    # the snapshot has the embedded guard too, against CURRENT: a publisher on a fresh (or
    # lost) data dir has no local baseline, CURRENT is the one every reader sees
    record = publish_snapshot(data_dir, settings, allow_shrink=allow_shrink)
    out.snapshot_key = getattr(record, "key", None) or (
        record.get("key") if isinstance(record, dict) else None)
    out.seconds = time.perf_counter() - start
    return out


@flow(name="gpucost-publish", log_prints=False, retries=0)
def publish(allow_shrink: bool = False) -> dict[str, Any]:
    """The one publisher (its pool's concurrency limit is 1: two runs never overlap)."""
    return asdict(publish_cluster(allow_shrink=allow_shrink))


# -- orchestration -------------------------------------------------------------------------

def batches_of(names: list[str], n: int) -> list[list[str]]:
    """`names` dealt into at most `n` batches of near-equal size (sorted, so a given set of
    sources always makes the same batches)."""
    names = sorted(names)
    n = max(1, min(n, len(names)))
    return [names[i::n] for i in range(n)]


def deploy(settings: ClusterSettings | None = None) -> list[str]:
    """Register the fetch and publish deployments on the cluster's Prefect server (idempotent:
    a second call updates them). Workers run them from this checkout (REPO_ROOT), so every
    machine that runs a worker needs gpucost installed at the same path (or a pull step of
    its own: prefect.yaml)."""
    settings = settings or load_settings()
    _use_api(settings)
    with contextlib.redirect_stdout(io.StringIO()):  # deploy() prints a table
        return _deploy_all()


def _deploy_all() -> list[str]:
    from prefect.flows import Flow

    ids = []
    for entry, name, pool, limit in (
            ("cluster/flows.py:fetch_batch", "batch", FETCH_POOL, None),
            ("cluster/flows.py:publish", "publish", PUBLISH_POOL, 1)):
        loaded = Flow.from_source(source=str(REPO_ROOT), entrypoint=entry)
        ids.append(str(loaded.deploy(name=name, work_pool_name=pool, build=False, push=False,
                                     concurrency_limit=limit, print_next_steps=False,
                                     ignore_warnings=True)))
    return ids


def _use_api(settings: ClusterSettings) -> None:
    """This process's Prefect client on the cluster's server (the environment alone is read
    too late: Prefect's settings are loaded at import)."""
    from gpucost.flows.prefect_server import use_api_url

    use_api_url(settings.require("prefect_api_url").prefect_api_url)


class ClusterRefreshBusyError(Exception):
    """Another `cluster refresh` holds the cluster's refresh lock."""


@contextlib.contextmanager
def refresh_lock(settings: ClusterSettings, wait_s: float = 0.0,
                 say: Any = None) -> Any:
    """Hold the cluster's refresh lock (a PostgreSQL session advisory lock, REFRESH_LOCK_KEY)
    meanwhile. Held by another refresh: waits up to `wait_s` (0: not at all), then raises
    ClusterRefreshBusyError naming the holder (its application_name: host, pid, start)."""
    import sqlalchemy
    from sqlalchemy.pool import NullPool

    from gpucost.cluster.raw_commits import with_connect_timeout

    settings.require("postgres_url")
    me = (f"gpucost cluster refresh on {socket.gethostname()} pid {os.getpid()} since "
          f"{now():%Y-%m-%d %H:%M:%S} UTC")[:63]
    engine = sqlalchemy.create_engine(
        with_connect_timeout(settings.postgres_url, settings.timeout_s), poolclass=NullPool,
        connect_args={"application_name": me})
    try:
        con = engine.connect()
    except sqlalchemy.exc.DBAPIError as exc:
        raise ClusterRefreshBusyError(
            f"cannot take the refresh lock: PostgreSQL at the cluster's URL is unavailable "
            f"({type(exc.orig).__name__})") from None
    try:
        deadline = time.monotonic() + max(0.0, wait_s)
        said = False
        while True:
            got = con.execute(sqlalchemy.text("select pg_try_advisory_lock(:k)"),
                              {"k": REFRESH_LOCK_KEY}).scalar()
            con.commit()
            if got:
                break
            holder = con.execute(sqlalchemy.text(
                "select a.application_name from pg_locks l join pg_stat_activity a "
                "using (pid) where l.locktype = 'advisory' and l.granted and "
                "(l.classid::bigint << 32 | l.objid::bigint) = :k limit 1"),
                {"k": REFRESH_LOCK_KEY}).scalar() or "another process"
            con.commit()
            if time.monotonic() >= deadline:
                raise ClusterRefreshBusyError(
                    f"refused: another cluster refresh is running ({holder}); nothing was "
                    "started. Wait for it to end, or queue behind it with --wait SECONDS")
            if say and not said:
                say(f"waiting for another cluster refresh to end ({holder})")
                said = True
            time.sleep(1.0)
        yield
    finally:
        con.close()  # a session lock: released with its connection
        engine.dispose()


@dataclass
class ClusterRun:
    fetch_runs: list[dict[str, Any]] = field(default_factory=list)  # id, worker state, sources
    publish_run: dict[str, Any] = field(default_factory=dict)  # id, state, detail
    seconds: float = 0.0
    # source -> (status, rows, error): ok / failed from this refresh's markers; a source whose
    # fetch run completed without a marker fetched the bytes it had already loaded: unchanged
    sources: dict[str, tuple[str, int, str | None]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.publish_run.get("state") == "COMPLETED"

    def verdict(self) -> str:
        """One line, as the embedded refresh ends: "9 of 12 sources refreshed (2 unchanged);
        3 failed (HttpStatusError, UnreachableError)"."""
        n = len(self.sources)
        done = [s for s, (status, _, _) in self.sources.items() if status in ("ok", "unchanged")]
        same = [s for s, (status, _, _) in self.sources.items() if status == "unchanged"]
        failed = {s: e for s, (status, _, e) in self.sources.items() if status == "failed"}
        parts = [f"{len(done)} of {n} sources refreshed"
                 + (f" ({len(same)} unchanged)" if same else "")]
        if failed:
            kinds = sorted({(e or "error").split(":")[0] for e in failed.values()})
            parts.append(f"{len(failed)} failed ({', '.join(kinds)})")
        lost = [s for s, (status, _, _) in self.sources.items() if status == "no_run"]
        if lost:
            parts.append(f"{len(lost)} not fetched (their fetch run did not complete)")
        parts.append("published" if self.ok else "NOT published (the previous snapshot stays)")
        return "; ".join(parts)


def _sources_of(run: ClusterRun, settings: ClusterSettings, since: datetime) -> None:
    """Fill run.sources from the shared raw layer's markers of this refresh's fetch runs."""
    from gpucost.cluster.shared_raw import SharedRaw

    ids = {r["id"] for r in run.fetch_runs}
    markers = [m for m in SharedRaw(settings, writer=False).markers(since=since)
               if m["run_id"] in ids]
    for r in run.fetch_runs:
        for name in r["sources"]:
            mine = [m for m in markers if m["source"] == name]
            failed = [m for m in mine if m["status"] == "failed"]
            if failed:
                m = failed[0]
                run.sources[name] = ("failed", 0, f"{m['error_type']}: {m['error']}")
            elif mine:
                run.sources[name] = ("ok", sum(int(m["rows"] or 0) for m in mine), None)
            else:
                run.sources[name] = (("unchanged" if r["state"] == "COMPLETED" else "no_run"),
                                     0, None)


def _wait(run_ids: list[Any], timeout_s: float) -> dict[str, Any]:
    """Poll until every flow run is final: {id: flow run}."""
    from prefect import get_client

    deadline = time.monotonic() + timeout_s
    done: dict[str, Any] = {}
    with get_client(sync_client=True) as client:
        while True:
            for rid in run_ids:
                if str(rid) in done:
                    continue
                run = client.read_flow_run(rid)
                if run.state and run.state.is_final():
                    done[str(rid)] = run
            if len(done) == len(run_ids) or time.monotonic() > deadline:
                return done
            time.sleep(0.5)


def publish_start_s() -> float:
    """GPUCOST_CLUSTER_PUBLISH_START_S (seconds, > 0), else PUBLISH_START_S."""
    value = os.environ.get(PUBLISH_START_ENV, "")
    try:
        seconds = float(value) if value else PUBLISH_START_S
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < 86400:
        raise ValueError(f"{PUBLISH_START_ENV} must be a number of seconds in (0, 86400), "
                         f"not {value!r}")
    return seconds


def run_publish(settings: ClusterSettings, job: dict[str, Any] | None = None,
                start_s: float | None = None, timeout_s: float = 900.0) -> dict[str, Any]:
    """One run of the publish deployment: {id, state, detail}. Not started (no publisher
    worker took it) within `start_s` (publish_start_s()): set Cancelled, so it never runs
    later; started: waited for up to `timeout_s`."""
    from prefect import get_client
    from prefect.client.schemas.objects import StateType
    from prefect.deployments import run_deployment
    from prefect.states import Cancelled

    _use_api(settings)
    start_s = publish_start_s() if start_s is None else start_s
    run = run_deployment(PUBLISH_DEPLOYMENT, timeout=0, job_variables=job, as_subflow=False)
    rid = run.id
    first = begun = time.monotonic()
    with get_client(sync_client=True) as client:
        while True:
            current = client.read_flow_run(rid)
            state = current.state
            if state and state.is_final():
                return {"id": str(rid), "state": state.type.value,
                        "detail": state.message or ""}
            elapsed = time.monotonic() - begun
            if state and state.type == StateType.SCHEDULED and elapsed > start_s:
                if _publish_running(client, current.deployment_id, rid):
                    begun = time.monotonic()  # queued behind a live publish: not abandoned
                    continue
                result = client.set_flow_run_state(
                    rid, Cancelled(message=f"not started within {start_s:g} s: cancelled "
                                           "by cluster refresh"), force=False)
                if getattr(result.status, "value", str(result.status)) == "ACCEPT":
                    return {"id": str(rid), "state": "CANCELLED", "detail": (
                        f"no publisher worker started the publish run within {start_s:g} s "
                        f"(pool {PUBLISH_POOL}: {_pool_workers(settings)}); the run is "
                        f"cancelled and will not publish later ({PUBLISH_START_ENV} sets the "
                        "wait)")}
                time.sleep(0.5)
                continue  # a worker took it meanwhile: wait for it
            if time.monotonic() - first > timeout_s + start_s:
                return {"id": str(rid), "state": "TIMED_OUT", "detail": (
                    f"the publish run did not end within {timeout_s:g} s")}
            time.sleep(0.5)


def _publish_running(client: Any, deployment_id: Any, other_than: Any) -> bool:
    """Whether another run of the publish deployment is running (this one then waits for the
    pool's concurrency slot, with its publisher alive)."""
    from prefect.client.schemas.filters import (
        FlowRunFilter,
        FlowRunFilterDeploymentId,
        FlowRunFilterState,
        FlowRunFilterStateType,
    )
    from prefect.client.schemas.objects import StateType

    if deployment_id is None:
        return False
    try:
        runs = client.read_flow_runs(flow_run_filter=FlowRunFilter(
            deployment_id=FlowRunFilterDeploymentId(any_=[deployment_id]),
            state=FlowRunFilterState(type=FlowRunFilterStateType(
                any_=[StateType.RUNNING, StateType.PENDING]))), limit=5)
    except Exception:
        return False
    return any(r.id != other_than for r in runs)


def _pool_workers(settings: ClusterSettings) -> str:
    from gpucost.cluster.prefect_pools import workers_online

    try:
        workers = workers_online(settings, PUBLISH_POOL)
    except Exception as exc:
        return f"its workers cannot be listed: {type(exc).__name__}"
    online = [n for n, status in workers.items() if status == "ONLINE"]
    return (f"{len(online)} of {len(workers)} workers online" if workers
            else "no worker registered")


def run_cluster_refresh(names: list[str] | None = None, batches: int = DEFAULT_BATCHES,
                        env: dict[str, str] | None = None, timeout_s: float = 900.0,
                        settings: ClusterSettings | None = None, wait_s: float = 0.0,
                        start_s: float | None = None, say: Any = None,
                        deploy_first: bool = False) -> ClusterRun:
    """Fetch `names` (default: every source) in `batches` runs of the fetch deployment, wait
    for them, then run the publish deployment once (a failed batch does not stop the
    publish: its sources' failures are markers like any other). `env` is passed to the runs
    as job variables (e.g. GPUCOST_SOURCE_URL_* overrides). One refresh at a time
    (refresh_lock: ClusterRefreshBusyError, or queued for `wait_s`); a publish run not
    started within `start_s` is cancelled (run_publish). `deploy_first`: register the
    deployments (deploy) once the lock is held."""
    settings = settings or load_settings()
    with refresh_lock(settings, wait_s, say):
        if deploy_first:
            deploy(settings)
        return _run_cluster_refresh(names, batches, env, timeout_s, settings, start_s)


def _run_cluster_refresh(names: list[str] | None, batches: int, env: dict[str, str] | None,
                         timeout_s: float, settings: ClusterSettings,
                         start_s: float | None) -> ClusterRun:
    from prefect.deployments import run_deployment

    _use_api(settings)
    start, started_at = time.perf_counter(), now()
    job = {"env": dict(env)} if env else None
    groups = batches_of(steps.names_to_fetch(names, None), batches)
    runs = [run_deployment(FETCH_DEPLOYMENT, parameters={"sources": g}, timeout=0,
                           job_variables=job, as_subflow=False) for g in groups]
    finished = _wait([r.id for r in runs], timeout_s)
    out = ClusterRun()
    for run, group in zip(runs, groups, strict=True):
        final = finished.get(str(run.id))
        out.fetch_runs.append({"id": str(run.id), "sources": group,
                               "state": final.state.type.value if final else "TIMED_OUT"})
    _sources_of(out, settings, started_at - timedelta(minutes=5))
    out.publish_run = run_publish(settings, job, start_s, timeout_s)
    out.seconds = time.perf_counter() - start
    return out
