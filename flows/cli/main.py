"""The `gpucost` command line.

Exit codes: flows/cli/output.py (`EXIT_CODES`, printed by `gpucost --help`).
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from gpucost.flows.cli import refresh
from gpucost.flows.cli.output import (
    EXIT_CODES,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
)
from gpucost.flows.cli.terminal import SafeStream, one_line, safe


class _Parser(argparse.ArgumentParser):
    """Every bad option or value is one line on stderr and exit 2 (not a usage dump)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {one_line(message)}"
                              f" (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="gpucost", description=__doc__,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)

    refresh.add_parsers(sub)

    from gpucost.cluster.cli import add_parsers as add_cluster_parsers
    from gpucost.flows import serve
    from gpucost.flows.cli import docs as dictionary
    from gpucost.flows.cli import explain, offers, report, server
    from gpucost.flows.cli import sources as source_status
    from gpucost.flows.cli import sql as sqlcli
    from gpucost.flows.cli.estimate import add_estimate_parser

    sqlcli.add_parsers(sub)
    add_cluster_parsers(sub)
    explain.add_parser(sub)
    offers.add_parser(sub)
    source_status.add_parser(sub)
    report.add_parser(sub)
    serve.add_parser(sub)
    server.add_parser(sub)
    dictionary.add_parser(sub)
    add_estimate_parser(sub)
    from gpucost.flows.cli import alerts
    from gpucost.flows.cli.backfill import add_parser as add_backfill_parser

    add_backfill_parser(sub)
    alerts.add_parser(sub)
    from gpucost.flows.cli import dashboard

    dashboard.add_parser(sub)
    for command in sub.choices.values():  # every --help states the exit codes
        command.epilog = EXIT_CODES
        command.formatter_class = argparse.RawDescriptionHelpFormatter
    return p


def _exit_now(code: int) -> NoReturn:
    """Exit the `gpucost refresh` process without tearing the interpreter down.

    Everything a normal exit does first is done here, in the same order: join the non-daemon
    threads and run the threading exit hooks (Prefect drains its log and event queues to the
    API there), run the atexit functions (logging.shutdown flushes every handler), flush
    stdout and stderr. What is skipped is freeing every object of every module one by one,
    which took 0.4-0.6 s after a refresh through Prefect (about 180,000 objects) on a 2-core
    machine. Every file and DuckDB connection of a refresh is closed by then (context
    managers), and the writer lock released."""
    import atexit
    import os
    import threading

    shutdown = getattr(threading, "_shutdown", None)
    run_exitfuncs = getattr(atexit, "_run_exitfuncs", None)
    if shutdown is None or run_exitfuncs is None:  # another Python: the ordinary exit
        sys.exit(code)
    shutdown()
    run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if argv is None and args.func is refresh.cmd_refresh:  # the `gpucost refresh` process itself
        _exit_now(_run(args))
    return _run(args)


def _run(args: argparse.Namespace) -> int:
    """The command; for the human formats (not csv or json, which keep the data exact) with
    stdout behind a SafeStream: whatever a printer did not escape itself, no control or bidi
    character reaches the terminal raw (flows/cli/terminal.py)."""
    raw = sys.stdout
    human = getattr(args, "format", None) not in ("csv", "json") and raw is not None
    if human:
        sys.stdout = SafeStream(raw)  # type: ignore[assignment]
    try:
        return _run_command(args)
    finally:
        if human and isinstance(sys.stdout, SafeStream) and sys.stdout.wrapped is raw:
            sys.stdout = raw


def _run_command(args: argparse.Namespace) -> int:
    try:
        return int(args.func(args))
    except KeyError as exc:  # unknown source name
        print(f"error: {one_line(exc.args[0] if exc.args else exc)}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:
        from gpucost.warehouse.publish import (
            DataDirNotWritableError,
            NoWarehouseError,
            ShrinkRefusedError,
            WarehouseBusyError,
            WarehouseUnreadableError,
        )
        from gpucost.warehouse.store import RawStoreUnreadableError

        if isinstance(exc, (WarehouseBusyError, DataDirNotWritableError, ShrinkRefusedError,
                            RawStoreUnreadableError, WarehouseUnreadableError,
                            NoWarehouseError)):
            print(f"error: {one_line(exc)}", file=sys.stderr)
            return EXIT_FAILED
        if isinstance(exc, BrokenPipeError):  # `gpucost offers H100 | head`: the reader left
            import os

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return EXIT_OK
        if isinstance(exc, OSError) and exc.errno is not None:  # disk full, I/O error...
            print(f"error: {one_line(exc.strerror or exc)} "
                  f"({safe(getattr(exc, 'filename', '') or '')}); each payload loads in one "
                  "transaction: those loaded before it are kept, the one that failed left "
                  "nothing behind, the published warehouse stays",
                  file=sys.stderr)
            return EXIT_FAILED
        import duckdb

        if isinstance(exc, duckdb.Error) and _corruption(args, exc):
            return EXIT_FAILED
        if isinstance(exc, duckdb.IOException):
            print(f"error: {one_line(str(exc)[:300])}; the published warehouse "
                  "stays as it was", file=sys.stderr)
            return EXIT_FAILED
        if isinstance(exc, duckdb.PermissionException):
            # our read-only connections never read a file: a view a read-write client planted
            # in the published file tried to (refused); the next refresh rebuilds the file
            print(f"error: {one_line(str(exc)[:300])}; the published warehouse does not hold "
                  "what its publish built (a read-write client?): `gpucost refresh` rebuilds "
                  "it", file=sys.stderr)
            return EXIT_FAILED
        raise


def _corruption(args: argparse.Namespace, exc: Exception) -> bool:
    """A block that fails DuckDB's checksum (`Corrupt database file`): one named line. A
    reading command reads only the published file; a writing one names no file."""
    from gpucost.warehouse.publish import corrupted_published, is_corruption, serving_path

    if not is_corruption(exc):
        return False
    if getattr(args, "command", "") in ("refresh", "ingest", "backfill"):
        print(f"error: a database file is corrupted ({one_line(str(exc)[:200])}); the published "
              "warehouse stays as it was (docs/operations.md, \"Recovering the raw layer\")",
              file=sys.stderr)
        return True
    from gpucost.warehouse import data_dir

    print(f"error: {one_line(corrupted_published(serving_path(data_dir()), exc))}",
          file=sys.stderr)
    return True


if __name__ == "__main__":
    sys.exit(main())
