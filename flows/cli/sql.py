"""SQL at hand: `gpucost sql`, `gpucost tables`, `gpucost describe`.

`sql` runs one read-only query against the published warehouse (file access disabled). The
query comes from the argument, from `-f FILE`, or from standard input (`-`, or no argument
with stdin not a terminal). Defaults guard the terminal: a time limit (`--timeout`, 30 s) and,
for the table format, a row limit (`--max-rows`, 10,000; 0 = all) announced in a footer.
JSON output is strict JSON (NaN and infinities become null). A closed pipe (`| head`) ends
the command quietly. DuckDB's memory is limited (`--memory-limit`, GPUCOST_SQL_MEMORY_LIMIT,
1GB by default: past it DuckDB spills or stops the query with a named error), CSV and JSON are
written as the rows arrive (batches of FETCH_ROWS, never the whole answer in memory), the
time limit counts the time spent in DuckDB (not writing), and a query longer than
MAX_QUERY_BYTES or an answer of more than MAX_COLUMNS columns is refused by name.

`tables` lists the published tables with what one row is (the first sentence of each mart's
header comment) and their row counts; `describe TABLE` lists its columns with type, unit and
meaning from the data dictionary (models/docs.py).

`--remote` (all three) reads the cluster's published snapshot instead of the local file: the
warehouse file that CURRENT names on object storage, read with the reader key and downloaded
once per publish into <data dir>/remote-cache (cluster/snapshot.py); the same read-only,
file-access-off connection.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import re
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from gpucost.flows.cli.options import non_negative_int, number
from gpucost.flows.cli.output import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    add_format_option,
    json_value,
    write_csv,
    write_json,
    write_table,
)
from gpucost.flows.cli.terminal import one_line

_encode_str = json.encoder.encode_basestring_ascii  # what json.dumps uses (ensure_ascii)

DEFAULT_TIMEOUT_S = 30.0
DEFAULT_MAX_ROWS = 10_000
DEFAULT_MEMORY_LIMIT = "1GB"  # GPUCOST_SQL_MEMORY_LIMIT or --memory-limit override it
MAX_QUERY_BYTES = 1_000_000  # a 6 MB query of 3M columns took 6.3 GB before DuckDB's OOM
MAX_COLUMNS = 10_000
FETCH_ROWS = 10_000  # rows fetched and written at a time in csv and json
MAX_TIMEOUT_S = 7 * 86_400.0  # a week: threading.Timer overflows far beyond
TIMEOUT = number(maximum=MAX_TIMEOUT_S, what="seconds; 0 = no limit")
REMOTE_HELP = ("the cluster's published snapshot on object storage (cluster mode: "
               "GPUCOST_CLUSTER_CONFIG or `gpucost cluster up`), with the reader key")
_COMMENTS = re.compile(r"--[^\n]*|/\*.*?\*/", re.S)


class UsageError(Exception):
    """A bad query or option: one line, exit 2."""


def _err(message: str) -> None:
    print(f"error: {one_line(message)}", file=sys.stderr)


def read_query(args: argparse.Namespace) -> str:
    """The query text from the argument, `-f FILE` or standard input (UsageError if none)."""
    if args.file and args.query not in (None, "-"):
        raise UsageError("give the query as an argument or with -f FILE, not both")
    if args.file:
        path = Path(args.file)
        if not path.is_file():
            raise UsageError(f"no such query file: {path}")
        text = path.read_text(encoding="utf-8")
    elif args.query == "-" or (args.query is None and not sys.stdin.isatty()):
        text = sys.stdin.read()
    elif args.query is None:
        raise UsageError("no query: give it as an argument, with -f FILE or on standard input")
    else:
        text = args.query
    if not _COMMENTS.sub("", text).strip().strip(";").strip():
        raise UsageError("the query is empty")
    size = len(text.encode("utf-8", "replace"))
    if size > MAX_QUERY_BYTES:
        raise UsageError(f"the query is {size / 1e6:.1f} MB, over the {MAX_QUERY_BYTES / 1e6:g}"
                         " MB cap for a query; refused before DuckDB reads it")
    return text


def _cell(v: Any) -> Any:
    """A table cell: a float to 6 significant digits (the rest as the value is)."""
    return f"{v:.6g}" if isinstance(v, float) else v


def write_rows(cols: list[str], rows: list[tuple], fmt: str, *, cut: bool = False) -> None:
    """Print rows as a table, CSV or strict JSON to stdout (flows/cli/output.py)."""
    out = sys.stdout
    if fmt == "json":
        write_json([dict(zip(cols, r, strict=True)) for r in rows], out)
    elif fmt == "csv":
        write_csv(cols, rows, out)
    else:  # every cell and column alias (the user's, but it may hold anything) escaped
        write_table(cols, [[_cell(v) for v in r] for r in rows], out, rule=True)
        n = len(rows)
        if cut:
            out.write(f"(first {n} rows; --max-rows 0 prints all, --format csv/json is not cut)\n")
        else:
            out.write(f"({n} row{'s' if n != 1 else ''})\n")
    out.flush()


@contextmanager
def closed_pipe_is_fine() -> Iterator[None]:
    """`gpucost sql ... | head`: a reader that goes away ends the output quietly."""
    try:
        yield
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's final flush must not fail again
        os.close(devnull)


def sql_memory_limit(option: str | None = None) -> str:
    """DuckDB's memory for `gpucost sql`: --memory-limit, else GPUCOST_SQL_MEMORY_LIMIT, else
    DEFAULT_MEMORY_LIMIT (any DuckDB size: 512MB, 4GB)."""
    return (option or os.environ.get("GPUCOST_SQL_MEMORY_LIMIT", "").strip()
            or DEFAULT_MEMORY_LIMIT)


def _connect(remote: bool = False, max_memory: str | None = None) -> Any | None:
    """A read-only connection to the published warehouse, or None (the reason printed).
    `remote`: the cluster's published snapshot (cluster/snapshot.py, the reader key),
    downloaded once per publish into <data dir>/remote-cache. `max_memory`: DuckDB's
    memory_limit for it."""
    if remote:
        con = _connect_remote()
        if con is not None and max_memory:
            import duckdb

            try:
                con.execute("set memory_limit = ?", [max_memory])
            except duckdb.Error:  # its configuration is locked: its own settings stand
                pass
        return con
    from gpucost.warehouse import data_dir
    from gpucost.warehouse.publish import (
        NoWarehouseError,
        WarehouseUnreadableError,
        connect_readonly,
    )

    try:
        return connect_readonly(data_dir(), max_memory=max_memory)
    except (NoWarehouseError, WarehouseUnreadableError) as exc:
        _err(str(exc))
        return None


def _connect_remote() -> Any | None:
    import duckdb

    from gpucost.cluster.objects import ObjectStoreError
    from gpucost.cluster.settings import ClusterNotConfiguredError, load_settings
    from gpucost.cluster.snapshot import SnapshotError, open_current

    try:
        return open_current(load_settings())
    except (ClusterNotConfiguredError, ObjectStoreError, SnapshotError) as exc:
        _err(str(exc))
    except (duckdb.Error, OSError) as exc:
        _err(f"the cluster's published warehouse cannot be read: {type(exc).__name__}: {exc}")
    return None


def run_query(con: Any, query: str, timeout_s: float,
              limit: int) -> tuple[list[str], list[tuple], bool]:
    """(columns, rows, cut): at most `limit` rows (0 = all); interrupted after `timeout_s`."""
    timer = threading.Timer(timeout_s, con.interrupt) if timeout_s > 0 else None
    if timer:
        timer.daemon = True
        timer.start()
    try:
        cur = con.execute(query)
        cols = [d[0] for d in cur.description or []]
        if limit > 0:
            rows = cur.fetchmany(limit + 1)
            return cols, rows[:limit], len(rows) > limit
        return cols, cur.fetchall(), False
    finally:
        if timer:
            timer.cancel()


class _Budget:
    """The time limit over every DuckDB call of one query (execute, each fetch): the time
    spent writing the answer out does not count."""

    def __init__(self, con: Any, timeout_s: float) -> None:
        self.con, self.left = con, timeout_s

    def call(self, fn: Any, *args: Any) -> Any:
        timer = threading.Timer(max(self.left, 0.001), self.con.interrupt) \
            if self.left != float("inf") else None
        if timer:
            timer.daemon = True
            timer.start()
        start = time.monotonic()
        try:
            return fn(*args)
        finally:
            if timer:
                timer.cancel()
                self.left -= time.monotonic() - start


def _json_key(name: str) -> str:
    return json.dumps(str(name))


def _json_cell(value: Any) -> str:
    """One value as write_json writes it inside a row (indent 1, a row at depth 2)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return float.__repr__(value) if math.isfinite(value) else "null"
    if isinstance(value, str):
        return _encode_str(value)
    text = json.dumps(json_value(value), indent=1, allow_nan=False, default=str)
    return text.replace("\n", "\n  ")


