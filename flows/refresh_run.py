"""The refresh without Prefect: the sequence, its summary and a thread-pool fetcher.

`run_refresh` runs one refresh around an injected concurrent fetcher: threads here
(`refresh_plain`, `gpucost refresh --no-prefect`), Prefect task runs in flows/refresh.py. This
module never imports Prefect, so the plain path neither pays for importing it (about 1 s) nor
depends on it: it still runs when Prefect cannot be imported or reached.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from gpucost.catalog.records import SourceError
from gpucost.flows import pipeline
from gpucost.flows.progress import FetchProgress
from gpucost.warehouse import data_dir as default_data_dir
from gpucost.warehouse.publish import serving_path, writer_lock
from gpucost.warehouse.store import LoadOutcome, RawStore

log = logging.getLogger(__name__)

FETCH_WORKERS = 8  # sources fetched at once, with or without Prefect
FETCHED = ("live", "unchanged", "failed", "stale")  # statuses of a source fetched in this run
REFRESHED = ("live", "unchanged")


@dataclass
class SourceSummary:
    source: str
    # live | unchanged | failed | stale (failed, older data still in force)
    # | curated (reference prices from the catalog) | not run (data in force, not fetched now)
    status: str
    rows_loaded: int = 0
    rows_rejected: int = 0
    payloads: int = 0
    error_type: str | None = None
    error: str | None = None
    rows_in_force: int | None = None
    data_age_days: float | None = None
    # live | replayed | mixed | curated: where the data in force came from (source_health)
    data_origin: str | None = None
    kind: str = ""  # prices | specs (the source's kind)


class RefreshFailedError(Exception):
    """The refresh flow ended Failed: nothing live was refreshed, or nothing was published.

    `summary` is the run's RunSummary (the curated and last good data may still have been
    published: `summary.published`)."""

    def __init__(self, verdict: str, summary: RunSummary) -> None:
        super().__init__(verdict, summary)
        self.verdict = verdict
        self.summary = summary

    def __str__(self) -> str:
        return self.verdict


def _days(age: float | None) -> str:
    return f"{age:.1f} days old" if age is not None else "of unknown age"


@dataclass
class RunSummary:
    run_id: str
    started_at: datetime
    sources: list[SourceSummary] = field(default_factory=list)
    published: bool = False
    publish_error: str | None = None
    export_error: str | None = None  # published, but the exports stay at the previous publish
    mart_rows: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    publish_seconds: float = 0.0
    history_mode: str = ""  # how the price history was built (PublishResult.history_mode)
    flow_run: str | None = None  # the Prefect flow run's name (None without Prefect)
    prefect_api: str | None = None  # the Prefect API the CLI ran it on (flows/prefect_server)

    @property
    def failed_sources(self) -> list[str]:
        return [s.source for s in self.sources if s.status in ("failed", "stale")]

    @property
    def fetched(self) -> list[SourceSummary]:
        """The sources fetched live in this run."""
        return [s for s in self.sources if s.status in FETCHED]

    @property
    def refreshed(self) -> list[SourceSummary]:
        """The sources whose live fetch succeeded in this run (new or unchanged data)."""
        return [s for s in self.sources if s.status in REFRESHED]

    @property
    def succeeded(self) -> bool:
        """Published, and at least one live source refreshed (when any was fetched): the
        flow run ends Completed; otherwise Failed."""
        return self.published and (bool(self.refreshed) or not self.fetched)

    def verdict(self) -> str:
        """One line that says what happened, e.g. "3 of 14 live sources refreshed; 11
        unreachable; serving reference prices (the newest 102.4 days old)"."""
        fetched, ok = self.fetched, self.refreshed
        failed = [s for s in fetched if s.status in ("failed", "stale")]
        unreachable = [s for s in failed if s.error_type == "UnreachableError"]
        other = [s for s in failed if s.error_type != "UnreachableError"]
        n = len(fetched)
        parts = [f"{len(ok)} of {n} live source{'s' if n != 1 else ''} refreshed"]
        partial = [s for s in ok if s.error_type]
        if partial:
            parts[0] += f" ({len(partial)} with failed parts)"
        if unreachable:
            parts.append(f"{len(unreachable)} unreachable"
                         + (" (offline?)" if not ok and not other else ""))
        if other:
            types = sorted({s.error_type or "error" for s in other})
            parts.append(f"{len(other)} failed ({', '.join(types)})")
        stale = [s for s in failed if s.status == "stale"]
        if stale:
            ages = [s.data_age_days for s in stale if s.data_age_days is not None]
            parts.append(f"{len(stale)} serving their last good data"
                         + (f" (up to {max(ages):.1f} days old)" if ages else ""))
        reference = next((s for s in self.sources if s.status == "curated"), None)
        prices = [s for s in fetched if s.kind == "prices"]
        if reference and prices and not any(s.status in REFRESHED for s in prices):
            parts.append(f"serving reference prices (the newest {_days(reference.data_age_days)})")
        if not self.published:
            parts.append("NOT published (the previous warehouse stays)")
        return "; ".join(parts)

    def table(self) -> list[dict[str, Any]]:
        return [
            {
                "source": s.source, "status": s.status, "rows_loaded": s.rows_loaded,
                "rows_rejected": s.rows_rejected, "rows_in_force": s.rows_in_force,
                "data_age_days": None if s.data_age_days is None else round(s.data_age_days, 1),
                "data_origin": s.data_origin,
                "error": f"{s.error_type}: {s.error}" if s.error_type else "",
            }
            for s in self.sources
        ]


