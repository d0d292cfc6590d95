"""`gpucost estimate`: the training / inference / rent-vs-buy cost calculator on the published
warehouse.

The arithmetic is not here: the command calls the DuckDB table macros the marts are built with
(`training_cost_estimate`, `cost_breakdown_estimate`, `inference_cost_estimate`,
`inference_cost_ratio`, `claim_check`, `rent_vs_buy_estimate`, ... in models/macros/) on a
read-only connection with file access disabled, and formats what they return, including the
assumption keys each macro says it read. A formula therefore lives in one place, and
`gpucost estimate` always agrees with the `training_cost` / `inference_cost` marts.

The package, by job: `parser` (the options, each defined once, the subcommands and the flag
aliases), `common` (queries, macro arguments, the accelerator resolver), `training` and
`inference` (the queries of each mode), `print_training` and `print_inference` (the table
format); json and csv come from the shared output layer (flows/cli/output.py).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gpucost.flows.cli.estimate import parser
from gpucost.flows.cli.estimate.common import EstimateError
from gpucost.flows.cli.estimate.inference import inference_estimate, rent_vs_buy
from gpucost.flows.cli.estimate.print_inference import print_inference
from gpucost.flows.cli.estimate.print_training import print_rent_vs_buy, print_training
from gpucost.flows.cli.estimate.training import scenario_estimate, training_estimate
from gpucost.flows.cli.output import (
    EXIT_OK,
    EXIT_USAGE,
    write_csv,
    write_json,
)
from gpucost.flows.cli.terminal import one_line

__all__ = ["EstimateError", "add_estimate_parser", "cmd_estimate"]

_QUERIES = {"training": training_estimate, "inference": inference_estimate,
            "rent-vs-buy": rent_vs_buy, "scenario": scenario_estimate}
_PRINTERS = {"training": print_training, "inference": print_inference,
             "rent-vs-buy": print_rent_vs_buy, "scenario": print_training}


def add_estimate_parser(sub: Any) -> None:
    """Register `gpucost estimate` on the CLI's subparsers."""
    parser.build(sub, cmd_estimate)


def _csv_cell(v: Any) -> Any:
    return ";".join(str(x) for x in v) if isinstance(v, (list, tuple)) else v


def write_rows_csv(result: dict[str, Any], out: Any) -> None:
    """--format csv: the mode's main rows (one per accelerator x price basis; rent-vs-buy: one
    per rental basis), every column the macro returns; a list cell joined with ';'."""
    found = result["rows"]
    headers = list(found[0]) if found else []
    write_csv(headers, ([_csv_cell(r[h]) for h in headers] for r in found), out)


def cmd_estimate(args: argparse.Namespace) -> int:
    from gpucost.warehouse import data_dir
    from gpucost.warehouse.publish import connect_readonly

    con = connect_readonly(data_dir())  # no warehouse yet: main says so, exit 1
    try:
        mode = parser.mode_of(args)
        if not args.estimate_mode:
            parser.mixed_options(args, mode)
        result = _QUERIES[mode](con, args)
    except EstimateError as exc:
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        con.close()
    if args.format == "json":
        write_json(result, sys.stdout)
    elif args.format == "csv":
        write_rows_csv(result, sys.stdout)
    else:
        _PRINTERS[mode](result, sys.stdout)
    return EXIT_OK
