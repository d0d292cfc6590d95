"""The cluster's servers on one machine, for tests and local trials: `gpucost cluster up`.

`up(dir)` starts, all on 127.0.0.1 and free ports, with their data under `dir`: SeaweedFS
(cluster/seaweedfs.py), PostgreSQL (cluster/postgres.py), a Prefect server with its work pools
and workers (cluster/prefect_pools.py); then writes `<dir>/cluster.json` (cluster/settings.py
reads it). The processes and their records in `<dir>/servers.json` (cluster/processes.py)
outlive the process that started them: `down`, `status`, `stop_server`, `kill_server` and
`start_server` work from any later one. Keys and the database password are made once and kept
in cluster.json: an `up` after `down` (or after a crash or a reboot: recorded pids are checked
against their start time) brings the same cluster back, on the same ports when they are free.

This module is the public face and the orchestration: which servers there are, the order they
start in (SeaweedFS alongside PostgreSQL, then Prefect, then the workers) and stop in
(workers first, PostgreSQL last).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import secrets
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from pathlib import Path
from urllib.parse import quote

from gpucost.cluster.postgres import (
    PG_DATABASES,
    PG_ROLE,
    _create_databases,
    _init_postgres,
    _pg_bin,
    _pg_password,
    _pg_ready,
    _pg_run,
    _postgres_server,
)
from gpucost.cluster.prefect_pools import (
    FETCH_POOL,
    PUBLISH_POOL,
    WORKER_LIMIT,
    _create_pools,
    _heartbeat_since,
    _prefect_servers,
    _process_template,
    workers_online,
)
from gpucost.cluster.processes import (
    HOST,
    SERVERS_FILE,
    STOP_TIMEOUT_S,
    ClusterStartError,
    ClusterToolMissingError,
    Server,
    ServerStatus,
    _alive,
    _assign_ports,
    _exit_code,
    _http,
    _locked,
    _log_path,
    _log_tail,
    _port_free,
    _signal_group,
    _spawn,
    _wait_gone,
    _write_servers,
    drop_pid_records,
    read_servers,
    read_servers_from,
    scan_leftovers,
)
from gpucost.cluster.seaweedfs import (
    S3_IDENTITIES_FILE,
    _create_buckets,
    _identities,
    _volumes_registered,
    _weed_servers,
    s3_client,
    weed_path,
)
from gpucost.cluster.settings import (
    CONFIG_NAME,
    ClusterSettings,
    cluster_dir,
    read_cluster_settings,
    write_settings,
)

__all__ = [
    "FETCH_POOL", "HOST", "PG_DATABASES", "PG_ROLE", "PUBLISH_POOL", "START_TIMEOUT_S",
    "WORKER_LIMIT", "ClusterStartError", "ClusterToolMissingError", "Server", "ServerStatus",
    "down", "kill_server", "read_cluster_settings", "read_servers", "running", "s3_client",
    "start_server", "status", "stop_server", "up", "workers_online",
]

START_TIMEOUT_S = 60.0  # each server's deadline to answer (Prefect migrates a new database)


# ---------------------------------------------------------------- stopping and checks


def _stop(dir: Path, server: Server) -> None:
    """Stop one server: `pg_ctl stop -m fast` for PostgreSQL, SIGTERM to the process group
    for the others; SIGKILL when it is still there after its grace time."""
    if not _alive(server):
        return
    if server.stop == "pg_ctl":
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            _pg_run(["pg_ctl", "stop", "-D", server.extra["data"], "-m", "fast", "-s",
                     "-t", str(int(STOP_TIMEOUT_S))], server.user, timeout=STOP_TIMEOUT_S + 2)
    else:
        _signal_group(server, signal.SIGTERM)
    if not _wait_gone(server, server.grace):
        _signal_group(server, signal.SIGKILL)
        _wait_gone(server, 2.0)


def _stop_tiers(servers: list[Server]) -> list[list[Server]]:
    """The order of stopping, each tier at once: workers, Prefect, S3, filer, volumes,
    master, PostgreSQL."""
    order = (("fetcher-", "publisher-"), ("prefect",), ("s3",), ("filer",), ("volume-",),
             ("master",), ("postgres",))
    tiers: list[list[Server]] = [[] for _ in order]
    for server in servers:
        index = next((i for i, prefixes in enumerate(order)
                      if server.name.startswith(prefixes)), 0)
        tiers[index].append(server)
    return [tier for tier in tiers if tier]


def _stop_all(dir: Path, servers: list[Server]) -> None:
    for tier in _stop_tiers(servers):
        with ThreadPoolExecutor(max_workers=max(1, len(tier))) as pool:
            list(pool.map(lambda s: _stop(dir, s), tier))


def _check(server: Server) -> tuple[bool, str]:
    """Whether its port answers as it should, and what it said."""
    kind, _, path = server.check.partition(":")
    try:
        if kind == "pg":
            return _pg_ready(server.port)
        status, _ = _http(server.port, path)
    except (OSError, http.client.HTTPException, subprocess.SubprocessError) as exc:
        return False, f"port {server.port}: {type(exc).__name__}: {exc}"
    if kind == "http-any" or status == 200:
        return True, f"HTTP {status} on {path}"
    return False, f"HTTP {status} on {path}"


def _server_status(server: Server) -> ServerStatus:
    if not _alive(server):
        return ServerStatus(server.name, server.pid, server.port, False,
                            f"not running (pid {server.pid})" if server.pid else "not started")
    ok, detail = _check(server)
    return ServerStatus(server.name, server.pid, server.port, ok, detail)


def _resolve(dir: Path | None) -> Path:
    return Path(dir).resolve() if dir else cluster_dir()


# ---------------------------------------------------------------- the plan


def _names(fetch_workers: int) -> list[str]:
    return (["master", "volume-1", "volume-2", "filer", "s3", "postgres", "prefect"]
            + [f"fetcher-{i}" for i in range(1, fetch_workers + 1)] + ["publisher-1"])


def _new_settings(old: ClusterSettings | None, ports: dict[str, list[int]]) -> ClusterSettings:
    """The cluster's settings: the keys and password kept from `old`, made when missing."""
    old = old or ClusterSettings()
    password = _pg_password(old) or secrets.token_hex(16)
    return ClusterSettings(
        s3_endpoint=f"http://{HOST}:{ports['s3'][0]}",
        s3_region=old.s3_region or "us-east-1",
        raw_bucket=old.raw_bucket or "gpucost-raw",
        published_bucket=old.published_bucket or "gpucost-published",
        writer_key=old.writer_key or "w" + secrets.token_hex(10),
        writer_secret=old.writer_secret or secrets.token_hex(20),
        reader_key=old.reader_key or "r" + secrets.token_hex(10),
        reader_secret=old.reader_secret or secrets.token_hex(20),
        postgres_url=(f"postgresql+psycopg2://{PG_ROLE}:{quote(password, safe='')}"
                      f"@{HOST}:{ports['postgres'][0]}/gpucost"),
        prefect_api_url=f"http://{HOST}:{ports['prefect'][0]}/api",
        timeout_s=5.0,
    )


