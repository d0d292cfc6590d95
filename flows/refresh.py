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

- The Prefect server dying never loses a refresh or its report (`RefreshFlow.__call__`,
  `_step`): once the flow body began, it finishes the work, each step without Prefect when
  its task run cannot run, and its own summary is what the CLI prints, whatever the engine
  raised while reporting states; one line says "the Prefect server at ... stopped answering
  during the run: the refresh went on without it", and Prefect's own errors are silenced
  (flows/prefect_api.give_up). When the API fails before the body began, nothing ran: the
  CLI runs the plain path once and says so in one line. No step runs twice: a step whose
  task body started keeps its own outcome (the fetch is never repeated, the publish never
  doubled). The flow run itself stays Running in the Prefect database: nothing could tell it.

The steps and their sequence (`run_refresh`), and `refresh_plain` (the same sequence as plain
function calls, `gpucost refresh --no-prefect`), live in flows/steps.py, which never imports
Prefect; the run's summary and verdict in flows/summary.py. This module holds only the Prefect
flow and its two tasks around the same `run_refresh`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

from prefect import Flow, task
from prefect.artifacts import create_table_artifact
from prefect.cache_policies import NO_CACHE
from prefect.task_runners import ThreadPoolTaskRunner

from gpucost.flows import prefect_api, prefect_server
from gpucost.flows.progress import FetchProgress
from gpucost.flows.steps import (
    FETCH_WORKERS,
    Fetched,
    OnFetched,
    PublishResult,
    build_and_publish,
    fetch_threads,
    names_to_fetch,
    run_refresh,
)
from gpucost.flows.summary import RefreshFailedError, RunSummary

PUBLISH_REFUSED = "PublishRefused"  # the Failed state of a publish a check or curated data refused


def _never(task: Any, task_run: Any, state: Any) -> bool:
    """The retry condition of every task here: never retry (see the module doc).

    Tasks declare retries=1 with this condition rather than retries=0: with retries=0, prefect
    3.8 logs a returned Failed state as "Task run failed with state ..." plus an empty
    traceback ("NoneType: None"). With the condition, Prefect logs no traceback for a raised
    exception either: the tasks log a bug's traceback themselves."""
    return False


def _describe(exc: BaseException) -> str:
    """An error in one line (known secrets masked)."""
    from gpucost.flows.progress import shorten

    return shorten(f"{type(exc).__name__}: {exc}", 300)


def _failed(exc: BaseException, name: str) -> Any:
    """A Failed state (named `name`) whose message is the error in one line, data the error."""
    from prefect.states import Failed

    from gpucost.flows.progress import shorten

    # shorten() masks known secrets (credentials in an overridden URL, API keys)
    return Failed(name=name, message=shorten(f"{type(exc).__name__}: {exc}", 300), data=exc)


class _Step:
    """What the body of one task run did, seen from inside it: the body's own result stands
    whatever the task engine reports around it (see `_step`)."""

    def __init__(self) -> None:
        self.began = self.done = False
        self.value: Any = None
        self.error: BaseException | None = None

    def __call__(self, body: Callable[[], Any]) -> Any:
        self.began = True
        try:
            self.value = body()
        except BaseException as exc:
            self.error = exc
            raise
        self.done = True
        return self.value


_step_now: _Step | None = None  # the step whose task run is being called (one at a time)


def _in_step(body: Callable[[], Any]) -> Any:
    """Run a task's body, recording it in the step being called (if any)."""
    step = _step_now
    return step(body) if step is not None else body()


def _step(name: str, call_task: Callable[[], Any], plain: Callable[[], Any]) -> Any:
    """One step of the refresh as a Prefect task run, never lost to Prefect itself.

    The task's body records what it did. When the task engine fails around it (the Prefect
    API stopped answering: a state it could not report), the body's own outcome stands: its
    result, or its own error; a body that never started is run as `plain()`, without Prefect,
    once. After the server was judged gone (flows/prefect_api.ApiWatch), the step runs
    `plain()` at once."""
    global _step_now
    run = _run
    if run is not None and run.lost():
        return plain()
    step = _step_now = _Step()
    try:
        result = call_task()
    except Exception as exc:
        if step.error is not None:
            raise step.error from None  # the body's own error, not the engine's
        if step.done:
            return step.value
        if step.began:
            raise
        if run is not None and not run.lost():
            logging.getLogger("gpucost").warning(
                "Prefect could not run the %s task (%s); it ran without Prefect", name,
                _describe(exc))
        return plain()
    finally:
        _step_now = None
    return step.value if step.done else result


@task(name="fetch", retries=1, retry_condition_fn=_never, cache_policy=NO_CACHE,
      persist_result=False)
