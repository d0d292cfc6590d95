"""`gpucost explain fetch FETCH_ID`: where a number came from.

Every price-derived row carries the `fetch_id` of the payload behind it (gpu_offers,
gpu_prices, price_bases, cost_per_flop, training_cost...). This prints that fetch from the
published warehouse (schema `intermediate`): the source, what was fetched and from where,
when it was observed (and how precisely: an approximate date, `--observed-at YYYY-MM`, says
so and cites its basis), the payload's path in the raw layer (saved verbatim), its rows loaded
and refused, and the offers of it in force now. `--format table` (the default; `text`, its
former name, still works) prints it for a reader; `json` prints the fetch with the offers
(`offers_in_force`, `offers_sample`); `csv` the fetch as one row (FIELDS, offers_in_force).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import duckdb

from gpucost.flows.cli.options import non_negative_int
from gpucost.flows.cli.output import (
    EXIT_FAILED,
    EXIT_OK,
    add_format_option,
    write_csv,
    write_json,
)
from gpucost.flows.cli.terminal import safe

FIELDS = ("fetch_id", "source", "stream", "fetch_mode", "status", "url", "payload_name",
          "payload_path", "payload_bytes", "sha256", "http_status", "observed_at",
          "observed_at_basis", "observed_at_precision", "started_at", "finished_at",
          "rows_loaded", "rows_rejected", "error_type", "error")


def explain_fetch(con: Any, fetch_id: int) -> dict[str, Any] | None:
    """The fetch row and the offers of it in force, or None when there is no such fetch."""
    cur = con.execute(f"select {', '.join(FIELDS)} from intermediate.fetches "
                      "where fetch_id = ?", [fetch_id])
    row = cur.fetchall()
    if not row:
        return None
    out = dict(zip(FIELDS, row[0], strict=True))
    if out["observed_at_basis"] == "ingest_time":  # a file that states no date: not a date
        out["observed_at"] = None
    offers = con.execute(
        "select provider, sku, region, pricing_model, price_per_hour, gpu_count, "
        "price_per_gpu_hour, accelerator_id from gpu_offers where fetch_id = ? "
        "order by price_per_gpu_hour nulls last, provider, sku, region limit 10",
        [fetch_id]).fetchall()
    [(n_offers,)] = con.execute("select count(*) from gpu_offers where fetch_id = ?",
                                [fetch_id]).fetchall()
    out["offers_in_force"] = n_offers
    out["offers_sample"] = [dict(zip(("provider", "sku", "region", "pricing_model",
                                      "price_per_hour", "gpu_count", "price_per_gpu_hour",
                                      "accelerator_id"), r, strict=True)) for r in offers]
    [(n_disputed, n_stale)] = con.execute(
        "select count(*) filter (where is_disputed), count(*) filter (where is_stale) "
        "from gpu_offers where fetch_id = ?", [fetch_id]).fetchall()
    out["offers_disputed"], out["offers_stale"] = n_disputed, n_stale
    out["disputes"] = explain_disputes(con, fetch_id)
    return out


DISPUTE_FIELDS = ("provider", "sku", "pricing_model", "higher_source", "higher_region",
                  "higher_price_per_hour", "higher_observed_at", "higher_fetch_id",
                  "lower_source", "lower_region", "lower_price_per_hour", "lower_observed_at",
                  "lower_fetch_id", "pct_diff", "disputed_offers")


def explain_disputes(con: Any, fetch_id: int) -> list[dict[str, Any]]:
    """The price disputes (mart price_disputes) a fetch takes part in, on either side: the
    provider's own page against a catalog or a resale that states another price."""
    try:
        rows = con.execute(
            f"select {', '.join(DISPUTE_FIELDS)} from price_disputes "
            "where ? in (higher_fetch_id, lower_fetch_id) "
            "order by provider, sku, pricing_model, higher_region", [fetch_id]).fetchall()
    except duckdb.CatalogException:  # a warehouse published before price_disputes existed
        return []
    return [dict(zip(DISPUTE_FIELDS, r, strict=True)) for r in rows]


