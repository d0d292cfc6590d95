"""`gpucost server start|stop|status`: one long-lived local Prefect server, reused by refreshes.

Without PREFECT_API_URL, every Prefect run would start a temporary server of its own (a
uvicorn subprocess on the SQLite database under PREFECT_HOME) and stop it at exit: about 3 s
per run on an existing database and 10 s or more on a new one, which is more than the whole
offline refresh. `gpucost server start` starts `prefect server start` once, in the
background, on a free loopback port, with its log in `$PREFECT_HOME/gpucost-server.log`,
and records its address in `$PREFECT_HOME/gpucost-server.json`; a later start finds it
running and returns at once.

`gpucost refresh` (through Prefect) uses, in this order:

1. PREFECT_API_URL when it is set (environment or Prefect profile): a server you operate;
2. the local server recorded under PREFECT_HOME, when it answers its health check; with
   GPUCOST_PREFECT_SERVER=local (as `make refresh` sets it) it is started when none runs;
   recorded but not answering (killed, crashed, a reboot): the same steps without Prefect,
   and one line says so and that `gpucost server start` starts it again;
3. else Prefect's temporary server for this one run (GPUCOST_PREFECT_SERVER=temporary: always);
4. and when no Prefect API can be reached or started, the same steps without Prefect.

A server that dies during a refresh costs one line: the refresh goes on without it, prints
its summary and exits as it would have (flows/refresh.py; `ApiWatch` notices the death within
half a second and makes Prefect give up at once instead of retrying each call for a minute).

`gpucost server stop` stops the recorded server (SIGTERM to its process group, then SIGKILL
after 10 s); `gpucost server status` prints its address, then one line per deployment (its
schedules, its last run with state and time, its next run) and whether the scheduler is
scheduling (flows/schedule_check.py); it exits 0 when the server answers and schedules, 1 when
it does not answer or its scheduler creates no runs (`--url`: the API URL alone, e.g.
`PREFECT_API_URL=$(gpucost server status --url) prefect deployment run refresh/prices`).
Without a local server, a PREFECT_API_URL that answers is checked the same way (without a log).
The server holds about 240 MB of memory while it runs. Its UI is at the recorded address
without the `/api` suffix, and talks to that server's API (`_ui_env`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from gpucost.flows.cli.terminal import one_line

STATE_FILE = "gpucost-server.json"
LOG_FILE = "gpucost-server.log"
LOCK_FILE = "gpucost-server.lock"
HOST = "127.0.0.1"
START_TIMEOUT_S = 120.0  # a first start on an empty PREFECT_HOME migrates the database
HEALTH_TIMEOUT_S = 1.0
STOP_TIMEOUT_S = 10.0
EXIT_OK, EXIT_FAILED = 0, 1


@dataclass
class ServerInfo:
    pid: int
    port: int
    url: str  # the API URL (PREFECT_API_URL form: http://127.0.0.1:<port>/api)
    started_at: str
    log: str
    log_offset: int = 0  # the log's size when this server started: its own lines follow


def prefect_home() -> Path:
    """PREFECT_HOME (the gpucost commands default it to warehouse/data/prefect, as the
    Makefile does), else Prefect's default (~/.prefect)."""
    return Path(os.environ.get("PREFECT_HOME") or Path.home() / ".prefect").expanduser()


def _state_path(home: Path | None = None) -> Path:
    return (home or prefect_home()) / STATE_FILE


def recorded(home: Path | None = None) -> ServerInfo | None:
    """The server recorded under PREFECT_HOME (running or not), None when there is none."""
    try:
        return ServerInfo(**json.loads(_state_path(home).read_text()))
    except (OSError, ValueError, TypeError):
        return None


