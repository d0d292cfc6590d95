"""Safe publishing: build into a new file, check, then atomically swap it in.

The published warehouse is warehouse/data/gpucost.duckdb. A build writes
gpucost_next.duckdb (raw.duckdb attached read-only as `raw`), is checked, checkpointed and
closed, and only then renamed over the published file with os.replace (atomic on POSIX).
A crash at any point leaves the published file untouched; an analyst holding the published
file open read-only keeps the old inode and never blocks the rename.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from gpucost.warehouse import memory_limit
from gpucost.warehouse.files import write_atomic

SERVING_NAME = "gpucost.duckdb"
# The published file is written in DuckDB 1.5's storage format, so that the `duckdb` CLI 1.5
# (PyPI `duckdb-cli`) and the BI drivers still on 1.5 (Evidence, Metabase, Grafana) open it;
# DuckDB 2.0's default format (storage version 69) is unreadable before 2.0
# (../shared/docs/pipeline-anchors.md, "Storage format break in 2.0"). The raw layer is ours
# alone and keeps the default.
SERVING_STORAGE_VERSION = "v1.5.0"
NEXT_NAME = "gpucost_next.duckdb"  # underscores: the file stem is the catalog name
# What the last publish built, beside the published file (written after the swap): every
# object of the file (kind, schema, name) and the file's size, modification time and sha256.
# The next build starts from a copy of the published file only when all still hold
# (base_problem): a client's read-write connection can plant tables, views or macros there, and
# a copy would carry them into every later build; bit rot that keeps the size and the time
# (a flipped byte inside price_history) changes the sha256.
MANIFEST_NAME = "published.json"


class WarehouseBusyError(Exception):
    """Another refresh or ingest holds the writer lock."""


class NoWarehouseError(Exception):
    """Nothing has been published yet."""


class WarehouseUnreadableError(Exception):
    """The published file exists but cannot be read (corrupt, truncated, not DuckDB)."""


class WarehouseCorruptError(WarehouseUnreadableError):
    """A block of the published file fails DuckDB's checksum (bit rot, a damaged disk)."""


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
    """sha256 of a file's bytes (26 MB, the published file fully loaded: about 16 ms)."""
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


def open_published(path: Path, max_memory: str | None = None) -> duckdb.DuckDBPyConnection:
    """The published file read-only with file access off: whatever a client planted in it
    (a view over read_text(...)) cannot read or write a file from this process.

    A second connection to a file this process holds open already shares its database
    instance, whose configuration the first locked: the same safe configuration (DuckDB
    refuses to open one file twice with different ones), so that is not an error.
    `max_memory`: DuckDB's memory_limit for this reader (`gpucost sql`), set before the lock."""
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


def _describe(obj: list[str]) -> str:
    kind, schema, name = obj
    return f"{kind.replace('_', ' ')} {schema}.{name}"


def base_problem(data_dir: Path) -> str:
    """'' when the published file holds exactly what the last publish built and nothing wrote
    to it since, else why it cannot be the base of an incremental build ("full: ...")."""
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
    if (st.st_size, st.st_mtime_ns) == (size, mtime_ns) and file_sha256(path) != sha256:
        # the same size and time, other bytes: bit rot (or a damaged disk), never a client
        return ("full: the published file is corrupted (its bytes differ from its publish "
                "at the same size and time: bit rot or a damaged disk)")
    try:
        con = open_published(path)
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
    if (st.st_size, st.st_mtime_ns) != (size, mtime_ns) or path.with_name(
            path.name + ".wal").exists():
        return "full: the published file was written to after its publish (a read-write client?)"
    return ""


def _remove_db(path: Path) -> None:
    for p in (path, path.with_name(path.name + ".wal")):
        p.unlink(missing_ok=True)


@contextmanager
def build(data_dir: Path, base: Path | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """Yield a connection to a build file with `raw` attached read-only: a new empty file, or
    a copy of `base` (the published file: an incremental build updates its history tables in
    place, models/incremental.py; the published file itself is only read; the caller checks
    with base_problem that it holds only what the models built).

    On normal exit the build is checkpointed, closed and swapped in; on an exception the
    build file is removed and the published warehouse is left as it was.
    """
    from gpucost.warehouse.store import RawStore  # pandas: not for read-only `gpucost sql`

    data_dir = Path(data_dir)
    store = RawStore(data_dir)
    with store.connect():
        pass  # create the raw layer, or bring an older one's schema up to date (migrations)
    nxt = data_dir / NEXT_NAME
    _remove_db(nxt)  # a build left by a crash is never published
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
    read with file access off), or None when it cannot be read."""
    try:
        con = open_published(path)
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


def connect_readonly(data_dir: Path, *, allow_files: bool = False,
                     max_memory: str | None = None) -> duckdb.DuckDBPyConnection:
    """A read-only connection to the published warehouse, file access disabled by default
    (`max_memory`: DuckDB's memory_limit for it, `gpucost sql`)."""
    path = serving_path(data_dir)
    if not path.exists():
        raise NoWarehouseError(f"no published warehouse at {path}: run `gpucost refresh` first")
    try:
        if not allow_files:
            return open_published(path, max_memory)
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        if "lock" in str(exc).lower():
            raise
        raise WarehouseUnreadableError(
            f"the published warehouse {path} cannot be read "
            f"({' '.join(str(exc).split())[:160]}); rebuild it from the raw layer with "
            "`gpucost refresh` (or `gpucost ingest`): raw.duckdb is a separate file") from None
    return con
