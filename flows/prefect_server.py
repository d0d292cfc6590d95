"""The long-lived local Prefect server: its process, its state file, this process's settings.

`start` runs `prefect server start` once, in the background, on a free loopback port, with
its log in `$PREFECT_HOME/gpucost-server.log`, and records its address in
`$PREFECT_HOME/gpucost-server.json` (`ServerInfo`); a later start finds it running and
returns at once. `stop` stops the recorded server (SIGTERM to its process group, then SIGKILL
after 10 s). `prepare_prefect_home` sets PREFECT_HOME and Prefect's telemetry before Prefect
is imported; `configured_api_url` and `use_api_url` read and set the API this process uses.

Which API a refresh uses, and what happens when it stops answering: flows/prefect_api.py.
The `gpucost server start|stop|status` command: flows/cli/server.py.
"""

from __future__ import annotations

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

STATE_FILE = "gpucost-server.json"
LOG_FILE = "gpucost-server.log"
LOCK_FILE = "gpucost-server.lock"
HOST = "127.0.0.1"
START_TIMEOUT_S = 120.0  # a first start on an empty PREFECT_HOME migrates the database
HEALTH_TIMEOUT_S = 1.0
STOP_TIMEOUT_S = 10.0


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


def prepare_prefect_home() -> None:
    """Before Prefect is imported: PREFECT_HOME defaults to warehouse/data/prefect, as the
    Makefile sets it, so `gpucost server stop` run by hand finds the server `make refresh`
    started; create it (absent on a fresh clone) so Prefect does not warn that it could not, and
    turn Prefect's telemetry off unless the environment says otherwise (as the Makefile
    does): DO_NOT_TRACK=1 for the client's (it prints a notice on a terminal and sends usage
    events) and PREFECT_SERVER_ANALYTICS_ENABLED=false for the temporary server's (offline it
    logs a traceback per failed heartbeat; pipeline-anchors.md 3.2)."""
    from gpucost.warehouse import WAREHOUSE_DIR

    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    home = os.environ.setdefault("PREFECT_HOME", str(WAREHOUSE_DIR / "data" / "prefect"))
    Path(home).expanduser().mkdir(parents=True, exist_ok=True)


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
        from gpucost.warehouse.files import write_atomic  # never through a planted link

        write_atomic(_state_path(home), json.dumps(asdict(info), indent=1) + "\n")
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


