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
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb

EXPORT_DIRNAME = "exports"
SCHEMA_NAME = "schema.json"
_TMP_PREFIX = ".tmp-"
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

    def stage(self, final_name: str) -> Path:
        tmp = self.out_dir / f"{_TMP_PREFIX}{os.getpid()}-{final_name}"
        self.pending.append((tmp, self.out_dir / final_name))
        return tmp

    def commit(self) -> list[Path]:
        """Rename every file into place (fsynced first); returns the published files."""
        done = []
        for tmp, final in self.pending:
            _fsync(tmp)
            os.replace(tmp, final)
            done.append(final)
        _fsync(self.out_dir)
        self.pending = []
        return done

    def discard(self) -> None:
        for tmp, _ in self.pending:
            tmp.unlink(missing_ok=True)
        self.pending = []


_FORMULA_START = r"^[=+\-@\t\r]"


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
            parts.append(f"case when regexp_matches({ident}, '{_FORMULA_START}') "
                         f"then chr(39) || {ident} else {ident} end as {ident}")
        else:
            parts.append(ident)
    return f'select {", ".join(parts) or "*"} from "{table}"'


def stage_exports(
    con: duckdb.DuckDBPyConnection,
    out_dir: Path,
    tables: list[str],
    schema: Callable[[dict[str, dict[str, str]]], dict[str, Any]],
) -> StagedExports:
    """Write each table as Parquet (zstd) and CSV, then schema.json, under temporary names.

    Nothing is visible until `commit()`; call it once the warehouse itself is published.
    `schema(files)` builds the JSON document (files: {table: {format: file name}}).
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(out_dir)
    staged = StagedExports(out_dir)
    files: dict[str, dict[str, str]] = {}
    try:
        for table in tables:
            for fmt, options in FORMATS.items():
                tmp = staged.stage(f"{table}.{fmt}")
                select = _csv_select(con, table) if fmt == "csv" else f'select * from "{table}"'
                con.execute(f"copy ({select}) to {_quote_path(tmp)} {options}")
                files.setdefault(table, {})[fmt] = f"{table}.{fmt}"
        tmp = staged.stage(SCHEMA_NAME)
        tmp.write_text(json.dumps(schema(files), indent=1, default=str) + "\n",
                       encoding="utf-8")
    except BaseException:
        staged.discard()
        raise
    return staged
