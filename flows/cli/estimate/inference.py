"""`gpucost estimate inference` and `rent-vs-buy`: the queries behind them.

inference_cost_estimate (with inference_cost_ratio, measured_throughput_ratio and claim_check
under --compare, measured_same_model beside one accelerator, throughput_at_interactivity under
--min-tokens-per-user), and rent_vs_buy_estimate. The arithmetic, the same-model rule and
the assumptions read are the macros'."""

from __future__ import annotations

import argparse
from typing import Any

from gpucost.flows.cli.estimate.common import (
    EstimateError,
    assumptions,
    call,
    keys_read,
    macro_parameters,
    macro_values,
    resolve_accelerator,
    rows,
)


def _serving_defaults(con: Any, args: argparse.Namespace) -> dict[str, Any]:
    """The batch and weight precision of an estimate given neither: throughput serving as
    measured (assumptions inference_serving_batch_size / _weight_bits, calibrated in the mart
    inference_roofline_calibration). Only what the user left out."""
    (d,) = rows(con, "select default_inference_serving_batch_size as batch, "
                     "default_inference_serving_weight_bits as bits, "
                     "default_inference_serving_precision as precision from cost_defaults")
    out: dict[str, Any] = {}
    if args.batch is None and d["batch"]:
        out["batch_size"] = d["batch"]
    if args.precision is None and d["bits"]:
        out["precision"] = d["precision"]
    return out


_SHAPE = ("layers", "kv_heads", "head_dim", "kv_bytes_per_token")


def _assumption_values(con: Any, keys: tuple[str, ...]) -> dict[str, float]:
    return {r["assumption_key"]: r["value"] for r in rows(
        con, "select assumption_key, value from cost_assumptions where list_contains($keys, "
             "assumption_key)", {"keys": list(keys)})}


def _workload_defaults(con: Any, args: argparse.Namespace) -> dict[str, Any]:
    """The context an estimate given no --context holds per sequence, and, when no shape is
    given, the KV-cache shape of --benchmark's model when --params is that model's, else of
    the one catalogued benchmark model of --params' size (same_model_benchmarks).

    Context = the workload's mean input + half its mean output (the mean context while a
    query decodes): with --benchmark, its measured mean output (inference_throughput:
    tokens/s / samples/s, averaged over its valid results) and the assumed input
    (inference_default_input_tokens: MLPerf publishes no input length); else the assumed
    input and output (inference_default_input_tokens, inference_default_output_tokens).
    --context 0 still means none."""
    out: dict[str, Any] = {}
    bench = None
    if args.benchmark:
        found = rows(con, "select b.*, (select avg(t.output_tokens_per_sample) from "
                          "inference_throughput as t where t.benchmark = b.benchmark and "
                          "t.valid and t.output_tokens_per_sample > 0) as output_tokens "
                          "from inference_benchmarks as b where b.benchmark = lower($b)",
                     {"b": args.benchmark})
        bench = found[0] if found else None
    if args.context is None:
        keys = ("inference_default_input_tokens", "inference_default_output_tokens")
        value = _assumption_values(con, keys)
        if not all(value.get(k) for k in keys):
            return out
        input_tokens = value["inference_default_input_tokens"]
        if bench and bench["output_tokens"]:
            output_tokens = bench["output_tokens"]
            output_basis = (f"{args.benchmark}'s measured mean output (inference_throughput: "
                            "tokens/s / samples/s)")
            keys = keys[:1]
        else:
            output_tokens = value["inference_default_output_tokens"]
            output_basis = "assumed: inference_default_output_tokens"
        out["context"] = {
            "context_tokens": round(input_tokens + output_tokens / 2),
            "input_tokens": input_tokens, "input_basis": "assumed: inference_default_input_tokens",
            "output_tokens": output_tokens, "output_basis": output_basis,
            "assumption_keys": list(keys)}
    if any(getattr(args, k, None) is not None for k in _SHAPE):
        return out
    if bench and bench["n_layers"] and bench["params_active"] == args.params:
        out["shape"] = {"benchmark": bench["benchmark"], "model": bench["model"],
                        "n_layers": bench["n_layers"], "n_kv_heads": bench["n_kv_heads"],
                        "head_dim": bench["head_dim"], "source_url": bench["source_url"],
                        "matched_by": "benchmark"}
    elif not bench:
        # no shape and no --benchmark: the catalogued benchmark model of this size (within
        # 10%, same_model_benchmarks), when exactly one shape matches; without it the context
        # would hold no KV cache and the default context would change nothing
        found = rows(con, "select * from same_model_benchmarks($active, $total) "
                          "where n_layers is not null order by benchmark",
                     {"active": args.params, "total": getattr(args, "params_total", None)})
        shapes = {(r["n_layers"], r["n_kv_heads"], r["head_dim"]) for r in found}
        if len(shapes) == 1:
            first = found[0]
            out["shape"] = {"benchmark": first["benchmark"], "model": first["model"],
                            "n_layers": first["n_layers"], "n_kv_heads": first["n_kv_heads"],
                            "head_dim": first["head_dim"], "source_url": first["source_url"],
                            "matched_by": "size"}
    return out


