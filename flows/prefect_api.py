"""The Prefect API a refresh uses, and a server that stops answering during one.

`gpucost refresh` (through Prefect) uses, in this order (`api_for_refresh`):

1. PREFECT_API_URL when it is set (environment or Prefect profile): a server you operate;
2. the local server recorded under PREFECT_HOME (flows/prefect_server.py), when it answers its
   health check; with GPUCOST_PREFECT_SERVER=local (as `make refresh` sets it) it is started
   when none runs; recorded but not answering (killed, crashed, a reboot): the same steps
   without Prefect (`unavailable`), and one line says so and that `gpucost server start`
   starts it again;
3. else Prefect's temporary server for this one run (GPUCOST_PREFECT_SERVER=temporary: always);
4. and when no Prefect API can be reached or started, the same steps without Prefect.

A server that dies during a refresh costs one line: the refresh goes on without it, prints
its summary and exits as it would have (flows/refresh.py; `ApiWatch` notices the death within
half a second and `give_up` makes Prefect give up at once instead of retrying each call for a
minute).
"""

from __future__ import annotations

import contextlib
import os
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from gpucost.flows import prefect_server
from gpucost.flows.cli.terminal import one_line
from gpucost.flows.prefect_server import HEALTH_TIMEOUT_S, ServerStartError

MODE_VAR = "GPUCOST_PREFECT_SERVER"  # local | temporary | unset (see api_for_refresh)
HEARTBEAT_VARS = ("PREFECT_FLOWS_HEARTBEAT_FREQUENCY", "PREFECT_RUNNER_HEARTBEAT_FREQUENCY")


def say(text: str) -> None:
    """A line on stderr, through the console a refresh's progress display uses."""
    from gpucost.flows.progress import console_for

    console_for().print(text, soft_wrap=True)


@contextlib.contextmanager
def api_for_refresh(mode: str | None = None) -> Iterator[str | None]:
    """Inside the block, Prefect talks to the configured API, else to the local server;
    yields its URL, or None when Prefect will start a temporary server for the run.

    `mode` (default: GPUCOST_PREFECT_SERVER) says what to do without PREFECT_API_URL:
    "local" starts the local server when none runs (`make refresh` sets it), "temporary"
    never uses it, anything else (unset) uses it when it runs.

    Flow run heartbeats are off inside the block unless PREFECT_FLOWS_HEARTBEAT_FREQUENCY is
    set: prefect 3.8 sends one every 180 s by default, and ending its thread costs every flow
    run about 1 s (it sleeps in 1 s steps). A heartbeat lets an automation mark a run whose
    process died as crashed; a `gpucost refresh` in the foreground shows its own death.
    Deployments (`gpucost serve`) keep the default."""
    from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings

    mode = (os.environ.get(MODE_VAR, "") if mode is None else mode).strip().lower()
    updates: dict = {}
    if not any(os.environ.get(name) for name in HEARTBEAT_VARS):
        updates[PREFECT_FLOWS_HEARTBEAT_FREQUENCY] = None
    global _unavailable
    url = prefect_server.configured_api_url()
    unavailable = None
    if not url and mode != "temporary":
        info = prefect_server.running()
        stale = prefect_server.recorded() if info is None and mode != "local" else None
        if stale is not None:  # recorded, not answering (killed, crashed, a reboot)
            unavailable = (f"the Prefect API of the local server at {stale.url} does not "
                           "answer; `gpucost server start` starts it again")
        if info is None and mode == "local":
            try:
                info, _ = prefect_server.start()
                say(f"started a local Prefect server at {info.url} (pid {info.pid}; it keeps "
                     "running for the next refreshes: `gpucost server stop` stops it)")
            except ServerStartError as exc:
                say(f"warning: {one_line(exc)}; a temporary Prefect server runs this refresh")
        if info is not None:
            url = info.url
            prefect_server.use_api_url(url)
    previous, _unavailable = _unavailable, unavailable
    try:
        with temporary_settings(updates=updates):
            yield url
    finally:
        _unavailable = previous


# Why Prefect cannot run the refresh in this process, set inside `api_for_refresh`: the
# refresh flow then runs nothing and says so (flows/refresh.py), and the CLI runs the same
# steps without Prefect.
_unavailable: str | None = None


def unavailable() -> str | None:
    """Why Prefect cannot run a refresh now (a recorded local server that does not answer),
    None when it can be tried."""
    return _unavailable


WATCH_INTERVAL_S = 0.5
WATCH_FAILURES = 3  # failed probes in a row (other than a refused connection) = gone


def _probe(url: str, timeout: float = HEALTH_TIMEOUT_S) -> str:
    """One health check of the API at `url`: "ok", "refused" (nothing listens: the server
    is gone) or "failed" (a timeout, an error status: maybe busy, maybe gone). A loopback
    URL is asked directly, never through a proxy."""
    from urllib.parse import urlsplit

    handlers = []
    if (urlsplit(url).hostname or "") in ("127.0.0.1", "localhost", "::1"):
        handlers.append(urllib.request.ProxyHandler({}))
    try:
        with urllib.request.build_opener(*handlers).open(
                f"{url.rstrip('/')}/health", timeout=timeout) as resp:
            return "ok" if resp.status == 200 else "failed"
    except urllib.error.URLError as exc:
        return "refused" if isinstance(exc.reason, ConnectionRefusedError) else "failed"
    except ConnectionRefusedError:
        return "refused"
    except (OSError, ValueError):
        return "failed"


