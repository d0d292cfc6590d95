"""`gpucost estimate` on a published warehouse (real catalog, offline: reference prices only).

The command only calls the published macros read-only, so these tests check what it prints
and that it agrees with the macros and marts, not the arithmetic (tests/models/test_cost_models.py).
"""

from __future__ import annotations

import json

import duckdb
import pytest

from gpucost.flows.cli.main import main
from gpucost.flows.cli.output import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from gpucost.flows.steps import build_and_publish

H100 = "nvidia-h100-sxm5-80gb"


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    data = tmp_path_factory.mktemp("estimate")
    build_and_publish(data)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GPUCOST_DATA_DIR", str(data))
        yield data


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["estimate", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_training_table_shows_everything_the_issue_asks_for(warehouse, capsys):
    code, out, err = run(capsys, "--params", "7e9", "--tokens", "2e12",
                         "--accelerator", "H100 SXM", "--mfu", "0.4")
    assert code == EXIT_OK, err
    assert "on NVIDIA H100 SXM5 80GB (nvidia-h100-sxm5-80gb)" in out
    assert "FLOPs               8.4e22 (6 x active params x tokens" in out
    assert "MFU                 0.4 (given)" in out
    assert "GPU-hours           65,509 (paid for" in out  # 58,958 / 0.9
    assert "days on 1,024 GPUs (a default cluster size, not a recommendation" in out
    assert "MWh = GPU-hours x 700 W x 1.82 server/chip power x 0.75 average load x PUE 1.25" in out
    assert "peak cluster power  1.63 MW" in out  # 1,024 x 700 W x 1.82 x 1.25
    # cost per price basis, with the provider behind each
    basis_lines = {line.split()[0]: line.split() for line in out.splitlines()
                   if line.startswith("  on_demand") or line.startswith("  owned")}
    # a run on 1,024 GPUs is priced at full 8-GPU nodes: Lambda's gpu_8x_h100_sxm5 of
    # 2026-05-07, 31.92 / 8 = 3.99 (reference), not RunPod's one-GPU 2.99 (2026-08-10); Lambda's
    # page price of 2026-01-09 (8 x 2.99) is superseded by that catalog price
    assert "rentals at offers of 8 or more GPUs per instance" in out
    assert basis_lines["on_demand_min"][1:5] == ["lambda", "8", "3.99", "261,382"]  # x 65,509 h
    assert "owned" in basis_lines
    # and the assumptions used, with their sources
    assert "assumptions (catalog/assumptions.csv):" in out
    for key in ("goodput = 0.9", "pue = 1.25",
                "server_to_chip_power_h100 = 1.82", "electricity_usd_per_kwh = 0.08"):
        assert key in out
    assert "[https://arxiv.org/abs/2407.21783]" in out


def test_training_json_is_the_same_estimate(warehouse, capsys):
    code, out, _ = run(capsys, "--params", "7e9", "--tokens", "2e12", "--accelerator",
                       "H100 SXM", "--gpus", "512", "--mfu", "0.4", "--format", "json")
    assert code == EXIT_OK
    data = json.loads(out)
    assert data["mode"] == "training" and data["gpus_defaulted"] is False
    by_basis = {r["price_basis"]: r for r in data["rows"]}
    od = by_basis["on_demand_min"]
    assert od["accelerator_id"] == H100 and od["provider"] == "lambda"
    # 512 GPUs: full 8-GPU nodes, Lambda's 8x H100 at 3.99 per GPU-hour
    assert (od["gpus_per_node"], od["basis_gpu_count"], od["basis_fits_node"]) == (8, 8, True)
    assert od["flops"] == pytest.approx(8.4e22)
    assert od["gpu_hours"] == pytest.approx(8.4e22 / (989.4e12 * 0.4 * 3600) / 0.9)
    assert od["wall_clock_days"] == pytest.approx(od["gpu_hours"] / 512 / 24)
    assert od["cost_usd"] == pytest.approx(od["gpu_hours"] * 3.99)
    assert od["energy_mwh"] > 0 and od["peak_cluster_power_mw"] > 0
    assert od["usd_per_million_tokens"] == pytest.approx(od["cost_usd"] / 2e12 * 1e6)
    keys = {a["assumption_key"]: a for a in data["assumptions"]}
    assert keys["goodput"]["value"] == 0.9 and keys["goodput"]["source_url"]
    assert {"pue", "electricity_usd_per_kwh", "training_state_bytes_per_param"} <= set(keys)
    # 7B fits 8 H100s many times over: feasible, the plan and its memory are in the rows
    assert od["feasible"] is True and od["infeasible_reason"] is None
    assert od["training_state_gb"] == pytest.approx(16 * 7e9 / 1e9)


def test_acceptance_405b_and_the_20k_cluster_through_the_cli(warehouse, capsys):
    code, out, _ = run(capsys, "--params", "405e9", "--tokens", "15.6e12", "-a", "H100 SXM",
                       "--mfu", "0.4", "--goodput", "1", "--price", "2", "--gpus", "16384",
                       "--format", "json")
    given = next(r for r in json.loads(out)["rows"] if r["price_basis"] == "given")
    assert given["flops"] == pytest.approx(3.79e25, rel=1e-3)
    assert given["gpu_hours"] == pytest.approx(26.6e6, rel=1e-3)
    assert given["cost_usd"] == pytest.approx(53.2e6, rel=1e-3)
    code, out, _ = run(capsys, "-a", "H100 SXM", "--gpus", "20000", "--days", "121.75",
                       "--mfu", "0.4", "--goodput", "1", "--price", "2", "--format", "json")
    given = next(r for r in json.loads(out)["rows"] if r["price_basis"] == "given")
    assert given["flops"] == pytest.approx(8e25, rel=0.05)
    assert given["cost_usd"] == pytest.approx(117e6, rel=0.01)


def test_breakdown_and_every_accelerator(warehouse, capsys):
    code, out, _ = run(capsys, "--params", "405e9", "--tokens", "15.6e12", "-a", "H100 SXM",
                       "--gpus", "16384", "--breakdown", "seed_2023")
    assert code == EXIT_OK
    assert "full-bill breakdown" in out
    assert any(line.split()[:2] == ["seed_2023", "staff"] and line.split()[-1] == "18.0%"
               for line in out.splitlines() if line.strip())
    code, out, _ = run(capsys, "--params", "7e9", "--tokens", "2e12")
    assert code == EXIT_OK
    assert "on-demand USD (cheapest)" in out
    assert H100 in out and "google-tpu-v6e" in out


def test_inference_with_compare_and_claim(warehouse, capsys):
    code, out, err = run(capsys, "--inference", "--params", "5.1e9", "--params-total", "117e9",
                         "--precision", "fp4", "--layers", "36", "--kv-heads", "8",
                         "--head-dim", "64", "--context", "4096", "--batch", "64",
                         "-a", "H100 SXM", "--compare", "B200", "--claim", "15",
                         "--format", "json")
    assert code == EXIT_OK, err
    data = json.loads(out)
    assert data["mode"] == "inference" and data["compare_accelerator_id"] == \
        "nvidia-b200-sxm-180gb"
    on_demand = next(r for r in data["rows"] if r["price_basis"] == "on_demand_min")
    assert on_demand["decode_bound"] == "memory" and on_demand["n_gpus"] == 1
    ratio = next(c for c in data["compare"] if c["price_basis"] == "on_demand_min")
    assert ratio["baseline_usd_per_million_output_tokens"] == \
        pytest.approx(on_demand["usd_per_million_output_tokens"])
    assert ratio["cost_ratio"] == pytest.approx(
        ratio["baseline_usd_per_million_output_tokens"] / ratio["usd_per_million_output_tokens"])
    assert ratio["cost_ratio"] < 15  # specs and live prices support far less than the claim
    # --compare uses the same utilisations as the estimate it sits beside
    code, out, _ = run(capsys, "--inference", "--params", "7e9", "-a", "H100 SXM",
                       "--compare", "B200", "--bandwidth-utilisation", "0.3", "--format", "json")
    data = json.loads(out)
    row = next(r for r in data["rows"] if r["price_basis"] == "on_demand_min")
    ratio = next(c for c in data["compare"] if c["price_basis"] == "on_demand_min")
    assert row["bandwidth_utilisation"] == 0.3
    assert ratio["baseline_usd_per_million_output_tokens"] == \
        pytest.approx(row["usd_per_million_output_tokens"])
    code, out, _ = run(capsys, "--inference", "--params", "7e9", "-a", "A100 80GB",
                       "--layers", "32", "--kv-heads", "32", "--head-dim", "128")
    assert code == EXIT_OK
    assert "decode step" in out and "USD/M output" in out
    assert "inference_bandwidth_utilisation = 0.6" in out and "mfu_ampere = 0.45" in out


def test_usage_errors(warehouse, capsys):
    # one resolver (macro resolve_accelerator): a bare "H100" is a family of three, so an
    # estimate, which needs one accelerator, exits 2 listing the candidates
    code, _, err = run(capsys, "--params", "7e9", "-a", "H100")
    assert code == EXIT_USAGE
    assert "ambiguous accelerator 'H100'" in err
    assert all(acc in err for acc in (H100, "nvidia-h100-pcie-80gb", "nvidia-h100-nvl-94gb"))
    code, _, err = run(capsys, "--params", "7e9", "-a", "no-such-gpu")
    assert code == EXIT_USAGE and "unknown accelerator 'no-such-gpu'" in err
    code, _, err = run(capsys, "-a", "H100 SXM")
    assert code == EXIT_USAGE and "give --params" in err
    code, _, err = run(capsys, "-a", "H100 SXM", "--days", "10")
    assert code == EXIT_USAGE and "--days alone needs the run" in err
    code, _, err = run(capsys, "--params", "7e9", "-a", "A100 80GB", "--precision", "fp8")
    assert code == EXIT_USAGE and "no dense fp8 peak" in err
    code, _, err = run(capsys, "--params", "7e9", "-a", "H100 SXM", "--breakdown", "nope")
    assert code == EXIT_USAGE and "unknown preset" in err
    with pytest.raises(SystemExit) as exc:
        main(["estimate", "--params", "7e9", "--mfu", "1.5"])
    assert exc.value.code == EXIT_USAGE


def test_macros_are_published_and_callable_read_only(warehouse):
    from gpucost.warehouse.publish import connect_readonly

    ro = connect_readonly(warehouse)  # as `gpucost sql`: read-only, no file access
    try:
        r = ro.execute("select flops, gpu_hours from training_cost_estimate(params := 7e9, "
                       "tokens := 2e12, accelerator := 'H100 SXM', goodput := 1, mfu := 0.4) "
                       "limit 1")
        assert r.fetchone() == pytest.approx((8.4e22, 8.4e22 / (989.4e12 * 0.4 * 3600)))
        names = {n for (n,) in ro.execute("select function_name from duckdb_functions() where "
                                          "function_type in ('macro', 'table_macro') and "
                                          "database_name = current_database()").fetchall()}
        assert {"training_cost_estimate", "inference_cost_estimate", "training_flops",
                "ownership_estimate", "cost_breakdown_estimate", "rent_vs_buy_estimate",
                "calibrated_training_mfu"} <= names
        with pytest.raises(duckdb.Error):
            ro.execute("create macro nope() as 1")
    finally:
        ro.close()


def test_no_warehouse(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(tmp_path))
    code, _, err = run(capsys, "--params", "7e9")
    assert code == EXIT_FAILED and "run `gpucost refresh` first" in err


# ---------------------------------------------------------------- issue 11


def test_405b_ranking_holds_only_platforms_that_can_train_it(warehouse, capsys):
    code, out, err = run(capsys, "--params", "405e9", "--tokens", "15.6e12", "--gpus", "16384",
                         "--format", "json")
    assert code == EXIT_OK, err
    data = json.loads(out)
    ranked = {r["accelerator_id"] for r in data["rows"]}
    assert all(r["feasible"] is True for r in data["rows"])
    assert H100 in ranked
    # consumer and PCIe cards (no scale-up fabric) are not ranked, but named
    for card in ("nvidia-rtx-4090-24gb", "nvidia-rtx-5090-32gb", "nvidia-rtx-a4000-16gb",
                 "nvidia-l40s-48gb"):
        assert card not in ranked
    assert "nvidia-rtx-4090-24gb" in data["infeasible_hidden"]
    code, out, _ = run(capsys, "--params", "405e9", "--tokens", "15.6e12", "--gpus", "16384")
    assert code == EXIT_OK
    assert "not ranked:" in out and "--all lists them" in out
    table = out.split("\n\n")[0]
    # H100: a memory floor of 91 GPUs; the plan TP 8 x PP 23, DP 16384 // (8 x 23) = 89
    assert "nvidia-rtx-4090-24gb" not in table and "91 / 8x23x89" in table
    # --all shows them, each with its reason
    code, out, _ = run(capsys, "--params", "405e9", "--tokens", "15.6e12", "--gpus", "16384",
                       "--all")
    line = next(x for x in out.splitlines() if x.startswith("  nvidia-rtx-4090-24gb"))
    assert "301 / infeasible" in line and "no scale-up fabric (PCIe (consumer))" in line


def test_rtx_4090_x8_is_refused_with_min_gpus_and_reason(warehouse, capsys):
    code, out, err = run(capsys, "--params", "405e9", "--tokens", "15.6e12", "-a", "RTX 4090",
                         "--gpus", "8")
    assert code == EXIT_USAGE and out == ""
    assert "nvidia-rtx-4090-24gb cannot train this model: no scale-up fabric" in err
    assert "(a model replica needs 1,383 GPUs)" in err
    assert "6.48 TB of weights, gradients and Adam state" in err
    # with --all the estimate is printed, flagged
    code, out, _ = run(capsys, "--params", "405e9", "--tokens", "15.6e12", "-a", "RTX 4090",
                       "--gpus", "8", "--all")
    assert code == EXIT_OK and "NOT FEASIBLE: no scale-up fabric" in out
    # too small a cluster of a platform that could train it: named with the minimum
    code, _, err = run(capsys, "--params", "405e9", "--tokens", "15.6e12", "-a", "H100 SXM",
                       "--gpus", "64")
    assert code == EXIT_USAGE and "64 GPUs are fewer than the 96 needed" in err


def test_seed_scenario_at_its_own_two_dollars(warehouse, capsys):
    code, out, err = run(capsys, "--scenario", "llama3-405b-h100-40pct-2usd")
    assert code == EXIT_OK, err
    assert "40% MFU and 2 USD per H100-hour" in out.splitlines()[0]
    assert "FLOPs               3.79e25" in out
    assert "GPU-hours           26,607,035" in out  # 3.7908e25 / (989.4e12 x 0.4 x 3600)
    basis = [line.split() for line in out.splitlines() if line.startswith("  given")]
    assert basis == [["given", "-", "-", "2", "53,214,069", "3.41", "price", "per", "GPU-hour",
                      "given", "by", "the", "caller"]]
    assert "on_demand_min" not in out  # priced at its own price only, as its label says


@pytest.mark.parametrize(("argv", "conflict"), [
    (["--params", "7e9", "--tokens", "2e12", "--flops", "1e22"],
     "give 8.4e22 FLOPs, but --flops says 1e22"),
    (["--params", "7e9", "--tokens", "2e12", "--days", "3", "--gpus", "1024", "-a", "H100 SXM"],
     "but --days says 3: give --days or --tokens, not both"),
    (["--params", "7e9", "--params-total", "5e9"], "--params-total 5e+09 is below --params"),
    (["--params", "7e9", "--gpus", "2.5"], "--gpus 2.5 is not a whole number of GPUs"),
    (["--params", "7e9", "--pue", "0.9"], "--pue 0.9 is below 1"),
    (["--params", "1e300", "--tokens", "1e300"], "flops overflows (inf)"),
    (["--params", "7e9", "--batch", "4"], "--batch apply only to --inference"),
    (["--inference", "--params", "7e9", "--tokens", "1e12"],
     "--tokens apply only to a training estimate"),
    (["--params", "7e9", "--utilisation", "0.5"], "--utilisation apply only to --rent-vs-buy"),
    (["--rent-vs-buy", "-a", "H100 SXM", "--params", "7e9"],
     "--params do not apply to --rent-vs-buy"),
    (["--flops", "1e22", "--days", "3", "--gpus", "8"], "--flops and --days"),
    (["--scenario", "405b-dense", "--params", "7e9"], "--params would contradict it"),
])
def test_contradictions_are_refused_naming_the_conflict(warehouse, capsys, argv, conflict):
    code, out, err = run(capsys, *argv)
    assert code == EXIT_USAGE and out == ""
    assert conflict in err


def test_agreeing_figures_are_accepted(warehouse, capsys):
    code, out, err = run(capsys, "--params", "7e9", "--tokens", "2e12", "--flops", "8.4e22",
                         "-a", "H100 SXM")
    assert code == EXIT_OK, err


def test_rent_vs_buy_h100_at_60pct(warehouse, capsys):
    from gpucost.warehouse.publish import connect_readonly

    code, out, err = run(capsys, "--rent-vs-buy", "-a", "H100 SXM", "--utilisation", "0.6",
                         "--years", "4", "--format", "json")
    assert code == EXIT_OK, err
    data = json.loads(out)
    ro = connect_readonly(warehouse)
    try:
        price, = ro.execute(f"select purchase_price_usd from accelerators "
                            f"where accelerator_id = '{H100}'").fetchall()[0]
        own = ro.execute(f"select * from ownership_estimate({price}, 700, "
                         "server_to_chip_power := 1.82, avg_power_fraction := 0.75, "
                         "useful_life_years := 4)").fetchall()
        cols = [d[0] for d in ro.description]
        own = dict(zip(cols, own[0], strict=True))
    finally:
        ro.close()
    # by hand: capex per GPU = price x 1.64 / (1 - 0.19); CRF(10%, 4 y) = 0.1 x 1.1^4 /
    # (1.1^4 - 1); IT power 0.7 kW x 1.82; hosting 150 USD/kW-month; energy x 0.75 x 1.25 x 0.08
    crf = 0.1 * 1.1 ** 4 / (1.1 ** 4 - 1)
    capital = price * 1.64 / 0.81 * crf / 8760
    hosting = 0.7 * 1.82 * 150 * 12 / 8760
    energy = 0.7 * 1.82 * 0.75 * 1.25 * 0.08
    assert own["tco_usd_per_gpu_hour"] == pytest.approx(capital + hosting + energy)
    first = data["rows"][0]
    assert first["tco_capital_usd_per_gpu_hour"] == pytest.approx(capital)
    assert first["hosting_usd_per_gpu_hour"] == pytest.approx(hosting)
    assert first["energy_usd_per_gpu_hour"] == pytest.approx(energy)
    assert first["owned_usd_per_used_gpu_hour"] == pytest.approx(
        (capital + hosting) / 0.6 + energy)
    rentals = [r for r in data["rows"] if r["rental_price_basis"]]
    assert rentals and rentals == sorted(rentals, key=lambda r: r["rental_price_per_gpu_hour"])
    for r in rentals:
        assert r["breakeven_utilisation"] == pytest.approx(
            (capital + hosting) / (r["rental_price_per_gpu_hour"] - energy))
    code, out, _ = run(capsys, "--rent-vs-buy", "-a", "H100 SXM", "--utilisation", "0.6",
                       "--years", "4")
    assert code == EXIT_OK
    assert "busy 60% of the time, 4 years of useful life" in out
    assert "cheapest observed rental:" in out and "break-even utilisation" in out
    assert "colo_usd_per_kw_month = 150" in out and "wacc = 0.1" in out  # inputs, sourced
    assert "[https://" in out.split("purchase price")[1].splitlines()[0]


# ---------------------------------------------------------------- issue 29: subcommands


def test_estimated_bases_rank_after_observed_ones() -> None:
    # (moved from tests/catalog/test_sizes.py) the rank is price_bases.basis_rank
    from gpucost.flows.cli.estimate.common import cheapest_rental

    rows = [
        {"accelerator_id": "a", "price_basis": "on_demand_min", "basis_kind": "observed",
         "basis_rank": 1, "cost_usd": 100.0},
        {"accelerator_id": "a", "price_basis": "reserved_3y_cud_est", "basis_kind": "estimated",
         "basis_rank": 2, "cost_usd": 36.0},
        {"accelerator_id": "b", "price_basis": "reserved_1y_cud_est", "basis_kind": "estimated",
         "basis_rank": 2, "cost_usd": 59.0},
        {"accelerator_id": "b", "price_basis": "owned", "basis_kind": "owned",
         "basis_rank": None, "cost_usd": 9.0},
    ]
    cheapest = cheapest_rental(rows, "cost_usd")
    assert cheapest["a"]["price_basis"] == "on_demand_min"  # observed first, though dearer
    assert cheapest["b"]["price_basis"] == "reserved_1y_cud_est (est.)"  # said so


def test_basis_rank_observed_before_estimated(warehouse):
    from gpucost.warehouse.publish import connect_readonly

    ro = connect_readonly(warehouse)
    try:
        ranks = dict(ro.execute("select basis_kind || ':' || (price_basis like '%_cud_est'), "
                                "list_distinct(list(coalesce(basis_rank, 0))) from price_bases "
                                "group by all").fetchall())
    finally:
        ro.close()
    assert ranks["observed:false"] == [1]
    assert ranks["estimated:true"] == [2]  # an observed price less an assumed discount
    assert ranks["owned:false"] == [0]  # null: no rental offer, never the cheapest rental


@pytest.mark.parametrize(("alias", "subcommand"), [
    (["--params", "7e9", "--tokens", "2e12", "-a", "H100 SXM", "--mfu", "0.4"],
     ["training", "--params", "7e9", "--tokens", "2e12", "-a", "H100 SXM", "--mfu", "0.4"]),
    (["--inference", "--params", "7e9", "-a", "H100 SXM", "--compare", "B200", "--claim", "3"],
     ["inference", "--params", "7e9", "-a", "H100 SXM", "--compare", "B200", "--claim", "3"]),
    (["--rent-vs-buy", "-a", "H100 SXM", "--utilisation", "0.6"],
     ["rent-vs-buy", "-a", "H100 SXM", "--utilisation", "0.6"]),
    (["--scenario", "llama3-405b-h100-40pct-2usd"], ["scenario", "llama3-405b-h100-40pct-2usd"]),
    (["--params", "7e9", "-a", "H100"], ["training", "--params", "7e9", "-a", "H100"]),
])
def test_subcommands_answer_as_their_flag_forms(warehouse, capsys, alias, subcommand):
    assert run(capsys, *alias) == run(capsys, *subcommand)


@pytest.mark.parametrize("argv", [
    ["training", "--params", "7e9", "--batch", "4"],  # an inference option
    ["inference", "--params", "7e9", "--tokens", "1e12"],  # a training option
    ["rent-vs-buy", "-a", "H100 SXM", "--params", "7e9"],
    ["scenario", "405b-dense", "--params", "7e9"],
    ["training", "--params", "7e9", "--inference"],  # a flag form after a subcommand
])
def test_a_subcommand_has_only_its_own_options(warehouse, capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main(["estimate", *argv])
    assert exc.value.code == EXIT_USAGE
    assert "unrecognized arguments" in capsys.readouterr().err


def test_a_flag_form_before_a_subcommand_is_refused(warehouse, capsys):
    code, out, err = run(capsys, "--inference", "training", "--params", "7e9")
    assert code == EXIT_USAGE and out == ""
    assert "`gpucost estimate training` is the mode" in err


def test_training_csv_is_one_table_of_the_rows(warehouse, capsys):
    import csv
    import io

    code, out, err = run(capsys, "training", "--params", "7e9", "--tokens", "2e12",
                         "-a", "H100 SXM", "--mfu", "0.4", "--format", "csv")
    assert code == EXIT_OK, err
    rows = list(csv.DictReader(io.StringIO(out)))
    od = next(r for r in rows if r["price_basis"] == "on_demand_min")
    # 8.4e22 FLOPs / (989.4 TFLOP/s x 0.4 x 3600) / 0.9 goodput = 65,509 h x 3.99 (Lambda 8x)
    gpu_hours = 8.4e22 / (989.4e12 * 0.4 * 3600) / 0.9
    assert float(od["gpu_hours"]) == pytest.approx(gpu_hours)
    assert float(od["cost_usd"]) == pytest.approx(gpu_hours * 3.99)
    assert od["provider"] == "lambda" and od["basis_rank"] == "1"
    assert "goodput" in od["assumption_keys"].split(";")


def test_assumptions_are_the_ones_the_macro_read(warehouse, capsys):
    code, out, _ = run(capsys, "training", "--params", "7e9", "--tokens", "2e12", "-a",
                       "H100 SXM", "--goodput", "1", "--pue", "1.1", "--format", "json")
    data = json.loads(out)
    listed = {a["assumption_key"] for a in data["assumptions"]}
    read = {k for r in data["rows"] for k in r["assumption_keys"]}
    assert listed == read
    # given figures read no assumption; the defaults do, and the owned basis its own
    assert "goodput" not in listed and "electricity_usd_per_kwh" in listed
    assert {"server_cost_overhead", "depreciation_ooms_per_year"} <= listed
    assert "pue" in next(r for r in data["rows"] if r["price_basis"] == "owned")[
        "assumption_keys"]  # the owned basis' own energy figure


def test_claim_check_macro_by_hand(warehouse):
    from gpucost.warehouse.publish import connect_readonly

    ro = connect_readonly(warehouse)
    try:
        cost = ro.execute("select unnest(claim_check(15, 'cost_per_token', 2.0, 3.0, "
                          "supported_ratio := 5.0))").fetchall()[0]
        per_gpu = ro.execute("select unnest(claim_check(4, 'throughput_per_gpu', 2.0, 3.0, "
                             "throughput_ratio := 2.5))").fetchall()[0]
    finally:
        ro.close()
    # measured 3x the tokens at 2x the price: 1.5x cheaper; a 15x claim is 10x that, 3x the
    # roofline's 5x, and would need a price ratio of 3 / 15
    assert cost == pytest.approx((1.5, 3.0, 10.0, 0.2))
    # a throughput claim: 4 / 2.5 (roofline), 4 / 3 (measured); no price ratio needed
    assert per_gpu[:3] == pytest.approx((1.5, 1.6, 4 / 3)) and per_gpu[3] is None


def test_compare_claim_rests_on_claim_check(warehouse, capsys):
    code, out, err = run(capsys, "inference", "--params", "70e9", "-a", "H100 SXM",
                         "--compare", "B200", "--claim", "15", "--format", "json")
    assert code == EXIT_OK, err
    data = json.loads(out)
    for c in data["compare"]:
        assert c["claim_to_supported"] == pytest.approx(15 / c["cost_ratio"])
    basis = next(c for c in data["compare"] if c["price_basis"] == data["compare_basis"])
    for p in data["measured_pairs"]:
        assert p["measured_cost_ratio"] == pytest.approx(p["measured_ratio"] / basis["price_ratio"])
        assert p["claim_to_measured"] == pytest.approx(15 / p["measured_cost_ratio"])
        assert p["price_ratio_needed"] == pytest.approx(p["measured_ratio"] / 15)


def test_macro_arguments_come_from_the_macro_signatures(warehouse):
    # the options fill the macro parameters of the same name; the rename map holds only the
    # options named otherwise, each naming a real option and a real parameter
    import argparse

    from gpucost.flows.cli.estimate.common import MACRO_PARAMETER, macro_parameters
    from gpucost.flows.cli.estimate.parser import MODE_OPTIONS, build
    from gpucost.warehouse.publish import connect_readonly

    build(argparse.ArgumentParser().add_subparsers(), None)
    ro = connect_readonly(warehouse)
    try:
        training = macro_parameters(ro, "training_cost_estimate")
        inference = macro_parameters(ro, "inference_cost_estimate")
    finally:
        ro.close()
    assert {"params", "n_gpus", "price_per_gpu_hour", "attention_causal"} <= set(training)
    for dest, parameter in MACRO_PARAMETER.items():
        assert dest in MODE_OPTIONS["training"] | MODE_OPTIONS["inference"], dest
        assert parameter in set(training) | set(inference), parameter
        assert dest not in set(training) | set(inference), dest  # else no rename is needed


def test_days_alone_sizes_the_cluster_that_finishes_in_time(warehouse, capsys):
    """--days D without --gpus (issue 38 item 4): the fewest GPUs that finish within D days,
    whole nodes beyond one. By hand: 65,509 GPU-hours (8.4e22 FLOPs at MFU 0.4 on 989.4
    TFLOP/s, / goodput 0.9) / (24 h x 10 days) = 272.95 -> 273 GPUs -> 35 nodes of 8 = 280
    GPUs, 65,509 / 280 / 24 = 9.75 days; at --days 30: 91 -> 12 nodes = 96 GPUs, 28.4 days."""
    code, out, err = run(capsys, "--params", "7e9", "--tokens", "2e12", "-a", "H100 SXM",
                         "--mfu", "0.4", "--days", "10")
    assert code == EXIT_OK, err
    assert "9.75 days on 280 GPUs (the fewest that finish within 10 days: --days)" in out
    assert "TP 8 x PP 1 x DP 35" in out
    code, out, err = run(capsys, "--params", "7e9", "--tokens", "2e12", "-a", "H100 SXM",
                         "--mfu", "0.4", "--days", "30", "--format", "json")
    assert code == EXIT_OK, err
    row = json.loads(out)["rows"][0]
    assert (row["n_gpus"], row["cluster_from"]) == (96, "deadline")
    assert row["wall_clock_days"] == pytest.approx(65_509.3 / 96 / 24, rel=1e-4)
    # every platform of the table gets its own cluster, each within the deadline or marked
    code, out, err = run(capsys, "--params", "7e9", "--tokens", "2e12", "--mfu", "0.4",
                         "--days", "10")
    assert code == EXIT_OK, err
    assert "wall-clock on the fewest GPUs that finish within 10 days on each platform" in out
    assert "days on GPUs" in out


def test_days_alone_caps_a_pipelined_pcie_cluster_where_its_bubble_grows(warehouse, capsys):
    """A800 PCIe (no scale-up fabric) pipelines 7B over 3 GPUs (TP 1 x PP 3). By hand: c =
    4,194,304 / (4,096 x 1) = 1,024 sequences per step, so the cluster is capped at floor(1,024
    / 3) x 3 = 1,023 -> 128 nodes = 1,024 GPUs; the GPUs 10 days would need, 1 / (24 x 10 / H -
    2 / (1,024 x 3)) with H = 8.4e22 / (311.8e12 x 0.402897 x 3,600) / 0.9 = 206,378 pre-bubble
    hours (MFU exp(-0.863322) / 0.9 = 0.468621 of the calibrated model, counting attention,
    restated against 6ND at the assumed 33 x 4,224 shape: x 0.859750), are 1,954: over the cap.
    On 1,024: DP 341, 1,024 / 341 = 3.003 micro-batches, bubble 3.003 / 5.003 = 0.600, so
    343,830 hours / 1,024 / 24 = 13.99 days, marked over the deadline."""
    code, out, err = run(capsys, "--params", "7e9", "--tokens", "2e12", "-a",
                         "nvidia-a800-pcie-80gb", "--days", "10", "--format", "json")
    assert code == EXIT_OK, err
    row = json.loads(out)["rows"][0]
    assert (row["n_gpus"], row["cluster_from"], row["data_parallel"]) == (1024, "deadline", 341)
    assert row["pipeline_efficiency"] == pytest.approx((1024 / 341) / (1024 / 341 + 2))
    assert row["wall_clock_days"] == pytest.approx(13.990, abs=0.01)


def test_inference_defaults_to_a_stated_context_and_context_0_still_means_none(
        warehouse, capsys):
    """Issue 42 item 4: a 70B (80 layers, 8 KV heads of 128) on B200 (180 GB, 7.7 TB/s,
    4,500 dense FP8 TFLOP/s, MFU default 0.35, bandwidth utilisation 0.6), batch 256 and FP8
    weights (the serving defaults), at a given 2 USD per GPU-hour.

    No --context: 1,024 input + half of 1,024 output = 1,536 tokens (assumptions
    inference_default_input_tokens and _output_tokens). KV cache 256 x 1,536 x 327,680 B
    (2 x 80 x 8 x 128 x 2 bytes) = 128.849 GB + 70 GB weights -> 2 GPUs; decode step =
    max(198.849e9 / (2 x 7.7e12 x 0.6), 2 x 70e9 x 256 / (2 x 4500e12 x 0.35)) = max(21.5205,
    11.378) ms -> 256 / 0.0215205 = 11,895.6 tokens/s per replica -> 2 x 2 / (11,895.6 x 3600)
    x 10^6 = 0.093405 USD per million output tokens.

    --context 0: weights only, 1 GPU, step = max(70e9 / (7.7e12 x 0.6), 2 x 70e9 x 256 /
    (4500e12 x 0.35)) = max(15.152, 22.756) ms -> 11,250 tokens/s -> 2 / (11,250 x 3600) x
    10^6 = 0.049383."""
    shape = ("--params", "70e9", "-a", "B200", "--layers", "80", "--kv-heads", "8",
             "--head-dim", "128", "--price", "2")

    def given(*extra: str) -> tuple[dict, dict]:
        code, out, err = run(capsys, "inference", *shape, *extra, "--format", "json")
        assert code == EXIT_OK, err
        data = json.loads(out)
        return next(r for r in data["rows"] if r["price_basis"] == "given"), data

    row, data = given()
    assert row["context_tokens"] == 1536 and row["n_gpus"] == 2
    assert row["decode_step_ms"] == pytest.approx(21.5205, abs=1e-4)
    assert row["usd_per_million_output_tokens"] == pytest.approx(0.093405, abs=1e-6)
    assert data["context_default"]["input_basis"] == "assumed: inference_default_input_tokens"
    assert {a["assumption_key"] for a in data["assumptions"]} >= {
        "inference_default_input_tokens", "inference_default_output_tokens"}
    row, data = given("--context", "0")
    assert row["context_tokens"] == 0 and row["n_gpus"] == 1
    assert row["usd_per_million_output_tokens"] == pytest.approx(0.049383, abs=1e-6)
    assert data["context_default"] is None
    # the table says where the default comes from
    code, out, _ = run(capsys, "inference", *shape)
    assert code == EXIT_OK
    assert ("context default: 1,536 tokens = 1,024 input (assumed: "
            "inference_default_input_tokens) + half of 1,024 output") in out
    # no shape given: the one catalogued benchmark model of 70e9 active parameters (Llama 2
    # 70B: 80 layers, 8 KV heads of 128) lends its shape, so the default is the same 0.093405
    code, out, _ = run(capsys, "inference", "--params", "70e9", "-a", "B200", "--price", "2",
                       "--format", "json")
    assert code == EXIT_OK
    data = json.loads(out)
    row = next(r for r in data["rows"] if r["price_basis"] == "given")
    assert row["usd_per_million_output_tokens"] == pytest.approx(0.093405, abs=1e-6)
    assert (data["benchmark_shape"]["benchmark"], data["benchmark_shape"]["matched_by"]) == (
        "llama2-70b", "size")
    code, out, _ = run(capsys, "inference", "--params", "70e9", "-a", "B200")
    assert "KV-cache shape of Llama 2 70B (benchmark llama2-70b, the catalogued model" in out
    # a size no catalogued model has: the context holds nothing, and says so
    code, out, _ = run(capsys, "inference", "--params", "30e9", "-a", "B200")
    assert code == EXIT_OK and "the context holds no KV cache" in out
    with pytest.raises(SystemExit) as exc:
        run(capsys, "inference", *shape, "--context", "-1")
    assert exc.value.code == EXIT_USAGE and "must be a number >= 0" in capsys.readouterr().err
