"""How `gpucost estimate inference` prints its answer (table format): the roofline on one
accelerator or the ranking over all, the measured results beside it, --compare with the claim
check of claim_check, and the measured throughput at --min-tokens-per-user."""

from __future__ import annotations

import math
from typing import Any

from gpucost.flows.cli.estimate.common import (
    cheapest,
    cheapest_rental,
    dated_first,
    undated,
)
from gpucost.flows.cli.estimate.print_training import print_assumptions
from gpucost.flows.cli.output import count, number, write_table


def print_inference(result: dict[str, Any], out: Any) -> None:
    rows = result["rows"]
    first = rows[0]
    single = len({r["accelerator_id"] for r in rows}) == 1
    model = f"{count(first['params_active'])} active parameters"
    if first["params_total"] != first["params_active"]:
        model += f" ({count(first['params_total'])} total)"
    print(f"Inference estimate: {model}, {first['precision']} weights, batch "
          f"{number(first['batch_size'])}, {number(first['context_tokens'])} context tokens",
          file=out)
    context = result.get("context_default")
    if context:
        print(f"  context default: {number(context['context_tokens'])} tokens = "
              f"{number(context['input_tokens'])} input ({context['input_basis']}) + half of "
              f"{number(context['output_tokens'])} output ({context['output_basis']}); "
              "--context N overrides, --context 0 for none", file=out)
    shape = result.get("benchmark_shape")
    if shape:
        how = (f"--benchmark {shape['benchmark']}" if shape.get("matched_by") == "benchmark"
               else f"benchmark {shape['benchmark']}, the catalogued model of this size; "
                    "--layers, --kv-heads and --head-dim for another")
        print(f"  KV-cache shape of {shape['model']} ({how}, inference_benchmarks): "
              f"{number(shape['n_layers'])} layers, {number(shape['n_kv_heads'])} KV heads "
              f"of {number(shape['head_dim'])}", file=out)
    if first["context_tokens"] and not first["kv_bytes_per_token"]:
        print("  the context holds no KV cache: no KV-cache shape given (--layers, --kv-heads "
              "and --head-dim, or --kv-bytes-per-token, or --benchmark of this model)", file=out)
    serving = result.get("serving_defaults") or {}
    if serving:
        given = " and ".join(
            f"{label} {number(serving[k]) if k == 'batch_size' else serving[k]}"
            for k, label in (("batch_size", "batch"), ("precision", "weights")) if k in serving)
        print(f"  serving defaults: {given} (throughput serving as MLPerf measures it; "
              "calibrated on measured results: inference_roofline_calibration; "
              "--batch / --precision override)", file=out)
    if single:
        print(f"  on {first['accelerator_name']} ({first['accelerator_id']})", file=out)
        lines = [
            ("replica", f"{number(first['n_gpus'])} GPU(s): weights "
                        f"{number(first['weights_gb'])} GB + KV cache "
                        f"{number(first['kv_cache_gb'])} GB in "
                        f"{number(first['memory_gb'])} GB each"
                        + ("" if first["fits_in_memory"] else " (does NOT fit)")),
            ("decode step", f"{number(first['decode_step_ms'])} ms, {first['decode_bound']}-bound"
                            f" (bandwidth {number(first['memory_bw_tbps'])} TB/s x "
                            f"{number(first['bandwidth_utilisation'])}; peak "
                            f"{number(first['peak_dense_tflops'])} TFLOP/s x "
                            f"{number(first['compute_utilisation'])})"),
            ("output tokens/s", f"{number(first['output_tokens_per_second'])} per replica, "
                                f"{number(first['output_tokens_per_second_per_gpu'])} per GPU"),
            ("prefill tokens/s", f"{number(first['prefill_tokens_per_second'])} per replica"),
        ]
        width = max(len(k) for k, _ in lines)
        for k, v in lines:
            print(f"  {k.ljust(width)}  {v}", file=out)
        priced = [r for r in rows if r["price_basis"]]
        size = first.get("gpus_per_instance")
        print("\ncost per price basis" + (f" (rentals at offers of {number(size)} or more GPUs per "
              "instance, the replica's size):" if size else ":"), file=out)
        write_table(["basis", "provider", "GPUs/inst", "USD/GPU-h", "USD/M output",
                     "USD/M input"],
                    [[r["price_basis"], r["provider"] or "-",
                      number(r["basis_gpu_count"]) if r.get("basis_gpu_count") else "-",
                      number(r["price_per_gpu_hour"]), number(r["usd_per_million_output_tokens"]),
                      number(r["usd_per_million_input_tokens"])]
                     for r in sorted(priced, key=lambda r: r["usd_per_million_output_tokens"])],
                    out, indent="  ")
        _print_measured(result, out)
    else:
        column = "usd_per_million_output_tokens"
        # a price without a date is not a current price: each platform at its cheapest dated
        # rental when it has one, and the platforms priced only by undated offers after the
        # dated ones, marked
        on_demand = dated_first(cheapest, rows, column,
                                lambda r: r["price_basis"] == "on_demand_min")
        rented = dated_first(cheapest_rental, rows, column)
        owned = cheapest(rows, column, lambda r: r["price_basis"] == "owned")

        def rank(r: dict[str, Any]) -> tuple[bool, bool, float]:
            cheap = rented.get(r["accelerator_id"])
            return (cheap is None, cheap is not None and undated(cheap),
                    (cheap or {}).get(column) or math.inf)

        order = sorted({r["accelerator_id"]: r for r in rows}.values(), key=rank)
        table = []
        for r in order:
            acc = r["accelerator_id"]
            od, cheap, own = on_demand.get(acc, {}), rented.get(acc, {}), owned.get(acc, {})
            table.append([
                acc, number(r["n_gpus"]), number(r["output_tokens_per_second_per_gpu"]),
                r["decode_bound"],
                f"{number(od.get(column))} ({od.get('provider') or '-'}"
                f"{', undated' if undated(od) else ''})" if od else "-",
                f"{number(cheap.get(column))} ({cheap.get('price_basis')}, "
                f"{cheap.get('provider') or '-'}{', undated' if undated(cheap) else ''})"
                if cheap else "-",
                number(own.get(column)),
                number(cheap.get("usd_per_million_input_tokens")),
            ])
        print("  USD per million output tokens:", file=out)
        write_table(["accelerator", "GPUs", "tok/s/GPU", "bound", "on-demand (cheapest)",
                     "cheapest rental (basis, provider)", "owned", "input, cheapest rental"],
                    table, out, indent="  ")
        print("  ordered by the cheapest dated rental; platforms priced only by undated offers "
              "(age unknown: not a current price) follow, marked", file=out)
    if "compare" in result:
        print(f"\n{result['compare_accelerator_id']} vs {first['accelerator_id']}: times cheaper "
              "per million output tokens (inference_cost_ratio)", file=out)
        if not result["compare"]:
            print("  no price basis both platforms have", file=out)
        else:
            write_table(["basis", "throughput/GPU ratio", "price ratio", "cost ratio"]
                        + (["claimed", "claim / supported"] if result["claim"] else []),
                        [[c["price_basis"], number(c["throughput_ratio_per_gpu"]),
                          number(c["price_ratio"]), number(c["cost_ratio"])]
                         + ([number(result["claim"]), number(c["claim_to_supported"])]
                            if result["claim"] else [])
                         for c in result["compare"]], out, indent="  ")
        _print_measured_pairs(result, out)
    if "interactivity" in result:
        _print_interactivity(result["interactivity"], out)
    print_assumptions(result, out)