def cmd_explain(args: argparse.Namespace) -> int:
    from gpucost.warehouse import data_dir
    from gpucost.warehouse.publish import connect_readonly

    con = connect_readonly(data_dir())
    try:
        found = explain_fetch(con, args.fetch_id)
    finally:
        con.close()
    if found is None:
        print(f"error: no fetch {args.fetch_id} in the published warehouse "
              "(`gpucost sql \"select fetch_id, source, status from intermediate.fetches\"`)",
              file=sys.stderr)
        return EXIT_FAILED
    if args.format == "json":
        write_json(found)
        return EXIT_OK
    if args.format == "csv":
        columns = [*FIELDS, "offers_in_force"]
        write_csv(columns, [[found[c] for c in columns]])
        return EXIT_OK

    def say(line: str) -> None:  # each line one terminal-safe line: values are remote text
        print(safe(line))

    path = found["payload_path"]
    say(f"fetch {found['fetch_id']}: {found['source']} / {found['stream'] or '-'}, "
        f"{found['fetch_mode']}, status {found['status']}")
    say(f"  from:        {found['url'] or '-'} ({found['payload_name'] or '-'}, "
        f"{found['payload_bytes'] or 0} bytes, HTTP {found['http_status'] or '-'})")
    say(f"  observed at: {found['observed_at'] or 'unknown (the payload states no date; '}"
        + (f"  (fetched {found['started_at']})" if found["observed_at"] else
           f"loaded {found['started_at']}: not a current price)"))
    if found["observed_at"] and found.get("observed_at_precision") == "month":
        say(f"               approximate: only the month is known (~"
            f"{found['observed_at']:%Y-%m}; its first day stands for it, so it is never "
            f"fresher than it may be), basis {found['observed_at_basis'] or '-'}"
            + (" (given with --observed-at)" if found["observed_at_basis"] == "option"
               else ""))
    say(f"  payload:     {path or '(not saved)'} under the data directory "
        f"(sha256 {str(found['sha256'] or '-')[:16]}...)")
    say(f"  rows:        {found['rows_loaded'] or 0} loaded, {found['rows_rejected'] or 0} "
        "refused (raw.rejects)")
    if found["error_type"]:
        say(f"  error:       {found['error_type']}: {found['error']}")
    say(f"  in force:    {found['offers_in_force']} offer(s) in gpu_offers"
        + (f", {found['offers_disputed']} disputed" if found["offers_disputed"] else "")
        + (f", {found['offers_stale']} stale" if found["offers_stale"] else ""))
    for o in found["offers_sample"]:
        per_gpu = o["price_per_gpu_hour"]
        say(f"    {o['provider']} {o['sku']} {o['region'] or '-'} {o['pricing_model']}: "
            f"{o['price_per_hour']} USD/h"
            + (f" ({per_gpu:.4g} per GPU, {o['accelerator_id']})" if per_gpu else ""))
    if found["disputes"]:
        say(f"  disputes:    {len(found['disputes'])} (price_disputes: the provider's own page "
            "outranks a catalog or a resale; the lower-ranked rows are never a price basis)")
    for d in found["disputes"][:10]:
        say(f"    {d['provider']} {d['sku']} {d['pricing_model']}: {d['higher_source']} "
            f"{d['higher_region'] or '-'} {d['higher_price_per_hour']:.6g} USD/h "
            f"({d['higher_observed_at']:%Y-%m-%d}, fetch {d['higher_fetch_id']}) vs "
            f"{d['lower_source']} {d['lower_region'] or '-'} {d['lower_price_per_hour']:.6g} "
            f"({d['lower_observed_at']:%Y-%m-%d}, fetch {d['lower_fetch_id']}): "
            f"{d['pct_diff']:+.1f}%, {d['disputed_offers']} offer(s) disputed")
    return EXIT_OK


def add_parser(sub: argparse._SubParsersAction) -> None:
    e = sub.add_parser("explain", help="where a number came from: `explain fetch FETCH_ID`")
    what = e.add_subparsers(dest="what", required=True)
    f = what.add_parser("fetch", help="one raw.fetches row: source, URL, payload, rows")
    f.add_argument("fetch_id", type=non_negative_int)
    add_format_option(f, aliases={"text": "table"},
                      help="table (for a reader; `text`, its former name, still works), csv "
                           "(the fetch as one row) or json (the fetch and its offers)")
    f.set_defaults(func=cmd_explain)
