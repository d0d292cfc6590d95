"""The steps of a refresh as plain functions (no Prefect): testable on their own.

Prefect tasks in flows/refresh.py and the CLI's `ingest` call these; nothing here holds
business logic beyond sequencing: catalog parses, warehouse stores, models derive.
"""

from __future__ import annotations

import hashlib
import re
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path

import duckdb

from gpucost.catalog import sources
from gpucost.catalog.records import (
    EmptyPayloadError,
    ParseResult,
    PartsFailedError,
    Payload,
    PayloadTooLargeError,
    SourceError,
    UnexpectedPayloadError,
)
from gpucost.catalog.sources.base import Fetched
from gpucost.models import runner
from gpucost.models.incremental import Incremental, base_reason
from gpucost.warehouse import data_dir as default_data_dir
from gpucost.warehouse import exports, memory_limit, rebuild_memory_limit
from gpucost.warehouse.curated import load_curated
from gpucost.warehouse.exports import StagedExports
from gpucost.warehouse.publish import build, serving_path
from gpucost.warehouse.refusals import check_row_cap
from gpucost.warehouse.store import LoadOutcome, RawStore, SavedPayload

_DATE_IN_NAME = re.compile(
    r"(20\d\d)[-_]?([01]\d)[-_]?([0-3]\d)(?:[T_]?([0-2]\d)([0-5]\d)([0-5]\d))?"
)


KINDS = sources.KINDS


def source_names(kind: str | None = None) -> list[str]:
    """Registered sources, all or only those of one kind ("prices" or "specs")."""
    return sources.names(kind)


def new_run_id() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ-") + uuid.uuid4().hex[:8]


def now() -> datetime:
    return datetime.now(UTC)


def date_from_name(name: str) -> datetime | None:
    """The observation time a recorded file's name carries (2026-01-31, 20260109103934)."""
    m = _DATE_IN_NAME.search(Path(name).name)
    if not m:
        return None
    y, mo, d, h, mi, s = (int(g) if g else 0 for g in m.groups())
    try:
        return datetime(y, mo, d, h, mi, s, tzinfo=UTC)
    except ValueError:
        return None


def observation_time(option: datetime | None, stated: datetime | None, file_name: str | None,
                     now_: datetime, mode: str) -> tuple[datetime, str]:
    """(observed_at, its basis): the --observed-at option, else the date the payload states,
    else a date in a replayed file's name, else the fetch time (live) or, for a replayed file
    that states no date, the ingest time with basis 'ingest_time' (the date is unknown)."""
    if option is not None:
        return option, "option"
    if stated is not None:
        return stated, "payload"
    from_name = date_from_name(file_name) if file_name else None
    if from_name is not None:
        return from_name, "file_name"
    return now_, "fetch_time" if mode == "live" else "ingest_time"


def fetch_source(name: str) -> Fetched:
    """Live fetch of one source through its contract (catalog.sources.base.Source.fetch):
    the payloads that came and each failed part's named error; raises a named FetchError
    when nothing came, EmptyPayloadError when the feed listed nothing to fetch."""
    return sources.get(name).fetch()


def source_error(exc: Exception) -> SourceError:
    """`exc` as a named error of the source whose payload caused it: a SourceError as it is,
    anything else (a parser or loader bug meeting hostile bytes) as UnexpectedPayloadError.
    An error of the machine (disk full, I/O error, read-only file system: OSError or DuckDB's
    IOException) is nobody's payload: it is raised again and stops the run."""
    if isinstance(exc, SourceError):
        return exc
    if (isinstance(exc, OSError) and exc.errno is not None) or isinstance(
            exc, duckdb.IOException):
        raise exc
    text = " ".join(str(exc).split())
    if len(text) > 200:
        text = text[:200].rsplit(" ", 1)[0] + " ..."
    return UnexpectedPayloadError(f"{type(exc).__name__}: {text}" if text
                                  else type(exc).__name__)


def _merge(results: list[ParseResult], stream: str) -> ParseResult:
    merged = ParseResult(stream=stream)
    for r in results:
        merged.prices += r.prices
        merged.specs += r.specs
        merged.throughput += r.throughput
        merged.systems += r.systems
        merged.training_runs += r.training_runs
        merged.training_scaling += r.training_scaling
        merged.serving_points += r.serving_points
        merged.rejects += r.rejects
    return merged