class ApiWatch:
    """Watches the Prefect API at `url` during one refresh: a daemon thread asks its health
    every WATCH_INTERVAL_S. When the server is gone (a refused connection; or WATCH_FAILURES
    failed checks in a row after one that answered: a server that never answered here, such
    as an API without /health, is never judged), `lost` is set and Prefect is told to give up
    at once (`give_up`): without that, every API call of the flow engine retries for about a
    minute (PREFECT_CLIENT_MAX_RETRIES=5 with 2, 4, ... 32 s between tries), about 2.5 minutes
    per refresh. With `url` None (a temporary server this process runs) nothing is watched."""

    def __init__(self, url: str | None) -> None:
        import threading

        self.url = url
        self.lost = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._settings: list = []

    def __enter__(self) -> ApiWatch:
        import threading

        if self.url:
            from prefect.settings import get_current_settings

            self._settings = [get_current_settings()]  # this thread's (temporary_settings)
            self._thread = threading.Thread(target=self._run, name="gpucost-api-watch",
                                            daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=HEALTH_TIMEOUT_S + 1)

    def check(self) -> bool:
        """Ask once now (from any thread); returns whether the server is judged lost."""
        if self.url and not self.lost.is_set() and _probe(self.url) == "refused":
            self._give_up()
        return self.lost.is_set()

    def _run(self) -> None:
        assert self.url
        answered, failures = False, 0
        while not self._stop.is_set():
            result = _probe(self.url)
            if result == "ok":
                answered, failures = True, 0
            elif result == "refused" or (answered and (failures := failures + 1)
                                         >= WATCH_FAILURES):
                self._give_up()
                return
            self._stop.wait(WATCH_INTERVAL_S)

    def _give_up(self) -> None:
        if not self.lost.is_set():
            give_up(self._settings)
            self.lost.set()


def give_up(settings: list | None = None) -> None:
    """The Prefect API of this process is gone: make every later Prefect call fail at once
    and quietly, for the rest of the process.

    - no client retries (the `settings` objects given, the process-wide ones Prefect's
      background threads read, and a fresh one from the environment);
    - no more log records shipped to the API, and no "--- Error logging to API ---" for
      those already queued (Prefect prints it only when `logging.raiseExceptions`);
    - the console handlers drop Prefect's own records (the engine's and its services'
      failures to report): the refresh says it in one line. Records our code logs through
      a run logger (a source's failure, a bug's traceback) still show."""
    import logging

    from prefect import context

    objs = list(settings or [])
    global_ctx = getattr(context, "GLOBAL_SETTINGS_CONTEXT", None)
    if global_ctx is not None:
        objs.append(global_ctx.settings)
    os.environ["PREFECT_CLIENT_MAX_RETRIES"] = "0"
    os.environ["PREFECT_LOGGING_TO_API_ENABLED"] = "false"
    for obj in objs:
        with contextlib.suppress(Exception):
            obj.client.max_retries = 0
        with contextlib.suppress(Exception):
            obj.logging.to_api.enabled = False
    logging.raiseExceptions = False
    loggers = [logging.getLogger(), *(
        logger for name, logger in list(logging.root.manager.loggerDict.items())
        if name.startswith("prefect") and isinstance(logger, logging.Logger))]
    for handler in {h for logger in loggers for h in logger.handlers}:
        if not any(isinstance(f, _PrefectNoise) for f in handler.filters):
            handler.addFilter(_PrefectNoise())
    _stop_services()


def _stop_services() -> None:
    """Cancel Prefect's background services (the workers that ship events and logs to the
    API) and drop what they hold: otherwise the process waits for them at exit, each event
    trying 11 connections to the gone server (about 8 s)."""
    from prefect._internal.concurrency import services

    for service in list(getattr(services, "_active_services", ())):
        with contextlib.suppress(Exception):
            q = service._queue
            while not q.empty():
                q.get_nowait()
                q.task_done()
        loop, task = getattr(service, "_loop", None), getattr(service, "_task", None)
        if loop is not None and task is not None and not task.done():
            with contextlib.suppress(RuntimeError):  # its loop already closed
                loop.call_soon_threadsafe(task.cancel)


class _PrefectNoise:
    """A log filter: drops the records Prefect's own code logs (a `prefect...` logger and
    a source file inside the prefect package), keeps everything else."""

    def __init__(self) -> None:
        import prefect

        self.package = str(Path(prefect.__file__).resolve().parent)

    def filter(self, record: object) -> bool:
        name = getattr(record, "name", "")
        path = getattr(record, "pathname", "") or ""
        return not (name.startswith("prefect")
                    and str(Path(path).resolve()).startswith(self.package))
