"""`gpucost estimate training` and `scenario`: the queries of a training estimate.

training_cost_estimate (and cost_breakdown_estimate) for the options given, or one scenario of
the training_cost mart as the mart computed it. The arithmetic and the assumptions read are
the macro's; here are the checks of the figures given and the choice of rows to show."""

from __future__ import annotations

import argparse
import math
from typing import Any

from gpucost.flows.cli.estimate.common import (
    DEFAULT_GPUS,
    EstimateError,
    assumptions,
    call,
    keys_read,
    macro_values,
    mfu_model,
    rank_platforms,
    resolve_accelerator,
    rows,
)
from gpucost.flows.cli.output import count, number

# FLOPs given two ways agree within this relative difference, else the command refuses
_AGREE = 0.01


def training_estimate(con: Any, args: argparse.Namespace) -> dict[str, Any]:
    """Run training_cost_estimate (and cost_breakdown_estimate) for the CLI arguments."""
    if args.params is None and args.flops is None and args.days is None:
        raise EstimateError("give --params (with --tokens, or Chinchilla tokens by default),"
                            " --flops, or --gpus with --days")
    if args.days is not None and args.gpus is None and args.params is None \
            and args.flops is None:
        raise EstimateError("--days alone needs the run (--params, or --flops) to size the "
                            "cluster that finishes within it; with --gpus it is the cluster time")
    if args.precision not in (None, "bf16", "fp16", "fp8"):
        raise EstimateError("training precision must be bf16, fp16 or fp8 (fp4 and int8 are"
                            " inference weight formats)")
    _check_training_figures(args)
    accelerator = resolve_accelerator(con, args.accelerator) if args.accelerator else None
    values = macro_values(con, "training_cost_estimate", args)
    deadline = args.days if args.days is not None and args.gpus is None else None
    if deadline is not None:
        # --days alone: per accelerator, the fewest GPUs that finish within it (the macro)
        values.update(days=None, n_gpus=None, deadline_days=deadline)
    else:
        values["n_gpus"] = values["n_gpus"] or DEFAULT_GPUS
    values["accelerator"] = accelerator["accelerator_id"] if accelerator else None
    found = _training_rows(con, values, accelerator)
    if not found and accelerator:
        raise EstimateError(f"{accelerator['accelerator_id']} has no dense "
                            f"{args.precision or 'bf16'} peak in the catalog")
    if not found:
        raise EstimateError("no accelerator with a price to estimate on")
    _check_finite(found)
    _check_agreement(con, args, values, found, accelerator)
    infeasible = [r for r in found if r["feasible"] is False]
    if accelerator and infeasible and not args.all:
        r = infeasible[0]
        raise EstimateError(f"{r['accelerator_id']} cannot train this model: "
                            f"{r['infeasible_reason']} (a model replica needs "
                            f"{number(r['gpus_per_model_replica'])} GPUs); "
                            "--all prints the estimate anyway")
    hidden = sorted({r["accelerator_id"] for r in infeasible})
    if not accelerator and not args.all:
        found = [r for r in found if r["feasible"] is not False]
        if not found:
            raise EstimateError("no accelerator with a price can train this model on "
                                f"{number(values['n_gpus'])} GPUs; --all shows why")
    result: dict[str, Any] = {
        "mode": "training",
        "inputs": {k: v for k, v in values.items() if v is not None},
        "gpus_defaulted": args.gpus is None and deadline is None,
        "deadline_days": deadline,
        "rows": found,
        "ranking": rank_platforms(found),
        "infeasible_hidden": [] if (accelerator or args.all) else hidden,
        "show_all": bool(args.all),
    }
    if args.breakdown and accelerator:
        result.update(_breakdown(con, args.breakdown, found[0], accelerator["accelerator_id"]))
    elif args.breakdown:
        raise EstimateError("--breakdown needs --accelerator")
    result["assumptions"] = assumptions(con, keys_read(found))
    result["mfu_model"] = mfu_model(con, found)
    return result


def _breakdown(con: Any, asked: list[str], first: dict[str, Any],
               accelerator_id: str) -> dict[str, Any]:
    """The full-bill breakdown of the run under each preset asked for ('all': every one)."""
    presets = [r["preset_id"] for r in rows(
        con, "select preset_id from cost_breakdown_presets order by preset_id")]
    wanted = presets if "all" in asked else asked
    unknown = sorted(set(wanted) - set(presets))
    if unknown:
        raise EstimateError(f"unknown preset(s) {', '.join(unknown)}; known: "
                            f"{', '.join(presets)}")
    breakdown = []
    for preset in wanted:
        breakdown += rows(con, "select * from cost_breakdown_estimate($hours, n_gpus := $gpus,"
                               " accelerator := $acc, preset := $preset) order by sort_order",
                          {"hours": first["gpu_hours"], "gpus": first["n_gpus"],
                           "acc": accelerator_id, "preset": preset})
    return {"breakdown": breakdown,
            "presets": rows(con, "select * from cost_breakdown_presets where "
                                 "list_contains($p, preset_id)", {"p": list(wanted)})}


