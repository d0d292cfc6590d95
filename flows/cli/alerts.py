"""`gpucost alerts add|list|remove`: price alerts evaluated at the end of every publish
(flows/alerts.py; docs/alerts.md).

    gpucost alerts add h100-cheap --gpu "H100 SXM:8" --below 2.5 --notify json://host:8080/
    gpucost alerts list
    gpucost alerts remove h100-cheap

Notify URLs are shown redacted (credentials, tokens and query values as ***) everywhere.
"""

from __future__ import annotations

import argparse
import sys

from gpucost.flows.cli.options import positive
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


def _data_dir():  # type: ignore[no-untyped-def]
    from gpucost.warehouse import data_dir

    return data_dir()


def cmd_add(args: argparse.Namespace) -> int:
    from gpucost.flows.alerts import AlertError, AlertStateError, add_rule, redact_url, what

    try:
        rule = add_rule(_data_dir(), name=args.name, gpu=args.gpu, below=args.below,
                        notify=args.notify, pricing_model=args.pricing_model)
    except AlertError as exc:
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except AlertStateError as exc:
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return EXIT_FAILED
    offer = rule.get("last_offer")
    now = (f"cheapest now {rule['last_price']:.4g} USD/GPU-h "
           f"({offer.get('seller') or offer['provider']} {offer['sku']})" if offer
           else "no matching offer in force now")
    print(f"alert {rule['name']} added: {what(rule)} below {rule['below']:g} USD/GPU-h, "
          f"notify {redact_url(rule['notify'])}; {now}")
    if rule["is_below"]:
        print("  already below: taken as the baseline, nothing is sent until the price goes "
              "back to the threshold or above and crosses again")
    return EXIT_OK


COLUMNS = ["name", "gpu", "accelerator_id", "gpu_count", "pricing_model",
           "below_usd_per_gpu_hour", "notify", "state", "last_price_per_gpu_hour",
           "evaluated_at", "notified_at"]


def cmd_list(args: argparse.Namespace) -> int:
    from gpucost.flows.alerts import AlertStateError, list_rules, redact_url

    try:
        rules = list_rules(_data_dir())
    except AlertStateError as exc:
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return EXIT_FAILED
    rows = []
    for r in rules:
        state = ("below, delivery pending" if r.get("pending") else "below") \
            if r.get("is_below") else "at or above"
        rows.append([r.get("name"), r.get("gpu"), r.get("accelerator_id"), r.get("gpu_count"),
                     r.get("pricing_model"), r.get("below"), redact_url(str(r.get("notify"))),
                     state, r.get("last_price"), r.get("evaluated_at"), r.get("notified_at")])
    if args.format == "json":
        write_json([dict(zip(COLUMNS, row, strict=True)) for row in rows])
        return EXIT_OK
    if args.format == "csv":
        write_csv(COLUMNS, rows)
        return EXIT_OK
    if not rows:
        print("no alert rules (`gpucost alerts add NAME --gpu GPU --below PRICE --notify URL`)")
        return EXIT_OK
    write_table(["name", "gpu", "accelerator", "GPUs", "pricing", "below USD/GPU-h", "notify",
                 "state", "last USD/GPU-h", "notified"],
                [[row[0], row[1], row[2], row[3] or "any", row[4], f"{row[5]:g}", row[6],
                  row[7], "-" if row[8] is None else f"{row[8]:.4g}",
                  (row[10] or "-")[:16].replace("T", " ")]
                 for row in rows])
    return EXIT_OK


def cmd_remove(args: argparse.Namespace) -> int:
    from gpucost.flows.alerts import AlertStateError, remove_rule

    try:
        removed = remove_rule(_data_dir(), args.name)
    except AlertStateError as exc:
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return EXIT_FAILED
    if not removed:
        print(f"error: no alert named {one_line(args.name)!r} (`gpucost alerts list`)",
              file=sys.stderr)
        return EXIT_USAGE
    print(f"alert {one_line(args.name)} removed")
    return EXIT_OK


def add_parser(sub: argparse._SubParsersAction) -> None:
    from gpucost.flows.alerts import PRICING_MODELS

    a = sub.add_parser("alerts", help="price alerts, notified through apprise when a publish "
                                      "sees a price cross below a threshold (docs/alerts.md)")
    actions = a.add_subparsers(dest="action", required=True)
    add = actions.add_parser(
        "add", help="add a rule",
        description="Notify once when the cheapest offer in force (first-hand, fresh, "
                    "undisputed, USD) of an accelerator goes below PRICE USD per GPU-hour; "
                    "again only after it has gone back to PRICE or above. Evaluated at the "
                    "end of every publish (refresh, ingest, the recorded load, the cluster "
                    "publisher). A price already below when the rule is added is the "
                    "baseline: nothing is sent for it.")
    add.add_argument("name", help="the rule's name (letters, digits, _ . -)")
    add.add_argument("--gpu", required=True, metavar="GPU[:N]",
                     help="one accelerator, resolved as `gpucost offers` does (an id, name or "
                          "alias; a name matching several exits 2 listing them); :N = "
                          "instances of exactly N GPUs, as `gpucost offers H100:8`; without "
                          ":N any size")
    add.add_argument("--below", required=True, type=positive, metavar="PRICE",
                     help="threshold in USD per GPU-hour (the instance price / its GPUs)")
    add.add_argument("--pricing-model", default="on_demand", choices=PRICING_MODELS)
    add.add_argument("--notify", required=True, metavar="URL",
                     help="an apprise URL: json://host:port/path, slack://..., "
                          "mailto://user:pass@gmail.com, ... (stored in the data directory's "
                          "alerts.json, mode 0600; shown redacted); or env:NAME, the URL "
                          "read from the environment variable NAME at each delivery (the "
                          "secret stays out of the file and the shell history)")
    add.set_defaults(func=cmd_add)
    ls = actions.add_parser("list", help="the rules, their state, notify URLs redacted")
    add_format_option(ls)
    ls.set_defaults(func=cmd_list)
    rm = actions.add_parser("remove", help="remove a rule")
    rm.add_argument("name")
    rm.set_defaults(func=cmd_remove)
