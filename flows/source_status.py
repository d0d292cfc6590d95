"""`gpucost sources`: every source's health, data age and last error.

Read from the `source_health` mart of the published warehouse (read-only), joined with the
source registry so a registered source that was never fetched shows up too. Health:

- `ok`: the last fetch succeeded and the data in force is younger than --max-age-hours;
- `failing`: the last fetch failed (its last good data, if any, stays in force);
- `stale`: the last fetch succeeded but the newest data in force is older than --max-age-hours;
- `never fetched`: registered, but no fetch is recorded in the published warehouse;
- `curated`: the curated reference prices (no fetch).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from typing import Any

DEFAULT_MAX_AGE_HOURS = 48.0
EXIT_OK, EXIT_FAILED, EXIT_SOURCE_FAILED = 0, 1, 3


def health(row: dict[str, Any], max_age_hours: float) -> str:
    if row.get("last_status") is None:
        return "never fetched"
    if row["last_status"] == "curated":
        return "curated"
    if row["last_status"] == "failed":
        return "failing"
    age = row.get("data_age_hours")
    if age is None or age > max_age_hours:
        return "stale"
    return "ok"


def source_rows(con: Any, max_age_hours: float = DEFAULT_MAX_AGE_HOURS) -> list[dict[str, Any]]:
    """One dict per source (registered or seen in source_health), sorted by name."""
    from catalog import sources

    cur = con.execute("select * from source_health order by source")
    cols = [d[0] for d in cur.description]
    seen = {r[0]: dict(zip(cols, r, strict=True)) for r in cur.fetchall()}
    rows = []
    for name in sorted(set(seen) | set(sources.names())):
        row = seen.get(name) or {"source": name}
        try:
            kind = getattr(sources.get(name), "KIND", "")
        except KeyError:
            kind = "prices" if name == "reference" else ""
        row = {"source": name, "kind": kind, **{k: v for k, v in row.items() if k != "source"}}
        row["health"] = health(row, max_age_hours)
        rows.append(row)
    return rows


def _age(hours: float | None) -> str:
    if hours is None:
        return ""
    if hours < 48:
        return f"{hours:.1f} h"
    return f"{hours / 24:.1f} d"


def _when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value else ""


def render_table(rows: list[dict[str, Any]]) -> str:
    from flows.progress import shorten

    head = ["source", "kind", "health", "last status", "rows in force", "data age",
            "last success (UTC)", "last error"]
    cells = []
    for r in rows:
        err = ""
        if r.get("last_error_type"):
            err = shorten(f"{r['last_error_type']}: {r.get('last_error') or ''}", 90)
        cells.append([
            r["source"], r.get("kind") or "", r["health"], r.get("last_status") or "",
            "" if r.get("rows_in_force") is None else str(r["rows_in_force"]),
            _age(r.get("data_age_hours")), _when(r.get("last_success_at")), err,
        ])
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(head)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
              for row in cells]
    return "\n".join(lines)


def cmd_sources(args: argparse.Namespace) -> int:
    from warehouse import data_dir
    from warehouse.publish import NoWarehouseError, connect_readonly

    try:
        con = connect_readonly(data_dir())
    except NoWarehouseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    try:
        rows = source_rows(con, args.max_age_hours)
    finally:
        con.close()
    if args.format == "json":
        json.dump(rows, sys.stdout, indent=1, default=str)
        print()
    else:
        print(render_table(rows))
    bad = [r["source"] for r in rows if r["health"] not in ("ok", "curated")]
    if args.strict and bad:
        print(f"not healthy: {', '.join(bad)}", file=sys.stderr)
        return EXIT_SOURCE_FAILED
    return EXIT_OK


def add_parser(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("sources", help="health, data age and last error of every source",
                       description=__doc__)
    s.add_argument("--format", choices=("table", "json"), default="table")
    s.add_argument("--max-age-hours", type=float, default=DEFAULT_MAX_AGE_HOURS,
                   help=f"data older than this is 'stale' (default {DEFAULT_MAX_AGE_HOURS:g})")
    s.add_argument("--strict", action="store_true",
                   help="exit 3 when any source is failing, stale or never fetched")
    s.set_defaults(func=cmd_sources)
