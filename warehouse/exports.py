"""Exports for dashboards and notebooks: every mart as zstd Parquet and as CSV, plus
schema.json, the change feed and manifest.json, one folder (a snapshot) per publish.

Layout (`<data dir>/exports/`, warehouse/data/exports/ by default):

    snapshots/<publish_id>/     one folder per publish, never changed once `latest` names it
      manifest.json             publish_id, published_at and every file of the folder with its
                                sha256, bytes, rows, format, table and columns (name, type)
      schema.json               the data dictionary of the marts (models/docs.py)
      <mart>.parquet|csv, <table>/months/YYYY-MM.parquet|csv, <table>/latest.parquet|csv,
      price_changes.json
    latest -> snapshots/<publish_id>      a relative symbolic link, flipped atomically
    <name> -> latest/<name>     one relative link per top-level name of a snapshot, so the
                                paths of the flat layout before snapshots (`exports/gpu_offers.csv`,
                                `exports/schema.json`, `exports/price_history/months/...`) keep
                                working without a second copy

`publish_id` is the UTC time of the publish, YYYYMMDDTHHMMSSffffffZ (ids sort by time).

A publish writes its snapshot while the build is open, into `snapshots/.tmp-<publish_id>/`
(`stage_exports`); only once the warehouse itself has been swapped in does `commit()` write
manifest.json, fsync every file and folder, rename the folder to `snapshots/<publish_id>/` and
flip `latest` (a new link under a temporary name, os.replace'd over the old one). A failed
build changes nothing (`discard()`); a crash at any point leaves `latest` naming a complete
snapshot, and the next publish removes a half-written `.tmp-` folder. After the flip, the
snapshots beyond the newest KEEP (GPUCOST_EXPORT_SNAPSHOTS, default 3) are removed, never the
one `latest` names. A reader that resolves `latest` once (os.path.realpath, or reads
`latest/manifest.json` and then `snapshots/<its publish_id>/...`) reads one publish for as long
as its snapshot is kept (KEEP - 1 further publishes); a reader that opens `latest/...` path by
path may straddle a flip (compare `publish_id`). Readers take no lock: a dashboard reading the
exports never blocks a refresh.

The history marts (PARTITIONED: price_history, price_changes, price_index) grow with the whole
history, so they are exported by calendar month of their date column, one file per month and
format (`<table>/months/YYYY-MM.parquet|csv`). A publish writes only the months on or after the
earliest date its build changed (models/incremental.py; every month after a full build); each
other month is a hard link (os.link) to the previous snapshot's file, a copy when linking
fails (another filesystem), and its manifest entry is the previous one when the size and
inode match (the history is not hashed again). `<table>/latest.parquet|csv` is the last days of
the table, rewritten every publish (its size does not grow with history).

Types (docs/operations.md "Exports" lists what each reader gets): Parquet keeps DuckDB's
types (TIMESTAMP WITH TIME ZONE as a UTC-adjusted timestamp in microseconds, DATE as date32,
DOUBLE, BIGINT, ...). In CSV every TIMESTAMP WITH TIME ZONE is ISO-8601 in UTC with a full
offset and microseconds, `2026-05-20T00:00:00.000000+00:00` (one fixed width: pandas infers
one format from the first value and leaves a column whose values vary as text), a TIMESTAMP
without zone the same without the offset, a DATE `2026-05-20`.

CSV cells of text columns that a spreadsheet would run as a formula (starting with =, +, -,
@, a tab or a carriage return: a scraped GPU name such as ``=cmd|' /C calc'!A0``) are
prefixed with a single quote (OWASP's CSV-injection rule); numbers are never touched, and
Parquet keeps every value as stored.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import duckdb

from gpucost.warehouse.files import clear_name, open_exclusive

EXPORT_DIRNAME = "exports"
SCHEMA_NAME = "schema.json"
MANIFEST_NAME = "manifest.json"
SNAPSHOTS_DIRNAME = "snapshots"
LATEST_LINK = "latest"
KEEP_ENV = "GPUCOST_EXPORT_SNAPSHOTS"
DEFAULT_KEEP = 3
# what the files of a snapshot look like: a month file of an older format is never linked
# into a new snapshot (2: ISO-8601 CSV times)
EXPORT_FORMAT_VERSION = 2
_TMP_PREFIX = ".tmp-"
_ID = re.compile(r"^\d{8}T\d{12}Z$")
# history marts exported by month: table -> (its date column, days in its `latest` file: the
# report's 180-day chart for price_history, a week of changes for price_changes: its size
# follows how often prices change, and the month files hold the rest)
PARTITIONED = {"price_history": ("day", 180), "price_changes": ("changed_on", 7),
               # and the daily index (docs/price-index.md), its last 180 days in latest
               "price_index": ("day", 180)}
MONTHS_DIRNAME = "months"
LATEST_NAME = "latest"
FORMATS = {
    "parquet": "(format parquet, compression zstd)",
    "csv": "(format csv, header true)",
}
# CSV text of the time types (module docstring): one fixed ISO-8601 width per type
_CSV_TIMESTAMPTZ = "strftime(timezone('UTC', {c}), '%Y-%m-%dT%H:%M:%S.%f') || '+00:00'"
_CSV_TIMESTAMP = "strftime({c}, '%Y-%m-%dT%H:%M:%S.%f')"
_CSV_DATE = "strftime({c}, '%Y-%m-%d')"


class ExportSettingError(ValueError):
    """GPUCOST_EXPORT_SNAPSHOTS is not a whole number of at least 1."""


def export_dir(data_dir: Path) -> Path:
    return Path(data_dir) / EXPORT_DIRNAME


def keep_snapshots() -> int:
    """How many snapshots a publish keeps (GPUCOST_EXPORT_SNAPSHOTS, default 3, at least 1)."""
    raw = os.environ.get(KEEP_ENV, "").strip()
    if not raw:
        return DEFAULT_KEEP
    try:
        keep = int(raw)
    except ValueError:
        keep = 0
    if keep < 1:
        raise ExportSettingError(
            f"{KEEP_ENV} must be a whole number of snapshots, at least 1 (got {raw[:40]!r})")
    return keep


def publish_id(when: datetime) -> str:
    """The snapshot id of a publish at `when`: YYYYMMDDTHHMMSSffffffZ in UTC (sorts by time)."""
    return when.astimezone(UTC).strftime("%Y%m%dT%H%M%S%fZ")


def latest_snapshot(out_dir: Path) -> Path | None:
    """The snapshot folder `latest` names (resolved once: read from it to see one publish),
    or None when there is none (nothing published yet, or a link that is not ours)."""
    link = Path(out_dir) / LATEST_LINK
    try:
        target = os.readlink(link)
    except OSError:
        return None
    parts = Path(target).parts
    if len(parts) != 2 or parts[0] != SNAPSHOTS_DIRNAME or not _ID.match(parts[1]):
        return None
    folder = Path(out_dir) / SNAPSHOTS_DIRNAME / parts[1]
    return folder if folder.is_dir() and not folder.is_symlink() else None


def read_manifest(folder: Path) -> dict[str, Any]:
    """manifest.json of a snapshot folder ({} when absent or unreadable)."""
    try:
        doc = json.loads((Path(folder) / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(8 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _quote_path(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def _remove(path: Path) -> None:
    """Remove a file, a link or a folder tree (never following a link)."""
    if path.is_symlink() or not path.is_dir():
        path.unlink(missing_ok=True)
    else:
        shutil.rmtree(path, ignore_errors=True)


def remove_stale_temps(out_dir: Path) -> None:
    """Temporary files and half-written snapshot folders left by a crashed export are never
    published: remove them."""
    for folder in (Path(out_dir), Path(out_dir) / SNAPSHOTS_DIRNAME):
        if folder.is_dir():
            for p in folder.glob(_TMP_PREFIX + "*"):
                _remove(p)


class StagedExports:
    """A snapshot written under a temporary folder name, waiting for the publish to succeed."""

    def __init__(self, out_dir: Path, when: datetime | None = None):
        self.out_dir = Path(out_dir)
        self.published_at = (when or datetime.now(UTC)).astimezone(UTC)
        self.publish_id = publish_id(self.published_at)
        self.keep = keep_snapshots()
        snapshots = self.out_dir / SNAPSHOTS_DIRNAME
        self.final_dir = snapshots / self.publish_id
        self.dir = snapshots / f"{_TMP_PREFIX}{self.publish_id}"
        if self.final_dir.exists():
            raise FileExistsError(f"export snapshot {self.final_dir} exists already")
        self.dir.mkdir(parents=True)
        self.previous = latest_snapshot(self.out_dir)
        manifest = read_manifest(self.previous) if self.previous else {}
        self.previous_files: dict[str, dict[str, Any]] = (
            {f["path"]: f for f in manifest.get("files", []) if isinstance(f, dict)}
            if manifest.get("export_format") == EXPORT_FORMAT_VERSION else {})
        self.files: dict[str, dict[str, Any]] = {}  # relative path -> manifest entry
        self.done: list[Path] = []

    # -- writing -------------------------------------------------------------------------

    def stage(self, final_name: str) -> Path:
        """The path to write `final_name` (relative to the snapshot) at; its manifest entry
        is completed at commit unless `record` gave it."""
        path = self.dir / final_name
        path.parent.mkdir(parents=True, exist_ok=True)
        # DuckDB's COPY TO (and the JSON writers) would follow a link planted at this name:
        # whatever is there is removed first (warehouse/files.py)
        clear_name(path)
        fmt = path.suffix.lstrip(".")
        self.files[final_name] = {"path": final_name, "format": fmt, "table": None,
                                  "rows": None, "columns": []}
        return path

    def record(self, rel: str, *, table: str | None, rows: int | None,
               columns: list[dict[str, str]]) -> None:
        """What a staged file holds, hashed now (after the write: the page cache is warm)."""
        path = self.dir / rel
        self.files[rel].update(table=table, rows=rows, columns=columns,
                               sha256=_sha256(path), bytes=path.stat().st_size)

    def link_previous(self, rel: str) -> bool:
        """Take `rel` unchanged from the previous snapshot: a hard link (a copy when linking
        fails), its manifest entry the previous one when size and inode match. False when
        the previous snapshot has no such file (then write it)."""
        entry = self.previous_files.get(rel)
        if self.previous is None or entry is None:
            return False
        src = self.previous / rel
        try:
            before = src.stat()
        except OSError:
            return False
        dst = self.dir / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        clear_name(dst)
        try:
            os.link(src, dst)
        except OSError:  # another filesystem, a link count limit: copy it
            shutil.copyfile(src, dst)
        st = dst.stat()
        if (st.st_ino, st.st_dev, st.st_size) == (before.st_ino, before.st_dev, entry["bytes"]):
            self.files[rel] = dict(entry)
        else:
            self.files[rel] = {**entry, "sha256": _sha256(dst), "bytes": st.st_size}
            if self.files[rel]["sha256"] != entry.get("sha256"):
                dst.unlink()
                del self.files[rel]
                return False  # the previous file changed under us: write it anew
        return True

    # -- publishing ----------------------------------------------------------------------

    def manifest(self) -> dict[str, Any]:
        for rel, entry in self.files.items():
            if "sha256" not in entry:
                path = self.dir / rel
                entry.update(sha256=_sha256(path), bytes=path.stat().st_size)
        files = [{k: e[k] for k in ("path", "sha256", "bytes", "rows", "format", "table",
                                    "columns")}
                 for _, e in sorted(self.files.items())]
        return {"publish_id": self.publish_id,
                "published_at": self.published_at.isoformat(),
                "export_format": EXPORT_FORMAT_VERSION,
                "files": files}

    def commit(self) -> list[Path]:
        """Write manifest.json, fsync the snapshot, rename it into snapshots/, flip `latest`,
        point the flat paths at it and prune old snapshots; returns the published files."""
        doc = self.manifest()
        with open_exclusive(self.dir / MANIFEST_NAME) as fh:
            fh.write(json.dumps(doc, indent=1) + "\n")
        dirs = {self.dir}
        for rel in [*self.files, MANIFEST_NAME]:
            path = self.dir / rel
            _fsync(path)
            dirs.update(p for p in path.parents if self.dir in p.parents)
        for d in sorted(dirs, key=lambda p: -len(p.parts)):
            _fsync(d)
        os.replace(self.dir, self.final_dir)  # a whole snapshot, not yet the latest
        _fsync(self.final_dir.parent)
        _replace_with_link(self.out_dir / LATEST_LINK, f"{SNAPSHOTS_DIRNAME}/{self.publish_id}")
        self.done = [self.final_dir / rel for rel in [*self.files, MANIFEST_NAME]]
        link_flat_paths(self.out_dir, self.final_dir)
        prune_snapshots(self.out_dir, self.keep)
        return self.done

    def discard(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)
        self.files = {}


def _replace_with_link(path: Path, target: str, fsync: bool = True) -> None:
    """Make `path` the relative link `target` in one rename (os.replace of a new link made
    under a temporary name). A real folder at `path` (the flat layout of before, or a data
    dir copied without keeping links: `cp -r`) is moved aside first, then removed."""
    tmp = path.parent / f"{_TMP_PREFIX}link-{os.getpid()}-{path.name}"
    clear_name(tmp)
    os.symlink(target, tmp)
    old = None
    if path.is_dir() and not path.is_symlink():
        old = path.parent / f"{_TMP_PREFIX}old-{os.getpid()}-{path.name}"
        os.replace(path, old)
    os.replace(tmp, path)
    if fsync:
        _fsync(path.parent)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def link_flat_paths(out_dir: Path, snapshot: Path) -> None:
    """`exports/<name> -> latest/<name>` for every top-level name of `snapshot` (the paths of
    the flat layout keep working); a flat file or folder of an export written before snapshots
    is replaced by its link (the migration, once); a link whose name the snapshot no longer
    has is removed, and so is a flat export file the snapshot does not have."""
    names = {p.name for p in snapshot.iterdir()}
    for name in sorted(names):
        path = out_dir / name
        target = f"{LATEST_LINK}/{name}"
        try:
            if os.readlink(path) == target:
                continue
        except OSError:
            pass
        _replace_with_link(path, target, fsync=False)
    for path in out_dir.iterdir():
        if path.name in names or path.name in (SNAPSHOTS_DIRNAME, LATEST_LINK) \
                or path.name.startswith("."):
            continue
        if path.is_symlink():
            with contextlib.suppress(OSError):
                if os.readlink(path).startswith(f"{LATEST_LINK}/"):
                    path.unlink()
        elif path.is_file() and path.suffix in (".parquet", ".csv", ".json"):
            path.unlink()  # a flat export of an older publish (a mart no longer built)
    _fsync(out_dir)


def prune_snapshots(out_dir: Path, keep: int) -> list[str]:
    """Remove the snapshots beyond the newest `keep`, never the one `latest` names; returns
    the ids removed."""
    folder = Path(out_dir) / SNAPSHOTS_DIRNAME
    current = latest_snapshot(out_dir)
    ids = sorted((p.name for p in folder.iterdir() if _ID.match(p.name) and p.is_dir()),
                 reverse=True)
    keep_ids = set(ids[:max(keep, 1)]) | ({current.name} if current else set())
    removed = [i for i in ids if i not in keep_ids]
    for i in removed:
        shutil.rmtree(folder / i, ignore_errors=True)
    return removed


# the first characters that make a spreadsheet run a cell as a formula (compared as the first
# character, not by regular expression: the history exports quote millions of cells)
_FORMULA_START = "'=', '+', '-', '@', chr(9), chr(13)"


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[str, str]]:
    return [(r[0], r[1]) for r in con.execute(
        "select column_name, data_type from duckdb_columns() where table_name = ? "
        "and database_name = current_database() and schema_name = 'main' "
        "order by column_index", [table]).fetchall()]


def _csv_select(con: duckdb.DuckDBPyConnection, table: str) -> str:
    """`select` of `table` with every text cell that starts like a formula quoted and every
    time written as ISO-8601 (module docstring)."""
    parts = []
    for name, dtype in _columns(con, table):
        ident = '"' + name.replace('"', '""') + '"'
        if dtype == "VARCHAR":
            parts.append(f"case when left({ident}, 1) in ({_FORMULA_START}) "
                         f"then chr(39) || {ident} else {ident} end as {ident}")
        elif dtype == "TIMESTAMP WITH TIME ZONE":
            parts.append(f"{_CSV_TIMESTAMPTZ.format(c=ident)} as {ident}")
        elif dtype in ("TIMESTAMP", "TIMESTAMP_NS", "TIMESTAMP_MS", "TIMESTAMP_S"):
            parts.append(f"{_CSV_TIMESTAMP.format(c=ident)} as {ident}")
        elif dtype == "DATE":
            parts.append(f"{_CSV_DATE.format(c=ident)} as {ident}")
        else:
            parts.append(ident)
    return f'select {", ".join(parts) or "*"} from "{table}"'


def _month_starts(con: duckdb.DuckDBPyConnection, table: str, column: str,
                  since: date | None) -> list[date]:
    where = f"where {column} >= date_trunc('month', ?::date)" if since else ""
    return [r[0] for r in con.execute(
        f"select distinct date_trunc('month', {column})::date as m from \"{table}\" {where} "
        "order by 1", [since] if since else []).fetchall()]


def _copy(con: duckdb.DuckDBPyConnection, staged: StagedExports, table: str, fmt: str,
          where: str, rel: str) -> None:
    path = staged.stage(rel)
    select = _csv_select(con, table) if fmt == "csv" else f'select * from "{table}"'
    got = con.execute(f"copy ({select} {where}) to {_quote_path(path)} {FORMATS[fmt]}"
                      ).fetchone()
    rows = int(got[0]) if got and got[0] is not None else None
    staged.record(rel, table=table, rows=rows,
                  columns=[{"name": n, "type": t} for n, t in _columns(con, table)])


def _stage_partitioned(con: duckdb.DuckDBPyConnection, staged: StagedExports, table: str,
                       since: date | None) -> dict[str, Any]:
    """Month files of `table`: written when changed on or after `since` (every month when
    None), linked from the previous snapshot otherwise (written when it has none); then the
    latest window. Returns the schema.json `files` entry."""
    column, latest_days = PARTITIONED[table]
    every = _month_starts(con, table, column, None)
    rewrite = set(every if since is None else _month_starts(con, table, column, since))
    for m in every:
        for fmt in FORMATS:
            rel = f"{table}/{MONTHS_DIRNAME}/{m:%Y-%m}.{fmt}"
            if m not in rewrite and staged.link_previous(rel):
                continue
            _copy(con, staged, table, fmt, f"where {column} >= date '{m}' "
                  f"and {column} < date '{m}' + interval 1 month", rel)
    for fmt in FORMATS:
        _copy(con, staged, table, fmt, f"where {column} > (select max({column}) from "
              f"\"{table}\") - interval {latest_days} day", f"{table}/{LATEST_NAME}.{fmt}")
    return {
        "parquet": f"{table}/{MONTHS_DIRNAME}/*.parquet",
        "csv": f"{table}/{MONTHS_DIRNAME}/*.csv",
        "partitioned_by": f"calendar month of {column} (UTC)",
        "latest": {"parquet": f"{table}/{LATEST_NAME}.parquet",
                   "csv": f"{table}/{LATEST_NAME}.csv", "days": latest_days},
    }


def stage_exports(
    con: duckdb.DuckDBPyConnection,
    out_dir: Path,
    tables: list[str],
    schema: Callable[[dict[str, dict[str, Any]]], dict[str, Any]],
    changed_since: dict[str, date | None] | None = None,
    published_at: datetime | None = None,
) -> StagedExports:
    """Write each table as Parquet (zstd) and CSV, the feed and schema.json into a new
    snapshot folder under a temporary name.

    Nothing is visible until `commit()`; call it once the warehouse itself is published.
    `schema(files)` builds the JSON document (files: {table: {format: file name}}).
    `changed_since` ({table: earliest changed date, None = everything}) limits the month
    files written for the PARTITIONED tables (the others are linked from the previous
    snapshot). `published_at` (default now) names the snapshot.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(out_dir)
    staged = StagedExports(out_dir, published_at)
    files: dict[str, dict[str, Any]] = {}
    try:
        for table in tables:
            if table in PARTITIONED:
                files[table] = _stage_partitioned(
                    con, staged, table, (changed_since or {}).get(table))
                continue
            for fmt in FORMATS:
                _copy(con, staged, table, fmt, "", f"{table}.{fmt}")
                files.setdefault(table, {})[fmt] = f"{table}.{fmt}"
        if "price_changes" in tables:  # the change feed (JSON Feed 1.1): warehouse/feed.py
            from gpucost.warehouse.feed import FEED_NAME, stage_feed

            stage_feed(con, staged.stage)
            feed = json.loads((staged.dir / FEED_NAME).read_text(encoding="utf-8"))
            staged.record(FEED_NAME, table="price_changes", rows=len(feed.get("items", [])),
                          columns=[])
        with open_exclusive(staged.stage(SCHEMA_NAME)) as fh:
            fh.write(json.dumps(schema(files), indent=1, default=str) + "\n")
    except BaseException:
        staged.discard()
        raise
    return staged