def fetch_task(names: list[str], on_fetched: OnFetched | None = None
               ) -> dict[str, Fetched | BaseException]:
    """Every source's live fetch, concurrently, as the plain path does it (one task run for
    them all: flows/steps.fetch_threads): {name: Fetched or its error}. Each failed
    source is one warning line in the run's log; a bug is logged with its traceback."""
    from prefect import get_run_logger

    logger = get_run_logger()
    return _in_step(  # type: ignore[no-any-return]
        lambda: fetch_threads(names, on_fetched, logger=logger))


def _fetch_prefect(
    names: list[str], on_fetched: OnFetched | None = None
) -> dict[str, Fetched | BaseException]:
    return _step(  # type: ignore[no-any-return]
        "fetch", lambda: fetch_task(names, on_fetched),
        lambda: fetch_threads(names, on_fetched))


@task(name="publish", cache_policy=NO_CACHE, persist_result=False, retries=1,
      retry_condition_fn=_never)
def publish_task(data_dir: Path, allow_shrink: bool = False) -> PublishResult:
    """Build, check, swap in, export. A refused publish (a check found rows, a curated file is
    unusable) is a returned Failed state with its one-line reason; a bug raises, logged with
    its traceback."""
    from prefect import get_run_logger

    from gpucost.models.runner import CheckFailedError
    from gpucost.warehouse.curated import CuratedDataError
    from gpucost.warehouse.publish import ShrinkRefusedError

    def body() -> Any:
        try:
            return build_and_publish(data_dir, allow_shrink=allow_shrink)
        except (CheckFailedError, CuratedDataError, ShrinkRefusedError) as exc:
            return _failed(exc, PUBLISH_REFUSED)
        except Exception:
            get_run_logger().exception("publish failed unexpectedly")
            raise

    return _in_step(body)  # type: ignore[no-any-return]


def _publish_prefect(data_dir: Path, allow_shrink: bool = False) -> PublishResult:
    state = _step("publish", lambda: publish_task(data_dir, allow_shrink, return_state=True),
                  lambda: build_and_publish(data_dir, allow_shrink=allow_shrink))
    if isinstance(state, PublishResult):
        return state
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


class _Run:
    """One call of the refresh flow in this process (`RefreshFlow.__call__`): the API watch,
    and what the flow body did, seen from inside it."""

    def __init__(self, watch: Any) -> None:
        self.watch = watch
        self.began = self.done = False
        self.outcome: Any = None  # the body's return value (a State)
        self.error: BaseException | None = None  # what the body raised

    def lost(self) -> bool:
        """Whether the Prefect server was judged gone during this call."""
        return bool(self.watch.lost.is_set())


_run: _Run | None = None  # the refresh flow call in progress in this process


def _api_unreachable(url: str | None, when: str) -> RuntimeError:
    """The error the CLI answers by running the refresh without Prefect (flows/cli/refresh.py
    matches "Prefect API" in it)."""
    return RuntimeError(f"the Prefect API at {url or 'a temporary server'} {when}")


class RefreshFlow(Flow):  # type: ignore[type-arg]
    """The refresh flow, whose call in this process (the CLI's) never loses the refresh's
    work or report to Prefect: see `__call__`. A deployment's runs (`gpucost serve`) call the
    flow engine directly, as for any flow."""

    def __call__(self, *args: Any, return_state: bool = False, wait_for: Any = None,
                 **kwargs: Any) -> Any:
        """Run the flow; when the Prefect API fails around it, the work still happens once.

        - Prefect cannot be used (`prefect_api.unavailable()`: a recorded local server
          that does not answer), or the API failed before the flow body began (the server
          died before the run was created or started): nothing ran; a RuntimeError naming
          the Prefect API (in a Failed state with `return_state`), on which the CLI runs the
          same steps without Prefect and says so in one line.
        - The API failed once the body began (the server died during the run): the body
          finishes the work (each step runs without Prefect when its task run cannot:
          `_step`) and its own outcome is returned, whatever the engine raised or reported
          around it; one line says so.
        """
        from prefect.states import Failed

        global _run
        reason = prefect_api.unavailable()
        if reason:
            error = RuntimeError(reason)
            if return_state:
                return Failed(message=reason, data=error)
            raise error
        url = prefect_server.configured_api_url()
        previous = _run
        engine_error: Exception | None = None
        with prefect_api.ApiWatch(url) as watch:
            run = _run = _Run(watch)
            try:
                result = super().__call__(*args, return_state=return_state,
                                          wait_for=wait_for, **kwargs)
            except Exception as exc:
                engine_error = exc
            finally:
                _run = previous
            if engine_error is not None and not run.began:
                watch.check()  # a refused connection now: the server is gone
        lost = run.lost()
        if engine_error is None and not lost:
            return result
        if not run.began:  # nothing of the refresh ran
            if lost or _is_api_failure(engine_error):
                prefect_api.give_up()
                why = ("does not answer" if lost or _is_connect_failure(engine_error) else
                       f"failed before the refresh began ({_describe(engine_error)})")  # type: ignore[arg-type]
                error = _api_unreachable(url, why)
                if engine_error is not None:
                    error.__cause__ = engine_error
                if return_state:
                    return Failed(message=str(error), data=error)
                raise error
            if engine_error is not None:
                raise engine_error
            return result
        if run.done:
            if engine_error is not None and not lost and not _is_api_failure(engine_error):
                raise engine_error  # the flow's own failure (return_state=False)
            prefect_api.give_up()
            _say_lost(url)
            state = run.outcome
            return state if return_state else state.result()
        # the body raised: its own error (a bug, a failed step), whatever Prefect did
        if run.error is not None and (engine_error is None or lost
                                      or _is_api_failure(engine_error)):
            if lost:
                prefect_api.give_up()
                _say_lost(url)
            if return_state:
                return Failed(message=_describe(run.error), data=run.error)
            raise run.error
        if engine_error is not None:
            raise engine_error
        return result