def stream_rows(cur: Any, cols: list[str], fmt: str, budget: _Budget, out: Any) -> int:
    """Fetch the answer FETCH_ROWS at a time and write each batch as it comes (csv, or the
    exact text write_json prints for the whole list): memory stays bounded whatever the
    number of rows. The number of rows written."""
    n = 0
    if fmt == "csv":
        writer = csv.writer(out)
        writer.writerow(cols)
        while rows := budget.call(cur.fetchmany, FETCH_ROWS):
            writer.writerows(rows)
            n += len(rows)
        return n
    # as a dict: a repeated column name keeps its first place and its last value
    last = {str(c): i for i, c in enumerate(cols)}
    keys = [(f"  {_json_key(c)}: ", i) for c, i in last.items()]
    while rows := budget.call(cur.fetchmany, FETCH_ROWS):
        parts = []
        for row in rows:
            body = ",\n".join(k + _json_cell(row[i]) for k, i in keys)
            parts.append(" {\n" + body + "\n }")
        out.write(("[\n" if n == 0 else ",\n") + ",\n".join(parts))
        n += len(rows)
    out.write("\n]\n" if n else "[]\n")
    return n


def _stream(con: Any, query: str, args: argparse.Namespace) -> int:
    """csv and json: the answer written as it arrives; the exit code."""
    import duckdb

    budget = _Budget(con, args.timeout if args.timeout > 0 else float("inf"))
    try:
        cur = budget.call(con.execute, query)
        cols = [d[0] for d in cur.description or []]
        if len(cols) > MAX_COLUMNS:
            _err(f"the answer has {len(cols):,} columns, over the {MAX_COLUMNS:,} a query may "
                 "return; select the columns you need")
            return EXIT_FAILED
        with closed_pipe_is_fine():
            stream_rows(cur, cols, args.format, budget, sys.stdout)
            sys.stdout.flush()
    except (duckdb.Error, MemoryError) as exc:
        return _failed(exc, args)
    return EXIT_OK


