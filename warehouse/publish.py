"""Safe publishing: build into a new file, check, then atomically swap it in.

The published warehouse is warehouse/data/gpucost.duckdb. A build writes
gpucost_next.duckdb (raw.duckdb attached read-only as `raw`), is checked, checkpointed and
closed, and only then renamed over the published file with os.replace (atomic on POSIX).
A crash at any point leaves the published file untouched; an analyst holding the published
file open read-only keeps the old inode and never blocks the rename.

A client holding the published file read-write (DuckDB's exclusive lock: no other process can
open it) blocks nothing either: the build starts from a copy of the file's bytes (stage_base),
and readers read a private copy when its bytes are those of its publish (open_published).
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from gpucost.warehouse import memory_limit
from gpucost.warehouse.files import write_atomic

SERVING_NAME = "gpucost.duckdb"
# The published file is written in DuckDB 1.4's storage format (storage version 67), the
# oldest engine dashboards still ship: duckdb-wasm 1.32 and `@duckdb/node-api` 1.4 (Evidence's
# DuckDB driver) are DuckDB 1.4 and refuse 1.5's format ("version number 68, but we can only
# read versions between 64 and 67"); DuckDB 1.5 and 2.x read it too. DuckDB 2.0's default
# format (storage version 69) is unreadable before 2.0 (../shared/docs/pipeline-anchors.md,
# "Storage format break in 2.0"). Nothing the models build needs a newer format (every model,
# check and incremental history build passes with it: docs/dashboards.md). The raw layer is
# ours alone and keeps the default.
SERVING_STORAGE_VERSION = "v1.4.0"
NEXT_NAME = "gpucost_next.duckdb"  # underscores: the file stem is the catalog name
# What the last publish built, beside the published file (written after the swap): every
# object of the file (kind, schema, name) and the file's size, modification time and sha256.
# The next build starts from a copy of the published file only when the copy's sha256 is the
# recorded one (stage_base, base_problem): a client's read-write connection can plant tables,
# views or macros there, and a copy would carry them into every later build; bit rot keeps
# the size and the time (a flipped byte inside price_history) but changes the sha256. The
# objects name what a client planted; the size and time tell bit rot from a client.
MANIFEST_NAME = "published.json"


class WarehouseBusyError(Exception):
    """Another refresh or ingest holds the writer lock."""


class NoWarehouseError(Exception):
    """Nothing has been published yet."""


class WarehouseUnreadableError(Exception):
    """The published file exists but cannot be read (corrupt, truncated, not DuckDB)."""


class WarehouseCorruptError(WarehouseUnreadableError):
    """A block of the published file fails DuckDB's checksum (bit rot, a damaged disk)."""


class WarehouseLockedError(WarehouseUnreadableError, duckdb.IOException):
    """DuckDB cannot open the published file (another process's read-write connection holds
    its exclusive lock, or that client's write-ahead log sits beside it) and no private copy
    of it is read either: its bytes are no longer those of its publish, the copy failed, or
    the caller asked for no copy. One line naming the process DuckDB names and the fix. A
    duckdb.IOException too: every caller that treated DuckDB's own lock error as "cannot be
    read" still does."""


def is_corruption(exc: BaseException) -> bool:
    """Whether a DuckDB error says a block of a database file failed its checksum."""
    text = str(exc)
    return "Corrupt database file" in text or (
        "checksum" in text and "does not match" in text)


def corrupted_published(path: Path, exc: BaseException) -> WarehouseCorruptError:
    """The one-line error of a query that met a corrupted block of the published file."""
    where = str(exc).rsplit(" in block at location ", 1)
    block = f" (block at byte {where[1].split()[0]})" if len(where) == 2 else ""
    return WarehouseCorruptError(
        f"the published warehouse {path} is corrupted: a block fails DuckDB's checksum"
        f"{block}; the next `gpucost refresh` rebuilds it in full from the raw layer "
        "(raw.duckdb is a separate file; docs/operations.md, \"Recovering the raw layer\")")


class DataDirNotWritableError(Exception):
    """The data directory (or its writer lock) cannot be written: read-only, no permission."""


class ShrinkRefusedError(Exception):
    """The new build holds far fewer rows in force than the published warehouse (a lost or
    replaced raw.duckdb, a forced smaller replay): not published without --allow-shrink."""