def _print_interactivity(found: dict[str, Any], out: Any) -> None:
    n = number(found["tokens_per_user"])
    print(f"\nmeasured at {n} tokens/s per user (inference_interactivity; "
          f"{', '.join(found['models']) or 'no measured model matches --params: give --benchmark'})"
          ":", file=out)
    if not found["rows"]:
        print("  no measured curve of this model" + (" on this accelerator" if found["rows"]
                                                      is not None else ""), file=out)
        return
    write_table(["accelerator", "GPUs", "measured by", "model", "tok/s/GPU", "USD/M tok",
                 "basis (provider)", "how"],
                [[r["accelerator_id"], number(r["accelerator_count"]),
                  f"{r['measured_by']} {r['software'] or ''}".strip(), r["model"],
                  number(r["tokens_per_second_per_gpu"]),
                  number(r["usd_per_million_output_tokens"]),
                  f"{r['price_basis'] or '-'} ({r['provider'] or '-'})", r["note"]]
                 for r in found["rows"]], out, indent="  ")


def _print_measured(result: dict[str, Any], out: Any) -> None:
    """Measured results of the same model on the same accelerator, beside the roofline at the
    same price per GPU-hour: how far the estimate is from what was measured."""
    measured = result.get("measured")
    if measured is None:
        return
    if not measured:
        print("\nmeasured: no MLPerf Inference result of a model this size on this accelerator"
              " (inference_measured); the figures above are the roofline only", file=out)
        return
    print("\nmeasured (MLPerf Inference, inference_measured), the estimate at the same price "
          "per GPU-hour:", file=out)
    write_table(["benchmark", "scenario", "round, submitter", "software", "tok/s/GPU",
                 "measured on", "basis", "price of", "USD/M measured", "USD/M estimate",
                 "estimate/measured"],
                [[f"{m['benchmark']}{'-' + m['accuracy_target'] if m['accuracy_target'] else ''}",
                  m["scenario"], f"{m['round']} {m['submitter']}", m["software_family"] or "-",
                  number(m["tokens_per_second_per_accelerator"]), _day(m.get("observed_at")),
                  m["price_basis"] + (f" ({m['provider']})" if m["provider"] else ""),
                  _day(m.get("price_observed_at")), number(m["usd_per_million_output_tokens"]),
                  number(m["estimate_usd_per_million_output_tokens"]),
                  number(m["estimate_to_measured"])] for m in measured], out, indent="  ")