def _plan(dir: Path, names: list[str], ports: dict[str, list[int]],
          settings: ClusterSettings) -> list[Server]:
    """Every server's command, environment and check, from the ports and settings."""
    servers = [*_weed_servers(dir, ports), _postgres_server(dir, ports),
               *_prefect_servers(dir, names, ports, settings)]
    by_name = {s.name: s for s in servers}
    return [by_name[n] for n in names]


# ---------------------------------------------------------------- starting


class _Startup:
    """One `up`: the servers started so far (recorded as they start) and a shared abort."""

    def __init__(self, dir: Path, servers: list[Server]) -> None:
        self.dir = dir
        self.servers = {s.name: s for s in servers}
        self.failed = threading.Event()

    def start(self, *names: str) -> None:
        for name in names:
            _spawn(self.dir, self.servers[name])
        _write_servers(self.dir, list(self.servers.values()))

    def wait(self, name: str, ready: Callable[[], bool] | None = None,
             timeout: float = START_TIMEOUT_S) -> None:
        """Until `name` answers its check (and `ready()`); raises ClusterStartError when it
        exits or the deadline passes."""
        server = self.servers[name]
        deadline = time.monotonic() + timeout
        detail = "not asked yet"
        while True:
            if self.failed.is_set():
                raise ClusterStartError(f"{name}: startup abandoned (another server failed)")
            if not _alive(server):
                code = _exit_code(server)
                raise ClusterStartError(
                    f"{name} exited during startup"
                    + (f" (exit code {code})" if code is not None else "")
                    + f"; log {_log_path(self.dir, name)}: {_log_tail(self.dir, server)}")
            ok, detail = _check(server)
            if ok and (ready is None or ready()):
                return
            if time.monotonic() > deadline:
                raise ClusterStartError(
                    f"{name} did not answer within {timeout:.0f} s ({detail}); log "
                    f"{_log_path(self.dir, name)}: {_log_tail(self.dir, server)}")
            time.sleep(0.1)

    def retry(self, what: str, step: Callable[[], None], timeout: float = 20.0) -> None:
        """`step()` until it does not raise (a server that answers may not serve yet)."""
        deadline = time.monotonic() + timeout
        while True:
            if self.failed.is_set():
                raise ClusterStartError(f"{what}: startup abandoned (another server failed)")
            try:
                step()
                return
            except Exception as exc:
                if time.monotonic() > deadline:
                    from gpucost.catalog.secrets import redact

                    raise ClusterStartError(
                        f"{what} failed: {type(exc).__name__}: "
                        f"{redact(' '.join(str(exc).split()))}") from None
            time.sleep(0.2)


