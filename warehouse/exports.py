"""Exports for dashboards and notebooks: every mart as zstd Parquet and as CSV, plus schema.json.

Written from the build that is being published into `<data dir>/exports/`
(warehouse/data/exports/ by default): every file is first written under a temporary name in
the same folder while the build is open, and only once the warehouse itself has been swapped in
is each one fsynced and renamed over the old one (os.replace). A reader never sees a
half-written file, a failed build changes no export, and a crash leaves every file whole. Readers of
Parquet and CSV take no lock: a dashboard reading the exports never blocks a refresh.

CSV cells of text columns that a spreadsheet would run as a formula (starting with =, +, -,
@, a tab or a carriage return: a scraped GPU name such as ``=cmd|' /C calc'!A0``) are
prefixed with a single quote (OWASP's CSV-injection rule); numbers are never touched, and
Parquet keeps every value as stored.

Each file is replaced on its own, so for the moment between two renames the folder can mix
the previous and the new publish; `schema.json` is written last and carries `published_at`
and every table's row count, so a reader that needs one consistent set can compare them.

The history marts (PARTITIONED: price_history, price_changes) grow with the whole history,
so they are exported by calendar month of their date column, one file per month and format
(`exports/<table>/months/YYYY-MM.parquet|csv`), and a publish rewrites only the months on or
after the earliest date its build changed (models/incremental.py; every month after a full
build, and any month whose file is missing). `exports/<table>/latest.parquet|csv` is the
stable path for dashboards: the last days of the table (PARTITIONED), rewritten every publish
(its size does not grow with history). The whole history is the glob
`exports/<table>/months/*.parquet`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import duckdb

from gpucost.warehouse.files import clear_name, open_exclusive

EXPORT_DIRNAME = "exports"
SCHEMA_NAME = "schema.json"
_TMP_PREFIX = ".tmp-"
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


def export_dir(data_dir: Path) -> Path:
    return Path(data_dir) / EXPORT_DIRNAME


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _quote_path(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def remove_stale_temps(out_dir: Path) -> None:
    """Temporary files left by a crashed export are never published: remove them."""
    for p in out_dir.glob(_TMP_PREFIX + "*"):
        p.unlink(missing_ok=True)


class StagedExports:
    """Export files written under temporary names, waiting for the publish to succeed."""

    def __init__(self, out_dir: Path):
        self.out_dir = out_dir
        self.pending: list[tuple[Path, Path]] = []  # (temporary, final), schema.json last
        self.stale: list[Path] = []  # removed once everything is renamed

    def stage(self, final_name: str) -> Path:
        final = self.out_dir / final_name
        tmp = final.parent / f"{_TMP_PREFIX}{os.getpid()}-{final.name}"
        # DuckDB's COPY TO (and the JSON writers) would follow a link planted at this name:
        # whatever is there is removed first (warehouse/files.py)
        clear_name(tmp)
        self.pending.append((tmp, final))
        return tmp

    def commit(self) -> list[Path]:
        """Rename every file into place (fsynced first); returns the published files."""
        done = []
        dirs = {self.out_dir}
        for tmp, final in self.pending:
            _fsync(tmp)
            os.replace(tmp, final)
            done.append(final)
            dirs.add(final.parent)
        for d in sorted(dirs):
            _fsync(d)
        self.pending = []
        for stale in self.stale:  # months a full rebuild no longer has
            stale.unlink(missing_ok=True)
        self.stale = []
        return done

    def discard(self) -> None:
        for tmp, _ in self.pending:
            tmp.unlink(missing_ok=True)
        self.pending = []


# the first characters that make a spreadsheet run a cell as a formula (compared as the first
# character, not by regular expression: the history exports quote millions of cells)
_FORMULA_START = "'=', '+', '-', '@', chr(9), chr(13)"


def _csv_select(con: duckdb.DuckDBPyConnection, table: str) -> str:
    """`select` of `table` with every text cell that starts like a formula quoted."""
    cols = con.execute(
        "select column_name, data_type from duckdb_columns() where table_name = ? "
        "and database_name = current_database() and schema_name = 'main' "
        "order by column_index", [table]).fetchall()
    parts = []
    for name, dtype in cols:
        ident = '"' + name.replace('"', '""') + '"'
        if dtype == "VARCHAR":
            parts.append(f"case when left({ident}, 1) in ({_FORMULA_START}) "
                         f"then chr(39) || {ident} else {ident} end as {ident}")
        else:
            parts.append(ident)
    return f'select {", ".join(parts) or "*"} from "{table}"'


def _month_starts(con: duckdb.DuckDBPyConnection, table: str, column: str,
                  since: date | None) -> list[date]:
    where = f"where {column} >= date_trunc('month', ?::date)" if since else ""
    return [r[0] for r in con.execute(
        f"select distinct date_trunc('month', {column})::date as m from \"{table}\" {where} "
        "order by 1", [since] if since else []).fetchall()]


def _copy(con: duckdb.DuckDBPyConnection, table: str, fmt: str, where: str, tmp: Path) -> None:
    select = _csv_select(con, table) if fmt == "csv" else f'select * from "{table}"'
    con.execute(f"copy ({select} {where}) to {_quote_path(tmp)} {FORMATS[fmt]}")


def _stage_partitioned(con: duckdb.DuckDBPyConnection, staged: StagedExports, table: str,
                       since: date | None) -> dict[str, Any]:
    """Month files of `table` changed on or after `since` (every month when None, and any
    month without a file), then the latest window; returns the schema.json `files` entry."""
    column, latest_days = PARTITIONED[table]
    months_dir = staged.out_dir / table / MONTHS_DIRNAME
    months_dir.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(months_dir)
    remove_stale_temps(months_dir.parent)
    every = _month_starts(con, table, column, None)
    present = {p.name for p in months_dir.iterdir()}
    rewrite = set(every if since is None else _month_starts(con, table, column, since))
    for m in every:
        for fmt in FORMATS:
            name = f"{m:%Y-%m}.{fmt}"
            if m not in rewrite and name in present:
                continue
            tmp = staged.stage(f"{table}/{MONTHS_DIRNAME}/{name}")
            _copy(con, table, fmt, f"where {column} >= date '{m}' "
                  f"and {column} < date '{m}' + interval 1 month", tmp)
    if since is None:
        keep = {f"{m:%Y-%m}.{fmt}" for m in every for fmt in FORMATS}
        staged.stale += [months_dir / n for n in sorted(present - keep)
                         if not n.startswith(_TMP_PREFIX)]
    # the single-file export of an older publish is replaced by the month files
    staged.stale += [p for fmt in FORMATS if (p := staged.out_dir / f"{table}.{fmt}").exists()]
    for fmt in FORMATS:
        tmp = staged.stage(f"{table}/{LATEST_NAME}.{fmt}")
        _copy(con, table, fmt, f"where {column} > (select max({column}) from \"{table}\") "
              f"- interval {latest_days} day", tmp)
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
) -> StagedExports:
    """Write each table as Parquet (zstd) and CSV, then schema.json, under temporary names.

    Nothing is visible until `commit()`; call it once the warehouse itself is published.
    `schema(files)` builds the JSON document (files: {table: {format: file name}}).
    `changed_since` ({table: earliest changed date, None = everything}) limits the month
    files rewritten for the PARTITIONED tables (everything when a table is not in it).
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(out_dir)
    staged = StagedExports(out_dir)
    files: dict[str, dict[str, Any]] = {}
    try:
        for table in tables:
            if table in PARTITIONED:
                files[table] = _stage_partitioned(
                    con, staged, table, (changed_since or {}).get(table))
                continue
            for fmt in FORMATS:
                tmp = staged.stage(f"{table}.{fmt}")
                _copy(con, table, fmt, "", tmp)
                files.setdefault(table, {})[fmt] = f"{table}.{fmt}"
        if "price_changes" in tables:  # the change feed (JSON Feed 1.1): warehouse/feed.py
            from gpucost.warehouse.feed import stage_feed

            stage_feed(con, staged.stage)
        with open_exclusive(staged.stage(SCHEMA_NAME)) as fh:
            fh.write(json.dumps(schema(files), indent=1, default=str) + "\n")
    except BaseException:
        staged.discard()
        raise
    return staged
