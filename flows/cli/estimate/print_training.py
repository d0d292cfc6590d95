"""How `gpucost estimate training`, `scenario` and `rent-vs-buy` print their answers (table
format): the figures, the cost per price basis, the ranking over accelerators, and the
assumptions and MFU model the answer read. The numbers are the macros'; nothing is computed
here but which row of each basis kind to show."""

from __future__ import annotations

from typing import Any

from gpucost.flows.cli.estimate.common import (
    cheapest,
    cheapest_rental,
    dated_first,
    fits,
    undated,
)
from gpucost.flows.cli.output import count, number, write_table


def print_assumptions(result: dict[str, Any], out: Any) -> None:
    m = result.get("mfu_model")
    if m:
        print(f"\nMFU model (catalog/mfu_model.csv: fitted on {m['fitted_runs']} high-confidence "
              "published runs, leave-one-out validation in docs/validation.md): in-run MFU = "
              f"exp({m['intercept']:.3f} {m['hopper']:+.3f} [Hopper] "
              f"{m['moe']:+.3f} [MoE] {m['fp8']:+.3f} [FP8, measured in MLPerf] "
              f"{m['hopper_log10_params']:+.3f} x log10(params / 1e10) [Hopper, params clamped "
              f"to {count(m['hopper_params_min'])}-{count(m['hopper_params_max'])}]) / goodput, "
              "against the BF16 peak (rescaled to the FP8 peak for an FP8 run), counting "
              "attention FLOPs (restated against 6ND at the assumed shape when none is given)",
              file=out)
        for f in m.get("family_factors") or []:
            how = (f"measured in MLPerf Training against Hopper, {f['pairs']} result pairs on "
                   f"{f['benchmarks']} (range {number(f['min_pair_factor'])}-"
                   f"{number(f['max_pair_factor'])})" if f["mfu_basis"] == "mlperf_training"
                   else "the cited generation defaults' ratio")
            print(f"  {f['family']}: Hopper's MFU x {number(f['hopper_factor'])}, {how} "
                  "(mart mfu_family_factors)", file=out)
        for g in m.get("generation_factors") or []:
            print(f"  {g['accelerator_id']}: {g['mfu_source']}: its MLPerf Training speed per "
                  f"BF16 peak over {g['fitted_anchor_id']}'s, whose fitted term it takes; "
                  f"chain {g['chain']} (mart mfu_generation_factors)", file=out)
    if not result.get("assumptions"):
        return
    print("\nassumptions (catalog/assumptions.csv):", file=out)
    for a in result["assumptions"]:
        print(f"  {a['assumption_key']} = {number(a['value'], 4)} {a['unit']}: "
              f"{a['description']} [{a['source_url']}]", file=out)


_FLOPS_BASIS = {
    "params_tokens": "6 x active params x tokens, plus the optional terms given",
    "cluster_time": "GPUs x days x dense peak x MFU x goodput",
    "flops": "given",
}