def _interactivity(con: Any, args: argparse.Namespace, accelerator: dict[str, Any] | None,
                   values: dict[str, Any]) -> dict[str, Any]:
    """Per measured curve of the model (--benchmark, else the benchmarks of the estimate's
    model, same_model_benchmarks): the throughput per GPU at --min-tokens-per-user and its
    cost at the cheapest observed rental (macro throughput_at_interactivity, which
    interpolates and never extrapolates)."""
    if args.benchmark:
        models = [args.benchmark]
    else:
        models = [r["benchmark"] for r in rows(
            con, "select benchmark from same_model_benchmarks($active, $total) order by 1",
            {"active": values.get("params"), "total": values.get("params_total")})]
    found: list[dict[str, Any]] = []
    for model in models:
        found += rows(con, """
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
    return {"tokens_per_user": args.min_tokens_per_user, "models": models, "rows": found}


def _compare(con: Any, args: argparse.Namespace, values: dict[str, Any],
             baseline: str) -> dict[str, Any]:
    """--compare: inference_cost_ratio on the same figures, its roofline claim check, and the
    measured pairs (measured_throughput_ratio) checked against the claim (claim_check) at the
    on-demand price ratio, else the first common basis."""
    other = resolve_accelerator(con, args.compare)
    accepted = set(macro_parameters(con, "inference_cost_ratio")) - {"accelerator"}
    given = {k: v for k, v in values.items() if k in accepted and v is not None}
    inner = "".join(f", {k} := ${k}" for k in given)
    compare = rows(
        con, f"select *, claim_check($claim, 'cost_per_token', price_ratio, null, "
             f"supported_ratio := cost_ratio).claim_to_supported as claim_to_supported "
             f"from inference_cost_ratio($platform, $baseline{inner}) order by price_basis",
        {**given, "platform": other["accelerator_id"], "baseline": baseline,
         "claim": args.claim})
    by_basis = {c["price_basis"]: c for c in compare}
    basis = "on_demand_min" if "on_demand_min" in by_basis else next(iter(by_basis), None)
    pairs = rows(
        con, "select pair.* exclude (verdict), pair.verdict.measured_cost_ratio, "
             "pair.verdict.claim_to_measured, pair.verdict.price_ratio_needed "
             "from (select *, claim_check($claim, 'cost_per_token', $price_ratio, "
             "measured_ratio) as verdict from measured_throughput_ratio($platform, $baseline, "
             "benchmark := $benchmark) where pair_rank <= 3) as pair order by pair_rank",
        {"platform": other["accelerator_id"], "baseline": baseline,
         "benchmark": args.benchmark, "claim": args.claim,
         "price_ratio": by_basis[basis]["price_ratio"] if basis else None})
    return {"compare": compare, "compare_accelerator_id": other["accelerator_id"],
            "compare_basis": basis, "claim": args.claim, "measured_pairs": pairs}


def inference_estimate(con: Any, args: argparse.Namespace) -> dict[str, Any]:
    """Run inference_cost_estimate (and inference_cost_ratio with --compare)."""
    if args.params is None:
        raise EstimateError("--inference needs --params (active parameters)")
    accelerator = resolve_accelerator(con, args.accelerator) if args.accelerator else None
    values = macro_values(con, "inference_cost_estimate", args)
    serving = _serving_defaults(con, args)
    values.update({k: v for k, v in serving.items() if values.get(k) is None})
    workload = _workload_defaults(con, args)
    if "context" in workload:
        values["context_tokens"] = workload["context"]["context_tokens"]
    if "shape" in workload:
        values.update({k: workload["shape"][k] for k in ("n_layers", "n_kv_heads", "head_dim")})
    values["accelerator"] = accelerator["accelerator_id"] if accelerator else None
    sql, params = call("inference_cost_estimate", values)
    found = rows(con, f"{sql} where (price_per_gpu_hour is not null or $one) "
                      "and peak_dense_tflops is not null "
                      "order by accelerator_id, usd_per_million_output_tokens nulls last, "
                      "price_basis",
                 {**params, "one": accelerator is not None})
    if not found and accelerator:
        raise EstimateError(f"{accelerator['accelerator_id']} lacks a dense peak or memory "
                            "figures in the catalog")
    if not found:
        raise EstimateError("no accelerator with a price and memory figures to estimate on")
    result: dict[str, Any] = {"mode": "inference", "inputs": params, "rows": found,
                              "serving_defaults": serving,
                              "context_default": workload.get("context"),
                              "benchmark_shape": workload.get("shape")}
    if accelerator:
        # beside each, the roofline at the measured result's own price (an 8-GPU system is
        # priced at 8-GPU offers): the ratio is the throughput model's alone
        result["measured"] = rows(
            con, "select *, usd_per_million_tokens(price_per_gpu_hour, $per_gpu) as "
                 "estimate_usd_per_million_output_tokens, estimate_usd_per_million_output_tokens"
                 " / usd_per_million_output_tokens as estimate_to_measured "
                 "from measured_same_model($acc, $active, $total)",
            {"acc": accelerator["accelerator_id"], "active": values.get("params"),
             "total": values.get("params_total"),
             "per_gpu": found[0]["output_tokens_per_second_per_gpu"]})
    if args.compare:
        if not accelerator:
            raise EstimateError("--compare needs --accelerator (the baseline)")
        result.update(_compare(con, args, values, accelerator["accelerator_id"]))
    if args.min_tokens_per_user is not None:
        result["interactivity"] = _interactivity(con, args, accelerator, values)
    # the serving defaults are the command's own choice; the rest is what the macro read
    keys = [f"inference_serving_{k}" for k in
            (("batch_size",) if "batch_size" in serving else ())
            + (("weight_bits",) if "precision" in serving else ())]
    keys += (workload.get("context") or {}).get("assumption_keys", [])
    result["assumptions"] = assumptions(con, keys + keys_read(found))
    return result


def rent_vs_buy(con: Any, args: argparse.Namespace) -> dict[str, Any]:
    """rent_vs_buy_estimate for one accelerator: owned cost per used GPU-hour against every
    observed rental price basis, with the break-even utilisation; and, per instance size
    (--gpus-per-instance: that size only) and commitment, commitment_breakeven_estimate: the
    cheapest commitment against the cheapest on-demand offer of the same size, the share of
    hours at which committing pays, and at which owning pays against each."""
    if not args.accelerator:
        raise EstimateError("--rent-vs-buy needs --accelerator")
    accelerator = resolve_accelerator(con, args.accelerator)
    utilisation = args.utilisation if args.utilisation is not None else 1.0
    found = rows(con, "select * from rent_vs_buy_estimate($acc, $u, years := $years)",
                 {"acc": accelerator["accelerator_id"], "u": utilisation, "years": args.years})
    if not found or found[0]["purchase_price_usd"] is None or found[0]["tdp_w"] is None:
        raise EstimateError(f"{accelerator['accelerator_id']} has no purchase price or TDP in "
                            "the catalog: owning cannot be costed")
    size = getattr(args, "gpus_per_instance", None)
    commitments = rows(con, "select * from commitment_breakeven_estimate($acc, $u, "
                            "years := $years, gpus_per_instance := $size)",
                       {"acc": accelerator["accelerator_id"], "u": utilisation,
                        "years": args.years, "size": size})
    return {"mode": "rent_vs_buy", "utilisation": utilisation,
            "utilisation_defaulted": args.utilisation is None, "rows": found,
            "gpus_per_instance": size, "commitments": commitments,
            "assumptions": assumptions(con, found[0]["assumption_keys"])}
