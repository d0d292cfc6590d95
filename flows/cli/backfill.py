"""`gpucost backfill REPO_DIR --path PATH --source SOURCE`: load every version of a catalog
file from a git clone's history (flows/backfill.py), then publish once; docs/backfill.md.

One line per commit (short sha, committer date, what the version did: rows accepted and
refused, refused as a whole with its named error, or skipped as already backfilled); past
BACKFILL_LINES_MAX commits, a progress line every PROGRESS_EVERY commits instead (and every
refused version still gets its line; --verbose prints every commit). Then a summary line
and the publish. Exit codes: 2 for a directory that is no git repository, a path no commit
touched or an unknown source; 3 when a version was refused (the rest loaded and published).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from gpucost.flows.cli.output import EXIT_OK, EXIT_SOURCE_FAILED, EXIT_USAGE
from gpucost.flows.cli.terminal import one_line, safe

BACKFILL_LINES_MAX = 200  # more commits than this: progress lines (refused ones still listed)
PROGRESS_EVERY = 500


def commit_text(line) -> str:  # type: ignore[no-untyped-def]
    """One commit: `<short sha> <committer date> <payload name>: <what happened>`."""
    v = line.version
    head = f"{v.commit[:10]} {v.committed_at:%Y-%m-%d %H:%M} {safe(line.payload_name)}: "
    if line.status == "skipped":
        return head + "skipped (already backfilled: nothing added)"
    if line.status == "refused":
        return head + f"REFUSED {safe(line.error_type)}: {one_line(line.error)}"
    if line.status == "unchanged":
        return head + "unchanged (the same bytes as an earlier version: its prices confirmed)"
    return head + f"{line.rows_accepted} rows accepted, {line.rows_refused} refused"


def summary_text(result) -> str:  # type: ignore[no-untyped-def]
    n, seconds = len(result.lines), result.load_seconds
    return (f"{n} commit(s) read and loaded in {seconds:.1f} s "
            f"({n / seconds if seconds else 0:.0f} per s): "
            f"{result.count('loaded')} loaded ({result.rows_accepted} rows accepted, "
            f"{result.rows_refused} refused), {result.count('unchanged')} unchanged, "
            f"{result.count('refused')} refused, {result.count('skipped')} skipped as "
            "already backfilled")


def cmd_backfill(args: argparse.Namespace) -> int:
    from gpucost.flows.backfill import BackfillError, backfill
    from gpucost.flows.cli.refresh import _published_line
    from gpucost.flows.prefect_server import prepare_prefect_home
    from gpucost.flows.progress import setup_console

    prepare_prefect_home()
    setup_console(verbose=args.verbose)
    t0 = time.perf_counter()
    seen = 0

    def say(line) -> None:  # type: ignore[no-untyped-def]
        nonlocal seen
        seen += 1
        if args.verbose or seen <= BACKFILL_LINES_MAX or line.status == "refused":
            print(commit_text(line), flush=True)
        elif seen % PROGRESS_EVERY == 0:
            print(f"... {seen} commits read ({time.perf_counter() - t0:.0f} s), up to "
                  f"{line.version.committed_at:%Y-%m-%d}", flush=True)

    try:
        result = backfill(Path(args.repo), args.path, args.source, provider=args.provider,
                          publish=not args.no_publish, force=args.force,
                          allow_shrink=args.allow_shrink, say=say)
    except BackfillError as exc:
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    print(summary_text(result))
    if result.published:
        print(_published_line(len(result.published.mart_rows), result.published.seconds,
                              result.published.history_mode))
    elif args.no_publish:
        print("loaded into the raw layer; not published (--no-publish): the next "
              "`gpucost ingest` or `gpucost refresh` publishes it")
    return EXIT_SOURCE_FAILED if result.count("refused") else EXIT_OK


def add_parser(sub: argparse._SubParsersAction) -> None:
    b = sub.add_parser("backfill", help="load every version of a catalog file from a git "
                                        "clone's history (docs/backfill.md), then publish")
    b.add_argument("repo", metavar="REPO_DIR", help="a local git clone (e.g. of "
                   "skypilot-org/skypilot-catalog)")
    b.add_argument("--path", required=True, metavar="PATH",
                   help="a file, folder or git pathspec glob relative to the repository root "
                        "(catalogs/v8/lambda/vms.csv, catalogs/v8, 'catalogs/v8/*/vms.csv')")
    b.add_argument("--source", required=True, help="the source that reads these files "
                   "(skypilot)")
    b.add_argument("--provider", default=None,
                   help="name every version's folder so (the skypilot source reads the "
                        "provider from it); default: the file's own folder")
    b.add_argument("--force", action="store_true",
                   help="load versions the row-count guard refuses (far fewer rows than the "
                        "newest payload of their stream)")
    b.add_argument("--allow-shrink", action="store_true",
                   help="publish even when the new build holds far fewer rows in force than "
                        "the published warehouse")
    b.add_argument("--no-publish", action="store_true",
                   help="load into the raw layer only; do not rebuild and publish")
    b.add_argument("--verbose", "-v", action="store_true",
                   help="one line for every commit, however many")
    b.set_defaults(func=cmd_backfill)