def print_training(result: dict[str, Any], out: Any) -> None:
    rows = result["rows"]
    first = rows[0]
    single = len({r["accelerator_id"] for r in rows}) == 1
    what = []
    if first["flops_basis"] == "cluster_time":
        what.append(f"{number(first['n_gpus'])} GPUs x {number(first['wall_clock_days'])} days")
    if first["params_active"]:
        params = f"{count(first['params_active'])} active parameters"
        if first["params_total"] and first["params_total"] != first["params_active"]:
            params += f" ({count(first['params_total'])} total)"
        what.append(params)
    if first["tokens"]:
        implied = "" if first["flops_basis"] == "params_tokens" or "tokens" in result["inputs"] \
            else " (implied by the FLOPs)"
        what.append(f"{count(first['tokens'])} tokens{implied}")
    what.append(first["precision"])
    deadline = result.get("deadline_days")
    gpus = f"{number(first['n_gpus'])} GPUs" + (
        " (a default cluster size, not a recommendation: it sets only the days, the peak power "
        "and a PCIe platform's pipeline bubble; --gpus N sets it, --days D sizes each "
        "platform's to finish within D days)" if result["gpus_defaulted"] else "")
    if deadline is not None:
        gpus = (f"the fewest GPUs that finish within {number(deadline)} days on each platform "
                "(--days; whole nodes beyond one, at least one model replica)")
    if result.get("scenario"):
        print(f"Scenario {result['scenario']['scenario_id']}: "
              f"{result['scenario']['question']}", file=out)
    if not single:
        print(f"Training estimate: {', '.join(what)}; FLOPs {count(first['flops'])}; "
              f"wall-clock on {gpus}", file=out)
        on_demand = dated_first(cheapest, rows, "cost_usd",
                                lambda r: r["price_basis"] == "on_demand_min" and fits(r))
        rented = dated_first(cheapest_rental, [r for r in rows if fits(r)], "cost_usd")
        owned = cheapest(rows, "cost_usd", lambda r: r.get("basis_kind") == "owned")
        analyst = cheapest(rows, "cost_usd", lambda r: r["price_basis"] == "rental_3y_survey")
        given = cheapest(rows, "cost_usd", lambda r: r["price_basis"] == "given")
        first_of = {}
        for r in rows:
            first_of.setdefault(r["accelerator_id"], r)
        table, unranked = [], []
        for entry in result["ranking"]:
            acc = entry["accelerator_id"]
            r = first_of[acc]
            days = number(r["wall_clock_days"]) + (
                f" on {number(r['n_gpus'])}" if deadline is not None else "") + (
                " (over --days)" if deadline is not None and r["wall_clock_days"] is not None
                and r["wall_clock_days"] > deadline * (1 + 1e-9) else "")
            if entry["rank"] is None and r["feasible"] is not False:
                unranked.append([acc, number(r["gpu_hours"]), days, entry["reason"]])
                continue
            od = given.get(acc) or on_demand.get(acc, {})
            cheap, own = rented.get(acc, {}), owned.get(acc, {})
            table.append([
                acc, number(r["peak_dense_tflops"]), number(r["mfu"]), number(r["gpu_hours"]),
                days, _plan(r),
                f"{number(od.get('cost_usd'))} ({od.get('provider') or od.get('price_basis')}"
                f"{', undated' if undated(od) else ''})" if od else "-",
                number(od.get("usd_per_million_tokens")),
                f"{number(cheap.get('cost_usd'))} ({cheap.get('price_basis')}, "
                f"{cheap.get('provider') or '-'}{', undated' if undated(cheap) else ''})"
                if cheap else "-",
                f"{number(own.get('cost_usd'))} ({own.get('price_basis')})" if own else "-",
                number(analyst.get(acc, {}).get("cost_usd")), number(r["energy_mwh"]),
                r["mfu_source"] or "",
            ] + ([r["infeasible_reason"] or ""] if result.get("show_all") else []))
        day_column = "days on GPUs" if deadline is not None else "days"
        write_table(["accelerator", "peak TFLOP/s", "MFU", "GPU-hours", day_column,
                     "min GPUs mem / TPxPPxDP", "on-demand USD (cheapest)",
                     "USD/M tok (on-demand)", "cheapest rental USD (basis, provider)",
                     "owned/TCO USD (basis)", "analyst USD", "MWh", "MFU from"]
                    + (["cannot train it because"] if result.get("show_all") else []),
                    table, out, indent="  ")
        node = number(first.get("gpus_per_node"))
        print(f"\nranked by the cheapest dated on-demand rental whose instance holds a whole "
              f"node of the run ({node} GPUs); platforms without one follow, by their cheapest "
              "other dated rental of that size; then those whose offers of that size are all "
              "undated (age unknown: not a current price), marked. MFU: in-run utilisation of "
              "the dense peak "
              f"(goodput {number(first['goodput'])} separate); docs/cost-models.md explains "
              "each source", file=out)
        if unranked:
            print(f"\nnot ranked: {len(unranked)} platform(s) with no rental offer of {node} "
                  "or more GPUs per instance (a smaller box never prices a multi-node plan):",
                  file=out)
            write_table(["accelerator", "GPU-hours", day_column, "why"], unranked, out,
                        indent="  ")
        if result.get("infeasible_hidden"):
            print(f"\nnot ranked: {len(result['infeasible_hidden'])} platform(s) that cannot "
                  "train this model"
                  + (f" on {number(first['n_gpus'])} GPUs" if deadline is None else "") + " "
                  f"({', '.join(result['infeasible_hidden'])}); --all lists them with the "
                  "reason", file=out)
        print_assumptions(result, out)
        return
    if deadline is not None:
        gpus = (f"{number(first['n_gpus'])} GPUs (the fewest that finish within "
                f"{number(deadline)} days: --days)")
    print(f"Training estimate: {', '.join(what)}; on {first['accelerator_name']} "
          f"({first['accelerator_id']})", file=out)
    lines = [
        ("FLOPs", f"{count(first['flops'])} ({_FLOPS_BASIS[first['flops_basis']]})"),
        (f"dense peak ({first['precision']})", f"{first['peak_dense_tflops']:g} TFLOP/s"),
        ("MFU", f"{number(first['mfu'])} ({first['mfu_source']})"),
        ("goodput", number(first["goodput"])),
        ("compute GPU-hours", f"{number(first['compute_gpu_hours'])} (at MFU, before goodput)"),
        ("GPU-hours", f"{number(first['gpu_hours'])} (paid for: compute GPU-hours / goodput)"),
        ("wall-clock", f"{number(first['wall_clock_days'])} days on {gpus}"),
        ("energy", f"{number(first['energy_mwh'])} MWh = GPU-hours x {number(first['tdp_w'])} W x "
                   f"{number(first['server_to_chip_power'])} server/chip power x "
                   f"{number(first['avg_power_fraction'])} average load x PUE "
                   f"{number(first['pue'])}; {number(first['energy_cost_usd'])} USD at "
                   f"{number(first['electricity_usd_per_kwh'])} USD/kWh"),
        ("peak cluster power", f"{number(first['peak_cluster_power_mw'])} MW "
                               "(TDP x server/chip power x PUE, full load)"),
    ]
    if first.get("feasible") is not None:
        lines += [
            ("memory", f"{number(first['training_state_gb'])} GB of weights, gradients and Adam "
                       f"state + {number(first['activation_gb'])} GB of activations per "
                       f"micro-batch ({number(first['activation_micro_batch'])} x seq "
                       f"{number(first['activation_seq_len'])}, "
                       f"{first['activation_recompute']} recompute)"),
            ("min GPUs (memory)", f"{number(first['min_gpus_memory'])} (training state and "
                                  "activations spread evenly)"),
            ("GPUs per replica", f"{number(first['gpus_per_model_replica'])} (tensor x pipeline; "
                                 f"scale-up domain {number(first['scale_up_domain_size'])}"
                                 + (f", {first['scale_up_link']})" if first["scale_up_link"]
                                    else ", none)")),
            ("parallelism", f"TP {number(first['tensor_parallel'])} x PP "
                            f"{number(first['pipeline_parallel'])} x DP "
                            f"{number(first['data_parallel'])}" if first["feasible"]
                            else f"NOT FEASIBLE: {first['infeasible_reason']}"),
        ]
    width = max(len(k) for k, _ in lines)
    for k, v in lines:
        print(f"  {k.ljust(width)}  {v}", file=out)
    priced = [r for r in rows if r["price_basis"]]
    if priced:
        node = first.get("gpus_per_node")
        print("\ncost per price basis" + (f" (rentals at offers of {number(node)} or more GPUs per "
              "instance, the size this run needs: --gpus sets it):" if node else ":"), file=out)
        write_table(["basis", "provider", "GPUs/inst", "USD/GPU-h", "cost USD",
                     "USD/M tokens", "note"],
                    [[r["price_basis"], r["provider"] or "-",
                      number(r["basis_gpu_count"]) if r.get("basis_gpu_count") else "-",
                      number(r["price_per_gpu_hour"]), number(r["cost_usd"]),
                      number(r["usd_per_million_tokens"]), r["basis_note"] or ""]
                     for r in sorted(priced, key=lambda r: r["cost_usd"])], out, indent="  ")
    else:
        print("\nno price for this accelerator in the warehouse (give --price)", file=out)
    if result.get("breakdown"):
        print("\nfull-bill breakdown (cost_breakdown_estimate):", file=out)
        write_table(["preset", "component", "USD", "share"],
                    [[b["preset_id"], b["component"], number(b["usd"]),
                      f"{b['share_of_total']:.1%}"] for b in result["breakdown"]],
                    out, indent="  ")
        for p in result["presets"]:
            print(f"  {p['preset_id']}: {p['description']} [{p['source_url']}]", file=out)
    print_assumptions(result, out)


