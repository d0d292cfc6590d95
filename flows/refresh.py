"""The `refresh` Prefect flow: fetch every source concurrently, save raw, parse, load, publish.

One failing source never stops the others: its failure is recorded with a named error and its
last good data stays in force. Each run ends with a table artifact summarising every source
and a verdict (`RunSummary.verdict()`, e.g. "0 of 15 live sources refreshed; 15 unreachable
(offline?); serving reference prices (the newest 102.4 days old)").

How failures show in Prefect (measured on prefect 3.8):

- Two task runs per refresh, whatever the number of sources: `fetch` (every source's fetch,
  concurrently, in the same threads as the plain path) and `publish`. Each source's outcome
  is in the run's `refresh-summary` table artifact; each failed source is one warning line
  of the fetch task run's log, with its one-line error (no traceback). A task run costs
  about 100 ms against a local server, and concurrent ones are no faster (docs/operations.md,
  What orchestration costs): one per source would add about 1.5 s to every refresh.
- Retries have one layer: catalog/http.py retries what retrying can fix (408/429/5xx,
  timeouts, resets) with exponential backoff, and fails at once on what it cannot (DNS,
  refused connection, TLS, other 4xx). Prefect never retries a task: the fetches were
  already retried where that helps, and a bug fails the same way again (its traceback is
  logged once).
- The flow run's final state carries the verdict as its message: Completed when at least one
  live source was refreshed and the warehouse was published, else Failed (the publish of the
  curated and last good data still happens: invariant 1), so an automation can trigger on a
  run that refreshed nothing. Calling `refresh()` directly then raises RefreshFailedError,
  which holds the RunSummary; the CLI asks for the state (`return_state=True`) instead.

The sequence itself, its summary and `refresh_plain` (the same steps as plain function calls,
`gpucost refresh --no-prefect`) live in flows/refresh_run.py, which never imports Prefect;
this module adds the Prefect tasks and flow around the same `run_refresh`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

from gpucost.flows import pipeline
from gpucost.flows.progress import FetchProgress
from gpucost.flows.refresh_run import (  # noqa: F401  (re-exported: the names tests use)
    FETCH_WORKERS,
    FETCHED,
    REFRESHED,
    FetchAll,
    OnFetched,
    RefreshFailedError,
    RunSummary,
    SourceSummary,
    _fetch_threads,
    _names,
    refresh_plain,
    run_refresh,
)
from prefect import flow, task
from prefect.artifacts import create_table_artifact
from prefect.cache_policies import NO_CACHE
from prefect.task_runners import ThreadPoolTaskRunner

PUBLISH_REFUSED = "PublishRefused"  # the Failed state of a publish a check or curated data refused


def _never(task: Any, task_run: Any, state: Any) -> bool:
    """The retry condition of every task here: never retry (see the module doc).

    Tasks declare retries=1 with this condition rather than retries=0: with retries=0, prefect
    3.8 logs a returned Failed state as "Task run failed with state ..." plus an empty
    traceback ("NoneType: None"). With the condition, Prefect logs no traceback for a raised
    exception either: the tasks log a bug's traceback themselves."""
    return False


def _failed(exc: BaseException, name: str) -> Any:
    """A Failed state (named `name`) whose message is the error in one line, data the error."""
    from gpucost.flows.progress import shorten
    from prefect.states import Failed

    # shorten() masks known secrets (credentials in an overridden URL, API keys)
    return Failed(name=name, message=shorten(f"{type(exc).__name__}: {exc}", 300), data=exc)


@task(name="fetch", retries=1, retry_condition_fn=_never, cache_policy=NO_CACHE,
      persist_result=False)
def fetch_task(names: list[str], on_fetched: OnFetched | None = None
               ) -> dict[str, pipeline.Fetched | BaseException]:
    """Every source's live fetch, concurrently, as the plain path does it (one task run for
    them all: flows/refresh_run._fetch_threads): {name: Fetched or its error}. Each failed
    source is one warning line in the run's log; a bug is logged with its traceback."""
    from prefect import get_run_logger

    return _fetch_threads(names, on_fetched, logger=get_run_logger())


def _fetch_prefect(
    names: list[str], on_fetched: OnFetched | None = None
) -> dict[str, pipeline.Fetched | BaseException]:
    return fetch_task(names, on_fetched)  # type: ignore[no-any-return]


@task(name="publish", cache_policy=NO_CACHE, persist_result=False, retries=1,
      retry_condition_fn=_never)
def publish_task(data_dir: Path, allow_shrink: bool = False) -> pipeline.PublishResult:
    """Build, check, swap in, export. A refused publish (a check found rows, a curated file is
    unusable) is a returned Failed state with its one-line reason; a bug raises, logged with
    its traceback."""
    from gpucost.models.runner import CheckFailedError
    from gpucost.warehouse.curated import CuratedDataError
    from gpucost.warehouse.publish import ShrinkRefusedError
    from prefect import get_run_logger

    try:
        return pipeline.publish(data_dir, allow_shrink=allow_shrink)
    except (CheckFailedError, CuratedDataError, ShrinkRefusedError) as exc:
        return _failed(exc, PUBLISH_REFUSED)  # type: ignore[no-any-return]
    except Exception:
        get_run_logger().exception("publish failed unexpectedly")
        raise


def _publish_prefect(data_dir: Path, allow_shrink: bool = False) -> pipeline.PublishResult:
    state = publish_task(data_dir, allow_shrink, return_state=True)
    return state.result()  # type: ignore[no-any-return]  # raises the refused publish's error


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


def final_state(summary: RunSummary) -> Any:
    """The flow run's final state: Completed with the verdict as its message when the run
    published and refreshed at least one live source, else Failed with the verdict."""
    from prefect.states import Completed, Failed

    verdict = summary.verdict()
    if summary.succeeded:
        return Completed(message=verdict, data=summary)
    return Failed(message=verdict, data=RefreshFailedError(verdict, summary))


@flow(name="refresh", task_runner=ThreadPoolTaskRunner(max_workers=FETCH_WORKERS), log_prints=True,
      persist_result=False)
def refresh(names: list[str] | None = None, data_dir: str | None = None,
            kind: str | None = None, allow_shrink: bool = False) -> RunSummary:
    """Fetch the sources (`names`, else those of `kind` "prices" or "specs", else all), load,
    rebuild, check, publish and export. Ends Failed (with the verdict) when no live source
    was refreshed or nothing was published; see the module doc."""
    from gpucost.warehouse.publish import WarehouseBusyError
    from prefect.runtime import flow_run
    from prefect.states import Failed

    try:
        summary = run_refresh(
            _names(names, kind), _fetch_prefect, Path(data_dir) if data_dir else None,
            publish_step=partial(_publish_prefect, allow_shrink=allow_shrink),
            progress=_progress,
        )
    except WarehouseBusyError as exc:  # another refresh holds the writer lock: one line
        return Failed(message=str(exc), data=exc)  # type: ignore[return-value]
    summary.flow_run = flow_run.get_name()
    create_table_artifact(
        key="refresh-summary", table=summary.table(), description=summary.verdict(),
    )
    return final_state(summary)  # type: ignore[no-any-return]


# `python -m gpucost.flows.refresh [options]` = `gpucost refresh [options]`
if __name__ == "__main__":
    import sys

    from gpucost.flows.cli import main

    sys.exit(main(["refresh", *sys.argv[1:]]))