def _training_rows(con: Any, values: dict[str, Any],
                   accelerator: dict[str, Any] | None) -> list[dict[str, Any]]:
    sql, params = call("training_cost_estimate", values)
    return rows(con, f"{sql} where (price_per_gpu_hour is not null or $one) "
                     "and peak_dense_tflops is not null "
                     "order by accelerator_id, cost_usd nulls last, price_basis",
                {**params, "one": accelerator is not None})


def _check_training_figures(args: argparse.Namespace) -> None:
    """Figures that contradict themselves or each other, before anything is computed."""
    if args.gpus is not None and args.gpus != int(args.gpus):
        raise EstimateError(f"--gpus {args.gpus:g} is not a whole number of GPUs")
    if args.params_total is not None and args.params is not None \
            and args.params_total < args.params:
        raise EstimateError(f"--params-total {args.params_total:g} is below --params "
                            f"{args.params:g}: the active parameters of a mixture of experts "
                            "are a subset of its total")
    if args.params_total is not None and args.params is None:
        raise EstimateError("--params-total needs --params (the active parameters)")
    if args.pue is not None and args.pue < 1:
        raise EstimateError(f"--pue {args.pue:g} is below 1: a facility cannot use less power "
                            "than its IT load")
    if args.flops is not None and args.days is not None:
        raise EstimateError("--flops and --days (with --gpus) both fix the training compute: "
                            "give one")
    if args.tokens is not None and args.tokens_per_param is not None:
        raise EstimateError("--tokens and --tokens-per-param both fix the tokens: give one")
    if args.micro_batch is not None and args.micro_batch != int(args.micro_batch):
        raise EstimateError(f"--micro-batch {args.micro_batch:g} is not a whole number")


def _check_finite(found: list[dict[str, Any]]) -> None:
    for column in ("flops", "gpu_hours", "cost_usd", "wall_clock_days", "energy_mwh"):
        for r in found:
            v = r.get(column)
            if isinstance(v, float) and not math.isfinite(v):
                raise EstimateError(f"{column} overflows ({v}) on {r['accelerator_id']}: the "
                                    "figures given are too large to compute with")


def _check_agreement(con: Any, args: argparse.Namespace, values: dict[str, Any],
                     found: list[dict[str, Any]], accelerator: dict[str, Any] | None) -> None:
    """--params with --tokens fix the FLOPs; --flops or --days (on --gpus) fix them again.
    Both ways must agree (within 1%), else the command names the conflict."""
    if args.params is None or args.tokens is None:
        return
    if args.flops is None and (args.days is None or args.gpus is None):
        return  # --days without --gpus is a deadline, not cluster time
    from_params = _training_rows(con, {k: v for k, v in values.items()
                                       if k not in ("flops", "days")}, accelerator)
    by_acc = {r["accelerator_id"]: r for r in from_params}
    for r in found:
        other = by_acc.get(r["accelerator_id"])
        if other is None:
            continue
        if args.flops is not None and abs(other["flops"] / args.flops - 1) > _AGREE:
            raise EstimateError(
                f"--params {args.params:g} and --tokens {args.tokens:g} give "
                f"{count(other['flops'])} FLOPs, but --flops says {count(args.flops)}: "
                "give one of them")
        if args.days is not None and args.gpus is not None \
                and abs(other["wall_clock_days"] / args.days - 1) > _AGREE:
            raise EstimateError(
                f"--params {args.params:g} and --tokens {args.tokens:g} take "
                f"{number(other['wall_clock_days'])} days on {number(values['n_gpus'])} "
                f"{r['accelerator_id']} at MFU {number(other['mfu'])}, but --days says "
                f"{args.days:g}: give --days or --tokens, not both")


def scenario_estimate(con: Any, args: argparse.Namespace) -> dict[str, Any]:
    """A scenario of the training_cost mart, as the mart computed it (its own price basis,
    MFU and goodput): the same rows `gpucost estimate` would print for its figures."""
    found = rows(con, "select * from training_cost where scenario_id = $id "
                      "order by accelerator_id, cost_usd nulls last, price_basis",
                 {"id": args.scenario})
    if not found:
        known = [r["scenario_id"] for r in rows(
            con, "select distinct scenario_id from training_cost order by 1")]
        raise EstimateError(f"unknown scenario {args.scenario!r}; known: {', '.join(known)}")
    show_all = bool(getattr(args, "all", None))
    hidden = sorted({r["accelerator_id"] for r in found if r["feasible"] is False})
    if not show_all:
        found = [r for r in found if r["feasible"] is not False] or found
    first = found[0]
    inputs = {"tokens": first["tokens"]} if first["flops_basis"] == "params_tokens" else {}
    return {
        "mode": "training",
        "scenario": {"scenario_id": args.scenario, "question": first["question"]},
        "inputs": inputs,
        "gpus_defaulted": False,
        "rows": found,
        "ranking": rank_platforms(found),
        "infeasible_hidden": [] if show_all else hidden,
        "show_all": show_all,
        "assumptions": assumptions(con, keys_read(found)),
        "mfu_model": mfu_model(con, found),
    }
