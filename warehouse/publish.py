"""Safe publishing: build into a new file, check, then atomically swap it in.

The published warehouse is warehouse/data/gpucost.duckdb. A build writes
gpucost_next.duckdb (raw.duckdb attached read-only as `raw`), is checked, checkpointed and
closed, and only then renamed over the published file with os.replace (atomic on POSIX).
A crash at any point leaves the published file untouched; an analyst holding the published
file open read-only keeps the old inode and never blocks the rename.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
from gpucost.warehouse import memory_limit

SERVING_NAME = "gpucost.duckdb"
# The published file is written in DuckDB 1.5's storage format, so that the `duckdb` CLI 1.5
# (PyPI `duckdb-cli`) and the BI drivers still on 1.5 (Evidence, Metabase, Grafana) open it;
# DuckDB 2.0's default format (storage version 69) is unreadable before 2.0
# (../shared/docs/pipeline-anchors.md, "Storage format break in 2.0"). The raw layer is ours
# alone and keeps the default.
SERVING_STORAGE_VERSION = "v1.5.0"
NEXT_NAME = "gpucost_next.duckdb"  # underscores: the file stem is the catalog name


class WarehouseBusyError(Exception):
    """Another refresh or ingest holds the writer lock."""


class NoWarehouseError(Exception):
    """Nothing has been published yet."""


class WarehouseUnreadableError(Exception):
    """The published file exists but cannot be read (corrupt, truncated, not DuckDB)."""


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
        fh = (data_dir / ".writer.lock").open("a+")
    except OSError as exc:
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


def _remove_db(path: Path) -> None:
    for p in (path, path.with_name(path.name + ".wal")):
        p.unlink(missing_ok=True)


@contextmanager
def build(data_dir: Path, base: Path | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """Yield a connection to a build file with `raw` attached read-only: a new empty file, or
    a copy of `base` (the published file: an incremental build updates its history tables in
    place, models/incremental.py; the published file itself is only read).

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
    if base is not None:
        shutil.copyfile(base, nxt)
    con = duckdb.connect(str(nxt),
                         config={"storage_compatibility_version": SERVING_STORAGE_VERSION,
                                 "memory_limit": memory_limit()})
    con.execute("set enable_progress_bar = false")
    swapped = False
    try:
        con.execute("attach ? as raw (read_only)", [str(store.db_path)])
        yield con
        con.execute("detach raw")
        con.execute("checkpoint")
        con.close()
        _fsync(nxt)
        os.replace(nxt, serving_path(data_dir))
        _fsync(data_dir)
        swapped = True
    finally:
        if not swapped:
            con.close()
            _remove_db(nxt)


def shrink_of(con: duckdb.DuckDBPyConnection, data_dir: Path) -> list[str]:
    """What the build on `con` would lose against the published warehouse: one line per
    source whose rows in force fall below SHRINK_RATIO of the published ones, and the price
    history if it does (empty when nothing shrinks or nothing was published before)."""
    published = serving_path(data_dir)
    if not published.exists():
        return []
    try:
        con.execute("attach ? as previous (read_only)", [str(published)])
    except duckdb.Error:  # an unreadable published file is no baseline: rebuild over it
        return []
    try:
        tables = {r[0] for r in con.execute(
            "select table_name from duckdb_tables() where database_name = 'previous'"
        ).fetchall()}
        lost: list[str] = []
        if "source_health" in tables:
            lost += [f"{source} {old} -> {new or 0} rows in force" for source, old, new in
                     con.execute(
                         "select old.source, old.rows_in_force, new.rows_in_force "
                         "from previous.source_health as old "
                         "left join source_health as new on new.source = old.source "
                         "where old.rows_in_force > 0 "
                         # the curated reference prices are in git, not in the raw layer:
                         # fewer of them in force means newer first-hand observations
                         # superseded them, never that data was lost
                         "and old.source <> 'reference' "
                         "and coalesce(new.rows_in_force, 0) < ? * old.rows_in_force "
                         "order by old.source", [SHRINK_RATIO]).fetchall()]
        if "price_history" in tables:
            old, new = con.execute("select (select count(*) from previous.price_history), "
                                   "(select count(*) from price_history)").fetchone()
            if old and new < SHRINK_RATIO * old:
                lost.append(f"price_history {old} -> {new} rows")
        return lost
    finally:
        con.execute("detach previous")


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def connect_readonly(data_dir: Path, *, allow_files: bool = False) -> duckdb.DuckDBPyConnection:
    """A read-only connection to the published warehouse, file access disabled by default."""
    path = serving_path(data_dir)
    if not path.exists():
        raise NoWarehouseError(f"no published warehouse at {path}: run `gpucost refresh` first")
    config: dict[str, str | bool] = {}
    if not allow_files:
        config["enable_external_access"] = False
    try:
        con = duckdb.connect(str(path), read_only=True, config=config)
    except duckdb.Error as exc:
        if "lock" in str(exc).lower():
            raise
        raise WarehouseUnreadableError(
            f"the published warehouse {path} cannot be read "
            f"({' '.join(str(exc).split())[:160]}); rebuild it from the raw layer with "
            "`gpucost refresh` (or `gpucost ingest`): raw.duckdb is a separate file") from None
    if not allow_files:
        con.execute("set lock_configuration = true")
    return con