def _failed(exc: BaseException, args: argparse.Namespace) -> int:
    """One line for a query that failed (the time limit, the memory limit, memory, a DuckDB
    error: a corrupted published file named as such); EXIT_FAILED."""
    import duckdb

    if isinstance(exc, duckdb.InterruptException):
        _err(f"the query ran longer than {args.timeout:g} s and was stopped "
             "(--timeout SECONDS, 0 = no limit)")
    elif isinstance(exc, duckdb.OutOfMemoryException):
        _err(f"the query needs more memory than its limit ({_limit_text(args)}; "
             f"--memory-limit SIZE or GPUCOST_SQL_MEMORY_LIMIT raise it): {exc}")
    elif isinstance(exc, MemoryError):
        _err("the result does not fit in memory: add a LIMIT or aggregate")
    else:
        _query_error(exc, args)
    return EXIT_FAILED


def _limit_text(args: argparse.Namespace) -> str:
    return f"memory_limit {sql_memory_limit(getattr(args, 'memory_limit', None))}"


def _query_error(exc: Exception, args: argparse.Namespace) -> None:
    from gpucost.warehouse.publish import corrupted_published, is_corruption

    if is_corruption(exc) and not args.remote:
        from gpucost.warehouse import data_dir
        from gpucost.warehouse.publish import serving_path

        _err(str(corrupted_published(serving_path(data_dir()), exc)))
    else:
        _err(f"{type(exc).__name__}: {exc}")


def cmd_sql(args: argparse.Namespace) -> int:
    import duckdb

    try:
        query = read_query(args)
    except UsageError as exc:
        _err(str(exc))
        return EXIT_USAGE
    con = _connect(args.remote, sql_memory_limit(args.memory_limit))
    if con is None:
        return EXIT_FAILED
    if args.format in ("csv", "json"):
        try:
            return _stream(con, query, args)
        finally:
            con.close()
    limit = args.max_rows
    try:
        cols, rows, cut = run_query(con, query, args.timeout, limit)
        if len(cols) > MAX_COLUMNS:
            _err(f"the answer has {len(cols):,} columns, over the {MAX_COLUMNS:,} a query may "
                 "return; select the columns you need")
            return EXIT_FAILED
    except (duckdb.Error, MemoryError) as exc:
        return _failed(exc, args)
    finally:
        con.close()
    with closed_pipe_is_fine():
        write_rows(cols, rows, args.format, cut=cut)
    return EXIT_OK


def _published_tables(con: Any) -> list[str]:
    return [r[0] for r in con.execute(
        "select table_name from duckdb_tables() where database_name = current_database() "
        "and schema_name = 'main' order by 1").fetchall()]


