"""`gpucost sources`: every source's health, data age and last error.

Read from the `source_health` mart of the published warehouse (read-only): every registered
source (a source never fetched too), its kind and its health, the label the SQL macro
source_health_label gives at --max-age-days. Ages are in days. Health:

- `ok`: the last fetch succeeded, the data in force came from a live fetch, and it is younger
  than --max-age-days;
- `failing`: the last fetch failed (its last good data, if any, stays in force);
- `replayed`: the data in force came from files loaded with `gpucost ingest` and no live
  fetch has returned it; its age is the files' own observation date;
- `stale`: the data in force is live but older than --max-age-days (or undated): stale only
  ever means old data here;
- `never fetched`: registered, but no fetch is recorded in the published warehouse;
- `curated`: the curated reference prices (no fetch).

`--strict` exits 3 when a source is `failing`, `replayed`, `never fetched` or `stale` (every
source `ok` or `curated`: exit 0), and says why in one line (for instance a source whose live
fetch has never succeeded).
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from typing import Any

from gpucost.flows.cli.options import positive
from gpucost.flows.cli.output import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_SOURCE_FAILED,
    add_format_option,
    age_text,
    aligned,
    write_csv,
    write_json,
)
from gpucost.flows.cli.terminal import one_line, safe

DEFAULT_MAX_AGE_DAYS = 2.0  # the default of the macro source_health_label (a test holds it)
HEALTHY = ("ok", "curated")  # any other health exits 3 with --strict
# the source_health mart with `health` at another maximum age (the mart's is at the default)
ROWS_SQL = """
    select * replace (
        source_health_label(last_status, data_origin, data_age_days,
                            max_age_days := $max_age_days) as health
    )
    from source_health
    order by source
"""


def source_rows(con: Any, max_age_days: float = DEFAULT_MAX_AGE_DAYS) -> list[dict[str, Any]]:
    """One dict per source (every registered source, and any other seen in source_health),
    sorted by name, with `health` at `max_age_days` (the SQL macro source_health_label)."""
    cur = con.execute(ROWS_SQL, {"max_age_days": max_age_days})
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def _when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value else ""


def render_table(rows: list[dict[str, Any]]) -> str:
    from gpucost.flows.progress import shorten

    head = ["source", "kind", "health", "last status", "data from", "rows in force",
            "data age", "last success (UTC)", "last error"]
    cells = []
    for r in rows:  # remote text (an error) shown escaped by aligned
        err = ""
        if r.get("last_error_type"):
            err = shorten(f"{r['last_error_type']}: {r.get('last_error') or ''}", 90)
        cells.append([
            r["source"], r.get("kind") or "", r["health"], r.get("last_status") or "",
            r.get("data_origin") or "",
            "" if r.get("rows_in_force") is None else str(r["rows_in_force"]),
            age_text(r.get("data_age_days")) or ("unknown" if r.get("rows_in_force") else ""),
            _when(r.get("last_success_at")), err,
        ])
    return "\n".join(aligned(head, cells, rule=True))


def why_not_healthy(rows: list[dict[str, Any]]) -> str:
    """One line naming every source that is not ok (or curated), grouped by the reason."""
    reasons = {
        "failing": "failing (last fetch failed)",
        "replayed": "replayed (data from `gpucost ingest`, not confirmed by a live fetch)",
        "stale": "stale (data older than the maximum age)",
        "never fetched": "never fetched",
    }
    groups: dict[str, list[str]] = {}
    for r in rows:
        if r["health"] in HEALTHY:
            continue
        reason = reasons.get(r["health"], r["health"])
        if r["health"] in ("failing", "replayed", "stale") and not r.get("last_live_success_at"):
            reason += ", never fetched live"
        groups.setdefault(reason, []).append(r["source"])
    return safe("not healthy: " + "; ".join(f"{', '.join(names)}: {reason}"
                                            for reason, names in groups.items()))


def cmd_sources(args: argparse.Namespace) -> int:
    import duckdb

    from gpucost.warehouse import data_dir
    from gpucost.warehouse.publish import connect_readonly

    max_age_days = args.max_age_days
    if args.max_age_hours is not None:  # the former option, in hours
        max_age_days = args.max_age_hours / 24
    con = connect_readonly(data_dir())  # no warehouse yet: main says so, exit 1
    try:
        rows = source_rows(con, max_age_days)
    except (duckdb.CatalogException, duckdb.BinderException) as exc:  # built by an older gpucost
        print(f"error: {one_line(exc)}; the published warehouse predates this version of "
              "source_health: `gpucost refresh` rebuilds it", file=sys.stderr)
        return EXIT_FAILED
    finally:
        con.close()
    if args.format == "json":
        write_json(rows)
    elif args.format == "csv":
        write_csv(list(rows[0]) if rows else [], [list(r.values()) for r in rows])
    else:
        print(render_table(rows))
    if args.strict and any(r["health"] not in HEALTHY for r in rows):
        print(why_not_healthy(rows), file=sys.stderr)
        return EXIT_SOURCE_FAILED
    return EXIT_OK


def add_parser(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("sources", help="health, data age and last error of every source",
                       description=__doc__)
    add_format_option(s)
    s.add_argument("--max-age-days", type=positive, default=DEFAULT_MAX_AGE_DAYS, metavar="DAYS",
                   help="live data older than this is 'stale' (its only meaning here; "
                        f"default {DEFAULT_MAX_AGE_DAYS:g})")
    s.add_argument("--max-age-hours", type=positive, default=None, help=argparse.SUPPRESS)
    s.add_argument("--strict", action="store_true",
                   help="exit 3 when a source is failing, replayed (no live fetch returned "
                        "its data), never fetched or stale (live data older than "
                        "--max-age-days); 0 when every source is ok or curated")
    s.set_defaults(func=cmd_sources)