# a source whose rows in force fall below this share of the published ones blocks the
# publish (the same ratio as the loader's row-count guard, which no single load can pass)
SHRINK_RATIO = 0.5


def serving_path(data_dir: Path) -> Path:
    return Path(data_dir) / SERVING_NAME


@contextmanager
def writer_lock(data_dir: Path) -> Iterator[None]:
    """One writer at a time (refresh, ingest); a second one fails at once with a clear error."""
    data_dir = Path(data_dir)
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        # never through a link planted at the lock's name (O_NOFOLLOW)
        fd = os.open(data_dir / ".writer.lock",
                     os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o644)
        fh = os.fdopen(fd, "a+")
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise DataDirNotWritableError(
                f"{data_dir / '.writer.lock'} is a symbolic link (planted?): gpucost never "
                "writes through one; nothing was changed. Remove it") from None
        raise DataDirNotWritableError(
            f"cannot write to the data directory {data_dir} ({exc.strerror or exc}); "
            "nothing was changed. Make it writable, or point GPUCOST_DATA_DIR elsewhere"
        ) from None
    with fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise WarehouseBusyError(
                f"another gpucost refresh/ingest is writing to {data_dir}"
            ) from None
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def manifest_path(data_dir: Path) -> Path:
    return Path(data_dir) / MANIFEST_NAME


# every object a database holds (user schemas, tables, views, macros, sequences, indexes,
# types). Definitions are left out: DuckDB renders a macro's anew once stored (constants
# folded); a replaced definition changes the file, which the size and time check sees.
_OBJECTS = """
select distinct * from (
select 'schema', schema_name, schema_name from duckdb_schemas()
  where database_name = current_database() and not internal
union all select 'table', schema_name, table_name from duckdb_tables()
  where database_name = current_database() and not temporary
union all select 'view', schema_name, view_name from duckdb_views()
  where database_name = current_database() and not internal and not temporary
union all select function_type, schema_name, function_name from duckdb_functions()
  where database_name = current_database() and not internal
  and function_type in ('macro', 'table_macro')
union all select 'sequence', schema_name, sequence_name from duckdb_sequences()
  where database_name = current_database() and not temporary
union all select 'index', schema_name, index_name from duckdb_indexes()
  where database_name = current_database()
union all select 'type', schema_name, type_name from duckdb_types()
  where database_name = current_database() and not internal)
order by all
"""


def objects_of(con: duckdb.DuckDBPyConnection) -> list[list[str]]:
    """[kind, schema, name] of every object in the connection's database."""
    return [list(r) for r in con.execute(_OBJECTS).fetchall()]


