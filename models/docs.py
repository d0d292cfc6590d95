"""Column documentation of the marts: what every column means and its unit.

Two sources, both plain text in this folder, read without building anything:

1. A mart's own header comment. After the `-- one row per ...` text, a `-- columns:` block
   documents the columns, one entry per column, a unit in brackets when the column has one,
   longer descriptions continued on lines indented deeper:

       -- columns:
       --   gb_per_usd_hour [GB per USD/hour]: memory_gb / price_per_gpu_hour
       --   price_basis: which hourly price is used (on_demand_min, spot_min, ...)
       --     or 'purchase'

2. `models/glossary.csv` (column, unit, description): the shared meaning of the public column
   names that many marts carry (accelerator_id, provider, price_per_gpu_hour, observed_at ...;
   DESIGN.md: the same thing has the same name everywhere). A mart's own entry overrides it.

A mart column documented in neither place is an error (tests/models/test_docs.py), so a new column
ships with its meaning. The same dictionary describes the exports for machines
(`schema_document`: schema.json beside them, written by every publish). This module imports
nothing of ours but the runner (and duckdb).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from gpucost.models import runner

MODELS_DIR = runner.MODELS_DIR
SCHEMA_FORMAT_VERSION = 1  # of schema.json beside the exports
GLOSSARY = "glossary.csv"
_BLOCK_START = re.compile(r"^--\s*columns:\s*$")
# an entry sits at an indent of 1-3 spaces; deeper-indented lines continue the previous one
_ENTRY = re.compile(r"^-- {1,3}([a-z_][a-z0-9_]*)\s*(?:\[([^\]]*)\])?\s*:\s*(.*)$")


class ColumnDocError(Exception):
    """A columns block or the glossary is malformed."""


@dataclass(frozen=True)
class ColumnDoc:
    name: str
    unit: str  # "" when the column has no unit (ids, names, flags, timestamps)
    description: str
    origin: str  # "mart" (the model's own header) or "glossary"


@dataclass
class MartDoc:
    name: str
    path: Path
    summary: str  # the header comment without the columns block
    columns: dict[str, ColumnDoc] = field(default_factory=dict)  # the mart's own entries


def _header_lines(sql: str) -> list[str]:
    lines = []
    for line in sql.splitlines():
        if not line.startswith("--"):
            break
        lines.append(line.rstrip())
    return lines


def parse_header(name: str, path: Path, sql: str) -> MartDoc:
    """Split a model's leading comment into its summary text and its columns block."""
    summary: list[str] = []
    columns: dict[str, ColumnDoc] = {}
    current: list[str] | None = None  # [name, unit, description] being filled
    in_block = False

    def flush() -> None:
        if current is not None:
            col, unit, text = current
            if not text.strip():
                raise ColumnDocError(f"{path.name}: column {col!r} has no description")
            if col in columns:
                raise ColumnDocError(f"{path.name}: column {col!r} documented twice")
            columns[col] = ColumnDoc(col, unit.strip(), " ".join(text.split()), "mart")

    for line in _header_lines(sql):
        if _BLOCK_START.match(line):
            in_block = True
            continue
        if not in_block:
            summary.append(line[2:].removeprefix(" "))
            continue
        body = line[2:]
        if not body.strip():  # a bare `--` ends the block
            flush()
            current, in_block = None, False
            continue
        m = _ENTRY.match(line)
        if m:
            flush()
            current = [m.group(1), m.group(2) or "", m.group(3)]
        elif current is not None and body.startswith("    "):
            current[2] += " " + body.strip()
        else:
            raise ColumnDocError(
                f"{path.name}: cannot read columns-block line {line!r}; write "
                "`--   column_name [unit]: meaning` (continuation lines indented 4+ spaces)"
            )
    flush()
    return MartDoc(name, path, "\n".join(summary).strip(), columns)


def glossary(models_dir: Path = MODELS_DIR) -> dict[str, ColumnDoc]:
    path = models_dir / GLOSSARY
    out: dict[str, ColumnDoc] = {}
    if not path.is_file():
        return out
    with path.open(newline="", encoding="utf-8") as fh:
        for i, row in enumerate(csv.DictReader(fh), start=2):
            col = (row.get("column") or "").strip()
            text = (row.get("description") or "").strip()
            if not col or not text:
                raise ColumnDocError(f"{path.name} line {i}: column and description required")
            if col in out:
                raise ColumnDocError(f"{path.name} line {i}: {col!r} defined twice")
            out[col] = ColumnDoc(col, (row.get("unit") or "").strip(), text, "glossary")
    return out