def load_pages(
    store: RawStore,
    con: duckdb.DuckDBPyConnection,
    *,
    run_id: str,
    source: str,
    payloads: list[Payload],
    stream: str,
    started_at: datetime,
    fetched_at: datetime | None = None,
) -> LoadOutcome:
    """Pages of one live fetch (e.g. Azure NextPageLink pages) loaded as one snapshot.

    Each page is saved verbatim; the load is one raw.fetches row whose sha256 is the hash of
    the page hashes, so the row-count guard and 'last good data' apply to the whole walk.
    `fetched_at` is when the pages were fetched, when that was not now (a cluster fetcher's
    payloads loaded by the publisher: cluster/flows.py).
    """
    parse = sources.get(source).parse
    when = fetched_at or now()
    saved = [store.save_payload(source, p, when) for p in payloads]
    combined = SavedPayload(
        sha256=hashlib.sha256("".join(s.sha256 for s in saved).encode()).hexdigest(),
        relpath=";".join(s.relpath for s in saved),
        size=sum(s.size for s in saved),
    )
    first = payloads[0]
    summary = Payload(name=f"{len(payloads)} page(s)", content=b"", url=first.url,
                      http_status=first.http_status, ext=first.ext)
    results: list[ParseResult] = []
    try:
        for payload in payloads:
            check_row_cap(payload)
            try:
                results.append(parse(payload))
            except EmptyPayloadError:
                continue  # a page without offers is fine; an empty walk is not (below)
        merged = _merge(results, stream)
        if not merged.n_rows:
            raise EmptyPayloadError(f"{source}: {len(payloads)} page(s) parsed to no rows")
        return store.load(
            con, run_id=run_id, source=source, mode="live", payload=summary, saved=combined,
            result=merged, started_at=started_at, finished_at=now(), observed_at=when,
            observed_at_basis="fetch_time",
        )
    except Exception as exc:  # whatever the pages do, it is this source's failure alone
        return store.record_failure(
            con, run_id=run_id, source=source, mode="live", started_at=started_at,
            finished_at=now(), error=source_error(exc), url=first.url,
            payload_name=summary.name, saved=combined, stream=stream, observed_at=when,
            http_status=first.http_status,
        )


def load_payloads(
    store: RawStore,
    con: duckdb.DuckDBPyConnection,
    *,
    run_id: str,
    source: str,
    payloads: list[Payload],
    mode: str,
    started_at: datetime,
    observed_at: datetime | None = None,
    force: bool = False,
    fetched_at: datetime | None = None,
) -> list[LoadOutcome]:
    """Save each payload verbatim, then parse and load it. One bad payload fails alone.
    `force` (replays only) loads a payload the row-count guard would refuse. `fetched_at` is
    when a live payload was fetched, when that was not now (see load_pages)."""
    parse = sources.get(source).parse
    outcomes = []
    for payload in payloads:
        when = fetched_at or now()
        saved = store.save_payload(source, payload, observed_at or when)
        try:
            check_row_cap(payload)
            result = parse(payload)
            obs, basis = observation_time(observed_at, result.observed_at,
                                          payload.name if mode == "replay" else None, when,
                                          mode)
            outcomes.append(store.load(
                con, run_id=run_id, source=source, mode=mode, payload=payload, saved=saved,
                result=result, started_at=started_at, finished_at=now(), observed_at=obs,
                force=force and mode == "replay", observed_at_basis=basis,
            ))
        except Exception as exc:  # whatever one payload does, it fails alone
            outcomes.append(store.record_failure(
                con, run_id=run_id, source=source, mode=mode, started_at=started_at,
                finished_at=now(), error=source_error(exc), url=payload.url,
                payload_name=payload.name, saved=saved, observed_at=observed_at,
                http_status=payload.http_status,
            ))
    return outcomes


def load_live(
    store: RawStore, con: duckdb.DuckDBPyConnection, *, run_id: str, source: str,
    fetched: Fetched, started_at: datetime, fetched_at: datetime | None = None,
) -> list[LoadOutcome]:
    """Load a live fetch: pages merged when the source says so, failed parts recorded."""
    stream = sources.get(source).live_stream
    if stream and fetched.payloads:
        outcomes = [load_pages(store, con, run_id=run_id, source=source,
                               payloads=fetched.payloads, stream=stream, started_at=started_at,
                               fetched_at=fetched_at)]
    else:
        outcomes = load_payloads(store, con, run_id=run_id, source=source,
                                 payloads=fetched.payloads, mode="live", started_at=started_at,
                                 fetched_at=fetched_at)
    for part, error in sorted(fetched.errors.items()):
        outcomes.append(record_fetch_failure(store, con, run_id=run_id, source=source,
                                             error=error, started_at=started_at, stream=part))
    return outcomes


