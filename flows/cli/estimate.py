"""`gpucost estimate`: the training / inference cost calculator on the published warehouse.

The arithmetic is not here: this module calls the DuckDB table macros the marts are built
with (`training_cost_estimate`, `cost_breakdown_estimate`, `inference_cost_estimate`,
`inference_cost_ratio`, all in models/macros/) on a read-only connection with file access
disabled, and formats what they return. A formula therefore lives in one place, and
`gpucost estimate` always agrees with the `training_cost` / `inference_cost` marts.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from datetime import date, datetime
from typing import Any

from gpucost.catalog.names import name_key
from gpucost.flows.cli.options import fraction, positive
from gpucost.flows.cli.terminal import one_line, safe

DEFAULT_GPUS = 1024  # stated in the output; only wall-clock days and peak power depend on it

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

# CLI option -> training_cost_estimate argument
_TRAINING_ARGS = {
    "params": "params",
    "tokens": "tokens",
    "params_total": "params_total",
    "tokens_per_param": "tokens_per_param",
    "precision": "precision",
    "mfu": "mfu",
    "goodput": "goodput",
    "gpus": "n_gpus",
    "days": "days",
    "layers": "n_layers",
    "d_model": "d_model",
    "seq_len": "seq_len",
    "causal": "attention_causal",
    "images": "images",
    "tokens_per_image": "tokens_per_image",
    "vision_params": "vision_params",
    "vision_frozen": "vision_frozen",
    "lm_frozen": "lm_frozen",
    "teacher_params": "teacher_params",
    "recompute": "recompute",
    "micro_batch": "micro_batch",
    "flops": "flops",
    "price": "price_per_gpu_hour",
    "pue": "pue",
    "electricity": "electricity_usd_per_kwh",
}

# CLI option -> inference_cost_estimate argument
_INFERENCE_ARGS = {
    "params": "params",
    "params_total": "params_total",
    "precision": "precision",
    "kv_precision": "kv_precision",
    "layers": "n_layers",
    "kv_heads": "n_kv_heads",
    "head_dim": "head_dim",
    "kv_bytes_per_token": "kv_bytes_per_token",
    "context": "context_tokens",
    "batch": "batch_size",
    "gpus": "n_gpus",
    "bandwidth_utilisation": "bandwidth_utilisation",
    "compute_utilisation": "compute_utilisation",
    "price": "price_per_gpu_hour",
}
_RATIO_ARGS = ("params", "params_total", "precision", "kv_precision", "n_layers", "n_kv_heads",
               "head_dim", "kv_bytes_per_token", "context_tokens", "batch_size",
               "bandwidth_utilisation", "compute_utilisation")

# assumptions behind the owned basis (ownership_estimate) and the price bases
_OWNED_KEYS = ("server_cost_overhead", "network_fraction_of_cluster",
               "depreciation_ooms_per_year", "hours_per_year")


# options that only one mode reads: given in the other mode they are a contradiction (exit 2)
_TRAINING_ONLY = ("tokens", "tokens_per_param", "mfu", "goodput", "days", "flops", "d_model",
                  "seq_len", "causal", "images", "tokens_per_image", "vision_params",
                  "vision_frozen", "lm_frozen", "teacher_params", "recompute", "micro_batch",
                  "pue", "electricity", "breakdown", "scenario", "all")
_INFERENCE_ONLY = ("batch", "context", "kv_heads", "head_dim", "kv_bytes_per_token",
                   "kv_precision", "bandwidth_utilisation", "compute_utilisation", "compare",
                   "claim", "benchmark", "min_tokens_per_user")
_RENT_VS_BUY_ONLY = ("utilisation", "years")
# the options --rent-vs-buy reads besides its own
_RENT_VS_BUY_ALLOWED = ("accelerator", "format", "rent_vs_buy", *_RENT_VS_BUY_ONLY)
# FLOPs given two ways agree within this relative difference, else the command refuses
_AGREE = 0.01


class EstimateError(Exception):
    """Bad input for an estimate (unknown accelerator, impossible figure): a usage error."""


def _option(name: str) -> str:
    return "--" + name.replace("_", "-")


def _given(args: argparse.Namespace, names: tuple[str, ...]) -> list[str]:
    return [_option(n) for n in names if getattr(args, n, None) not in (None, False)]


def check_mode(args: argparse.Namespace) -> None:
    """Options that belong to another mode than the one asked for: a contradiction."""
    if getattr(args, "rent_vs_buy", False):
        other = sorted(_option(k) for k, v in vars(args).items()
                       if k not in (*_RENT_VS_BUY_ALLOWED, "func", "command")
                       and v not in (None, False))
        if other:
            raise EstimateError(f"{', '.join(other)} do not apply to --rent-vs-buy (it reads "
                                "--accelerator, --utilisation and --years)")
        return
    if given := _given(args, _RENT_VS_BUY_ONLY):
        raise EstimateError(f"{', '.join(given)} apply only to --rent-vs-buy")
    if args.inference:
        if given := _given(args, _TRAINING_ONLY):
            raise EstimateError(f"{', '.join(given)} apply only to a training estimate, not to"
                                " --inference")
    elif given := _given(args, _INFERENCE_ONLY):
        raise EstimateError(f"{', '.join(given)} apply only to --inference, not to a training "
                            "estimate")


# the CLI's shared numeric option types (flows/cli/options.py): finite, > 0; a fraction in (0, 1]
_positive = positive
_fraction = fraction


def add_estimate_parser(sub: Any) -> None:
    """Register `gpucost estimate` on the CLI's subparsers."""
    e = sub.add_parser(
        "estimate",
        help="training (or --inference) cost of a model on the published warehouse",
        description=(
            "Training cost: FLOPs (6 x active params x tokens, plus optional attention, vision,"
            " distillation and recompute terms), GPU-hours at MFU of the dense peak and"
            " goodput, wall-clock days, cost per price basis with its provider, energy, peak"
            " power and USD per million tokens. --inference: roofline decode/prefill cost per"
            " million tokens. Unset figures take the catalog defaults, which are printed."
        ),
    )
    e.add_argument("--accelerator", "-a",
                   help='id or any spelling in accelerator_aliases ("H100 SXM", "TPU v5p");'
                        " omitted: every accelerator with a price")
    e.add_argument("--params", type=_positive, help="active parameters (e.g. 7e9)")
    e.add_argument("--params-total", type=_positive,
                   help="total parameters of a mixture of experts (default: --params)")
    e.add_argument("--precision", default=None,
                   choices=("bf16", "fp16", "fp8", "fp4", "int8"),
                   help="training: bf16 (default) or fp8 peak and MFU; inference: weights")
    e.add_argument("--gpus", type=_positive,
                   help=f"GPUs in the cluster / replica (training default {DEFAULT_GPUS})")
    e.add_argument("--price", type=_positive,
                   help="a price per GPU-hour (USD) to add as the 'given' basis")
    e.add_argument("--format", choices=("table", "json"), default="table")

    t = e.add_argument_group("training")
    t.add_argument("--tokens", type=_positive,
                   help="training tokens (default: tokens-per-param x params, Chinchilla)")
    t.add_argument("--tokens-per-param", type=_positive)
    t.add_argument("--mfu", type=_fraction, help="in-run MFU (default: per accelerator)")
    t.add_argument("--goodput", type=_fraction, help="wall-clock efficiency (default 0.9)")
    t.add_argument("--days", type=_positive,
                   help="cluster time: FLOPs = gpus x days at MFU and goodput")
    t.add_argument("--flops", type=_positive, help="training FLOPs, overriding 6ND")
    t.add_argument("--layers", type=_positive, help="layers (attention term; inference KV)")
    t.add_argument("--d-model", type=_positive, help="model width (attention term)")
    t.add_argument("--seq-len", type=_positive, help="sequence length (attention term)")
    t.add_argument("--causal", action="store_true", default=None,
                   help="count causal attention (half the full-attention FLOPs)")
    t.add_argument("--images", type=_positive, help="training images (vision-language)")
    t.add_argument("--tokens-per-image", type=_positive, help="visual tokens per image")
    t.add_argument("--vision-params", type=_positive, help="vision tower parameters")
    t.add_argument("--vision-frozen", action="store_true", default=None,
                   help="vision tower frozen (forward only: 2N per visual token)")
    t.add_argument("--lm-frozen", action="store_true", default=None,
                   help="language model frozen, gradients pass through (4N per token)")
    t.add_argument("--teacher-params", type=_positive, help="distillation teacher parameters")
    t.add_argument("--recompute", choices=("none", "full"), default=None,
                   help="full activation recomputation: hardware FLOPs 8ND, MFU read as HFU")
    t.add_argument("--micro-batch", type=_positive,
                   help="sequences per GPU micro-batch for activation memory (default 1)")
    t.add_argument("--all", action="store_true", default=None,
                   help="also show platforms that cannot train the model, with the reason")
    t.add_argument("--scenario", metavar="ID",
                   help="a scenario of catalog/training_scenarios.csv, as the training_cost "
                        "mart computes it (its own price, MFU and goodput)")
    t.add_argument("--pue", type=_positive, help="power usage effectiveness (default 1.25)")
    t.add_argument("--electricity", type=_positive, help="USD per kWh (default 0.08)")
    t.add_argument("--breakdown", action="append", metavar="PRESET",
                   help="full-bill breakdown under a cost preset (epoch_central, "
                        "epoch_final_run, seed_2023; 'all'); repeatable")

    r = e.add_argument_group("rent vs buy (--rent-vs-buy)")
    r.add_argument("--rent-vs-buy", action="store_true",
                   help="owned cost per used GPU-hour against the cheapest observed rental,"
                        " with the break-even utilisation (needs --accelerator)")
    r.add_argument("--utilisation", type=_fraction,
                   help="share of hours the owned accelerator is busy (default 1)")
    r.add_argument("--years", type=_positive,
                   help="useful life of the owned hardware (default: assumption "
                        "depreciation_years)")

    i = e.add_argument_group("inference (--inference)")
    i.add_argument("--inference", action="store_true",
                   help="serving cost per million tokens instead of training cost")
    i.add_argument("--batch", type=_positive, help="concurrent sequences (default 1)")
    i.add_argument("--context", type=_positive, help="context tokens held in the KV cache")
    i.add_argument("--kv-heads", type=_positive, help="KV heads (GQA)")
    i.add_argument("--head-dim", type=_positive, help="head dimension")
    i.add_argument("--kv-bytes-per-token", type=_positive,
                   help="KV-cache bytes per token, instead of layers x KV heads x head dim")
    i.add_argument("--kv-precision", choices=("bf16", "fp16", "fp8", "int8", "fp4"))
    i.add_argument("--bandwidth-utilisation", type=_fraction,
                   help="achieved / peak memory bandwidth in decode (default 0.6)")
    i.add_argument("--compute-utilisation", type=_fraction,
                   help="achieved / peak FLOP/s (default: the accelerator's MFU default)")
    i.add_argument("--compare", metavar="ACCELERATOR",
                   help="a second platform: how many times cheaper per million output tokens"
                        " it is than --accelerator")
    i.add_argument("--benchmark", metavar="NAME",
                   help="the MLPerf benchmark whose measurements --compare prefers (e.g. "
                        "gpt-oss-120b, llama2-70b; inference_throughput.benchmark)")
    i.add_argument("--min-tokens-per-user", type=_positive, metavar="N",
                   help="the measured throughput and cost while each user gets N tokens/s "
                        "(interpolated between measured points, never extrapolated; "
                        "--benchmark picks the model, else the measured models of --params)")
    i.add_argument("--claim", type=_positive,
                   help="a vendor's claimed ratio, set beside the supported one (--compare)")
    e.set_defaults(func=cmd_estimate)