def _start_seaweedfs(run: _Startup, settings: ClusterSettings) -> None:
    run.start("master")
    run.wait("master")
    run.start("volume-1", "volume-2", "filer")
    master_port = run.servers["master"].port
    volume_ports = [run.servers[n].port for n in ("volume-1", "volume-2")]
    run.wait("volume-1")
    run.wait("volume-2", _volumes_registered(volume_ports, master_port))
    run.wait("filer")
    run.start("s3")
    run.wait("s3")
    run.retry("creating the buckets", lambda: _create_buckets(settings))


def _start_postgres_prefect(run: _Startup, settings: ClusterSettings,
                            say: Callable[[str], None], new_password: bool) -> None:
    _init_postgres(run.dir, _pg_password(settings), say,
                   new_password=new_password)
    run.start("postgres")
    run.wait("postgres")
    run.retry("creating the databases", lambda: _create_databases(settings))
    run.start("prefect")
    template = _process_template()  # imports prefect while the server starts
    run.wait("prefect", timeout=90.0)
    run.retry("creating the work pools", lambda: _create_pools(settings, template))
    workers = [n for n in run.servers if n.startswith(("fetcher-", "publisher-"))]
    since = time.time()
    run.start(*workers)
    for name in workers:
        run.wait(name, _heartbeat_since(settings, run.servers[name].extra["pool"], name, since))