def record_fetch_failures(
    store: RawStore, con: duckdb.DuckDBPyConnection, *, run_id: str, source: str,
    error: BaseException, started_at: datetime,
) -> list[LoadOutcome]:
    """A failed live fetch; a multi-part feed records each part with its own named error."""
    if isinstance(error, PartsFailedError):
        return [record_fetch_failure(store, con, run_id=run_id, source=source, error=err,
                                     started_at=started_at, stream=part)
                for part, err in error.errors.items()]
    return [record_fetch_failure(store, con, run_id=run_id, source=source, error=error,
                                 started_at=started_at)]


def record_fetch_failure(
    store: RawStore, con: duckdb.DuckDBPyConnection, *, run_id: str, source: str,
    error: BaseException, started_at: datetime, stream: str | None = None,
) -> LoadOutcome:
    url = getattr(error, "url", "") or ""
    status = getattr(error, "status", None)
    return store.record_failure(
        con, run_id=run_id, source=source, mode="live", started_at=started_at,
        finished_at=now(), error=error, url=url, http_status=status, stream=stream,
    )


@dataclass
class PublishResult:
    timings_s: dict[str, float] = field(default_factory=dict)
    mart_rows: dict[str, int] = field(default_factory=dict)
    curated_rows: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    exports: list[str] = field(default_factory=list)  # files written under <data dir>/exports
    export_error: str | None = None  # the publish stands; the exports stay at the previous one
    # how the history models were built: "incremental", or "full: <why>" (models/incremental.py)
    history_mode: str = ""


def stage_exports(con: duckdb.DuckDBPyConnection, data_dir: Path,
                  changed_since: dict[str, date | None] | None = None) -> StagedExports:
    """Every mart of the build as zstd Parquet and CSV plus schema.json, under temporary names
    (StagedExports.commit() publishes them once the warehouse is swapped in)."""
    from gpucost.flows.cli.docs import mart_names, schema_document

    present = {r[0] for r in con.execute(
        "select table_name from duckdb_tables() where database_name = current_database() "
        "and schema_name = 'main'").fetchall()}
    tables = [m for m in mart_names() if m in present]
    published_at = now()
    return exports.stage_exports(
        con, exports.export_dir(data_dir), tables,
        lambda files: schema_document(con, published_at=published_at, files=files),
        changed_since,
    )


def publish(data_dir: Path, allow_shrink: bool = False, full: bool = False) -> PublishResult:
    """Build every model into a new file, run the checks, swap it in (or raise, unchanged),
    then write the exports (a failed export is reported, the publish stands).

    The history models are built incrementally from the published build when they can be
    (models/incremental.py); `full` rebuilds them from the whole raw layer.

    Nothing is published that has far fewer rows in force than the published warehouse
    (ShrinkRefusedError: a lost raw.duckdb would otherwise replace every table with an almost
    empty one) unless `allow_shrink`."""
    from gpucost.warehouse.publish import ShrinkRefusedError, base_problem, shrink_of

    start = time.perf_counter()
    result = PublishResult()
    staged: StagedExports | None = None
    try:
        # an incremental build starts from a copy of the published file (models/incremental.py)
        # when it holds exactly what the last publish built: else a fresh file, built in full
        reason = "full: requested" if full else (
            base_problem(data_dir) or base_reason(serving_path(data_dir)))
        with build(data_dir, base=None if reason else serving_path(data_dir)) as con:
            result.curated_rows = load_curated(con)
            history = Incremental(full_reason=reason,
                                  full_memory_limit=rebuild_memory_limit())
            result.timings_s = runner.build(con, incremental=history)
            history.restore_memory_limit(con, memory_limit())
            result.history_mode = history.summary
            runner.check_or_raise(con)
            runner.publish_intermediate(con, incremental=history)
            history.write_state(con)
            lost = [] if allow_shrink else shrink_of(con, data_dir)
            if lost:
                raise ShrinkRefusedError(
                    "refused: the new build would hold far fewer rows than the published "
                    f"warehouse ({'; '.join(lost[:5])}{' ...' if len(lost) > 5 else ''}); the "
                    "published warehouse and its exports stay as they were. A lost or replaced "
                    "raw.duckdb? Restore it (docs/operations.md); to publish anyway: "
                    "--allow-shrink")
            for (name,) in con.execute(
                "select table_name from duckdb_tables() where database_name = current_database() "
                "and schema_name = 'main' order by 1"
            ).fetchall():
                result.mart_rows[name] = con.execute(
                    f'select count(*) from "{name}"').fetchone()[0]
            try:
                staged = stage_exports(con, data_dir, history.changed_since())
            except Exception as exc:  # the warehouse is still published; exports stay as they were
                result.export_error = f"{type(exc).__name__}: {exc}"
    except BaseException:
        if staged is not None:
            staged.discard()
        raise
    if staged is not None:
        try:
            result.exports = [p.name for p in staged.commit()]
        except Exception as exc:
            result.export_error = f"{type(exc).__name__}: {exc}"
    result.seconds = time.perf_counter() - start
    return result