def _plan(r: dict[str, Any]) -> str:
    if r.get("feasible") is None:
        return "-"
    if not r["feasible"]:
        return f"{number(r['min_gpus_memory'])} / infeasible"
    return (f"{number(r['min_gpus_memory'])} / {number(r['tensor_parallel'])}x"
            f"{number(r['pipeline_parallel'])}"
            f"x{number(r['data_parallel'])}")


def print_rent_vs_buy(result: dict[str, Any], out: Any) -> None:
    rows = result["rows"]
    first = rows[0]
    u = result["utilisation"]
    print(f"Rent vs buy: {first['name']} ({first['accelerator_id']}) busy {u:.0%} of the time"
          + (" (default; set --utilisation)" if result["utilisation_defaulted"] else "")
          + f", {number(first['useful_life_years'])} years of useful life", file=out)
    fixed = first["tco_capital_usd_per_gpu_hour"] + first["hosting_usd_per_gpu_hour"]
    lines = [
        ("purchase price", f"{number(first['purchase_price_usd'])} USD per accelerator "
                           f"({first['purchase_price_basis'] or '-'}, "
                           f"{first['purchase_price_date'] or 'undated'}) "
                           f"[{first['purchase_price_source_url'] or 'no source'}]"),
        ("cluster capex", f"{number(first['cluster_capex_per_gpu_usd'])} USD per accelerator = "
                          f"price x {number(first['server_cost_overhead'])} server overhead / "
                          f"(1 - {number(first['network_fraction_of_cluster'])} interconnect)"),
        ("capital", f"{number(first['tco_capital_usd_per_gpu_hour'])} USD per GPU-hour: capex x "
                    f"capital recovery factor (WACC {number(first['wacc'])}, "
                    f"{number(first['useful_life_years'])} years) / "
                    f"{number(first['hours_per_year'])} h (paid used or not)"),
        ("hosting", f"{number(first['hosting_usd_per_gpu_hour'])} USD per GPU-hour: "
                    f"{number(first['it_power_kw_per_gpu'])} kW x "
                    f"{number(first['colo_usd_per_kw_month'])} USD/kW-month colocation x 12 / "
                    f"{number(first['hours_per_year'])} h (paid used or not)"),
        ("energy", f"{number(first['energy_usd_per_gpu_hour'])} USD per used GPU-hour: "
                   f"{number(first['it_power_kw_per_gpu'])} kW x "
                   f"{number(first['avg_power_fraction'])} load x PUE {number(first['pue'])} x "
                   f"{number(first['electricity_usd_per_kwh'])} USD/kWh"),
        ("owned, per used GPU-hour", f"{number(first['owned_usd_per_used_gpu_hour'])} USD = "
                                     f"({number(fixed)} capital + hosting) / {u:g} + "
                                     f"{number(first['energy_usd_per_gpu_hour'])} energy"),
        ("owned, Epoch amortised", f"{number(first['epoch_owned_usd_per_gpu_hour'])} USD per "
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
        print(f"\ncheapest observed rental: {number(cheapest['rental_price_per_gpu_hour'])} USD "
              f"per GPU-hour ({cheapest['rental_price_basis']}, "
              f"{cheapest['rental_provider'] or '-'}); at {u:.0%} utilisation {verdict}; "
              "break-even utilisation "
              + (f"{be:.0%}" if be is not None and be <= 1 else
                 "above 100%: renting is always cheaper" if be is not None else
                 "none: the rental price does not cover the energy"), file=out)
        write_table(["rental basis", "provider", "USD/GPU-h", "owned USD/used GPU-h",
                     "break-even utilisation", "observed", "source"],
                    [[r["rental_price_basis"], r["rental_provider"] or "-",
                      number(r["rental_price_per_gpu_hour"]),
                      number(r["owned_usd_per_used_gpu_hour"]),
                      (f"{r['breakeven_utilisation']:.0%}"
                       if r["breakeven_utilisation"] is not None else "-"),
                      str(r["rental_observed_at"] or "-")[:10], r["rental_source_url"] or "-"]
                     for r in rented], out, indent="  ")
    print_commitments(result, out)
    print_assumptions(result, out)


def share_of_hours(be: Any) -> str:
    """A break-even share of hours: '69%', 'never (192%)' above 1 (the alternative is cheaper
    even at every hour), '-' when there is none."""
    if be is None or be != be:
        return "-"
    return f"{be:.0%}" if be <= 1 else f"never ({be:.0%})"


def _offer(provider: Any, seller: Any, sku: Any) -> str:
    who = provider if provider == seller or not seller else f"{provider} (resells {seller})"
    return f"{who} {sku}"


def print_commitments(result: dict[str, Any], out: Any) -> None:
    """Each commitment term against on-demand of the same instance size
    (commitment_breakeven_estimate), beside the ownership break-even."""
    found = result.get("commitments") or []
    size = result.get("gpus_per_instance")
    at = f" ({size} GPUs per instance)" if size else ""
    if not found:
        print(f"\nno commitment offer in force for this accelerator{at} "
              "(commitment_breakeven)", file=out)
        return
    print(f"\ncommitments against on-demand offers of the same size{at} (commitment_breakeven):"
          " committing pays when the GPUs are busy more than its share of hours; owning pays "
          "against that rental above its own", file=out)
    write_table(
        ["GPUs", "commitment", "term", "USD/GPU-h", "offer", "on-demand USD/GPU-h",
         "on-demand offer", "commit pays above", "own vs on-demand", "own vs commitment",
         "observed"],
        [[number(r["gpu_count"]), r["pricing_model"],
          f"{r['term_months']} mo" if r["term_months"] is not None else "block",
          number(r["commitment_price_per_gpu_hour"]),
          _offer(r["commitment_provider"], r["commitment_seller"], r["commitment_sku"]),
          number(r["on_demand_price_per_gpu_hour"])
          if r["on_demand_price_per_gpu_hour"] is not None else "-",
          _offer(r["on_demand_provider"], r["on_demand_seller"], r["on_demand_sku"])
          if r["on_demand_provider"] else "none of this size",
          share_of_hours(r["breakeven_utilisation"]),
          share_of_hours(r["owned_breakeven_vs_on_demand"]),
          share_of_hours(r["owned_breakeven_vs_commitment"]),
          str(r["commitment_observed_at"] or "-")[:10] + " / "
          + str(r["on_demand_observed_at"] or "-")[:10]]
         for r in found], out, indent="  ")
    own = [r for r in found if r["seller_on_demand_price_per_gpu_hour"] is not None
           and r["commitment_seller"] != r["on_demand_seller"]]
    for r in own:
        print(f"  {r['commitment_seller']}'s own on-demand {number(r['gpu_count'])}-GPU price "
              f"{number(r['seller_on_demand_price_per_gpu_hour'])} USD/GPU-h: its "
              f"{r['pricing_model']} pays above "
              f"{share_of_hours(r['seller_breakeven_utilisation'])} of the hours", file=out)