def _grain(summary: str) -> str:
    """The first sentence of a mart's header ("one row per ...")."""
    first = re.split(r": |\. |; ", " ".join(summary.split()), maxsplit=1)[0]
    if first.count("(") > first.count(")"):  # cut inside a parenthesis: drop it
        first = first.rsplit(" (", 1)[0]
    if len(first) > 100:
        first = first[:100].rsplit(" ", 1)[0] + " ..."
    return first[:1].upper() + first[1:] if first else ""


def cmd_tables(args: argparse.Namespace) -> int:
    from gpucost.models.docs import Dictionary

    con = _connect(args.remote)
    if con is None:
        return EXIT_FAILED
    try:
        names = _published_tables(con)
        counts = {n: con.execute(f'select count(*) from "{n}"').fetchone()[0] for n in names}
    finally:
        con.close()
    marts = Dictionary.load().marts
    rows = [(n, counts[n], _grain(marts[n].summary) if n in marts else "curated catalog table")
            for n in names]
    with closed_pipe_is_fine():
        write_rows(["table", "rows", "one row is"], rows, args.format)
    return EXIT_OK


def cmd_describe(args: argparse.Namespace) -> int:
    from gpucost.models.docs import Dictionary

    con = _connect(args.remote)
    if con is None:
        return EXIT_FAILED
    try:
        names = _published_tables(con)
        if args.table not in names:
            _err(f"no table {args.table!r}; `gpucost tables` lists them")
            return EXIT_USAGE
        columns = con.execute(
            "select column_name, data_type from duckdb_columns() where database_name = "
            "current_database() and schema_name = 'main' and table_name = ? "
            "order by column_index", [args.table]).fetchall()
    finally:
        con.close()
    dictionary = Dictionary.load()
    rows = []
    for name, dtype in columns:
        doc = dictionary.column(args.table, name)
        rows.append((name, dtype, doc.unit if doc else "",
                     " ".join(doc.description.split()) if doc else ""))
    with closed_pipe_is_fine():
        if args.format == "table" and args.table in dictionary.marts:
            print(_grain(dictionary.marts[args.table].summary))
        write_rows(["column", "type", "unit", "meaning"], rows, args.format)
    return EXIT_OK


_SIZE = re.compile(r"\d+(\.\d+)?\s*([KMGT]i?B|B|bytes)?", re.I)


def _memory_size(text: str) -> str:
    """--memory-limit: a DuckDB size (512MB, 4GB, 2GiB)."""
    text = text.strip()
    if not _SIZE.fullmatch(text) or float(re.match(r"[\d.]+", text).group()) <= 0:
        raise argparse.ArgumentTypeError(f"not a memory size: {text!r} (e.g. 512MB, 4GB)")
    return text


def add_parsers(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("sql", help="read-only query of the published warehouse")
    s.add_argument("query", nargs="?", default=None,
                   help="the query; '-' or nothing (with a pipe) reads standard input")
    s.add_argument("-f", "--file", help="read the query from this file")
    add_format_option(s)
    s.add_argument("--timeout", type=TIMEOUT, default=DEFAULT_TIMEOUT_S, metavar="SECONDS",
                   help=f"stop the query after this many seconds (default {DEFAULT_TIMEOUT_S:g};"
                        " 0 = no limit)")
    s.add_argument("--max-rows", type=non_negative_int, default=DEFAULT_MAX_ROWS, metavar="N",
                   help=f"rows printed in the table format (default {DEFAULT_MAX_ROWS:,};"
                        " 0 = all; csv and json are never cut)")
    s.add_argument("--memory-limit", metavar="SIZE", type=_memory_size, default=None,
                   help="DuckDB's memory for the query (default GPUCOST_SQL_MEMORY_LIMIT, else "
                        f"{DEFAULT_MEMORY_LIMIT}; past it DuckDB spills or stops the query)")
    s.add_argument("--remote", action="store_true", help=REMOTE_HELP)
    s.set_defaults(func=cmd_sql)

    t = sub.add_parser("tables", help="the published tables: what one row is, row counts")
    add_format_option(t)
    t.add_argument("--remote", action="store_true", help=REMOTE_HELP)
    t.set_defaults(func=cmd_tables)

    d = sub.add_parser("describe", help="the columns of a published table, from the dictionary")
    d.add_argument("table")
    add_format_option(d)
    d.add_argument("--remote", action="store_true", help=REMOTE_HELP)
    d.set_defaults(func=cmd_describe)