def file_sha256(path: Path) -> str:
    """sha256 of a file's bytes (36 MB, the published file of the documented load: about
    40 ms on 2 busy cores)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _write_manifest(data_dir: Path, objects: list[list[str]]) -> None:
    path = serving_path(data_dir)
    st = path.stat()
    write_atomic(manifest_path(data_dir), json.dumps({
        "size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": file_sha256(path),
        "objects": objects}))


# DuckDB's error when another process holds the file's lock: "Could not set lock on file
# "...": Conflicting lock is held in /usr/bin/python3.11 (PID 8488) by user ann. See also ..."
_LOCK_ERROR = "Could not set lock on file"
_LOCK_HOLDER = re.compile(r"Conflicting lock is held in (?P<program>.+?) \(PID (?P<pid>\d+)\)"
                          r"(?: by user (?P<user>[^\s.]+))?")


def lock_holder(exc: BaseException) -> str | None:
    """Who holds the file's lock, from DuckDB's lock error ("PID 8488 (/usr/bin/python3.11)",
    or "another process" when DuckDB does not say); None when `exc` is no lock error."""
    text = " ".join(str(exc).split())
    if _LOCK_ERROR not in text:
        return None
    found = _LOCK_HOLDER.search(text)
    if not found:
        return "another process"
    user = f", user {found['user']}" if found["user"] else ""
    return f"PID {found['pid']} ({found['program']}{user})"


def _readonly_connection(path: Path, max_memory: str | None,
                         allow_files: bool = False) -> duckdb.DuckDBPyConnection:
    if allow_files:  # check_published: it attaches the raw layer, then turns file access off
        return duckdb.connect(str(path), read_only=True)
    con = duckdb.connect(str(path), read_only=True,
                         config={"enable_external_access": False})
    try:
        # DuckDB draws a progress bar on stdout past 2 s: never inside a CSV or JSON answer
        con.execute("set enable_progress_bar = false")
        if max_memory:
            con.execute("set memory_limit = ?", [max_memory])
        con.execute("set lock_configuration = true")
    except duckdb.InvalidInputException as exc:
        if "has been locked" not in str(exc):
            con.close()
            raise
    return con


def _published_bytes(path: Path, copy: Path) -> bool:
    """Whether `copy` holds exactly the bytes the last publish wrote at `path` (the published
    file's size and sha256 recorded in published.json beside it)."""
    if path.name != SERVING_NAME:
        return False
    try:
        recorded = json.loads(manifest_path(path.parent).read_text(encoding="utf-8"))
        size, sha256 = recorded["size"], recorded["sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return copy.stat().st_size == size and file_sha256(copy) == sha256


_FIX = ("close that client or connect it read-only (DuckDB: read_only=True, "
        "`ATTACH ... (READ_ONLY)`, the CLI's -readonly; docs/dashboards.md)")
# DuckDB's errors when the write-ahead log beside a file belongs to another file: a client
# kept a read-write connection to a published file a publish replaced (os.replace) and wrote
# to it since, so a new gpucost.duckdb.wal of the replaced file sits beside the new one: "WAL
# does not match database file" (a full build: another database), "... the WAL checkpoint
# iteration does not match the database file" (an incremental build: a copy of the same one)
_FOREIGN_WAL = re.compile(r"WAL does not match database file|WAL checkpoint iteration does "
                          r"not match the database file")


def _open_private_copy(path: Path, max_memory: str | None, why: str, *, verify: bool,
                       say: Callable[[str], None] | None,
                       allow_files: bool = False) -> duckdb.DuckDBPyConnection:
    """The published file read from a private copy of its bytes alone (no write-ahead log),
    made in a fresh 0700 folder of the temporary directory (TMPDIR), because DuckDB cannot
    open the file itself (`why`: another process holds its lock, or a client's foreign
    write-ahead log sits beside it). With `verify` only a copy whose bytes are those of the
    last publish is read (sha256 of the copy against published.json): else
    WarehouseLockedError. The copy is unlinked as soon as DuckDB has opened it (its space is
    freed when the connection closes; nothing is left behind)."""
    folder = Path(tempfile.mkdtemp(prefix="gpucost-reader-"))
    copy = folder / path.name  # the same name: the catalog stays `gpucost`
    try:
        try:
            shutil.copyfile(path, copy)
        except OSError as exc:
            raise WarehouseLockedError(
                f"the published warehouse {path} {why}, and no private copy of it could be "
                f"made in {folder.parent} ({exc.strerror or exc}); {_FIX}") from None
        copy_bytes = copy.stat().st_size
        if verify and not _published_bytes(path, copy):
            raise WarehouseLockedError(
                f"the published warehouse {path} {why}, and its bytes are no longer those of "
                f"its publish (the client wrote to it), so gpucost does not read it; {_FIX}; "
                "the next `gpucost refresh` publishes a new file, rebuilt in full")
        con = _readonly_connection(copy, max_memory, allow_files)
    finally:
        copy.unlink(missing_ok=True)
        folder.rmdir()
    if say is not None:
        say(f"note: the published warehouse {path} {why}; reading a private copy of it "
            f"({copy_bytes / 1e6:.0f} MB" + (", unchanged since its publish" if verify else "")
            + f"). To avoid the copy, {_FIX}")
    return con


def open_published(path: Path, max_memory: str | None = None, *, if_locked: str = "copy",
                   say: Callable[[str], None] | None = None,
                   allow_files: bool = False) -> duckdb.DuckDBPyConnection:
    """The published file read-only with file access off: whatever a client planted in it
    (a view over read_text(...)) cannot read or write a file from this process.

    A second connection to a file this process holds open already shares its database
    instance, whose configuration the first locked: the same safe configuration (DuckDB
    refuses to open one file twice with different ones), so that is not an error.
    `max_memory`: DuckDB's memory_limit for this reader (`gpucost sql`), set before the lock.

    Another process's read-write connection (a BI tool's default) holds DuckDB's exclusive
    lock on the file and no other process can open it, even read-only; a client that kept
    such a connection across a publish and wrote since leaves its write-ahead log beside the
    new file, which DuckDB then refuses to open ("WAL does not match database file").
    `if_locked` says what then: "copy" reads a private copy of the file's bytes when they are
    still those of its publish (sha256 against published.json), else raises
    WarehouseLockedError (one line: who holds the lock, how to fix it); "any-copy" reads a
    private copy whatever it holds (the shrink guard's counts); "error" raises
    WarehouseLockedError. `say` is told when a copy is read (the CLI prints it on stderr).
    `allow_files`: file access left on (only check_published, which turns it off itself once
    the raw layer is attached)."""
    try:
        return _readonly_connection(path, max_memory, allow_files)
    except duckdb.IOException as exc:
        holder = lock_holder(exc)
        if holder is not None:
            why = f"is locked by {holder}, a read-write connection"
        elif _FOREIGN_WAL.search(" ".join(str(exc).split())):
            why = (f"has beside it a write-ahead log of another file ({path.name}.wal: a "
                   "read-write client of the file a publish replaced wrote to it since)")
        else:
            raise
        if if_locked == "error":
            raise WarehouseLockedError(f"the published warehouse {path} {why}; {_FIX}") from exc
    return _open_private_copy(path, max_memory, why, verify=if_locked != "any-copy",
                              say=say, allow_files=allow_files)


def _describe(obj: list[str]) -> str:
    kind, schema, name = obj
    return f"{kind.replace('_', ' ')} {schema}.{name}"


def base_problem(data_dir: Path, copy: Path | None = None) -> str:
    """'' when the published file holds exactly the bytes the last publish wrote (its sha256
    in published.json), else why it cannot be the base of an incremental build ("full: ...").

    `copy`: a copy of the published file the caller made (stage_base: the build file). Its
    bytes are checked and its objects listed, so the published file itself is never opened:
    a client's read-write connection (a BI tool's default) holds DuckDB's exclusive lock on
    it, and a client that changed nothing does not force a full rebuild. A client that wrote
    to it (tables, views or macros planted, rows changed, checkpointed) changed its bytes: a
    full rebuild, named. A write-ahead log a client left beside it is not the base (the
    swap removes it)."""
    path = serving_path(data_dir)
    if not path.exists():
        return "full: no previous build"
    try:
        recorded = json.loads(manifest_path(data_dir).read_text(encoding="utf-8"))
        size, mtime_ns, expected = recorded["size"], recorded["mtime_ns"], recorded["objects"]
        sha256 = recorded["sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return "full: the published file has no record of what its publish built"
    st = path.stat()
    target = copy or path
    if target.stat().st_size == size and file_sha256(target) == sha256:
        return ""
    if (st.st_size, st.st_mtime_ns) == (size, mtime_ns):
        # the same size and time, other bytes: bit rot (or a damaged disk), never a client
        return ("full: the published file is corrupted (its bytes differ from its publish "
                "at the same size and time: bit rot or a damaged disk)")
    try:
        con = open_published(target, if_locked="error")
    except WarehouseLockedError as exc:
        holder = lock_holder(exc.__cause__) if exc.__cause__ else None
        return ("full: the published file was written to after its publish by a read-write "
                f"client that still holds it: {holder or 'another process'}")
    except duckdb.Error:
        return "full: the previous build cannot be read"
    try:
        found = objects_of(con)
    except duckdb.Error:
        return "full: the previous build cannot be read (corrupted)"
    finally:
        con.close()
    extra = [o for o in found if o not in expected]
    missing = [o for o in expected if o not in found]
    if extra or missing:
        what = [f"{_describe(o)} not built by the models" for o in extra[:3]]
        what += [f"{_describe(o)} missing" for o in missing[:max(0, 3 - len(what))]]
        more = len(extra) + len(missing) - len(what)
        return ("full: the published file holds objects its publish did not build ("
                + "; ".join(what) + (f"; {more} more" if more > 0 else "") + ")")
    return "full: the published file was written to after its publish (a read-write client?)"


def storage_problem(path: Path) -> str:
    """'' when the file at `path` is in the storage format the publish writes
    (SERVING_STORAGE_VERSION), else why it cannot be the base of an incremental build: DuckDB
    keeps a file's format when it writes into it, so a file published by an older gpucost in
    a newer format (v1.5.0, unreadable by DuckDB 1.4) stays so until a full rebuild."""
    try:
        con = open_published(path, if_locked="error")
    except duckdb.Error:
        return "full: the previous build cannot be read"
    try:
        row = con.execute("select tags['storage_version'] from duckdb_databases() "
                          "where database_name = current_database()").fetchone()
    except duckdb.Error:
        return "full: the previous build cannot be read"
    finally:
        con.close()
    found = (row[0] or "") if row else ""
    if found and found.removesuffix("+") != SERVING_STORAGE_VERSION:
        return (f"full: the published file is in DuckDB storage version {found}, the publish "
                f"writes {SERVING_STORAGE_VERSION} (readable by DuckDB 1.4 and later)")
    return ""


def stage_base(data_dir: Path, check: Callable[[Path], str] | None = None) -> str:
    """Copy the published file into the build file (gpucost_next.duckdb) and check the copy
    (base_problem, storage_problem, then `check`: models/incremental.py's base_reason): ''
    when the copy can be the base of an incremental build (then `build(data_dir,
    staged=True)` builds on it), else why not ("full: ..."; the copy is removed). The
    published file is read as bytes only, never opened by DuckDB: another process's
    read-write connection holding its lock does not make the build full. Called under the
    writer lock."""
    data_dir = Path(data_dir)
    path, nxt = serving_path(data_dir), data_dir / NEXT_NAME
    _remove_db(nxt)  # a build left by a crash is never published
    if not path.exists():
        return "full: no previous build"
    staged = False
    try:
        shutil.copyfile(path, nxt)  # a full disk: the partial copy is removed (finally)
        reason = (base_problem(data_dir, copy=nxt) or storage_problem(nxt)
                  or (check(nxt) if check else ""))
        staged = not reason
        return reason
    finally:
        if not staged:
            _remove_db(nxt)


def _remove_db(path: Path) -> None:
    for p in (path, path.with_name(path.name + ".wal")):
        p.unlink(missing_ok=True)


@contextmanager
def build(data_dir: Path, base: Path | None = None,
          staged: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
    """Yield a connection to a build file with `raw` attached read-only: a new empty file, a
    copy of `base`, or (`staged`) the build file stage_base copied from the published file
    and checked (an incremental build updates its history tables in place,
    models/incremental.py; the published file itself is only read).

    On normal exit the build is checkpointed, closed and swapped in; on an exception the
    build file is removed and the published warehouse is left as it was.
    """
    from gpucost.warehouse.store import RawStore  # pandas: not for read-only `gpucost sql`

    data_dir = Path(data_dir)
    store = RawStore(data_dir)
    with store.connect():
        pass  # create the raw layer, or bring an older one's schema up to date (migrations)
    nxt = data_dir / NEXT_NAME
    if not staged:
        _remove_db(nxt)  # a build left by a crash is never published
    elif not nxt.exists():
        raise FileNotFoundError(f"no staged build file at {nxt} (stage_base)")
    con = None
    swapped = False
    try:
        # a full disk during the copy or the build: the partial file is removed (finally)
        if base is not None:
            shutil.copyfile(base, nxt)
        con = duckdb.connect(
            str(nxt), config={"storage_compatibility_version": SERVING_STORAGE_VERSION,
                              "memory_limit": memory_limit()})
        con.execute("set enable_progress_bar = false")
        con.execute("attach ? as raw (read_only)", [str(store.db_path)])
        yield con
        con.execute("detach raw")
        con.execute("checkpoint")
        objects = objects_of(con)
        con.close()
        _fsync(nxt)
        manifest_path(data_dir).unlink(missing_ok=True)  # a crash from here: a full rebuild
        # a client's write-ahead log of the replaced file must never be replayed onto this one
        serving_path(data_dir).with_name(SERVING_NAME + ".wal").unlink(missing_ok=True)
        os.replace(nxt, serving_path(data_dir))
        _fsync(data_dir)
        swapped = True
        _write_manifest(data_dir, objects)
    finally:
        if not swapped:
            if con is not None:
                try:  # a connection a fatal error (disk full) invalidated may fail to close
                    con.close()
                except duckdb.Error:
                    pass
            _remove_db(nxt)


def _published_counts(path: Path) -> tuple[dict[str, int], int | None] | None:
    """Rows in force per source and price-history rows of the published file (tables only,
    read with file access off), or None when it cannot be read. A client's read-write
    connection holding the file's lock: read from a private copy, whatever it holds (the
    guard needs a baseline; a copy torn by the client's own checkpoint fails to read: None)."""
    try:
        con = open_published(path, if_locked="any-copy")
    except duckdb.Error:
        return None
    try:
        tables = {r[0] for r in con.execute(
            "select table_name from duckdb_tables() where database_name = current_database() "
            "and schema_name = 'main'").fetchall()}
        health = dict(con.execute(
            "select source, rows_in_force from source_health").fetchall()
        ) if "source_health" in tables else {}
        history = con.execute("select count(*) from price_history").fetchone()[0] \
            if "price_history" in tables else None
        return health, history
    except duckdb.Error:
        return None
    finally:
        con.close()


def shrink_of(con: duckdb.DuckDBPyConnection, data_dir: Path) -> list[str]:
    """What the build on `con` would lose against the published warehouse: one line per
    source whose rows in force fall below SHRINK_RATIO of the published ones, and the price
    history if it does (empty when nothing shrinks or nothing was published before)."""
    published = serving_path(data_dir)
    counts = _published_counts(published) if published.exists() else None
    if counts is None:  # nothing published, or unreadable: no baseline, rebuild over it
        return []
    health, history = counts
    new = dict(con.execute("select source, rows_in_force from source_health").fetchall())
    now_rows = con.execute("select count(*) from price_history").fetchone()[0] \
        if history else None
    return shrink_between(health, history, new, now_rows)


def shrink_between(health: dict[str, int], history: int | None, new: dict[str, int],
                   new_history: int | None) -> list[str]:
    """The shrink test itself (shrink_of; the cluster's snapshot applies it to CURRENT):
    rows in force per source and price-history rows before (`health`, `history`) and after."""
    lost = [f"{source} {old} -> {new.get(source) or 0} rows in force"
            for source, old in sorted(health.items())
            # the curated reference prices are in git, not in the raw layer: fewer of them in
            # force means newer first-hand observations superseded them, never lost data
            if old and old > 0 and source != "reference"
            and (new.get(source) or 0) < SHRINK_RATIO * old]
    if history and (new_history or 0) < SHRINK_RATIO * history:
        lost.append(f"price_history {history} -> {new_history or 0} rows")
    return lost


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _note(message: str) -> None:
    """One line on stderr, control characters escaped (a path or program name may hold any)."""
    import sys

    print("".join(c if c.isprintable() else repr(c)[1:-1] for c in message), file=sys.stderr)


def connect_readonly(data_dir: Path, *, allow_files: bool = False,
                     max_memory: str | None = None,
                     say: Callable[[str], None] | None = _note) -> duckdb.DuckDBPyConnection:
    """A read-only connection to the published warehouse, file access disabled by default
    (`max_memory`: DuckDB's memory_limit for it, `gpucost sql`). Locked by another process's
    read-write connection: a private copy when its bytes are still those of the publish
    (`say` is told, on stderr by default), else WarehouseLockedError (open_published)."""
    path = serving_path(data_dir)
    if not path.exists():
        raise NoWarehouseError(f"no published warehouse at {path}: run `gpucost refresh` first")
    try:
        return open_published(path, max_memory, say=say, allow_files=allow_files)
    except WarehouseLockedError:
        raise
    except duckdb.Error as exc:
        if "lock" in str(exc).lower():
            raise
        raise WarehouseUnreadableError(
            f"the published warehouse {path} cannot be read "
            f"({' '.join(str(exc).split())[:160]}); rebuild it from the raw layer with "
            "`gpucost refresh` (or `gpucost ingest`): raw.duckdb is a separate file") from None