def _say_lost(url: str | None) -> None:
    """The one line a Prefect server that died during the run costs."""
    server = f"the Prefect server at {url}" if url else "Prefect's temporary server"
    prefect_api.say(f"{server} stopped answering during the run: the refresh went on "
                        "without it")


def _is_api_failure(exc: BaseException | None) -> bool:
    """Whether `exc` (or an error it was raised from) is the Prefect API failing: a
    connection or HTTP error, an error status, Prefect's "Failed to reach API", its client
    giving up retrying."""
    import httpx
    from prefect.exceptions import PrefectHTTPStatusError

    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, (httpx.HTTPError, PrefectHTTPStatusError, OSError)):
            return True
        text = str(exc)
        if "Failed to reach API" in text or "Retry handling ended" in text:
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def _is_connect_failure(exc: BaseException | None) -> bool:
    """Whether `exc` (or an error it was raised from) is a connection that failed."""
    import httpx

    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, (httpx.ConnectError, ConnectionError)) or \
                "Failed to reach API" in str(exc):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def _refresh_flow(**options: Any) -> Callable[[Callable[..., Any]], RefreshFlow]:
    def make(fn: Callable[..., Any]) -> RefreshFlow:
        return RefreshFlow(fn=fn, **options)
    return make


@_refresh_flow(name="refresh", task_runner=ThreadPoolTaskRunner(max_workers=FETCH_WORKERS),
               log_prints=True, persist_result=False)
def refresh(names: list[str] | None = None, data_dir: str | None = None,
            kind: str | None = None, allow_shrink: bool = False) -> RunSummary:
    """Fetch the sources (`names`, else those of `kind` "prices" or "specs", else all), load,
    rebuild, check, publish and export. Ends Failed (with the verdict) when no live source
    was refreshed or nothing was published; see the module doc."""
    run = _run
    if run is None:
        return _refresh_body(names, data_dir, kind, allow_shrink)  # type: ignore[no-any-return]
    run.began = True
    try:
        run.outcome = _refresh_body(names, data_dir, kind, allow_shrink)
    except BaseException as exc:
        run.error = exc
        raise
    run.done = True
    return run.outcome  # type: ignore[no-any-return]


def _refresh_body(names: list[str] | None, data_dir: str | None, kind: str | None,
                  allow_shrink: bool) -> Any:
    from prefect.runtime import flow_run
    from prefect.states import Failed

    from gpucost.warehouse.publish import WarehouseBusyError

    try:
        summary = run_refresh(
            names_to_fetch(names, kind), _fetch_prefect, Path(data_dir) if data_dir else None,
            publish_step=partial(_publish_prefect, allow_shrink=allow_shrink),
            progress=_progress,
        )
    except WarehouseBusyError as exc:  # another refresh holds the writer lock: one line
        return Failed(message=str(exc), data=exc)
    summary.flow_run = flow_run.get_name()
    run = _run
    if run is None or not run.lost():
        try:
            create_table_artifact(
                key="refresh-summary", table=summary.table(), description=summary.verdict(),
            )
        except Exception as exc:  # the API failed: the run's result still stands
            if run is None or not (run.watch.check() or _is_api_failure(exc)):
                raise
            if not run.lost():
                logging.getLogger("gpucost").warning(
                    "the refresh-summary artifact was not saved (%s)", _describe(exc))
    return final_state(summary)


# `python -m gpucost.flows.refresh [options]` = `gpucost refresh [options]`
if __name__ == "__main__":
    import sys

    from gpucost.flows.cli.main import main

    sys.exit(main(["refresh", *sys.argv[1:]]))