def mart_docs(models_dir: Path = MODELS_DIR) -> dict[str, MartDoc]:
    """The documentation of every mart (models/marts/<domain>/*.sql), by mart name."""
    return {
        path.stem: parse_header(path.stem, path, path.read_text(encoding="utf-8"))
        for path in runner.layer_files(models_dir, "marts")
    }


def _model_path(path: Path) -> str:
    """models/marts/<domain>/x.sql, as a user finds it from the repository root."""
    parts = path.parts
    return "models/" + "/".join(parts[len(parts) - 1 - parts[::-1].index("marts"):])


@dataclass
class Dictionary:
    """Mart docs plus the glossary: the meaning of any mart column."""

    marts: dict[str, MartDoc]
    shared: dict[str, ColumnDoc]

    @classmethod
    def load(cls, models_dir: Path = MODELS_DIR) -> Dictionary:
        return cls(mart_docs(models_dir), glossary(models_dir))

    def column(self, mart: str, column: str) -> ColumnDoc | None:
        doc = self.marts.get(mart)
        if doc and column in doc.columns:
            return doc.columns[column]
        return self.shared.get(column)

    def problems(self, mart_columns: dict[str, list[str]]) -> list[str]:
        """Every undocumented mart column and every documented column that does not exist.

        `mart_columns` maps each built mart to its columns (from the warehouse).
        """
        out = []
        for mart, cols in sorted(mart_columns.items()):
            doc = self.marts.get(mart)
            where = _model_path(doc.path) if doc else f"the model file of mart {mart}"
            for col in cols:
                if self.column(mart, col) is None:
                    out.append(
                        f"{mart}.{col} is undocumented: add `--   {col} [unit]: meaning` to the "
                        f"`-- columns:` block of {where} (or a row to models/{GLOSSARY} if it is "
                        "a shared public column name)"
                    )
            for col in sorted(set(doc.columns) - set(cols)) if doc else ():
                out.append(f"{mart}.{col} is documented in {where} but the mart has no such "
                           "column: remove or rename the entry")
        return out


def mart_names() -> list[str]:
    return sorted(m.name for m in runner.discover().values() if m.layer == "marts")


def mart_columns(con: duckdb.DuckDBPyConnection,
                 marts: list[str] | None = None) -> dict[str, list[tuple[str, str]]]:
    """{mart: [(column, type), ...]} for the marts present in the connection's main schema."""
    marts = mart_names() if marts is None else marts
    out: dict[str, list[tuple[str, str]]] = {}
    rows = con.execute(
        "select table_name, column_name, data_type from duckdb_columns() "
        "where database_name = current_database() and schema_name = 'main' "
        "and table_name in (select unnest(?)) order by table_name, column_index",
        [marts],
    ).fetchall()
    for table, column, dtype in rows:
        out.setdefault(table, []).append((column, dtype))
    return out


def schema_document(con: duckdb.DuckDBPyConnection, *, published_at: datetime,
                    files: dict[str, dict[str, str]] | None = None) -> dict[str, Any]:
    """The machine-readable schema of the marts in `con` (written beside the exports)."""
    dictionary = Dictionary.load()
    columns = mart_columns(con)
    tables: dict[str, Any] = {}
    for mart, cols in sorted(columns.items()):
        doc = dictionary.marts.get(mart)
        rows = con.execute(f'select count(*) from "{mart}"').fetchone()[0]
        entries = []
        for col, dtype in cols:
            cdoc = dictionary.column(mart, col)
            entries.append({
                "name": col, "type": dtype,
                "unit": cdoc.unit if cdoc else "",
                "description": cdoc.description if cdoc else "",
            })
        tables[mart] = {
            "description": doc.summary if doc else "",
            "row_count": rows,
            "files": (files or {}).get(mart, {}),
            "columns": entries,
        }
    return {
        "format_version": SCHEMA_FORMAT_VERSION,
        "published_at": published_at.astimezone(UTC).isoformat(),
        "generated_by": "gpucost (models/docs.py)",
        "tables": tables,
    }