def _kind(source: str) -> str:
    from gpucost.catalog import sources

    try:
        return sources.get(source).kind
    except KeyError:
        return "prices" if source == "reference" else ""


def _summarise(source: str, outcomes: list[LoadOutcome]) -> SourceSummary:
    failed = [o for o in outcomes if o.status == "failed"]
    loaded = [o for o in outcomes if o.status in ("ok", "replayed")]
    status = "failed" if failed and not loaded else ("live" if loaded else "unchanged")
    first = failed[0] if failed else None
    return SourceSummary(
        source=source, status=status, payloads=len(outcomes),
        rows_loaded=sum(o.rows_loaded for o in outcomes),
        rows_rejected=sum(o.rows_rejected for o in outcomes),
        error_type=first.error_type if first else None,
        error=first.error if first else None,
        kind=_kind(source),
    )


def _attach_health(summary: RunSummary, data_dir: Path) -> None:
    """Fill rows in force / age / origin from the published source_health mart; mark stale
    sources (failed now, older data still in force)."""
    import duckdb

    from gpucost.warehouse.publish import open_published

    path = serving_path(data_dir)
    if not path.exists():
        return
    try:
        con = open_published(path)  # file access off, whatever a client wrote into the file
    except duckdb.Error:
        return
    try:
        health = {
            row[0]: row[1:]
            for row in con.execute(
                "select source, rows_in_force, data_age_days, data_origin from source_health"
            ).fetchall()
        }
    except duckdb.Error:
        return
    finally:
        con.close()
    for s in summary.sources:
        if s.source in health:
            s.rows_in_force, s.data_age_days, s.data_origin = health[s.source]
            if s.status == "failed" and (s.rows_in_force or 0) > 0:
                s.status = "stale"
    # sources not fetched in this run whose data is in force (the curated reference prices)
    ran = {s.source for s in summary.sources}
    for source, (rows, age, origin) in sorted(health.items()):
        if source not in ran and rows:
            summary.sources.append(SourceSummary(
                source=source, status="curated" if source == "reference" else "not run",
                rows_in_force=rows, data_age_days=age, data_origin=origin,
                kind=_kind(source)))


OnFetched = Callable[[str, "pipeline.Fetched | BaseException"], None]
FetchAll = Callable[[list[str], OnFetched | None], dict[str, pipeline.Fetched | BaseException]]


def run_refresh(
    names: list[str],
    fetch_all: FetchAll,
    data_dir: Path | None = None,
    publish_step: Callable[[Path], pipeline.PublishResult] = pipeline.publish,
    progress: FetchProgress | None = None,
) -> RunSummary:
    """The refresh sequence around an injected concurrent fetcher (Prefect or threads).

    `fetch_all(names, on_fetched)` calls `on_fetched(name, result)` as each source finishes.
    """
    data_dir = Path(data_dir or default_data_dir())
    summary = RunSummary(run_id=pipeline.new_run_id(), started_at=pipeline.now())
    store = RawStore(data_dir)
    with writer_lock(data_dir):
        store.check_readable()  # a broken raw.duckdb: say so before fetching anything
        started = pipeline.now()
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
                    outcomes = pipeline.record_fetch_failures(
                        store, con, run_id=summary.run_id, source=name, error=got,
                        started_at=started)
                else:
                    outcomes = pipeline.load_live(
                        store, con, run_id=summary.run_id, source=name, fetched=got,
                        started_at=started)
                summary.sources.append(_summarise(name, outcomes))
        if progress:
            progress.step("building, checking, publishing")
        try:
            result = publish_step(data_dir)
            summary.published = True
            summary.mart_rows = result.mart_rows
            summary.export_error = result.export_error
            summary.publish_seconds = result.seconds
            summary.history_mode = result.history_mode
        except Exception as exc:  # a failed check or model: the old warehouse stays published
            summary.publish_error = f"{type(exc).__name__}: {exc}"
    _attach_health(summary, data_dir)
    summary.seconds = (pipeline.now() - summary.started_at).total_seconds()
    return summary


def _fetch_threads(
    names: list[str], on_fetched: OnFetched | None = None,
    logger: logging.Logger | logging.LoggerAdapter | None = None,
) -> dict[str, pipeline.Fetched | BaseException]:
    """Every source's live fetch, FETCH_WORKERS at a time: {name: Fetched or its error}. A
    bug is logged with its traceback (to `logger`, else this module's); an expected failure
    (a SourceError) only to a given `logger` (the Prefect run's), as one warning line
    carrying the error, which the console leaves to the run summary (flows/progress.py)."""
    quiet = logger is None
    logger = logger or log

    def one(name: str) -> pipeline.Fetched | BaseException:
        try:
            result: pipeline.Fetched | BaseException = pipeline.fetch_source(name)
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


def _names(names: list[str] | None, kind: str | None) -> list[str]:
    """The sources to fetch: the given names, else those of one kind, else all of them."""
    if names:
        return list(names)
    return pipeline.source_names(kind)


def refresh_plain(names: list[str] | None = None, data_dir: Path | None = None,
                  kind: str | None = None, progress: FetchProgress | None = None,
                  allow_shrink: bool = False) -> RunSummary:
    """The refresh without Prefect: threads for fetching, the same steps otherwise."""
    return run_refresh(_names(names, kind), _fetch_threads, data_dir, progress=progress,
                       publish_step=partial(pipeline.publish, allow_shrink=allow_shrink))