# ------------------------------------------------------------------ queries


def _call(macro: str, values: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """`select * from macro(name := $name, ...)` with only the arguments given."""
    given = {k: v for k, v in values.items() if v is not None}
    inner = ", ".join(f"{name} := ${name}" for name in given)
    return f"select * from {macro}({inner})", given


def _rows(con: Any, sql: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    cur = con.execute(sql, params or {})
    cols = [d[0] for d in cur.description or []]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def resolve_accelerator(con: Any, name: str) -> dict[str, Any]:
    """The one accelerator a spelling names, by the SQL macro resolve_accelerator (the same
    resolver as `gpucost offers`): an exact id, catalog name or alias, else a unique family
    match. Several family candidates (e.g. "H100": SXM5, PCIe, NVL) -> EstimateError listing
    them; no candidate -> EstimateError with close spellings."""
    found = _rows(con, "select * from resolve_accelerator($name)", {"name": name})
    chosen = [r for r in found if r["resolved"]]
    if chosen:
        return {"accelerator_id": chosen[0]["accelerator_id"], "name": chosen[0]["name"]}
    if found:
        listed = "; ".join(f"{r['accelerator_id']} ({r['name']})" for r in found)
        raise EstimateError(f"ambiguous accelerator {name!r}: it matches {len(found)} "
                            f"accelerators: {listed}; give one of them (its id or name)")
    near = _rows(con, "select distinct accelerator_id from accelerator_aliases "
                      "where alias_key like '%' || $key || '%' order by 1 limit 8",
                 {"key": name_key(name)})
    hint = f"; did you mean one of: {', '.join(r['accelerator_id'] for r in near)}" if near else ""
    raise EstimateError(f"unknown accelerator {name!r}{hint}")


def _assumptions(con: Any, keys: list[str]) -> list[dict[str, Any]]:
    wanted = list(dict.fromkeys(k for k in keys if k))
    if not wanted:
        return []
    rows = _rows(con, "select assumption_key, value, unit, description, source_url "
                      "from cost_assumptions where list_contains($keys, assumption_key)",
                 {"keys": wanted})
    order = {k: i for i, k in enumerate(wanted)}
    return sorted(rows, key=lambda r: order[r["assumption_key"]])


def _training_keys(args: argparse.Namespace, rows: list[dict[str, Any]],
                   power_keys: dict[str, tuple[str, str]]) -> list[str]:
    keys: list[str] = []
    for r in rows:
        # the assumptions the MFU's source names (mfu_fallback / mfu_hopper, mfu_fp8, ...)
        keys += [k for k in re.findall(r"\b(?:mfu_[a-z0-9_]+|moe_mfu_multiplier)\b",
                                       r["mfu_source"] or "") if k != "mfu_model"]
        if (r.get("pipeline_efficiency") or 1) < 1:
            keys.append("global_batch_tokens")
        keys += list(power_keys.get(r["accelerator_id"], ("", "")))
        note = r.get("basis_note") or ""
        keys += re.findall(r"\((cud_discount_[a-z0-9_]+)\)", note)
        if r.get("price_basis") == "owned":
            keys += [*_OWNED_KEYS, "electricity_usd_per_kwh", "pue"]
    if any(r.get("feasible") is not None for r in rows):
        keys += ["training_state_bytes_per_param", "usable_memory_fraction",
                 "activation_bytes_full_recompute", "max_tensor_parallel",
                 "pcie_max_model_parallel_gpus"]
        if any(r.get("activation_recompute") == "selective" for r in rows):
            keys.append("activation_bytes_selective")
        if getattr(args, "seq_len", None) is None:
            keys.append("activation_seq_len")
        if getattr(args, "micro_batch", None) is None:
            keys.append("activation_micro_batch")
        if getattr(args, "layers", None) is None or getattr(args, "d_model", None) is None:
            keys.append("d_model_per_layer")
    if args.goodput is None:
        keys.append("goodput")
    if args.tokens is None and args.flops is None and args.days is None:
        keys.append("tokens_per_param")
    if args.pue is None:
        keys.append("pue")
    if args.electricity is None:
        keys.append("electricity_usd_per_kwh")
    return keys


def training_estimate(con: Any, args: argparse.Namespace) -> dict[str, Any]:
    """Run training_cost_estimate (and cost_breakdown_estimate) for the CLI arguments."""
    if args.params is None and args.flops is None and args.days is None:
        raise EstimateError("give --params (with --tokens, or Chinchilla tokens by default),"
                            " --flops, or --gpus with --days")
    if args.days is not None and args.gpus is None:
        raise EstimateError("--days needs --gpus (the cluster the time is spent on)")
    if args.precision not in (None, "bf16", "fp16", "fp8"):
        raise EstimateError("training precision must be bf16, fp16 or fp8 (fp4 and int8 are"
                            " inference weight formats)")
    _check_training_figures(args)
    accelerator = resolve_accelerator(con, args.accelerator) if args.accelerator else None
    values = {_TRAINING_ARGS[k]: getattr(args, k) for k in _TRAINING_ARGS}
    values["n_gpus"] = values["n_gpus"] or DEFAULT_GPUS
    if accelerator:
        values["accelerator"] = accelerator["accelerator_id"]
    rows = _training_rows(con, values, accelerator)
    if not rows and accelerator:
        raise EstimateError(f"{accelerator['accelerator_id']} has no dense "
                            f"{args.precision or 'bf16'} peak in the catalog")
    if not rows:
        raise EstimateError("no accelerator with a price to estimate on")
    _check_finite(rows)
    _check_agreement(con, args, values, rows, accelerator)
    infeasible = [r for r in rows if r["feasible"] is False]
    if accelerator and infeasible and not args.all:
        r = infeasible[0]
        raise EstimateError(f"{r['accelerator_id']} cannot train this model: "
                            f"{r['infeasible_reason']} (a model replica needs "
                            f"{_num(r['gpus_per_model_replica'])} GPUs); "
                            "--all prints the estimate anyway")
    hidden = sorted({r["accelerator_id"] for r in infeasible})
    if not accelerator and not args.all:
        rows = [r for r in rows if r["feasible"] is not False]
        if not rows:
            raise EstimateError("no accelerator with a price can train this model on "
                                f"{_num(values['n_gpus'])} GPUs; --all shows why")
    params = {k: v for k, v in values.items() if v is not None}
    power_keys = {r["accelerator_id"]: (r["server_to_chip_power_key"], r["avg_power_fraction_key"])
                  for r in _rows(con, "select accelerator_id, server_to_chip_power_key, "
                                      "avg_power_fraction_key from accelerator_cost_inputs")}
    result: dict[str, Any] = {
        "mode": "training",
        "inputs": {k: v for k, v in params.items()},
        "gpus_defaulted": args.gpus is None,
        "rows": rows,
        "infeasible_hidden": [] if (accelerator or args.all) else hidden,
        "show_all": bool(args.all),
    }
    if args.breakdown and accelerator:
        presets = [r["preset_id"] for r in _rows(
            con, "select preset_id from cost_breakdown_presets order by preset_id")]
        wanted = presets if "all" in args.breakdown else args.breakdown
        unknown = sorted(set(wanted) - set(presets))
        if unknown:
            raise EstimateError(f"unknown preset(s) {', '.join(unknown)}; known: "
                                f"{', '.join(presets)}")
        breakdown = []
        for preset in wanted:
            breakdown += _rows(con, "select * from cost_breakdown_estimate($hours, n_gpus := $gpus,"
                                    " accelerator := $acc, preset := $preset) order by sort_order",
                               {"hours": rows[0]["gpu_hours"], "gpus": rows[0]["n_gpus"],
                                "acc": accelerator["accelerator_id"], "preset": preset})
        result["breakdown"] = breakdown
        result["presets"] = _rows(con, "select * from cost_breakdown_presets where "
                                       "list_contains($p, preset_id)", {"p": list(wanted)})
    elif args.breakdown:
        raise EstimateError("--breakdown needs --accelerator")
    result["assumptions"] = _assumptions(con, _training_keys(args, rows, power_keys))
    result["mfu_model"] = _mfu_model(con, rows)
    return result


def _training_rows(con: Any, values: dict[str, Any],
                   accelerator: dict[str, Any] | None) -> list[dict[str, Any]]:
    sql, params = _call("training_cost_estimate", values)
    return _rows(con, f"{sql} where (price_per_gpu_hour is not null or $one) "
                      "and peak_dense_tflops is not null "
                      "order by accelerator_id, cost_usd nulls last",
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


def _check_finite(rows: list[dict[str, Any]]) -> None:
    for column in ("flops", "gpu_hours", "cost_usd", "wall_clock_days", "energy_mwh"):
        for r in rows:
            v = r.get(column)
            if isinstance(v, float) and not math.isfinite(v):
                raise EstimateError(f"{column} overflows ({v}) on {r['accelerator_id']}: the "
                                    "figures given are too large to compute with")


def _check_agreement(con: Any, args: argparse.Namespace, values: dict[str, Any],
                     rows: list[dict[str, Any]], accelerator: dict[str, Any] | None) -> None:
    """--params with --tokens fix the FLOPs; --flops or --days (on --gpus) fix them again.
    Both ways must agree (within 1%), else the command names the conflict."""
    if args.params is None or args.tokens is None:
        return
    if args.flops is None and args.days is None:
        return
    from_params = _training_rows(con, {k: v for k, v in values.items()
                                       if k not in ("flops", "days")}, accelerator)
    by_acc = {r["accelerator_id"]: r for r in from_params}
    for r in rows:
        other = by_acc.get(r["accelerator_id"])
        if other is None:
            continue
        if args.flops is not None and abs(other["flops"] / args.flops - 1) > _AGREE:
            raise EstimateError(
                f"--params {args.params:g} and --tokens {args.tokens:g} give "
                f"{_count(other['flops'])} FLOPs, but --flops says {_count(args.flops)}: "
                "give one of them")
        if args.days is not None and abs(other["wall_clock_days"] / args.days - 1) > _AGREE:
            raise EstimateError(
                f"--params {args.params:g} and --tokens {args.tokens:g} take "
                f"{_num(other['wall_clock_days'])} days on {_num(values['n_gpus'])} "
                f"{r['accelerator_id']} at MFU {_num(other['mfu'])}, but --days says "
                f"{args.days:g}: give --days or --tokens, not both")


def scenario_estimate(con: Any, args: argparse.Namespace) -> dict[str, Any]:
    """A scenario of the training_cost mart, as the mart computed it (its own price basis,
    MFU and goodput): the same rows `gpucost estimate` would print for its figures."""
    given = [_option(k) for k in _TRAINING_ARGS
             if k not in ("price",) and getattr(args, k, None) not in (None, False)]
    given += _given(args, ("accelerator", "price", "breakdown"))
    if given:
        raise EstimateError(f"--scenario fixes the run; {', '.join(given)} would contradict it")
    rows = _rows(con, "select * from training_cost where scenario_id = $id "
                      "order by accelerator_id, cost_usd nulls last", {"id": args.scenario})
    if not rows:
        known = [r["scenario_id"] for r in _rows(
            con, "select distinct scenario_id from training_cost order by 1")]
        raise EstimateError(f"unknown scenario {args.scenario!r}; known: {', '.join(known)}")
    hidden = sorted({r["accelerator_id"] for r in rows if r["feasible"] is False})
    if not args.all:
        rows = [r for r in rows if r["feasible"] is not False] or rows
    power_keys = {r["accelerator_id"]: (r["server_to_chip_power_key"], r["avg_power_fraction_key"])
                  for r in _rows(con, "select accelerator_id, server_to_chip_power_key, "
                                      "avg_power_fraction_key from accelerator_cost_inputs")}
    first = rows[0]
    inputs = {"tokens": first["tokens"]} if first["flops_basis"] == "params_tokens" else {}
    result: dict[str, Any] = {
        "mode": "training",
        "scenario": {"scenario_id": args.scenario, "question": first["question"]},
        "inputs": inputs,
        "gpus_defaulted": False,
        "rows": rows,
        "infeasible_hidden": [] if args.all else hidden,
        "show_all": bool(args.all),
    }
    keys_args = argparse.Namespace(**{**vars(args), "goodput": first["goodput"],
                                      "tokens": first["tokens"]})
    result["assumptions"] = _assumptions(con, _training_keys(keys_args, rows, power_keys))
    result["mfu_model"] = _mfu_model(con, rows)
    return result


def rent_vs_buy(con: Any, args: argparse.Namespace) -> dict[str, Any]:
    """rent_vs_buy_estimate for one accelerator: owned cost per used GPU-hour against every
    observed rental price basis, with the break-even utilisation."""
    if not args.accelerator:
        raise EstimateError("--rent-vs-buy needs --accelerator")
    accelerator = resolve_accelerator(con, args.accelerator)
    utilisation = args.utilisation if args.utilisation is not None else 1.0
    rows = _rows(con, "select * from rent_vs_buy_estimate($acc, $u, years := $years)",
                 {"acc": accelerator["accelerator_id"], "u": utilisation, "years": args.years})
    if not rows or rows[0]["purchase_price_usd"] is None or rows[0]["tdp_w"] is None:
        raise EstimateError(f"{accelerator['accelerator_id']} has no purchase price or TDP in "
                            "the catalog: owning cannot be costed")
    first = rows[0]
    keys = ["server_cost_overhead", "network_fraction_of_cluster", "wacc",
            first["server_to_chip_power_key"], first["avg_power_fraction_key"], "pue",
            "electricity_usd_per_kwh", "colo_usd_per_kw_month", "hours_per_year"]
    if args.years is None:
        keys.append("depreciation_years")
    return {"mode": "rent_vs_buy", "utilisation": utilisation,
            "utilisation_defaulted": args.utilisation is None, "rows": rows,
            "assumptions": _assumptions(con, keys)}


_BITS_PRECISION = {4: "fp4", 8: "fp8", 16: "bf16"}


def _serving_defaults(con: Any, args: argparse.Namespace) -> dict[str, Any]:
    """The batch and weight precision of an estimate given neither: throughput serving as
    measured (assumptions inference_serving_batch_size / _weight_bits, calibrated in the mart
    inference_roofline_calibration). Only what the user left out."""
    (d,) = _rows(con, "select default_inference_serving_batch_size as batch, "
                      "default_inference_serving_weight_bits as bits from cost_defaults")
    out: dict[str, Any] = {}
    if args.batch is None and d["batch"]:
        out["batch_size"] = d["batch"]
    if args.precision is None and d["bits"]:
        out["precision"] = _BITS_PRECISION.get(int(d["bits"]), "bf16")
    return out


# a measured benchmark is "the same model" as the estimate's when its active and total
# parameters are both within 10% (inference_benchmarks); `bench` is the benchmarks' alias
_SAME_MODEL = ("abs(bench.params_active / $active - 1) <= 0.1 "
               "and abs(bench.params_total / $total - 1) <= 0.1")


def _measured_same_model(con: Any, accelerator_id: str,
                         values: dict[str, Any]) -> list[dict[str, Any]]:
    """The measured results (inference_measured, comparable, Offline first) of a benchmark
    whose model has the estimate's active and total parameters within 10%, on this
    accelerator, each at the cheapest on-demand price (else the cheapest observed basis, else
    owned, else the analyst's 3-year rental survey: an accelerator nobody rents or prices,
    MI325X)."""
    active = values.get("params")
    total = values.get("params_total") or active
    return _rows(con, """
        select measured.*, bench.model
        from inference_measured as measured
        join inference_benchmarks as bench using (benchmark)
        where measured.accelerator_id = $acc and measured.comparable
            and """ + _SAME_MODEL + """
            and measured.usd_per_million_output_tokens is not null
            and measured.display_rank is not null
        qualify row_number() over (
            partition by measured.benchmark, measured.scenario
            order by measured.price_basis = 'on_demand_min' desc, measured.display_rank,
                measured.usd_per_million_output_tokens) = 1
        order by case measured.scenario when 'Offline' then 0 when 'Server' then 1 else 2 end,
            measured.benchmark
        """,
        {"acc": accelerator_id, "active": active, "total": total})


def _interactivity(con: Any, args: argparse.Namespace, accelerator: dict[str, Any] | None,
                   values: dict[str, Any]) -> dict[str, Any]:
    """Per measured curve of the model (--benchmark, else the benchmarks whose active and
    total parameters are within 10% of the estimate's): the throughput per GPU at
    --min-tokens-per-user and its cost at the cheapest observed rental (macro
    throughput_at_interactivity, which interpolates and never extrapolates)."""
    if args.benchmark:
        models = [args.benchmark]
    else:
        active = values.get("params")
        total = values.get("params_total") or active
        models = [r["benchmark"] for r in _rows(
            con, f"select bench.benchmark from inference_benchmarks as bench where "
                 f"{_SAME_MODEL} order by 1", {"active": active, "total": total})]
    rows: list[dict[str, Any]] = []
    for model in models:
        rows += _rows(con, """
            select * from throughput_at_interactivity($n, model := $model,
                                                      accelerator := $acc)
            qualify row_number() over (
                partition by curve_id
                order by price_basis = 'on_demand_min' desc, basis_kind = 'observed' desc,
                    usd_per_million_output_tokens nulls last
            ) = 1
            order by tokens_per_second_per_gpu is null, usd_per_million_output_tokens nulls last,
                curve_id""",
            {"n": args.min_tokens_per_user, "model": model,
             "acc": accelerator["accelerator_id"] if accelerator else None})
    return {"tokens_per_user": args.min_tokens_per_user, "models": models, "rows": rows}


def inference_estimate(con: Any, args: argparse.Namespace) -> dict[str, Any]:
    """Run inference_cost_estimate (and inference_cost_ratio with --compare)."""
    if args.params is None:
        raise EstimateError("--inference needs --params (active parameters)")
    accelerator = resolve_accelerator(con, args.accelerator) if args.accelerator else None
    values = {_INFERENCE_ARGS[k]: getattr(args, k) for k in _INFERENCE_ARGS}
    serving = _serving_defaults(con, args)
    values.update({k: v for k, v in serving.items() if values.get(k) is None})
    if accelerator:
        values["accelerator"] = accelerator["accelerator_id"]
    sql, params = _call("inference_cost_estimate", values)
    rows = _rows(con, f"{sql} where (price_per_gpu_hour is not null or $one) "
                      "and peak_dense_tflops is not null "
                      "order by accelerator_id, usd_per_million_output_tokens nulls last",
                 {**params, "one": accelerator is not None})
    if not rows and accelerator:
        raise EstimateError(f"{accelerator['accelerator_id']} lacks a dense peak or memory "
                            "figures in the catalog")
    if not rows:
        raise EstimateError("no accelerator with a price and memory figures to estimate on")
    result: dict[str, Any] = {"mode": "inference", "inputs": params, "rows": rows,
                              "serving_defaults": serving}
    if accelerator:
        result["measured"] = _measured_same_model(con, accelerator["accelerator_id"], values)
    if args.compare:
        if not accelerator:
            raise EstimateError("--compare needs --accelerator (the baseline)")
        other = resolve_accelerator(con, args.compare)
        ratio_values = {k: values.get(k) for k in _RATIO_ARGS}
        given = {k: v for k, v in ratio_values.items() if v is not None}
        inner = "".join(f", {k} := ${k}" for k in given)
        result["compare"] = _rows(
            con, f"select * from inference_cost_ratio($platform, $baseline{inner}) "
                 "order by price_basis",
            {**given, "platform": other["accelerator_id"],
             "baseline": accelerator["accelerator_id"]})
        result["compare_accelerator_id"] = other["accelerator_id"]
        result["claim"] = args.claim
        result["measured_pairs"] = _rows(
            con, "select * from measured_throughput_ratio($platform, $baseline, "
                 "benchmark := $benchmark) where pair_rank <= 3 order by pair_rank",
            {"platform": other["accelerator_id"], "baseline": accelerator["accelerator_id"],
             "benchmark": args.benchmark})
    if args.min_tokens_per_user is not None:
        result["interactivity"] = _interactivity(con, args, accelerator, values)
    keys: list[str] = [f"inference_serving_{k}" for k in
                       (("batch_size",) if "batch_size" in serving else ())
                       + (("weight_bits",) if "precision" in serving else ())]
    if args.bandwidth_utilisation is None:
        keys.append("inference_bandwidth_utilisation")
    if args.compute_utilisation is None:
        ids = sorted({r["accelerator_id"] for r in rows})
        keys += [r["mfu_assumption_key"] for r in _rows(
            con, "select distinct mfu_assumption_key from accelerator_cost_inputs "
                 "where list_contains($ids, accelerator_id) order by 1", {"ids": ids})]
    result["assumptions"] = _assumptions(con, keys)
    return result


# ------------------------------------------------------------------ output


def _jsonable(v: Any) -> Any:
    if isinstance(v, (datetime, date)):
        return v.isoformat()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _num(v: Any, digits: int = 3) -> str:
    """Readable number: 65,509 / 2.99 / 0.0979 / 8.40e+22 (>= 1e13 or < 1e-3)."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return str(v)
    v = float(v)
    if not math.isfinite(v):
        return "-"
    if v == 0:
        return "0"
    if abs(v) >= 1e13 or abs(v) < 1e-3:
        return f"{v:.{digits - 1}e}"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.{digits}g}"


def _count(v: Any) -> str:
    """Parameters, tokens, FLOPs: 7e9, 1.56e12, 3.79e25."""
    if v is None:
        return "-"
    text = f"{float(v):.3g}"
    if "e" not in text:
        return text
    mantissa, exponent = text.split("e")
    return f"{mantissa}e{int(exponent)}"


def _table(headers: list[str], rows: list[list[str]], out: Any) -> None:
    rows = [[safe(c) for c in r] for r in rows]  # names from the warehouse: remote text
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    print("  " + "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)), file=out)
    for r in rows:
        print("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)), file=out)


def _mfu_model(con: Any, rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    if not any("mfu_model" in (r.get("mfu_source") or "") for r in rows):
        return None
    found = _rows(con, "select * from mfu_model")
    if not found:
        return None
    sources = {r.get("mfu_source") or "" for r in rows}
    factors = [f for f in _rows(con, "select * from mfu_family_factors where mfu_basis <> "
                                     "'mfu_model' order by family")
               if any(src.startswith(f["mfu_source"]) for src in sources)]
    return dict(found[0], family_factors=factors)


def _print_assumptions(result: dict[str, Any], out: Any) -> None:
    m = result.get("mfu_model")
    if m:
        print(f"\nMFU model (catalog/mfu_model.csv: fitted on {m['fitted_runs']} high-confidence "
              "published runs, leave-one-out validation in docs/validation.md): in-run MFU = "
              f"exp({m['intercept']:.3f} {m['hopper']:+.3f} [Hopper] {m['tpu']:+.3f} [TPU] "
              f"{m['moe']:+.3f} [MoE] {m['fp8']:+.3f} [FP8] {m['hopper_log10_params']:+.3f} x "
              "log10(params / 1e10) [Hopper, params clamped to "
              f"{_count(m['hopper_params_min'])}-{_count(m['hopper_params_max'])}]) / goodput, "
              "against the BF16 peak (rescaled to the FP8 peak for an FP8 run)", file=out)
        for f in m.get("family_factors") or []:
            how = (f"measured in MLPerf Training against Hopper, {f['pairs']} result pairs on "
                   f"{f['benchmarks']} (range {_num(f['min_pair_factor'])}-"
                   f"{_num(f['max_pair_factor'])})" if f["mfu_basis"] == "mlperf_training"
                   else "the cited generation defaults' ratio")
            print(f"  {f['family']}: Hopper's MFU x {_num(f['hopper_factor'])}, {how} "
                  "(mart mfu_family_factors)", file=out)
    if not result.get("assumptions"):
        return
    print("\nassumptions (catalog/assumptions.csv):", file=out)
    for a in result["assumptions"]:
        print(f"  {a['assumption_key']} = {_num(a['value'], 4)} {a['unit']}: "
              f"{a['description']} [{a['source_url']}]", file=out)


_FLOPS_BASIS = {
    "params_tokens": "6 x active params x tokens, plus the optional terms given",
    "cluster_time": "GPUs x days x dense peak x MFU x goodput",
    "flops": "given",
}


def _estimated(row: dict[str, Any]) -> bool:
    """A rental basis that is an observed price less an assumed discount (reserved_*_cud_est)."""
    return str(row.get("price_basis") or "").endswith("_cud_est")


def _cheapest_rental(rows: list[dict[str, Any]], column: str) -> dict[str, dict[str, Any]]:
    """Per accelerator, the cheapest rental on an observed basis; an estimated basis (marked
    "est.") only where no observed one exists: observed prices rank before estimates."""
    observed = _cheapest(rows, column, lambda r: r.get("basis_kind") == "observed")
    estimated = _cheapest(rows, column, _estimated)
    return {**{k: dict(v, price_basis=f"{v['price_basis']} (est.)")
               for k, v in estimated.items()}, **observed}


def _cheapest(rows: list[dict[str, Any]], column: str,
              keep: Any = lambda r: True) -> dict[str, dict[str, Any]]:
    """Per accelerator, the row with the lowest `column` among those `keep` accepts."""
    best: dict[str, dict[str, Any]] = {}
    for r in rows:
        if not keep(r) or r[column] is None:
            continue
        cur = best.get(r["accelerator_id"])
        # on a tie, the row that names its provider (on_demand_min over the median of one)
        if cur is None or (r[column], r.get("provider") is None) < (
                cur[column], cur.get("provider") is None):
            best[r["accelerator_id"]] = r
    return best


def _print_training(result: dict[str, Any], out: Any) -> None:
    rows = result["rows"]
    first = rows[0]
    single = len({r["accelerator_id"] for r in rows}) == 1
    what = []
    if first["flops_basis"] == "cluster_time":
        what.append(f"{_num(first['n_gpus'])} GPUs x {_num(first['wall_clock_days'])} days")
    if first["params_active"]:
        params = f"{_count(first['params_active'])} active parameters"
        if first["params_total"] and first["params_total"] != first["params_active"]:
            params += f" ({_count(first['params_total'])} total)"
        what.append(params)
    if first["tokens"]:
        implied = "" if first["flops_basis"] == "params_tokens" or "tokens" in result["inputs"] \
            else " (implied by the FLOPs)"
        what.append(f"{_count(first['tokens'])} tokens{implied}")
    what.append(first["precision"])
    gpus = f"{_num(first['n_gpus'])} GPUs" + (" (default; set --gpus)"
                                              if result["gpus_defaulted"] else "")
    if result.get("scenario"):
        print(f"Scenario {result['scenario']['scenario_id']}: "
              f"{result['scenario']['question']}", file=out)
    if not single:
        print(f"Training estimate: {', '.join(what)}; FLOPs {_count(first['flops'])}; "
              f"wall-clock on {gpus}", file=out)
        on_demand = _cheapest(rows, "cost_usd", lambda r: r["price_basis"] == "on_demand_min")
        rented = _cheapest_rental(rows, "cost_usd")
        owned = _cheapest(rows, "cost_usd", lambda r: r.get("basis_kind") == "owned")
        analyst = _cheapest(rows, "cost_usd", lambda r: r["price_basis"] == "rental_3y_survey")
        given = _cheapest(rows, "cost_usd", lambda r: r["price_basis"] == "given")

        def rank(r: dict[str, Any]) -> tuple:
            # one price basis kind per rank: the given price, else the cheapest on-demand
            # rental; platforms without one after, by their cheapest other rental
            acc = r["accelerator_id"]
            basis = given.get(acc) or on_demand.get(acc)
            return (r["feasible"] is False, basis is None,
                    (basis or rented.get(acc) or {}).get("cost_usd") or math.inf)

        order = sorted({r["accelerator_id"]: r for r in rows}.values(), key=rank)
        table = []
        for r in order:
            acc = r["accelerator_id"]
            od = given.get(acc) or on_demand.get(acc, {})
            cheap, own = rented.get(acc, {}), owned.get(acc, {})
            table.append([
                acc, _num(r["peak_dense_tflops"]), _num(r["mfu"]), _num(r["gpu_hours"]),
                _num(r["wall_clock_days"]), _plan(r),
                f"{_num(od.get('cost_usd'))} ({od.get('provider') or od.get('price_basis')})"
                if od else "-",
                _num(od.get("usd_per_million_tokens")),
                f"{_num(cheap.get('cost_usd'))} ({cheap.get('price_basis')}, "
                f"{cheap.get('provider') or '-'})" if cheap else "-",
                f"{_num(own.get('cost_usd'))} ({own.get('price_basis')})" if own else "-",
                _num(analyst.get(acc, {}).get("cost_usd")), _num(r["energy_mwh"]),
                r["mfu_source"] or "",
            ] + ([r["infeasible_reason"] or ""] if result.get("show_all") else []))
        _table(["accelerator", "peak TFLOP/s", "MFU", "GPU-hours", "days",
                "min GPUs mem / TPxPPxDP", "on-demand USD (cheapest)",
                "USD/M tok (on-demand)", "cheapest rental USD (basis, provider)",
                "owned/TCO USD (basis)", "analyst USD", "MWh", "MFU from"]
               + (["cannot train it because"] if result.get("show_all") else []), table, out)
        print("\nranked by the cheapest on-demand rental (dated offers at the size the run "
              "needs); platforms without one follow, by their cheapest other rental. MFU: in-run "
              "utilisation of the dense peak (goodput "
              f"{_num(first['goodput'])} separate); docs/cost-models.md explains each source",
              file=out)
        if result.get("infeasible_hidden"):
            print(f"\nnot ranked: {len(result['infeasible_hidden'])} platform(s) that cannot "
                  f"train this model on {_num(first['n_gpus'])} GPUs "
                  f"({', '.join(result['infeasible_hidden'])}); --all lists them with the "
                  "reason", file=out)
        _print_assumptions(result, out)
        return
    print(f"Training estimate: {', '.join(what)}; on {first['accelerator_name']} "
          f"({first['accelerator_id']})", file=out)
    lines = [
        ("FLOPs", f"{_count(first['flops'])} ({_FLOPS_BASIS[first['flops_basis']]})"),
        (f"dense peak ({first['precision']})", f"{first['peak_dense_tflops']:g} TFLOP/s"),
        ("MFU", f"{_num(first['mfu'])} ({first['mfu_source']})"),
        ("goodput", _num(first["goodput"])),
        ("compute GPU-hours", f"{_num(first['compute_gpu_hours'])} (at MFU, before goodput)"),
        ("GPU-hours", f"{_num(first['gpu_hours'])} (paid for: compute GPU-hours / goodput)"),
        ("wall-clock", f"{_num(first['wall_clock_days'])} days on {gpus}"),
        ("energy", f"{_num(first['energy_mwh'])} MWh = GPU-hours x {_num(first['tdp_w'])} W x "
                   f"{_num(first['server_to_chip_power'])} server/chip power x "
                   f"{_num(first['avg_power_fraction'])} average load x PUE "
                   f"{_num(first['pue'])}; {_num(first['energy_cost_usd'])} USD at "
                   f"{_num(first['electricity_usd_per_kwh'])} USD/kWh"),
        ("peak cluster power", f"{_num(first['peak_cluster_power_mw'])} MW "
                               "(TDP x server/chip power x PUE, full load)"),
    ]
    if first.get("feasible") is not None:
        lines += [
            ("memory", f"{_num(first['training_state_gb'])} GB of weights, gradients and Adam "
                       f"state + {_num(first['activation_gb'])} GB of activations per "
                       f"micro-batch ({_num(first['activation_micro_batch'])} x seq "
                       f"{_num(first['activation_seq_len'])}, "
                       f"{first['activation_recompute']} recompute)"),
            ("min GPUs (memory)", f"{_num(first['min_gpus_memory'])} (training state and "
                                  "activations spread evenly)"),
            ("GPUs per replica", f"{_num(first['gpus_per_model_replica'])} (tensor x pipeline; "
                                 f"scale-up domain {_num(first['scale_up_domain_size'])}"
                                 + (f", {first['scale_up_link']})" if first["scale_up_link"]
                                    else ", none)")),
            ("parallelism", f"TP {_num(first['tensor_parallel'])} x PP "
                            f"{_num(first['pipeline_parallel'])} x DP "
                            f"{_num(first['data_parallel'])}" if first["feasible"]
                            else f"NOT FEASIBLE: {first['infeasible_reason']}"),
        ]
    width = max(len(k) for k, _ in lines)
    for k, v in lines:
        print(f"  {k.ljust(width)}  {v}", file=out)
    priced = [r for r in rows if r["price_basis"]]
    if priced:
        node = first.get("gpus_per_node")
        print("\ncost per price basis" + (f" (rentals at offers of {_num(node)} or more GPUs per "
              "instance, the size this run needs: --gpus sets it):" if node else ":"), file=out)
        _table(["basis", "provider", "GPUs/inst", "USD/GPU-h", "cost USD", "USD/M tokens",
                "note"],
               [[r["price_basis"], r["provider"] or "-",
                 _num(r["basis_gpu_count"]) if r.get("basis_gpu_count") else "-",
                 _num(r["price_per_gpu_hour"]), _num(r["cost_usd"]),
                 _num(r["usd_per_million_tokens"]), r["basis_note"] or ""]
                for r in sorted(priced, key=lambda r: r["cost_usd"])], out)
    else:
        print("\nno price for this accelerator in the warehouse (give --price)", file=out)
    if result.get("breakdown"):
        print("\nfull-bill breakdown (cost_breakdown_estimate):", file=out)
        _table(["preset", "component", "USD", "share"],
               [[b["preset_id"], b["component"], _num(b["usd"]), f"{b['share_of_total']:.1%}"]
                for b in result["breakdown"]], out)
        for p in result["presets"]:
            print(f"  {p['preset_id']}: {p['description']} [{p['source_url']}]", file=out)
    _print_assumptions(result, out)


def _plan(r: dict[str, Any]) -> str:
    if r.get("feasible") is None:
        return "-"
    if not r["feasible"]:
        return f"{_num(r['min_gpus_memory'])} / infeasible"
    return (f"{_num(r['min_gpus_memory'])} / {_num(r['tensor_parallel'])}x"
            f"{_num(r['pipeline_parallel'])}"
            f"x{_num(r['data_parallel'])}")


def _print_rent_vs_buy(result: dict[str, Any], out: Any) -> None:
    rows = result["rows"]
    first = rows[0]
    u = result["utilisation"]
    print(f"Rent vs buy: {first['name']} ({first['accelerator_id']}) busy {u:.0%} of the time"
          + (" (default; set --utilisation)" if result["utilisation_defaulted"] else "")
          + f", {_num(first['useful_life_years'])} years of useful life", file=out)
    fixed = first["tco_capital_usd_per_gpu_hour"] + first["hosting_usd_per_gpu_hour"]
    lines = [
        ("purchase price", f"{_num(first['purchase_price_usd'])} USD per accelerator "
                           f"({first['purchase_price_basis'] or '-'}, "
                           f"{first['purchase_price_date'] or 'undated'}) "
                           f"[{first['purchase_price_source_url'] or 'no source'}]"),
        ("cluster capex", f"{_num(first['cluster_capex_per_gpu_usd'])} USD per accelerator = "
                          f"price x {_num(first['server_cost_overhead'])} server overhead / "
                          f"(1 - {_num(first['network_fraction_of_cluster'])} interconnect)"),
        ("capital", f"{_num(first['tco_capital_usd_per_gpu_hour'])} USD per GPU-hour: capex x "
                    f"capital recovery factor (WACC {_num(first['wacc'])}, "
                    f"{_num(first['useful_life_years'])} years) / "
                    f"{_num(first['hours_per_year'])} h (paid used or not)"),
        ("hosting", f"{_num(first['hosting_usd_per_gpu_hour'])} USD per GPU-hour: "
                    f"{_num(first['it_power_kw_per_gpu'])} kW x "
                    f"{_num(first['colo_usd_per_kw_month'])} USD/kW-month colocation x 12 / "
                    f"{_num(first['hours_per_year'])} h (paid used or not)"),
        ("energy", f"{_num(first['energy_usd_per_gpu_hour'])} USD per used GPU-hour: "
                   f"{_num(first['it_power_kw_per_gpu'])} kW x "
                   f"{_num(first['avg_power_fraction'])} load x PUE {_num(first['pue'])} x "
                   f"{_num(first['electricity_usd_per_kwh'])} USD/kWh"),
        ("owned, per used GPU-hour", f"{_num(first['owned_usd_per_used_gpu_hour'])} USD = "
                                     f"({_num(fixed)} capital + hosting) / {u:g} + "
                                     f"{_num(first['energy_usd_per_gpu_hour'])} energy"),
        ("owned, Epoch amortised", f"{_num(first['epoch_owned_usd_per_gpu_hour'])} USD per "
                                   "GPU-hour at 100% utilisation (the 'owned' price basis)"),
    ]
    width = max(len(k) for k, _ in lines)
    for k, v in lines:
        print(f"  {k.ljust(width)}  {v}", file=out)
    rented = [r for r in rows if r["rental_price_basis"]]
    if not rented:
        print("\nno observed rental price for this accelerator in the warehouse", file=out)
    else:
        cheapest = rented[0]
        verdict = ("owning is cheaper" if cheapest["rental_price_per_gpu_hour"]
                   > first["owned_usd_per_used_gpu_hour"] else "renting is cheaper")
        be = cheapest["breakeven_utilisation"]
        print(f"\ncheapest observed rental: {_num(cheapest['rental_price_per_gpu_hour'])} USD "
              f"per GPU-hour ({cheapest['rental_price_basis']}, "
              f"{cheapest['rental_provider'] or '-'}); at {u:.0%} utilisation {verdict}; "
              "break-even utilisation "
              + (f"{be:.0%}" if be is not None and be <= 1 else
                 "above 100%: renting is always cheaper" if be is not None else
                 "none: the rental price does not cover the energy"), file=out)
        _table(["rental basis", "provider", "USD/GPU-h", "owned USD/used GPU-h",
                "break-even utilisation", "observed", "source"],
               [[r["rental_price_basis"], r["rental_provider"] or "-",
                 _num(r["rental_price_per_gpu_hour"]), _num(r["owned_usd_per_used_gpu_hour"]),
                 (f"{r['breakeven_utilisation']:.0%}" if r["breakeven_utilisation"] is not None
                  else "-"), str(r["rental_observed_at"] or "-")[:10],
                 r["rental_source_url"] or "-"] for r in rented], out)
    _print_assumptions(result, out)


def _print_inference(result: dict[str, Any], out: Any) -> None:
    rows = result["rows"]
    first = rows[0]
    single = len({r["accelerator_id"] for r in rows}) == 1
    model = f"{_count(first['params_active'])} active parameters"
    if first["params_total"] != first["params_active"]:
        model += f" ({_count(first['params_total'])} total)"
    print(f"Inference estimate: {model}, {first['precision']} weights, batch "
          f"{_num(first['batch_size'])}, {_num(first['context_tokens'])} context tokens", file=out)
    serving = result.get("serving_defaults") or {}
    if serving:
        given = " and ".join(
            f"{label} {_num(serving[k]) if k == 'batch_size' else serving[k]}"
            for k, label in (("batch_size", "batch"), ("precision", "weights")) if k in serving)
        print(f"  serving defaults: {given} (throughput serving as MLPerf measures it; "
              "calibrated on measured results: inference_roofline_calibration; "
              "--batch / --precision override)", file=out)
    if single:
        print(f"  on {first['accelerator_name']} ({first['accelerator_id']})", file=out)
        lines = [
            ("replica", f"{_num(first['n_gpus'])} GPU(s): weights {_num(first['weights_gb'])} GB"
                        f" + KV cache {_num(first['kv_cache_gb'])} GB in "
                        f"{_num(first['memory_gb'])} GB each"
                        + ("" if first["fits_in_memory"] else " (does NOT fit)")),
            ("decode step", f"{_num(first['decode_step_ms'])} ms, {first['decode_bound']}-bound"
                            f" (bandwidth {_num(first['memory_bw_tbps'])} TB/s x "
                            f"{_num(first['bandwidth_utilisation'])}; peak "
                            f"{_num(first['peak_dense_tflops'])} TFLOP/s x "
                            f"{_num(first['compute_utilisation'])})"),
            ("output tokens/s", f"{_num(first['output_tokens_per_second'])} per replica, "
                                f"{_num(first['output_tokens_per_second_per_gpu'])} per GPU"),
            ("prefill tokens/s", f"{_num(first['prefill_tokens_per_second'])} per replica"),
        ]
        width = max(len(k) for k, _ in lines)
        for k, v in lines:
            print(f"  {k.ljust(width)}  {v}", file=out)
        priced = [r for r in rows if r["price_basis"]]
        size = first.get("gpus_per_instance")
        print("\ncost per price basis" + (f" (rentals at offers of {_num(size)} or more GPUs per "
              "instance, the replica's size):" if size else ":"), file=out)
        _table(["basis", "provider", "GPUs/inst", "USD/GPU-h", "USD/M output", "USD/M input"],
               [[r["price_basis"], r["provider"] or "-",
                 _num(r["basis_gpu_count"]) if r.get("basis_gpu_count") else "-",
                 _num(r["price_per_gpu_hour"]),
                 _num(r["usd_per_million_output_tokens"]), _num(r["usd_per_million_input_tokens"])]
                for r in sorted(priced, key=lambda r: r["usd_per_million_output_tokens"])], out)
        _print_measured(result, rows, out)
    else:
        column = "usd_per_million_output_tokens"
        on_demand = _cheapest(rows, column, lambda r: r["price_basis"] == "on_demand_min")
        rented = _cheapest_rental(rows, column)
        owned = _cheapest(rows, column, lambda r: r["price_basis"] == "owned")
        order = sorted({r["accelerator_id"]: r for r in rows}.values(),
                       key=lambda r: rented.get(r["accelerator_id"], {}).get(column) or math.inf)
        table = []
        for r in order:
            acc = r["accelerator_id"]
            od, cheap, own = on_demand.get(acc, {}), rented.get(acc, {}), owned.get(acc, {})
            table.append([
                acc, _num(r["n_gpus"]), _num(r["output_tokens_per_second_per_gpu"]),
                r["decode_bound"],
                f"{_num(od.get(column))} ({od.get('provider') or '-'})" if od else "-",
                f"{_num(cheap.get(column))} ({cheap.get('price_basis')}, "
                f"{cheap.get('provider') or '-'})" if cheap else "-",
                _num(own.get(column)),
                _num(cheap.get("usd_per_million_input_tokens")),
            ])
        print("  USD per million output tokens:", file=out)
        _table(["accelerator", "GPUs", "tok/s/GPU", "bound", "on-demand (cheapest)",
                "cheapest rental (basis, provider)", "owned", "input, cheapest rental"],
               table, out)
    if "compare" in result:
        print(f"\n{result['compare_accelerator_id']} vs {first['accelerator_id']}: times cheaper "
              "per million output tokens (inference_cost_ratio)", file=out)
        if not result["compare"]:
            print("  no price basis both platforms have", file=out)
        else:
            _table(["basis", "throughput/GPU ratio", "price ratio", "cost ratio"]
                   + (["claimed", "claim / supported"] if result["claim"] else []),
                   [[c["price_basis"], _num(c["throughput_ratio_per_gpu"]),
                     _num(c["price_ratio"]), _num(c["cost_ratio"])]
                    + ([_num(result["claim"]), _num(result["claim"] / c["cost_ratio"])]
                       if result["claim"] else [])
                    for c in result["compare"]], out)
        _print_measured_pairs(result, out)
    if "interactivity" in result:
        _print_interactivity(result["interactivity"], out)
    _print_assumptions(result, out)


def _print_interactivity(found: dict[str, Any], out: Any) -> None:
    n = _num(found["tokens_per_user"])
    print(f"\nmeasured at {n} tokens/s per user (inference_interactivity; "
          f"{', '.join(found['models']) or 'no measured model matches --params: give --benchmark'})"
          ":", file=out)
    if not found["rows"]:
        print("  no measured curve of this model" + (" on this accelerator" if found["rows"]
                                                      is not None else ""), file=out)
        return
    _table(["accelerator", "GPUs", "measured by", "model", "tok/s/GPU", "USD/M tok",
            "basis (provider)", "how"],
           [[r["accelerator_id"], _num(r["accelerator_count"]),
             f"{r['measured_by']} {r['software'] or ''}".strip(), r["model"],
             _num(r["tokens_per_second_per_gpu"]), _num(r["usd_per_million_output_tokens"]),
             f"{r['price_basis'] or '-'} ({r['provider'] or '-'})", r["note"]]
            for r in found["rows"]], out)


def _print_measured(result: dict[str, Any], rows: list[dict[str, Any]], out: Any) -> None:
    """Measured results of the same model on the same accelerator, beside the roofline at the
    same price basis: how far the estimate is from what was measured."""
    measured = result.get("measured")
    if measured is None:
        return
    if not measured:
        print("\nmeasured: no MLPerf Inference result of a model this size on this accelerator"
              " (inference_measured); the figures above are the roofline only", file=out)
        return
    # the roofline at the measured result's own price (an 8-GPU system is priced at 8-GPU
    # offers, a smaller replica at its size): the ratio is the throughput model's alone
    per_gpu = rows[0].get("output_tokens_per_second_per_gpu") if rows else None
    print("\nmeasured (MLPerf Inference, inference_measured), the estimate at the same price "
          "per GPU-hour:", file=out)
    table = []
    for m in measured:
        est = (m["price_per_gpu_hour"] / (per_gpu * 3600) * 1e6
               if per_gpu and m.get("price_per_gpu_hour") else None)
        table.append([
            f"{m['benchmark']}{'-' + m['accuracy_target'] if m['accuracy_target'] else ''}",
            m["scenario"], f"{m['round']} {m['submitter']}", m["software_family"] or "-",
            _num(m["tokens_per_second_per_accelerator"]), _day(m.get("observed_at")),
            m["price_basis"] + (f" ({m['provider']})" if m["provider"] else ""),
            _day(m.get("price_observed_at")),
            _num(m["usd_per_million_output_tokens"]),
            _num(est), _num(est / m["usd_per_million_output_tokens"]) if est else "-"])
    _table(["benchmark", "scenario", "round, submitter", "software", "tok/s/GPU", "measured on",
            "basis", "price of", "USD/M measured", "USD/M estimate", "estimate/measured"],
           table, out)


def _day(when: Any) -> str:
    """The date of a timestamp (the throughput's round, the price's observation), else '-'."""
    return when.strftime("%Y-%m-%d") if hasattr(when, "strftime") else (str(when)[:10]
                                                                          if when else "-")


def _print_measured_pairs(result: dict[str, Any], out: Any) -> None:
    """The measured side of --compare, and which side the answer rests on."""
    pairs = result.get("measured_pairs")
    if pairs is None:
        return
    platform, baseline = result["compare_accelerator_id"], result["rows"][0]["accelerator_id"]
    compare = {c["price_basis"]: c for c in result.get("compare") or []}
    basis = "on_demand_min" if "on_demand_min" in compare else next(iter(compare), None)
    price_ratio = compare[basis]["price_ratio"] if basis else None
    claim = result["claim"]
    if not pairs:
        print(f"\nmeasured: {platform} and {baseline} were never measured on one benchmark and "
              "scenario (inference_throughput)", file=out)
        if basis:
            roof = compare[basis]["cost_ratio"]
            print(f"answer (roofline, no measurement): {_num(roof)}x cheaper per million output "
                  f"tokens at {basis}" + (f"; the claimed {_num(claim)}x is "
                                          f"{_num(claim / roof)}x that" if claim else ""),
                  file=out)
        return
    print(f"\nmeasured per-GPU throughput, {platform} / {baseline} (MLPerf Inference, closest "
          "like-for-like first; macro measured_throughput_ratio):", file=out)
    rows = []
    for p in pairs:
        cost = p["measured_ratio"] / price_ratio if price_ratio else None
        rows.append([
            str(p["pair_rank"]),
            f"{p['benchmark']}{'-' + p['accuracy_target'] if p['accuracy_target'] else ''}",
            p["scenario"], f"{p['round']} / {p['baseline_round']}",
            f"{p['software_family'] or '-'} / {p['baseline_software_family'] or '-'}",
            str(p["match_tier"]), _num(p["measured_ratio"]), _num(cost)]
            + ([_num(claim / cost) if cost else "-"] if claim else []))
    _table(["#", "benchmark", "scenario", "rounds", "software", "match", "throughput ratio",
            f"cost ratio ({basis or 'no common price'})"]
           + (["claim / measured"] if claim else []), rows, out)
    print("  match: 1 same benchmark, round and software; 2 same round; 3 other rounds; 4-6 the"
          " same on another benchmark than --benchmark", file=out)
    best = pairs[0]
    line = (f"answer (measured, {best['benchmark']} {best['scenario']}): {platform} generates "
            f"{_num(best['measured_ratio'])}x the tokens per GPU of {baseline}")
    if price_ratio:
        cost = best["measured_ratio"] / price_ratio
        line += (f"; at {basis} prices ({_num(price_ratio)}x the price per GPU-hour) that is "
                 f"{_num(cost)}x cheaper per million output tokens")
        if claim:
            line += (f"; the claimed {_num(claim)}x is {_num(claim / cost)}x what was measured "
                     f"and would need a price ratio of {_num(best['measured_ratio'] / claim)}")
    print(line, file=out)


def cmd_estimate(args: argparse.Namespace) -> int:
    from gpucost.warehouse import data_dir
    from gpucost.warehouse.publish import NoWarehouseError, connect_readonly

    try:
        con = connect_readonly(data_dir())
    except NoWarehouseError as exc:
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return EXIT_FAILED
    try:
        check_mode(args)
        if args.rent_vs_buy:
            result = rent_vs_buy(con, args)
        elif args.inference:
            result = inference_estimate(con, args)
        elif args.scenario:
            result = scenario_estimate(con, args)
        else:
            result = training_estimate(con, args)
    except EstimateError as exc:
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        con.close()
    if args.format == "json":
        json.dump(result, sys.stdout, indent=1, default=_jsonable)
        print()
    elif args.rent_vs_buy:
        _print_rent_vs_buy(result, sys.stdout)
    elif args.inference:
        _print_inference(result, sys.stdout)
    else:
        _print_training(result, sys.stdout)
    return EXIT_OK