def _day(when: Any) -> str:
    """The date of a timestamp (the throughput's round, the price's observation), else '-'."""
    return when.strftime("%Y-%m-%d") if hasattr(when, "strftime") else (str(when)[:10]
                                                                          if when else "-")


def _print_measured_pairs(result: dict[str, Any], out: Any) -> None:
    """The measured side of --compare, and which side the answer rests on (the ratios are
    claim_check's, at the price ratio of compare_basis)."""
    pairs = result.get("measured_pairs")
    if pairs is None:
        return
    platform, baseline = result["compare_accelerator_id"], result["rows"][0]["accelerator_id"]
    basis = result.get("compare_basis")
    chosen = next((c for c in result.get("compare") or [] if c["price_basis"] == basis), None)
    claim = result["claim"]
    if not pairs:
        print(f"\nmeasured: {platform} and {baseline} were never measured on one benchmark and "
              "scenario (inference_throughput)", file=out)
        if chosen:
            print(f"answer (roofline, no measurement): {number(chosen['cost_ratio'])}x cheaper "
                  f"per million output tokens at {basis}"
                  + (f"; the claimed {number(claim)}x is "
                     f"{number(chosen['claim_to_supported'])}x that" if claim else ""), file=out)
        return
    print(f"\nmeasured per-GPU throughput, {platform} / {baseline} (MLPerf Inference, closest "
          "like-for-like first; macro measured_throughput_ratio):", file=out)
    table = [[str(p["pair_rank"]),
              f"{p['benchmark']}{'-' + p['accuracy_target'] if p['accuracy_target'] else ''}",
              p["scenario"], f"{p['round']} / {p['baseline_round']}",
              f"{p['software_family'] or '-'} / {p['baseline_software_family'] or '-'}",
              str(p["match_tier"]), number(p["measured_ratio"]), number(p["measured_cost_ratio"])]
             + ([number(p["claim_to_measured"])] if claim else []) for p in pairs]
    write_table(["#", "benchmark", "scenario", "rounds", "software", "match", "throughput ratio",
                 f"cost ratio ({basis or 'no common price'})"]
                + (["claim / measured"] if claim else []), table, out, indent="  ")
    print("  match: 1 same benchmark, round and software; 2 same round; 3 other rounds; 4-6 the"
          " same on another benchmark than --benchmark", file=out)
    best = pairs[0]
    line = (f"answer (measured, {best['benchmark']} {best['scenario']}): {platform} generates "
            f"{number(best['measured_ratio'])}x the tokens per GPU of {baseline}")
    if chosen and chosen["price_ratio"]:
        line += (f"; at {basis} prices ({number(chosen['price_ratio'])}x the price per GPU-hour)"
                 f" that is {number(best['measured_cost_ratio'])}x cheaper per million output "
                 "tokens")
        if claim:
            line += (f"; the claimed {number(claim)}x is {number(best['claim_to_measured'])}x what"
                     " was measured and would need a price ratio of "
                     f"{number(best['price_ratio_needed'])}")
    print(line, file=out)