def up(dir: Path | None = None, *, fetch_workers: int = 2,
       say: Callable[[str], None] | None = None) -> ClusterSettings:
    """Start the cluster's servers in `dir` (default: cluster_dir()) and return its settings
    (also written to `<dir>/cluster.json`). When every recorded server runs and answers,
    nothing is started. Raises ClusterStartError naming the server that did not start (and
    stops the others it started)."""
    if fetch_workers < 1:
        raise ValueError("fetch_workers must be at least 1")
    say = say or (lambda _text: None)
    dir = _resolve(dir)
    weed_path()
    _pg_bin()
    names = _names(fetch_workers)
    with _locked(dir):
        recorded = read_servers(dir)
        settings = read_cluster_settings(dir)
        if running(dir, fetch_workers=fetch_workers):
            assert settings is not None
            say(f"the cluster in {dir} is already running")
            return settings
        if recorded:  # what is left of a previous run (killed, crashed, a reboot)
            _stop_all(dir, recorded)
        ports = _assign_ports(names, {s.name: s.ports for s in recorded})
        new_password = not (settings and settings.postgres_url)
        settings = _new_settings(settings, ports)
        write_settings(settings, dir / CONFIG_NAME)
        read_cluster_settings(dir)  # registers the secrets for redaction
        fd = os.open(dir / S3_IDENTITIES_FILE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(_identities(settings), fh, indent=2)
        servers = _plan(dir, names, ports, settings)
        for server in servers:
            Path(server.cwd).mkdir(parents=True, exist_ok=True)
        (dir / "seaweedfs" / "run").mkdir(parents=True, exist_ok=True)
        (dir / "postgres").mkdir(parents=True, exist_ok=True)
        run = _Startup(dir, servers)
        _write_servers(dir, servers)
        drop_pid_records(dir, set(names))
        try:
            with ThreadPoolExecutor(max_workers=2) as pool:
                futures = [pool.submit(_start_seaweedfs, run, settings),
                           pool.submit(_start_postgres_prefect, run, settings, say,
                                       new_password)]
                done, _ = wait(futures, return_when=FIRST_EXCEPTION)
                if any(f.exception() for f in done):
                    run.failed.set()  # the other chain gives up at its next wait
                errors = [e for e in (f.exception() for f in futures) if e is not None]
                if errors:
                    # the first real failure, not "abandoned because another failed"
                    errors.sort(key=lambda e: "startup abandoned" in str(e))
                    raise errors[0]
        except BaseException:
            _stop_all(dir, servers)
            raise
        return settings


def running(dir: Path | None = None, *, fetch_workers: int | None = None
            ) -> ClusterSettings | None:
    """The settings of the cluster in `dir` when every recorded server runs and answers
    (with `fetch_workers` fetchers, when given), else None."""
    dir = _resolve(dir)
    recorded = read_servers(dir)
    settings = read_cluster_settings(dir)
    names = [s.name for s in recorded]
    if (not settings or not recorded
            or (fetch_workers is not None and names != _names(fetch_workers))):
        return None
    return settings if all(st.up for st in _statuses(recorded)) else None


def _statuses(servers: list[Server]) -> list[ServerStatus]:
    if not servers:
        return []
    with ThreadPoolExecutor(max_workers=min(8, len(servers))) as pool:
        return list(pool.map(_server_status, servers))


def status(dir: Path | None = None) -> list[ServerStatus]:
    """Each recorded server: its pid alive and its port answering (HTTP health where there is
    one, pg_isready for PostgreSQL). [] when nothing is recorded in `dir`."""
    return _statuses(read_servers(_resolve(dir)))


def down(dir: Path | None = None, say: Callable[[str], None] | None = None) -> list[str]:
    """Stop every recorded server (workers first, PostgreSQL last); the data stays. Returns
    the names of those that were running.

    The servers are those of servers.json, else (gone or damaged) of their pid records
    (`<dir>/pids/`, `say` tells which); then any process left that leads its own session
    with its working directory inside `dir` (scan_leftovers: a server no record names) is
    stopped too, named "pid N (command)"."""
    dir = _resolve(dir)
    say = say or (lambda _text: None)
    if not dir.is_dir():
        return []
    with _locked(dir):
        servers, source = read_servers_from(dir)
        if source and source != SERVERS_FILE:
            say(f"{dir / SERVERS_FILE} is missing or damaged: found {len(servers)} servers "
                f"by their {source} in {dir}/pids")
        running = [s.name for s in servers if _alive(s)]
        _stop_all(dir, servers)
        leftovers = scan_leftovers(dir, {s.pid for s in servers if s.pid})
        if leftovers:
            say(f"{len(leftovers)} more processes run in {dir} without a record: stopped")
            gone = [Server(f"pid {pid} ({comm})", [], {}, str(dir), 0, [], "", pid=pid)
                    for pid, comm in leftovers]
            # postgres last (SIGTERM is its "smart" stop: after its clients are gone)
            gone.sort(key=lambda s: "postgres" in s.name)
            for server in gone:
                _stop(dir, server)
            running += [s.name for s in gone]
        return running


def _recorded(dir: Path, name: str) -> tuple[list[Server], Server]:
    servers = read_servers(dir)
    for server in servers:
        if server.name == name:
            return servers, server
    raise KeyError(f"no server named {name!r} recorded in {dir / SERVERS_FILE}")


def stop_server(dir: Path | None, name: str) -> None:
    """Stop one recorded server (e.g. "volume-2" in a failure test); its record stays."""
    dir = _resolve(dir)
    with _locked(dir):
        _, server = _recorded(dir, name)
        _stop(dir, server)


def kill_server(dir: Path | None, name: str) -> None:
    """SIGKILL one recorded server (a machine lost, in failure tests); its record stays, so
    start_server brings it back."""
    dir = _resolve(dir)
    with _locked(dir):
        _, server = _recorded(dir, name)
        _signal_group(server, signal.SIGKILL)
        _wait_gone(server, STOP_TIMEOUT_S)


def start_server(dir: Path | None, name: str, timeout: float = START_TIMEOUT_S) -> ServerStatus:
    """Start one recorded server again with its recorded command and environment, on its
    recorded ports, and wait until it answers; nothing when it already runs."""
    dir = _resolve(dir)
    with _locked(dir):
        servers, server = _recorded(dir, name)
        current = _server_status(server)
        if current.up:
            return current
        _stop(dir, server)  # alive but not answering: start it anew
        busy = [p for p in server.ports if not _port_free(p)]
        if busy:
            raise ClusterStartError(f"cannot start {name} again: its port {busy[0]} is taken")
        run = _Startup(dir, servers)
        started = time.time()
        run.start(name)
        ready = None
        if name.startswith("volume-"):  # back in the master's topology: writes use it again
            master = next(s for s in servers if s.name == "master")
            ready = _volumes_registered([server.port], master.port)
        elif "pool" in server.extra:  # a worker: registered anew with the Prefect server
            settings = read_cluster_settings(dir)
            if settings is not None:
                ready = _heartbeat_since(settings, server.extra["pool"], name, started)
        try:
            run.wait(name, ready, timeout=timeout)
        except ClusterStartError:
            _stop(dir, server)
            raise
        return _server_status(server)
