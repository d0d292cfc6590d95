"""The steps of a refresh, in order, as plain functions (no Prefect): fetch, load, build,
check, publish; then `run_refresh`, the sequence around an injected concurrent fetcher, and
`refresh_plain`, the same sequence with threads (`gpucost refresh --no-prefect`).

The Prefect flow (flows/refresh.py) runs the same `run_refresh` with its fetch and publish
as task runs; `gpucost ingest` replays recorded files through the load step
(flows/ingest.py). Nothing here holds business logic beyond sequencing: catalog parses,
warehouse stores (its load rules: warehouse/load.py), models derive. This module never
imports Prefect, so the plain path neither pays for importing it (about 1 s) nor depends on
it: it still runs when Prefect cannot be imported or reached.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from functools import partial
from pathlib import Path

import duckdb

from gpucost.catalog import secrets, sources
from gpucost.catalog.records import (
    EmptyPayloadError,
    ParseResult,
    PartsFailedError,
    Payload,
    SourceError,
)
from gpucost.catalog.sources.base import Fetched
from gpucost.flows.progress import FetchProgress
from gpucost.flows.summary import RunSummary, attach_health, summarise
from gpucost.models import runner
from gpucost.models.incremental import Incremental, base_reason
from gpucost.warehouse import data_dir as default_data_dir
from gpucost.warehouse import exports, memory_limit, rebuild_memory_limit
from gpucost.warehouse.curated import load_curated
from gpucost.warehouse.exports import StagedExports
from gpucost.warehouse.load import (
    ObservedAt,
    as_observed,
    combined,
    merge_results,
    observation_time,
    source_error,
)
from gpucost.warehouse.publish import build, writer_lock
from gpucost.warehouse.refusals import check_row_cap
from gpucost.warehouse.store import LoadOutcome, RawStore

log = logging.getLogger(__name__)

FETCH_WORKERS = 8  # sources fetched at once, with or without Prefect


def source_names(kind: str | None = None) -> list[str]:
    """Registered sources, all or only those of one kind ("prices" or "specs")."""
    return sources.names(kind)


def new_run_id() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ-") + uuid.uuid4().hex[:8]


def now() -> datetime:
    return datetime.now(UTC)


def fetch_source(name: str) -> Fetched:
    """Live fetch of one source through its contract (catalog.sources.base.Source.fetch):
    the payloads that came and each failed part's named error; raises a named FetchError
    when nothing came, EmptyPayloadError when the feed listed nothing to fetch."""
    return sources.get(name).fetch()


OnFetched = Callable[[str, "Fetched | BaseException"], None]
FetchAll = Callable[[list[str], OnFetched | None], dict[str, Fetched | BaseException]]


def fetch_threads(
    names: list[str], on_fetched: OnFetched | None = None,
    logger: logging.Logger | logging.LoggerAdapter | None = None,
) -> dict[str, Fetched | BaseException]:
    """Every source's live fetch, FETCH_WORKERS at a time: {name: Fetched or its error}. A
    bug is logged with its traceback (to `logger`, else this module's); an expected failure
    (a SourceError) only to a given `logger` (the Prefect run's), as one warning line
    carrying the error, which the console leaves to the run summary (flows/progress.py)."""
    quiet = logger is None
    logger = logger or log

    def one(name: str) -> Fetched | BaseException:
        try:
            result: Fetched | BaseException = fetch_source(name)
        except SourceError as exc:  # expected (unreachable, HTTP status, empty...): one line
            if not quiet:
                logger.warning("%s not fetched: %s", name, exc)
            result = exc
        except Exception as exc:  # a bug: recorded as this source's failure, shown in full
            logger.error("fetch of %s failed unexpectedly", name, exc_info=exc)
            result = exc
        if on_fetched:
            on_fetched(name, result)
        return result

    with ThreadPoolExecutor(max_workers=max(1, min(FETCH_WORKERS, len(names)))) as pool:
        return dict(zip(names, pool.map(one, names), strict=True))


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
    snapshot = combined(saved)
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
        merged = merge_results(results, stream)
        if not merged.n_rows:
            raise EmptyPayloadError(f"{source}: {len(payloads)} page(s) parsed to no rows")
        return store.load(
            con, run_id=run_id, source=source, mode="live", payload=summary, saved=snapshot,
            result=merged, started_at=started_at, finished_at=now(), observed_at=when,
            observed_at_basis="fetch_time",
        )
    except Exception as exc:  # whatever the pages do, it is this source's failure alone
        return store.record_failure(
            con, run_id=run_id, source=source, mode="live", started_at=started_at,
            finished_at=now(), error=source_error(exc), url=first.url,
            payload_name=summary.name, saved=snapshot, stream=stream, observed_at=when,
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
    observed_at: datetime | ObservedAt | None = None,
    force: bool = False,
    fetched_at: datetime | None = None,
) -> list[LoadOutcome]:
    """Save each payload verbatim, then parse and load it. One bad payload fails alone.
    `force` (replays only) loads a payload the row-count guard would refuse. `fetched_at` is
    when a live payload was fetched, when that was not now (see load_pages). `observed_at`
    (replays: --observed-at) may be approximate: an ObservedAt of precision 'month'."""
    parse = sources.get(source).parse
    given = as_observed(observed_at)
    option = given.at if given else None
    outcomes = []
    for payload in payloads:
        when = fetched_at or now()
        saved = store.save_payload(source, payload, option or when)
        try:
            check_row_cap(payload)
            result = parse(payload)
            obs, basis = observation_time(option, result.observed_at,
                                          payload.name if mode == "replay" else None, when,
                                          mode)
            precision = given.precision if given and basis == "option" else None
            outcomes.append(store.load(
                con, run_id=run_id, source=source, mode=mode, payload=payload, saved=saved,
                result=result, started_at=started_at, finished_at=now(), observed_at=obs,
                force=force and mode == "replay", observed_at_basis=basis,
                observed_at_precision=precision,
            ))
        except Exception as exc:  # whatever one payload does, it fails alone
            outcomes.append(store.record_failure(
                con, run_id=run_id, source=source, mode=mode, started_at=started_at,
                finished_at=now(), error=source_error(exc), url=payload.url,
                payload_name=payload.name, saved=saved, observed_at=option,
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
    exports: list[str] = field(default_factory=list)  # files of the new exports/snapshots/<id>
    export_error: str | None = None  # the publish stands; the exports stay at the previous one
    # how the history models were built: "incremental", or "full: <why>" (models/incremental.py)
    history_mode: str = ""
    # what the price alerts did after the swap (flows/alerts.py): one line per notification
    # sent or failed, secrets redacted; a failure here never fails the publish
    alerts: list[str] = field(default_factory=list)


def stage_exports(con: duckdb.DuckDBPyConnection, data_dir: Path,
                  changed_since: dict[str, date | None] | None = None) -> StagedExports:
    """Every mart of the build as zstd Parquet and CSV plus schema.json, in a new snapshot folder
    (StagedExports.commit() flips exports/latest to it once the warehouse is swapped in)."""
    from gpucost.models.docs import mart_names, schema_document

    present = {r[0] for r in con.execute(
        "select table_name from duckdb_tables() where database_name = current_database() "
        "and schema_name = 'main'").fetchall()}
    tables = [m for m in mart_names() if m in present]
    published_at = now()
    return exports.stage_exports(
        con, exports.export_dir(data_dir), tables,
        lambda files: schema_document(con, published_at=published_at, files=files),
        changed_since, published_at=published_at,  # the snapshot's id (warehouse/exports.py)
    )


def build_and_publish(data_dir: Path, allow_shrink: bool = False,
                      full: bool = False) -> PublishResult:
    """Build every model into a new file, run the checks, swap it in (or raise, unchanged),
    then write the exports (a failed export is reported, the publish stands).

    The history models are built incrementally from the published build when they can be
    (models/incremental.py); `full` rebuilds them from the whole raw layer.

    Nothing is published that has far fewer rows in force than the published warehouse
    (ShrinkRefusedError: a lost raw.duckdb would otherwise replace every table with an almost
    empty one) unless `allow_shrink`."""
    from gpucost.warehouse.publish import ShrinkRefusedError, shrink_of, stage_base

    start = time.perf_counter()
    result = PublishResult()
    staged: StagedExports | None = None
    try:
        # an incremental build starts from a copy of the published file (models/incremental.py)
        # when the copy holds exactly what the last publish built: else a fresh file, built in
        # full. Only the copy is opened: a client's read-write connection holding the
        # published file's lock does not force a full rebuild (stage_base)
        reason = "full: requested" if full else stage_base(data_dir, base_reason)
        with build(data_dir, staged=not reason) as con:
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
    from gpucost.flows.alerts import evaluate_after_publish

    result.alerts = evaluate_after_publish(data_dir)  # every publish path comes through here
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


def run_refresh(
    names: list[str],
    fetch_all: FetchAll,
    data_dir: Path | None = None,
    publish_step: Callable[[Path], PublishResult] = build_and_publish,
    progress: FetchProgress | None = None,
) -> RunSummary:
    """The refresh sequence around an injected concurrent fetcher (Prefect or threads).

    `fetch_all(names, on_fetched)` calls `on_fetched(name, result)` as each source finishes.
    """
    data_dir = Path(data_dir or default_data_dir())
    summary = RunSummary(run_id=new_run_id(), started_at=now())
    store = RawStore(data_dir)
    with writer_lock(data_dir):
        store.check_readable()  # a broken raw.duckdb: say so before fetching anything
        started = now()
        if progress:
            progress.start(names)
        try:
            fetched = fetch_all(names, progress.fetched if progress else None)
        finally:
            if progress:
                progress.step("loading into raw.duckdb")
        with store.connect() as con:
            for name in names:
                got = fetched[name]
                if isinstance(got, BaseException):
                    outcomes = record_fetch_failures(
                        store, con, run_id=summary.run_id, source=name, error=got,
                        started_at=started)
                else:
                    outcomes = load_live(
                        store, con, run_id=summary.run_id, source=name, fetched=got,
                        started_at=started)
                summary.sources.append(summarise(name, outcomes))
        if progress:
            progress.step("building, checking, publishing")
        try:
            result = publish_step(data_dir)
            summary.published = True
            summary.mart_rows = result.mart_rows
            summary.export_error = result.export_error
            summary.publish_seconds = result.seconds
            summary.history_mode = result.history_mode
            summary.alerts = result.alerts
        except Exception as exc:  # a failed check or model: the old warehouse stays published
            summary.publish_error = f"{type(exc).__name__}: {exc}"
    attach_health(summary, data_dir)
    summary.seconds = (now() - summary.started_at).total_seconds()
    return summary


def names_to_fetch(names: list[str] | None, kind: str | None) -> list[str]:
    """The sources to fetch: the given names, else those of one kind, else all of them, but
    an API that needs a key only when its key is set (Source.needs_key: opt-in, so that a
    refresh without the key does not fail every time)."""
    if names:
        return list(names)
    skipped = set(skipped_for_key(names, kind))
    return [n for n in source_names(kind) if n not in skipped]


def skipped_for_key(names: list[str] | None, kind: str | None) -> list[str]:
    """The sources a refresh of every source leaves out because their API key is not set
    (names_to_fetch); none when sources are named."""
    if names:
        return []
    return [n for n in source_names(kind)
            if sources.get(n).needs_key and secrets.api_key(n) is None]


def refresh_plain(names: list[str] | None = None, data_dir: Path | None = None,
                  kind: str | None = None, progress: FetchProgress | None = None,
                  allow_shrink: bool = False) -> RunSummary:
    """The refresh without Prefect: threads for fetching, the same steps otherwise."""
    return run_refresh(names_to_fetch(names, kind), fetch_threads, data_dir, progress=progress,
                       publish_step=partial(build_and_publish, allow_shrink=allow_shrink))