def healthy(url: str, timeout: float = HEALTH_TIMEOUT_S) -> bool:
    """Whether the Prefect API at `url` answers its health check."""
    try:
        with urllib.request.urlopen(f"{url.rstrip('/')}/health", timeout=timeout) as resp:
            return bool(resp.status == 200)
    except (OSError, ValueError):
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _is_server(info: ServerInfo) -> bool:
    """Whether process `info.pid` is still the server we started (a pid is reused after a
    reboot): alive, and its command line is `prefect server start ... --port <port>`."""
    if not _alive(info.pid):
        return False
    try:
        args = Path(f"/proc/{info.pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        try:
            args = subprocess.run(["ps", "-o", "args=", "-p", str(info.pid)], text=True,
                                  capture_output=True, check=False).stdout.encode().split()
        except OSError:
            return False
    words = [a.decode(errors="replace") for a in args]
    return "server" in words and str(info.port) in words


def running(home: Path | None = None) -> ServerInfo | None:
    """The recorded server when its process lives and its API answers, else None."""
    info = recorded(home)
    if info and _alive(info.pid) and healthy(info.url):
        return info
    return None


def configured_api_url() -> str | None:
    """The PREFECT_API_URL Prefect would use (environment, profile, a test harness)."""
    from prefect.settings import PREFECT_API_URL

    return PREFECT_API_URL.value() or None


MODE_VAR = "GPUCOST_PREFECT_SERVER"  # local | temporary | unset (see api_for_refresh)
HEARTBEAT_VARS = ("PREFECT_FLOWS_HEARTBEAT_FREQUENCY", "PREFECT_RUNNER_HEARTBEAT_FREQUENCY")


def _say(text: str) -> None:
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
    url = configured_api_url()
    unavailable = None
    if not url and mode != "temporary":
        info = running()
        stale = recorded() if info is None and mode != "local" else None
        if stale is not None:  # recorded, not answering (killed, crashed, a reboot)
            unavailable = (f"the Prefect API of the local server at {stale.url} does not "
                           "answer; `gpucost server start` starts it again")
        if info is None and mode == "local":
            try:
                info, _ = start()
                _say(f"started a local Prefect server at {info.url} (pid {info.pid}; it keeps "
                     "running for the next refreshes: `gpucost server stop` stops it)")
            except ServerStartError as exc:
                _say(f"warning: {one_line(exc)}; a temporary Prefect server runs this refresh")
        if info is not None:
            url = info.url
            use_api_url(url)
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
    import urllib.error
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


def use_api_url(url: str) -> None:
    """Point this process's Prefect (and the processes it starts) at `url`.

    Prefect's background services (the worker that ships logs to the API, the events
    client) run in threads that do not inherit a `temporary_settings` block: they read the
    process-wide settings, and with no API URL there they start a temporary server of their
    own (measured: 2.7 s, and the logs went to it). So the URL goes into the environment and
    the process-wide settings are rebuilt from it, as Prefect does after its plugins run.
    It stays set for the rest of the process (a `gpucost refresh` or `serve` process)."""
    from prefect.context import refresh_global_settings_context

    os.environ["PREFECT_API_URL"] = url
    refresh_global_settings_context()


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive lock on `path` (created, with its folder), held until the block ends;
    a second holder waits."""
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _locked(home: Path) -> contextlib.AbstractContextManager[None]:
    """One `server start` or `stop` at a time per PREFECT_HOME."""
    return file_lock(home / LOCK_FILE)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def _prefect_command() -> list[str]:
    script = Path(sys.executable).with_name("prefect")
    return [str(script)] if script.exists() else [sys.executable, "-m", "prefect"]


class ServerStartError(RuntimeError):
    pass


def start(timeout_s: float = START_TIMEOUT_S) -> tuple[ServerInfo, bool]:
    """Start the local server in the background unless the recorded one runs: (info, started
    now). Raises ServerStartError when it does not answer within `timeout_s`."""
    home = prefect_home()
    with _locked(home):
        info = running(home)
        if info:
            return info, False
        stale = recorded(home)
        if stale and _is_server(stale):  # ours, alive, not answering: stop it first
            _terminate(stale.pid)
        port = _free_port()
        url = f"http://{HOST}:{port}/api"
        env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
        env.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
        env.setdefault("DO_NOT_TRACK", "1")
        env["PREFECT_HOME"] = str(home)
        env.update(_ui_env(url, port, env))
        log_path = home / LOG_FILE
        log_offset = log_path.stat().st_size if log_path.exists() else 0
        with open(log_path, "ab") as log, open(os.devnull, "rb") as devnull:
            proc = subprocess.Popen(
                [*_prefect_command(), "server", "start", "--host", HOST, "--port", str(port)],
                stdin=devnull, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=home,
                start_new_session=True, close_fds=True,
            )
        info = ServerInfo(pid=proc.pid, port=port, url=url,
                          started_at=datetime.now(UTC).isoformat(timespec="seconds"),
                          log=str(log_path), log_offset=log_offset)
        _state_path(home).write_text(json.dumps(asdict(info), indent=1) + "\n")
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                _state_path(home).unlink(missing_ok=True)
                raise ServerStartError(f"the Prefect server exited ({proc.returncode}) "
                                       f"before it answered; see {log_path}")
            if healthy(info.url, timeout=0.5):
                return info, True
            time.sleep(0.2)
        _terminate(proc.pid)
        _state_path(home).unlink(missing_ok=True)
        raise ServerStartError(f"the Prefect server did not answer within {timeout_s:.0f} s; "
                               f"see {log_path}")


def _ui_env(url: str, port: int, env: dict[str, str]) -> dict[str, str]:
    """The server's own address in the settings its UI reads: without them the UI's
    `/ui-settings` names `http://127.0.0.1:4200/api` (prefect's default host and port: the
    `--host`/`--port` options do not change it) and the UI cannot reach its API on any other
    port. A UI API URL set by hand (a reverse proxy in front) is kept."""
    out = {"PREFECT_SERVER_API_HOST": HOST, "PREFECT_SERVER_API_PORT": str(port)}
    if not (env.get("PREFECT_SERVER_UI_API_URL") or env.get("PREFECT_UI_API_URL")):
        out["PREFECT_SERVER_UI_API_URL"] = url
    return out


def _terminate(pid: int) -> None:
    """SIGTERM the server's process group (it was started in a session of its own), SIGKILL
    it after STOP_TIMEOUT_S."""
    for sig, wait_s in ((signal.SIGTERM, STOP_TIMEOUT_S), (signal.SIGKILL, 2.0)):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)  # reap it when it is our child
            if not _alive(pid):
                return
            time.sleep(0.1)


def stop() -> ServerInfo | None:
    """Stop the recorded server; returns what was recorded (None: nothing was)."""
    home = prefect_home()
    with _locked(home):
        info = recorded(home)
        if info is None:
            return None
        if _is_server(info):
            _terminate(info.pid)
        _state_path(home).unlink(missing_ok=True)
        return info


def cmd_server(args: argparse.Namespace) -> int:
    from gpucost.flows.cli.main import _prepare_prefect_home

    _prepare_prefect_home()
    home = prefect_home()
    if args.action == "start":
        t = time.perf_counter()
        try:
            info, started = start()
        except ServerStartError as exc:
            print(f"error: {one_line(exc)}", file=sys.stderr)
            return EXIT_FAILED
        if started:
            print(f"started the Prefect server at {info.url} (pid {info.pid}, "
                  f"{time.perf_counter() - t:.1f} s; log {info.log})")
        elif not args.quiet:
            print(f"the Prefect server runs at {info.url} (pid {info.pid})")
        return EXIT_OK
    if args.action == "stop":
        info = stop()
        print(f"stopped the Prefect server at {info.url} (pid {info.pid})" if info
              else f"no Prefect server recorded under {home}")
        return EXIT_OK
    info = running(home)
    if info and args.url:
        print(info.url)
        return EXIT_OK
    if info:
        print(f"running at {info.url} (pid {info.pid}, since {info.started_at}; "
              f"UI {info.url.removesuffix('/api')}; log {info.log})")
        return _print_schedules(info.url, info.log, info.log_offset)
    external = os.environ.get("PREFECT_API_URL")
    if external and not args.url and healthy(external):
        print(f"no local server; PREFECT_API_URL {external} answers")
        return _print_schedules(external, None, 0)
    stale = recorded(home)
    print(f"not running (recorded at {stale.url}, pid {stale.pid}, not answering)" if stale
          else f"not running (none recorded under {home})")
    return EXIT_FAILED


def _print_schedules(url: str, log: str | None, log_offset: int) -> int:
    """The deployments' schedules, last and next runs, and whether the scheduler schedules
    (flows/schedule_check.py): exit 1 when it does not."""
    from gpucost.flows import schedule_check

    try:
        report = schedule_check.check(url, log, log_offset)
    except (OSError, ValueError) as exc:
        print(f"error: could not read the deployments at {url}: {one_line(exc)}")
        return EXIT_FAILED
    for line in schedule_check.describe(report):
        print(line)
    return EXIT_OK if report.ok else EXIT_FAILED


def add_parser(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser(
        "server", help="start, stop or check the long-lived local Prefect server refreshes use",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("action", choices=("start", "stop", "status"))
    s.add_argument("--quiet", "-q", action="store_true",
                   help="start: print nothing when the server already runs")
    s.add_argument("--url", action="store_true",
                   help="status: print only the API URL (for PREFECT_API_URL=...)")
    s.set_defaults(func=cmd_server)
