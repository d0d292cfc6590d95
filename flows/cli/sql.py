"""SQL at hand: `gpucost sql`, `gpucost tables`, `gpucost describe`.

`sql` runs one read-only query against the published warehouse (file access disabled). The
query comes from the argument, from `-f FILE`, or from standard input (`-`, or no argument
with stdin not a terminal). Defaults guard the terminal: a time limit (`--timeout`, 30 s) and,
for the table format, a row limit (`--max-rows`, 10,000; 0 = all) announced in a footer.
JSON output is strict JSON (NaN and infinities become null). A closed pipe (`| head`) ends
the command quietly.

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
import os
import re
import sys
import threading
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
    write_csv,
    write_json,
    write_table,
)
from gpucost.flows.cli.terminal import one_line

DEFAULT_TIMEOUT_S = 30.0
DEFAULT_MAX_ROWS = 10_000
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


def _connect(remote: bool = False) -> Any | None:
    """A read-only connection to the published warehouse, or None (the reason printed).
    `remote`: the cluster's published snapshot (cluster/snapshot.py, the reader key),
    downloaded once per publish into <data dir>/remote-cache."""
    if remote:
        return _connect_remote()
    from gpucost.warehouse import data_dir
    from gpucost.warehouse.publish import (
        NoWarehouseError,
        WarehouseUnreadableError,
        connect_readonly,
    )

    try:
        return connect_readonly(data_dir())
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


def cmd_sql(args: argparse.Namespace) -> int:
    import duckdb

    try:
        query = read_query(args)
    except UsageError as exc:
        _err(str(exc))
        return EXIT_USAGE
    con = _connect(args.remote)
    if con is None:
        return EXIT_FAILED
    limit = args.max_rows if args.format == "table" else 0
    try:
        cols, rows, cut = run_query(con, query, args.timeout, limit)
    except duckdb.InterruptException:
        _err(f"the query ran longer than {args.timeout:g} s and was stopped "
             "(--timeout SECONDS, 0 = no limit)")
        return EXIT_FAILED
    except duckdb.Error as exc:
        _err(f"{type(exc).__name__}: {exc}")
        return EXIT_FAILED
    except MemoryError:
        _err("the result does not fit in memory: add a LIMIT or aggregate")
        return EXIT_FAILED
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
