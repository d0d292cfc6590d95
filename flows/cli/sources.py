"""`gpucost sources`: every source's health, data age and last error.

Read from the `source_health` mart of the published warehouse (read-only), joined with the
source registry so a registered source that was never fetched shows up too. Ages are in days.
Health:

- `ok`: the last fetch succeeded, the data in force came from a live fetch, and it is younger
  than --max-age-days;
- `failing`: the last fetch failed (its last good data, if any, stays in force);
- `replayed`: the data in force came from files loaded with `gpucost ingest` and no live
  fetch has returned it; its age is the files' own observation date;
- `stale`: the data in force is live but older than --max-age-days;
- `never fetched`: registered, but no fetch is recorded in the published warehouse;
- `curated`: the curated reference prices (no fetch).

`--strict` exits 3 unless every source is `ok` or `curated`, and says why in one line (for
instance a source whose live fetch has never succeeded).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from typing import Any

from gpucost.flows.cli.options import positive
from gpucost.flows.cli.terminal import one_line, safe

DEFAULT_MAX_AGE_DAYS = 2.0
EXIT_OK, EXIT_FAILED, EXIT_SOURCE_FAILED = 0, 1, 3


def health(row: dict[str, Any], max_age_days: float) -> str:
    if row.get("last_status") is None:
        return "never fetched"
    if row["last_status"] == "curated":
        return "curated"
    if row["last_status"] == "failed":
        return "failing"
    if row.get("data_origin") == "replayed":
        return "replayed"
    age = row.get("data_age_days")
    if age is None or age > max_age_days:
        return "stale"
    return "ok"


def source_rows(con: Any, max_age_days: float = DEFAULT_MAX_AGE_DAYS) -> list[dict[str, Any]]:
    """One dict per source (registered or seen in source_health), sorted by name."""
    from gpucost.catalog import sources

    cur = con.execute("select * from source_health order by source")
    cols = [d[0] for d in cur.description]
    seen = {r[0]: dict(zip(cols, r, strict=True)) for r in cur.fetchall()}
    rows = []
    for name in sorted(set(seen) | set(sources.names())):
        row = seen.get(name) or {"source": name}
        try:
            kind = sources.get(name).kind
        except KeyError:
            kind = "prices" if name == "reference" else ""
        row = {"source": name, "kind": kind, **{k: v for k, v in row.items() if k != "source"}}
        row["health"] = health(row, max_age_days)
        rows.append(row)
    return rows


def age_text(days: float | None) -> str:
    """An age in days, one decimal ("102.4 d"); "" when unknown."""
    return "" if days is None else f"{days:.1f} d"


def _when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value else ""


def render_table(rows: list[dict[str, Any]]) -> str:
    from gpucost.flows.progress import shorten

    head = ["source", "kind", "health", "last status", "data from", "rows in force",
            "data age", "last success (UTC)", "last error"]
    cells = []
    for r in rows:
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
        cells[-1] = [safe(c) for c in cells[-1]]  # remote text (an error) shown escaped
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(head)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
              for row in cells]
    return "\n".join(lines)


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
        if r["health"] in ("ok", "curated"):
            continue
        reason = reasons.get(r["health"], r["health"])
        if r["health"] in ("failing", "replayed", "stale") and not r.get("last_live_success_at"):
            reason += ", never fetched live"
        groups.setdefault(reason, []).append(r["source"])
    return safe("not healthy: " + "; ".join(f"{', '.join(names)}: {reason}"
                                            for reason, names in groups.items()))


def cmd_sources(args: argparse.Namespace) -> int:
    from gpucost.warehouse import data_dir
    from gpucost.warehouse.publish import NoWarehouseError, connect_readonly

    max_age_days = args.max_age_days
    if args.max_age_hours is not None:  # the former option, in hours
        max_age_days = args.max_age_hours / 24
    try:
        con = connect_readonly(data_dir())
    except NoWarehouseError as exc:
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return EXIT_FAILED
    try:
        rows = source_rows(con, max_age_days)
    finally:
        con.close()
    if args.format == "json":
        json.dump(rows, sys.stdout, indent=1, default=str)
        print()
    else:
        print(render_table(rows))
    if args.strict and any(r["health"] not in ("ok", "curated") for r in rows):
        print(why_not_healthy(rows), file=sys.stderr)
        return EXIT_SOURCE_FAILED
    return EXIT_OK


def add_parser(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("sources", help="health, data age and last error of every source",
                       description=__doc__)
    s.add_argument("--format", choices=("table", "json"), default="table")
    s.add_argument("--max-age-days", type=positive, default=DEFAULT_MAX_AGE_DAYS, metavar="DAYS",
                   help=f"live data older than this is 'stale' (default {DEFAULT_MAX_AGE_DAYS:g})")
    s.add_argument("--max-age-hours", type=positive, default=None, help=argparse.SUPPRESS)
    s.add_argument("--strict", action="store_true",
                   help="exit 3 unless every source is ok or curated: when a source is failing, "
                        "stale, replayed (no live fetch returned its data) or never fetched")
    s.set_defaults(func=cmd_sources)
