"""`gpucost refresh` and `gpucost ingest`: run the refresh (through Prefect, else without it)
or replay recorded files, then print what happened: one line per source or file, the publish,
the verdict.

The steps themselves are flow-side: flows/refresh.py (the Prefect flow), flows/steps.py (the
same steps without Prefect), flows/ingest.py (the replay, and each file's outcome in words).
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from gpucost.flows.cli.output import EXIT_FAILED, EXIT_OK, EXIT_SOURCE_FAILED, EXIT_USAGE
from gpucost.flows.cli.terminal import one_line, safe, safe_lines
from gpucost.flows.prefect_server import prepare_prefect_home

if TYPE_CHECKING:
    from gpucost.warehouse.load import ObservedAt


def _parse_when(text: str) -> ObservedAt:
    """--observed-at: an ISO date or timestamp, or a month YYYY-MM (an approximate date: its
    first instant, precision 'month'), between FIRST_PLAUSIBLE and now."""
    from gpucost.warehouse.load import parse_observed_at
    from gpucost.warehouse.refusals import CLOCK_SKEW, FIRST_PLAUSIBLE, plausible

    try:
        value = parse_observed_at(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if not plausible(value.at):
        raise argparse.ArgumentTypeError(
            f"{text}: an observation date must lie between {FIRST_PLAUSIBLE.date()} and now "
            f"(+{CLOCK_SKEW.days} day for clock skew)"
            + ("; a month stands for its first day" if value.precision == "month" else ""))
    return value


def _source_line(row, verbose: bool) -> str:  # type: ignore[no-untyped-def]
    from gpucost.flows.cli.output import age_text
    from gpucost.flows.progress import shorten, source_column

    status, detail = row.status, []
    if status in ("live", "unchanged"):
        detail.append(f"{row.rows_loaded} rows loaded" if status == "live"
                      else "same payload as before")
        if row.rows_rejected:
            detail.append(f"{row.rows_rejected} rejected")
    if row.error_type:
        error = f"{row.error_type}: {row.error}"
        detail.append(one_line(error) if verbose else safe(shorten(error)))
    if row.rows_in_force is not None and (status != "failed" or row.rows_in_force):
        force = f"{row.rows_in_force} rows in force"
        force += (f", {age_text(row.data_age_days)} old" if row.data_age_days is not None
                  else ", date unknown")
        if row.data_origin == "replayed" and status != "curated":
            force += ", replayed from files"
        detail.append(force)
    return safe(f"  {row.source:<{source_column()}} {status:<9} " + "; ".join(detail))


def _published_line(tables: int, seconds: float, history_mode: str = "") -> str:
    """The publish in one line; says when the history was rebuilt in full over a previous
    build, and why (a models change, an alias that moved a name: models/incremental.py)."""
    line = f"published {tables} tables in {seconds:.1f} s"
    if history_mode.startswith("full: ") and history_mode != "full: no previous build":
        line += f" (price history rebuilt in full: {history_mode.removeprefix('full: ')})"
    return line + "; `gpucost tables` lists them"


def _skipped_line(skipped: list[str]) -> str:
    """The keyed sources a full refresh left out, and how to include them."""
    keys = ", ".join(f"GPUCOST_{n.upper()}_API_KEY" for n in skipped)
    return (f"not fetched (an API that needs a key, not set): {', '.join(skipped)}; "
            f"set {keys} to include {'it' if len(skipped) == 1 else 'them'}")


def _print_summary(summary, out=None, verbose: bool = False,  # type: ignore[no-untyped-def]
                   skipped: list[str] | None = None) -> None:
    """The end of `refresh`: one line per source, the keyed sources left out, the publish,
    then the verdict (last line)."""
    out = out or sys.stdout  # looked up per call (not bound at import)
    flow_run = getattr(summary, "flow_run", None)
    api = getattr(summary, "prefect_api", None)
    print(f"run {summary.run_id}"
          + (f" (Prefect flow run {flow_run!r}" + (f" on {api})" if api else ")")
             if flow_run else "")
          + f": {len(summary.fetched)} source(s) fetched", file=out)
    for row in summary.sources:
        print(_source_line(row, verbose), file=out)
    if skipped:
        print(_skipped_line(skipped), file=out)
    if summary.published:
        print(_published_line(len(summary.mart_rows), summary.publish_seconds,
                              getattr(summary, "history_mode", "")), file=out)
        if verbose:
            print("  " + ", ".join(f"{k}={v}" for k, v in sorted(summary.mart_rows.items())),
                  file=out)
    else:
        print(f"NOT published (the previous warehouse stays): "
              f"{one_line(summary.publish_error)}", file=out)
    for line in getattr(summary, "alerts", None) or []:  # price alerts (flows/alerts.py)
        print(one_line(line), file=out)
    if getattr(summary, "export_error", None):
        print(f"warning: exports not rewritten (they stay at the previous publish): "
              f"{one_line(summary.export_error)}", file=out)
    print(safe_lines(summary.verdict()), file=out)
    out.flush()


def _refresh_with_prefect(args: argparse.Namespace, progress):  # type: ignore[no-untyped-def]
    """The refresh flow against PREFECT_API_URL, else the local server `gpucost server start`
    runs, else a temporary server (flows/prefect_server.py)."""
    from gpucost.flows.prefect_api import api_for_refresh
    from gpucost.flows.refresh import refresh, reporting
    from gpucost.flows.summary import RefreshFailedError

    with api_for_refresh() as url, reporting(progress):
        state = refresh(args.source, kind=args.kind, allow_shrink=args.allow_shrink,
                        return_state=True)
    result = state.result(raise_on_failure=False)
    if isinstance(result, RefreshFailedError):
        result = result.summary  # the flow run ended Failed; the summary says what happened
    elif isinstance(result, BaseException):
        raise result  # e.g. WarehouseBusyError (exit 1), or a bug
    result.prefect_api = url or "a temporary server"
    return result


def cmd_refresh(args: argparse.Namespace) -> int:
    from gpucost.catalog import sources

    for name in args.source or []:
        sources.get(name)
    prepare_prefect_home()
    from gpucost.flows.progress import for_terminal, setup_console

    setup_console(verbose=args.verbose)
    progress = for_terminal()
    try:
        if args.no_prefect:
            from gpucost.flows.steps import refresh_plain

            summary = refresh_plain(args.source, kind=args.kind, progress=progress,
                                    allow_shrink=args.allow_shrink)
        else:
            from gpucost.flows.steps import refresh_plain

            if progress:
                progress.step("starting Prefect")
            try:
                summary = _refresh_with_prefect(args, progress)
            except RuntimeError as exc:
                # No Prefect API could be reached or started: the data must still be refreshed
                # (invariant 1), so run the same steps without orchestration and say so.
                if "Prefect API" not in str(exc):
                    raise
                logging.getLogger("gpucost").warning(
                    "Prefect unavailable (%s); running without Prefect", one_line(exc))
                summary = refresh_plain(args.source, kind=args.kind, progress=progress,
                                        allow_shrink=args.allow_shrink)
    finally:
        if progress:
            progress.close()
    from gpucost.flows.steps import skipped_for_key

    _print_summary(summary, verbose=args.verbose,
                   skipped=skipped_for_key(args.source, args.kind))
    if not summary.published:
        return EXIT_FAILED
    if args.upload and not _upload_snapshot(args.allow_shrink):
        return EXIT_SOURCE_FAILED
    if args.strict and summary.failed_sources:
        return EXIT_SOURCE_FAILED
    return EXIT_OK


def _upload_snapshot(allow_shrink: bool = False) -> bool:
    """`refresh --upload`: the published warehouse and its exports to the cluster's object
    storage (cluster/snapshot.py, CURRENT written last; refused when it would shrink CURRENT's
    snapshot, unless `allow_shrink`). A failure is one line naming it; the local publish
    stands either way."""
    from gpucost.warehouse import data_dir

    try:
        from gpucost.cluster.settings import load_settings
        from gpucost.cluster.snapshot import publish_snapshot

        settings = load_settings().require("s3_endpoint", "writer_key", "writer_secret")
        record = publish_snapshot(data_dir(), settings, allow_shrink=allow_shrink)
    except Exception as exc:  # S3 down, keys refused, cluster package missing: named
        print(f"object storage: NOT uploaded ({type(exc).__name__}: {one_line(str(exc))}); "
              "the local publish stands", file=sys.stdout)
        return False
    key = getattr(record, "key", None) or (record.get("key") if isinstance(record, dict)
                                           else None)
    print(safe(f"object storage: uploaded {key} to {settings.s3_endpoint} "
               f"(bucket {settings.published_bucket}; CURRENT names it)"), file=sys.stdout)
    return True


INGEST_LINES_MAX = 20  # more files than this: one summary line (and the refused ones)


def cmd_ingest(args: argparse.Namespace) -> int:
    from gpucost.catalog import sources
    from gpucost.flows.ingest import ingest_files
    from gpucost.flows.progress import setup_console

    tree = sources.get(args.source).tree_files  # KeyError: unknown source (main: exit 2)
    files = [Path(f) for f in args.files]
    if tree:  # a results repository: a directory stands for the files under it
        files = [found for f in files for found in (
            sorted({p for pattern in tree for p in f.glob(pattern) if p.is_file()})
            if f.is_dir() else [f])]
        if not files:
            print(safe(f"error: no {' or '.join(tree)} under {', '.join(args.files)}"),
                  file=sys.stderr)
            return EXIT_USAGE
    folders = [str(f) for f in files if f.is_dir()]
    if folders:
        print(safe(f"error: {', '.join(folders)}: a directory; give the files in it (e.g. "
                   f"{folders[0].rstrip('/')}/*.json)"), file=sys.stderr)
        return EXIT_USAGE
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        print(safe(f"error: no such file: {', '.join(missing)}"), file=sys.stderr)
        return EXIT_USAGE
    prepare_prefect_home()
    setup_console(verbose=args.verbose)
    try:
        outcomes, published = ingest_files(
            args.source, files, observed_at=args.observed_at, force=args.force,
            allow_shrink=args.allow_shrink, rebuild=not args.no_publish)
    except Exception as exc:  # a refused publish: each file's line first, then the error
        loaded = getattr(exc, "ingest_outcomes", None)
        if loaded is not None:
            print_outcomes(files, loaded, verbose=args.verbose)
        raise
    failed = print_outcomes(files, outcomes, verbose=args.verbose)
    if published:
        print(_published_line(len(published.mart_rows), published.seconds,
                              published.history_mode))
        if args.verbose:
            print("  " + ", ".join(f"{k}={v}" for k, v in sorted(published.mart_rows.items())))
        for line in published.alerts:  # price alerts (flows/alerts.py)
            print(one_line(line))
    elif args.no_publish:
        print("loaded into the raw layer; not published (--no-publish): the next "
              "`gpucost ingest` or `gpucost refresh` publishes it")
    return EXIT_SOURCE_FAILED if failed else EXIT_OK


def print_outcomes(files: list[Path], outcomes: list, *, verbose: bool = False) -> int:
    """One line per file loaded (or one line for a long list); returns the refused count."""
    from gpucost.flows.ingest import outcome_text, outcomes_summary

    brief = len(outcomes) > INGEST_LINES_MAX and not verbose
    for path, o in zip(files, outcomes, strict=False):
        if o.status == "failed" or not brief:
            print(f"{safe(path if brief else path.name)}: {outcome_text(o)}")
    if brief:  # a results tree: one line for the lot (--verbose lists every file)
        print(outcomes_summary(outcomes) + " (--verbose lists every file)")
    return sum(o.status == "failed" for o in outcomes)


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """The `refresh` and `ingest` commands and their options."""
    r = sub.add_parser("refresh", help="fetch every source, load, rebuild and publish")
    r.add_argument("--source", action="append", help="only this source (repeatable)")
    r.add_argument("--kind", choices=("prices", "specs", "throughput"),
                   help="only the sources of this kind (the scheduled deployments use it)")
    r.add_argument("--strict", action="store_true", help="exit 3 when any source failed")
    r.add_argument("--allow-shrink", action="store_true",
                   help="publish even when the new build holds far fewer rows in force than "
                        "the published warehouse (refused otherwise: a lost raw.duckdb)")
    r.add_argument("--no-prefect", action="store_true",
                   help="run the same steps as plain function calls, without Prefect")
    r.add_argument("--upload", action="store_true",
                   help="then upload the published warehouse and exports to the cluster's "
                        "object storage (cluster mode; exit 3 when that fails: the local "
                        "publish stands)")
    r.add_argument("--verbose", "-v", action="store_true",
                   help="also print Prefect's and our INFO log lines, full error texts and "
                        "the row count of every published table")
    r.set_defaults(func=cmd_refresh)

    i = sub.add_parser("ingest", help="load recorded payloads of a source, then rebuild")
    i.add_argument("source")
    i.add_argument("files", nargs="+")
    i.add_argument("--observed-at", type=_parse_when, default=None, metavar="DATE",
                   help="when the payloads were observed: an ISO date or timestamp, or a "
                        "month YYYY-MM when only an approximate period is known (stored as "
                        "its first day, shown as ~YYYY-MM; default: the payload's own date, "
                        "else one in the file name)")
    i.add_argument("--force", action="store_true",
                   help="load a file even when it holds far fewer rows than the newest "
                        "payload of its stream (the row-count guard refuses it otherwise)")
    i.add_argument("--allow-shrink", action="store_true",
                   help="publish even when the new build holds far fewer rows in force than "
                        "the published warehouse (refused otherwise: a lost raw.duckdb)")
    i.add_argument("--no-publish", action="store_true",
                   help="load into the raw layer only; do not rebuild and publish (several "
                        "ingests, then one publish: scripts/ingest_recorded.sh)")
    i.add_argument("--verbose", "-v", action="store_true",
                   help="also print INFO log lines and the row count of every published table")
    i.set_defaults(func=cmd_ingest)
