"""The `refresh` Prefect flow: fetch every source concurrently, save raw, parse, load, publish.

Fetching is the only step with retries (network). One failing source never stops the others:
its failure is recorded with a named error and its last good data stays in force. Each run
ends with a table artifact summarising every source.

`refresh_plain` runs the same steps as plain function calls (no Prefect), for benchmarks and
for environments without a Prefect API.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from flows import pipeline
from flows.progress import FetchProgress
from warehouse import data_dir as default_data_dir
from warehouse.publish import serving_path, writer_lock
from warehouse.store import LoadOutcome, RawStore

FETCH_RETRIES = 1
FETCH_RETRY_DELAY_S = 5


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

    @property
    def failed_sources(self) -> list[str]:
        return [s.source for s in self.sources if s.status in ("failed", "stale")]

    def table(self) -> list[dict[str, Any]]:
        return [
            {
                "source": s.source, "status": s.status, "rows_loaded": s.rows_loaded,
                "rows_rejected": s.rows_rejected, "rows_in_force": s.rows_in_force,
                "data_age_days": None if s.data_age_days is None else round(s.data_age_days, 1),
                "error": f"{s.error_type}: {s.error}" if s.error_type else "",
            }
            for s in self.sources
        ]


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
    )


def _attach_health(summary: RunSummary, data_dir: Path) -> None:
    """Fill rows in force / age from the published source_health mart; mark stale sources."""
    import duckdb

    path = serving_path(data_dir)
    if not path.exists():
        return
    con = duckdb.connect(str(path), read_only=True)
    try:
        health = {
            row[0]: row[1:]
            for row in con.execute(
                "select source, rows_in_force, data_age_days from source_health"
            ).fetchall()
        }
    except duckdb.Error:
        return
    finally:
        con.close()
    for s in summary.sources:
        if s.source in health:
            s.rows_in_force, s.data_age_days = health[s.source]
            if s.status == "failed" and (s.rows_in_force or 0) > 0:
                s.status = "stale"
    # sources not fetched in this run whose data is in force (the curated reference prices)
    ran = {s.source for s in summary.sources}
    for source, (rows, age) in sorted(health.items()):
        if source not in ran and rows:
            summary.sources.append(SourceSummary(
                source=source, status="curated" if source == "reference" else "not run",
                rows_in_force=rows, data_age_days=age))


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
        except Exception as exc:  # a failed check or model: the old warehouse stays published
            summary.publish_error = f"{type(exc).__name__}: {exc}"
    _attach_health(summary, data_dir)
    summary.seconds = (pipeline.now() - summary.started_at).total_seconds()
    return summary


def _fetch_threads(
    names: list[str], on_fetched: OnFetched | None = None
) -> dict[str, pipeline.Fetched | BaseException]:
    def one(name: str) -> pipeline.Fetched | BaseException:
        try:
            result: pipeline.Fetched | BaseException = pipeline.fetch_source(name)
        except Exception as exc:
            result = exc
        if on_fetched:
            on_fetched(name, result)
        return result

    with ThreadPoolExecutor(max_workers=max(1, min(8, len(names)))) as pool:
        return dict(zip(names, pool.map(one, names), strict=True))


def _names(names: list[str] | None, kind: str | None) -> list[str]:
    """The sources to fetch: the given names, else those of one KIND, else all of them."""
    if names:
        return list(names)
    return pipeline.source_names(kind)


def refresh_plain(names: list[str] | None = None, data_dir: Path | None = None,
                  kind: str | None = None, progress: FetchProgress | None = None) -> RunSummary:
    """The refresh without Prefect: threads for fetching, the same steps otherwise."""
    return run_refresh(_names(names, kind), _fetch_threads, data_dir, progress=progress)


# ---- Prefect ---------------------------------------------------------------------------
from prefect import flow, task  # noqa: E402
from prefect.artifacts import create_table_artifact  # noqa: E402
from prefect.cache_policies import NO_CACHE  # noqa: E402
from prefect.task_runners import ThreadPoolTaskRunner  # noqa: E402


@task(name="fetch", retries=FETCH_RETRIES, retry_delay_seconds=FETCH_RETRY_DELAY_S,
      task_run_name="fetch-{name}", cache_policy=NO_CACHE)
def fetch_task(name: str) -> pipeline.Fetched:
    return pipeline.fetch_source(name)


def _fetch_prefect(
    names: list[str], on_fetched: OnFetched | None = None
) -> dict[str, pipeline.Fetched | BaseException]:
    from prefect.futures import as_completed

    task_ = fetch_task.with_options(retries=FETCH_RETRIES,
                                    retry_delay_seconds=FETCH_RETRY_DELAY_S)
    futures = {name: task_.submit(name) for name in names}
    by_future = {id(fut): name for name, fut in futures.items()}
    out: dict[str, pipeline.Fetched | BaseException] = {}
    for fut in as_completed(list(futures.values())):
        name = by_future[id(fut)]
        fut.wait()  # as_completed can yield before the future's state is final
        state = fut.state
        if state.is_completed():
            out[name] = fut.result()
        else:
            err = state.result(raise_on_failure=False)
            out[name] = err if isinstance(err, BaseException) else RuntimeError(str(state))
        if on_fetched:
            on_fetched(name, out[name])
    return {name: out[name] for name in names}


@task(name="publish", cache_policy=NO_CACHE)
def publish_task(data_dir: Path) -> pipeline.PublishResult:
    return pipeline.publish(data_dir)


# The terminal progress display of the `gpucost refresh` process (not a flow parameter:
# deployments and the API only see plain parameters).
_progress: FetchProgress | None = None


@contextmanager
def reporting(progress: FetchProgress | None) -> Iterator[None]:
    """Show `progress` for the refresh flow runs started in this process inside the block."""
    global _progress
    previous, _progress = _progress, progress
    try:
        yield
    finally:
        _progress = previous


@flow(name="refresh", task_runner=ThreadPoolTaskRunner(max_workers=4), log_prints=True)
def refresh(names: list[str] | None = None, data_dir: str | None = None,
            kind: str | None = None) -> RunSummary:
    """Fetch the sources (`names`, else those of `kind` "prices" or "specs", else all), load,
    rebuild, check, publish and export."""
    summary = run_refresh(
        _names(names, kind), _fetch_prefect, Path(data_dir) if data_dir else None,
        publish_step=lambda d: publish_task(d), progress=_progress,
    )
    create_table_artifact(
        key="refresh-summary", table=summary.table(),
        description=f"gpucost refresh {summary.run_id}: published={summary.published}"
        + (f" ({summary.publish_error})" if summary.publish_error else ""),
    )
    return summary


if __name__ == "__main__":
    refresh()