def check_published(data_dir: Path) -> dict[str, list[tuple]]:
    """Run every check against the published warehouse (read-only): {check: offending rows}.

    The marts are read as published; the staging and intermediate views the checks also
    read are rebuilt as temporary views over the published curated tables and the raw layer
    (attached read-only), so nothing is written.
    """
    from gpucost.warehouse.publish import connect_readonly

    con = connect_readonly(data_dir, allow_files=True)
    try:
        con.execute("attach ? as raw (read_only)", [str(RawStore(data_dir).db_path)])
        # raw attached: no file access from here on (a view a client planted in the published
        # file runs with it off, as in every other reader)
        con.execute("set enable_external_access = false")
        runner.build(con, layers=("staging", "intermediate"))
        return runner.run_checks(con)
    finally:
        con.close()


INGEST_MAX_BYTES = 64 * 1024 * 1024  # the default size cap of a live response, too


def ingest_max_bytes() -> int:
    """The largest file `ingest` reads: GPUCOST_INGEST_MAX_BYTES, else INGEST_MAX_BYTES."""
    import os

    try:
        return int(os.environ.get("GPUCOST_INGEST_MAX_BYTES", "") or INGEST_MAX_BYTES)
    except ValueError:
        return INGEST_MAX_BYTES


def ingest_files(
    source: str, files: list[Path], *, observed_at: datetime | None = None,
    data_dir: Path | None = None, rebuild: bool = True, force: bool = False,
    allow_shrink: bool = False,
) -> tuple[list[LoadOutcome], PublishResult | None]:
    """Replay recorded payloads for a source, then rebuild (the `gpucost ingest` command).
    `force` loads a payload the row-count guard would refuse (a deliberately smaller one)
    and publishes what it leaves in force (as `allow_shrink`)."""
    from gpucost.warehouse.publish import writer_lock

    data_dir = Path(data_dir or default_data_dir())
    sources.get(source)  # fail early on an unknown source
    store = RawStore(data_dir)
    run_id = new_run_id()
    cap = ingest_max_bytes()
    with writer_lock(data_dir):
        with store.connect() as con:
            outcomes: list[LoadOutcome] = []
            for path in files:
                size = Path(path).stat().st_size
                if size > cap:  # never read: a 200 MB CSV once took 8 GB and 114 s
                    outcomes.append(store.record_failure(
                        con, run_id=run_id, source=source, mode="replay", started_at=now(),
                        finished_at=now(), url=str(path), payload_name=path.name,
                        error=PayloadTooLargeError(
                            f"{path.name} is {size} bytes, above the ingest cap of {cap} "
                            "(GPUCOST_INGEST_MAX_BYTES raises it); not read")))
                    continue
                payload = Payload(
                    name=path.name, content=Path(path).read_bytes(), url=str(path),
                    ext=path.suffix.lstrip(".") or "bin",
                )
                outcomes += load_payloads(
                    store, con, run_id=run_id, source=source, payloads=[payload],
                    mode="replay", started_at=now(), observed_at=observed_at, force=force,
                )
        try:
            published = (publish(data_dir, allow_shrink=allow_shrink or force) if rebuild
                         else None)
        except Exception as exc:  # the files were loaded: the caller still reports each one
            exc.ingest_outcomes = outcomes  # type: ignore[attr-defined]
            raise
    return outcomes, published
