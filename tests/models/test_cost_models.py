"""The cost models (models/macros/ and the cost marts), on the real curated catalog.

Built once per module from catalog/ with an empty raw layer, so prices are the curated
reference prices. Each formula is checked against numbers worked out by hand in the test;
monotonicity is checked over grids; the acceptance figures of issue 5 are asserted as such.
"""

from __future__ import annotations

import math

import duckdb
import pytest
from maintainer_scripts import load_script
from test_models import build, write_models

from gpucost.catalog import CATALOG_DIR
from gpucost.models import runner

LN10 = math.log(10)
H100 = "nvidia-h100-sxm5-80gb"
A100_80 = "nvidia-a100-sxm4-80gb"


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    con, _ = build(tmp_path_factory.mktemp("cost"), CATALOG_DIR, with_rows=False)
    yield con
    con.close()


def one(con, sql: str, params=None):
    rows = con.execute(sql, params or []).fetchall()
    assert len(rows) == 1, rows
    return rows[0]


def rows(con, sql: str, params=None) -> list[dict]:
    cur = con.execute(sql, params or [])
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def assumption(con, key: str) -> float:
    return one(con, "select value from cost_assumptions where assumption_key = ?", [key])[0]


# ---------------------------------------------------------------- formulas, by hand


def test_training_flops_terms(con):
    # 6 N D
    assert one(con, "select training_flops(7e9, 2e12)")[0] == pytest.approx(8.4e22)
    # attention: 12 L d T per token (full), 6 L d T causal
    # 6*1e9*1e6 = 6e15; 12*10*1000*2000*1e6 = 2.4e14
    assert one(con, "select training_flops(1e9, 1e6, n_layers := 10, d_model := 1000, "
                    "seq_len := 2000)")[0] == pytest.approx(6.24e15)
    assert one(con, "select training_flops(1e9, 1e6, n_layers := 10, d_model := 1000, "
                    "seq_len := 2000, attention_causal := true)")[0] == pytest.approx(6.12e15)
    # vision-language (cost-methods.md §3.3 (2)): 10B LM, 1T text + 1e9 images x 576 tokens,
    # 0.4B ViT. LM 6*10e9*1.576e12 = 9.456e22; ViT trained 6*0.4e9*5.76e11 = 1.3824e21,
    # frozen 2*0.4e9*5.76e11 = 4.608e20
    vlm = ("select training_flops(10e9, 1e12, images := 1e9, tokens_per_image := 576, "
           "vision_params := 0.4e9, vision_frozen := {})")
    assert one(con, vlm.format("false"))[0] == pytest.approx(9.456e22 + 1.3824e21)
    assert one(con, vlm.format("true"))[0] == pytest.approx(9.456e22 + 4.608e20)
    # frozen LM with gradients through it: 4 N D; distillation adds 2 N_teacher D
    assert one(con, "select training_flops(7e9, 1e12, lm_frozen := true)")[0] == \
        pytest.approx(2.8e22)
    assert one(con, "select training_flops(1e9, 1e12, teacher_params := 70e9)")[0] == \
        pytest.approx(6e21 + 1.4e23)
    # full recomputation: 8 N D (OPT-175B's logbook 4.3e23 for 300B tokens)
    assert one(con, "select training_flops(175e9, 300e9, recompute := 'full')")[0] == \
        pytest.approx(4.2e23)
    assert one(con, "select training_flops(7e9, 2e12, flops_override := 1e20)")[0] == 1e20
    with pytest.raises(duckdb.Error, match="recompute must be none or full"):
        con.execute("select training_flops(7e9, 2e12, recompute := 'selective')").fetchall()


def test_gpu_hours_and_implied_mfu(con):
    # 6 x 405e9 x 15.6e12 = 3.7908e25 FLOPs; / (989.4e12 x 0.4 x 3600) = 26,607,034.57 h
    assert one(con, "select gpu_hours_for_flops(3.7908e25, 989.4, 0.4)")[0] == \
        pytest.approx(26_607_034.57, rel=1e-9)
    assert one(con, "select gpu_hours_for_flops(3.7908e25, 989.4, 0.4, goodput := 0.9)")[0] == \
        pytest.approx(26_607_034.57 / 0.9, rel=1e-9)
    # Llama 2 7B: 8.4e22 / (184,320 h x 3600 x 312e12) = 0.405742
    assert one(con, "select implied_mfu(8.4e22, 184320, 312)")[0] == pytest.approx(0.405742, 1e-5)


def test_energy_and_power(con):
    # 1,000 GPU-hours x 0.7 kW x 1.82 x 0.75 x 1.25 = 1,194.375 kWh
    assert one(con, "select training_energy_mwh(1000, 700, 1.82, 0.75, 1.25)")[0] == \
        pytest.approx(1.194375)
    # 16,384 x 700 W x 1.82 x 1.25 = 26.09152 MW
    assert one(con, "select peak_cluster_power_mw(16384, 700, 1.82, 1.25)")[0] == \
        pytest.approx(26.09152)


def test_peaks_mfu_defaults_and_memory_helpers(con):
    peak = ("select precision_peak_tflops(?, peak_bf16_dense_tflops, peak_fp16_dense_tflops, "
            "peak_fp8_dense_tflops, peak_fp4_dense_tflops, peak_int8_dense_tflops, "
            "allow_fallback := ?) from accelerator_cost_inputs where accelerator_id = ?")
    assert one(con, peak, ["bf16", False, H100])[0] == 989.4
    assert one(con, peak, ["fp8", False, H100])[0] == 1978.9
    assert one(con, peak, ["bf16", False, "nvidia-v100-sxm2-32gb"])[0] == 125  # no bf16: fp16
    assert one(con, peak, ["fp8", False, A100_80])[0] is None  # no FP8 training on A100
    assert one(con, peak, ["fp8", True, A100_80])[0] == 312  # fp8 weights computed in bf16
    assert one(con, peak, ["fp4", True, H100])[0] == 1978.9
    mfu = ("select default_training_mfu(mfu_default, ?, ?, default_mfu_fp8, "
           "default_moe_mfu_multiplier) from accelerator_cost_inputs, cost_defaults "
           "where accelerator_id = ?")
    assert one(con, mfu, ["bf16", False, H100])[0] == pytest.approx(0.40)
    assert one(con, mfu, ["bf16", True, H100])[0] == pytest.approx(0.40 * 0.775)
    assert one(con, mfu, ["fp8", True, H100])[0] == pytest.approx(0.25 * 0.775)
    assert one(con, mfu, ["bf16", False, A100_80])[0] == pytest.approx(0.45)
    assert one(con, mfu, ["bf16", False, "google-tpu-v5e"])[0] == pytest.approx(0.50)
    assert one(con, mfu, ["bf16", False, "nvidia-v100-sxm2-32gb"])[0] == pytest.approx(0.375)
    # Llama 2 7B KV cache: 2 x 32 layers x 32 heads x 128 x 2 bytes = 524,288 bytes per token
    assert one(con, "select kv_cache_bytes_per_token(32, 32, 128, bytes_per_value('bf16'))")[0] \
        == 524_288
    assert one(con, "select bytes_per_value('fp4'), bytes_per_value('fp8')") == (0.5, 1.0)
    # 14e9 bytes at 3.35 TB/s x 0.6 = 6.965 ms; 1.4e10 FLOPs at 989.4 x 0.4 = 0.035 ms
    assert one(con, "select decode_step_seconds(14e9, 1.4e10, 3.35, 0.6, 989.4, 0.4)")[0] == \
        pytest.approx(14e9 / 2.01e12)
    assert one(con, "select usd_per_million_tokens(2.0, 100)")[0] == pytest.approx(5.5555556)


def test_accelerators_resolve_by_alias(con):
    def resolve(name):
        return con.execute(
            "select accelerator_id from accelerator_aliases where alias_key = "
            "regexp_replace(lower(?), '[^a-z0-9]', '', 'g')", [name]).fetchall()
    assert resolve("H100 SXM") == [(H100,)]
    assert resolve("A100 80GB") == [(A100_80,)]
    assert resolve("TPU v5p") == [("google-tpu-v5p",)]
    assert resolve("nvidia-h100-sxm5-80gb") == [(H100,)]
    assert resolve("NVIDIA H100 SXM5 80GB") == [(H100,)]  # the catalog name
    assert resolve("H100") == []  # SXM or PCIe: ambiguous, so refused
    (n_keys, n_distinct) = one(con, "select count(*), count(distinct alias_key) "
                                    "from accelerator_aliases")
    assert n_keys == n_distinct


# ---------------------------------------------------------------- ownership


def test_ownership_estimate_by_hand(con):
    r = rows(con, "select * from ownership_estimate(25000, 700, server_to_chip_power := 1.82)")[0]
    server = 25000 * 1.64
    hardware = server * 0.14 * LN10 / 8760
    interconnect = hardware * 0.19 / 0.81
    energy = 0.7 * 1.82 * 0.75 * 1.25 * 0.08  # kW x ratio x load x PUE x USD/kWh
    assert r["server_price_per_gpu_usd"] == pytest.approx(41000)
    assert r["hardware_usd_per_gpu_hour"] == pytest.approx(hardware)
    assert r["interconnect_usd_per_gpu_hour"] == pytest.approx(interconnect)
    assert r["energy_usd_per_gpu_hour"] == pytest.approx(energy)
    assert r["owned_usd_per_gpu_hour"] == pytest.approx(hardware + interconnect + energy)
    assert r["owned_usd_per_gpu_hour"] == pytest.approx(1.9582, abs=1e-4)
    # TCO: capex / (1 - 0.19) x CRF(10%, 5 y) + power + colocation, per hour
    crf = 0.10 * 1.1**5 / (1.1**5 - 1)
    kw = 0.7 * 1.82
    tco = (server / 0.81 * crf + kw * 0.75 * 1.25 * 8760 * 0.08 + kw * 150 * 12) / 8760
    assert r["tco_usd_per_gpu_hour"] == pytest.approx(tco)
    # depreciated by 0.14 OOM per year since purchase
    aged = rows(con, "select * from ownership_estimate(25000, 700, years_since_purchase := 1)")[0]
    assert aged["server_price_per_gpu_usd"] == pytest.approx(41000 * 10**-0.14)


def test_breakeven_utilisation(con):
    assert one(con, "select breakeven_utilisation(1.0, 0.1, 2.1)")[0] == pytest.approx(0.5)
    assert one(con, "select breakeven_utilisation(1.0, 0.1, 0.05)")[0] is None
    h100 = rows(con, "select * from ownership_cost where accelerator_id = ? and "
                     "rental_price_basis = 'on_demand_min'", [H100])[0]
    assert h100["breakeven_utilisation"] == pytest.approx(
        h100["capital_usd_per_gpu_hour"]
        / (h100["rental_price_per_gpu_hour"] - h100["energy_usd_per_gpu_hour"]))


def test_price_bases_owned_and_committed_estimates(con):
    bases = {r["price_basis"]: r for r in rows(
        con, "select * from price_bases where accelerator_id = ?", [H100])}
    assert {"on_demand_min", "on_demand_median", "owned"} <= set(bases)
    owned = one(con, "select distinct owned_usd_per_gpu_hour from ownership_cost "
                     "where accelerator_id = ?", [H100])[0]
    assert bases["owned"]["price_per_gpu_hour"] == pytest.approx(owned)
    # an estimated committed price is a provider's on-demand price less Epoch's discount
    est = bases["reserved_3y_cud_est"]
    on_demand = one(con, "select min(price_per_gpu_hour) from int_provider_prices where "
                         "accelerator_id = ? and provider = ? and pricing_model = 'on_demand'",
                    [H100, est["provider"]])[0]
    discount = assumption(con, f"cud_discount_{est['provider']}_3y")
    assert est["price_per_gpu_hour"] == pytest.approx(on_demand * (1 - discount))


def test_cost_breakdown_presets(con):
    parts = {(r["preset_id"], r["component"]): r for r in rows(
        con, "select * from training_cost_breakdown where scenario_id = "
             "'llama3-405b-h100-40pct-2usd'")}
    hours, price = 26_607_034.566, 25000
    # Epoch final run: GPUs amortised at 0.14 x ln10 per year of their price
    gpus = hours * price * 0.14 * LN10 / 8760
    assert parts[("epoch_final_run", "gpus")]["usd"] == pytest.approx(gpus, rel=1e-6)
    assert parts[("epoch_final_run", "other_server")]["usd"] == pytest.approx(gpus * 0.64, 1e-6)
    assert parts[("epoch_final_run", "networking")]["usd"] == \
        pytest.approx(gpus * 1.64 * 0.19 / 0.81, rel=1e-6)
    assert parts[("epoch_final_run", "staff")]["usd"] == 0
    # seed 2023: hardware bought outright, GPUs 70% of it, staff 18% of the total
    gpus_bought = 16384 * price
    assert parts[("seed_2023", "gpus")]["usd"] == pytest.approx(gpus_bought)
    assert parts[("seed_2023", "networking")]["usd"] == pytest.approx(gpus_bought / 0.7 * 0.2)
    energy = 16384 * 365 * 24 * 0.7 * 1.82 * 0.75 * 1.25 * 0.05  # a year of power at 0.05
    assert parts[("seed_2023", "energy")]["usd"] == pytest.approx(energy)
    assert parts[("seed_2023", "staff")]["share_of_total"] == pytest.approx(0.18)
    hardware_share = sum(parts[("seed_2023", c)]["share_of_total"]
                         for c in ("gpus", "other_server", "networking"))
    assert 0.78 < hardware_share < 0.82  # the seed's "80% hardware"
    assert parts[("epoch_central", "staff")]["share_of_total"] == pytest.approx(0.38)
    for preset in ("epoch_central", "epoch_final_run", "seed_2023"):
        total = sum(r["usd"] for (p, _), r in parts.items() if p == preset)
        assert total == pytest.approx(parts[(preset, "gpus")]["total_usd"])


# ---------------------------------------------------------------- inference


def test_inference_roofline_by_hand(con):
    r = rows(con, "select * from inference_cost_estimate(params := 7e9, accelerator := 'H100 SXM'"
                  ", n_layers := 32, n_kv_heads := 32, head_dim := 128, context_tokens := 2048,"
                  " price_per_gpu_hour := 2) where price_basis = 'given'")[0]
    bytes_read = 7e9 * 2 + 2048 * 524_288
    step = bytes_read / (3.35e12 * 0.6)
    assert r["n_gpus"] == 1 and r["decode_bound"] == "memory"
    assert r["decode_step_ms"] == pytest.approx(step * 1000)
    assert r["output_tokens_per_second"] == pytest.approx(1 / step)
    assert r["usd_per_million_output_tokens"] == pytest.approx(2 / (3600 / step) * 1e6)
    prefill = 989.4e12 * 0.4 / (2 * 7e9)
    assert r["prefill_tokens_per_second"] == pytest.approx(prefill)
    assert r["usd_per_million_input_tokens"] == pytest.approx(2 / (prefill * 3600) * 1e6)


def test_inference_replica_sizing_moe_and_compute_bound(con):
    # 70B in BF16 (140 GB) + 32 x 4,096 x 327,680 B of KV cache on 80 GB GPUs -> 3 GPUs
    r = rows(con, "select * from inference_cost_estimate(params := 70e9, accelerator := "
                  "'H100 SXM', n_layers := 80, n_kv_heads := 8, head_dim := 128, "
                  "context_tokens := 4096, batch_size := 32, price_per_gpu_hour := 2) "
                  "where price_basis = 'given'")[0]
    kv = 32 * 4096 * 2 * 80 * 8 * 128 * 2
    assert r["kv_cache_gb"] == pytest.approx(kv / 1e9)
    assert r["n_gpus"] == math.ceil((140e9 + kv) / 80e9) == 3
    # MoE at batch 64: every expert is touched, so all 117B x 0.5 bytes are read per step
    moe = rows(con, "select * from inference_cost_estimate(params := 5.1e9, params_total := "
                    "117e9, precision := 'fp4', accelerator := 'H100 SXM', batch_size := 64, "
                    "price_per_gpu_hour := 2) where price_basis = 'given'")[0]
    assert moe["decode_step_ms"] == pytest.approx(117e9 * 0.5 / (3.35e12 * 0.6) * 1000)
    # batch 1 of the same MoE reads only the active weights
    moe1 = rows(con, "select * from inference_cost_estimate(params := 5.1e9, params_total := "
                     "117e9, precision := 'fp4', accelerator := 'H100 SXM', "
                     "price_per_gpu_hour := 2) where price_basis = 'given'")[0]
    assert moe1["decode_step_ms"] == pytest.approx(5.1e9 * 0.5 / (3.35e12 * 0.6) * 1000)
    # a huge batch without KV cache becomes compute-bound: 2 N B FLOPs at peak x utilisation
    big = rows(con, "select * from inference_cost_estimate(params := 7e9, accelerator := "
                    "'H100 SXM', batch_size := 4096, price_per_gpu_hour := 2) "
                    "where price_basis = 'given'")[0]
    assert big["decode_bound"] == "compute"
    assert big["decode_step_ms"] == pytest.approx(2 * 7e9 * 4096 / (989.4e12 * 0.4) * 1000)


def test_inference_ratio_and_claims(con):
    claims = rows(con, "select * from inference_claims where scenario_id = "
                       "'gpt-oss-120b-b200-vs-hopper'")
    assert claims, "the B200 vs Hopper claim has a priced pair"
    for c in claims:
        assert c["supported_ratio"] == pytest.approx(
            c["baseline_usd_per_million_output_tokens"] / c["usd_per_million_output_tokens"])
        assert c["supported_ratio"] == pytest.approx(
            c["throughput_ratio_per_gpu"] / c["price_ratio"])
        assert c["claim_to_supported"] == pytest.approx(15 / c["supported_ratio"])
    # per GPU, B200 decodes faster than H100 by the bandwidth ratio (both memory-bound)
    (b200_bw,) = one(con, "select memory_bw_tbps from accelerators where accelerator_id = "
                          "'nvidia-b200-sxm-180gb'")
    assert claims[0]["throughput_ratio_per_gpu"] == pytest.approx(b200_bw / 3.35)
    # the mart pairs inference_cost rows as the macro inference_cost_ratio does
    macro = {r["price_basis"]: r for r in rows(
        con, "select * from inference_cost_ratio('B200', 'H100 SXM', params := 5.1e9, "
             "params_total := 117e9, precision := 'fp4', n_layers := 36, n_kv_heads := 8, "
             "head_dim := 64, context_tokens := 4096, batch_size := 64)")}
    assert {c["price_basis"] for c in claims} == set(macro)
    for c in claims:
        assert c["supported_ratio"] == pytest.approx(macro[c["price_basis"]]["cost_ratio"])
    # a claim without a priced platform keeps one row, with nothing supported
    gb300 = rows(con, "select * from inference_claims where scenario_id = "
                      "'gpt-oss-120b-gb300-vs-hopper'")
    assert len(gb300) >= 1 and all(
        (r["supported_ratio"] is None) == (r["price_basis"] is None) for r in gb300)


# ---------------------------------------------------------------- issue 5 acceptance


def test_llama3_405b_scale_at_40pct_and_2_usd(con):
    r = rows(con, "select * from training_cost where scenario_id = "
                  "'llama3-405b-h100-40pct-2usd' and price_basis = 'given'")[0]
    assert r["accelerator_id"] == H100 and r["peak_dense_tflops"] == 989.4
    assert r["flops"] == pytest.approx(3.7908e25)  # 6 x 405e9 x 15.6e12
    assert r["gpu_hours"] == pytest.approx(26.607e6, rel=1e-4)  # no goodput
    assert r["cost_usd"] == pytest.approx(53.214e6, rel=1e-4)
    assert r["wall_clock_days"] == pytest.approx(67.67, abs=0.01)  # 16,384 GPUs
    # the same through the macro directly, as `gpucost estimate` calls it
    direct = rows(con, "select * from training_cost_estimate(params := 405e9, tokens := 15.6e12,"
                       " accelerator := 'H100 SXM', mfu := 0.4, goodput := 1, "
                       "price_per_gpu_hour := 2) where price_basis = 'given'")[0]
    assert direct["cost_usd"] == pytest.approx(r["cost_usd"])


def test_20k_h100s_for_4_months(con):
    r = rows(con, "select * from training_cost where scenario_id = 'frontier-20k-h100-4mo' "
                  "and price_basis = 'given'")[0]
    hours = 20000 * 121.75 * 24
    assert r["gpu_hours"] == pytest.approx(hours)
    assert r["flops"] == pytest.approx(hours * 3600 * 989.4e12 * 0.4)
    assert r["flops"] == pytest.approx(8e25, rel=0.05)  # the seed's "8e25"
    assert r["cost_usd"] == pytest.approx(116.88e6, rel=1e-4)  # the seed's "120M"


def mfu_model(con) -> dict:
    return rows(con, "select * from mfu_model")[0]


def test_llama2_7b_validation(con):
    r = rows(con, "select * from validation where run_id = 'llama2-7b'")[0]
    m = mfu_model(con)
    # Ampere, dense, BF16: only the intercept; in-run MFU = effective utilisation / goodput 0.9
    assert r["accelerator_id"] == A100_80 and r["default_mfu_source"] == "mfu_model"
    assert r["default_mfu"] == pytest.approx(math.exp(m["intercept"]) / 0.9)
    assert abs(r["predicted_gpu_hours_default"] / 184_320 - 1) < 0.15
    # FLOPs count attention at the cited shape (32 layers x 4,096 wide, 4,096 tokens):
    # 6 x 7e9 x 2e12 = 8.4e22 + 12 x 32 x 4,096 x 4,096 x 2e12 = 1.28849e22 -> 9.68849e22;
    # implied MFU = 9.68849e22 / (184,320 x 3,600 x 312e12) = 0.46798
    assert (r["n_layers"], r["d_model"], r["seq_len"]) == (32, 4096, 4096)
    assert r["flops"] == pytest.approx(9.68849e22, rel=1e-5)
    assert r["flops_6nd"] == pytest.approx(8.4e22)
    assert r["implied_mfu"] == pytest.approx(0.46798, rel=1e-4)
    # plain 6ND at 0.40 and goodput 0.9: 8.4e22 / (312e12 x 0.4 x 3600) / 0.9 = 207,740 h
    assert r["predicted_gpu_hours_plain"] == pytest.approx(207_740, rel=1e-4)
    assert r["confidence"] == "high"


def test_calibrated_mfu_by_hand(con):
    m = mfu_model(con)
    call = ("select calibrated_training_mfu(?, ?, ?, ?, peak_bf16_dense_tflops, ?, 0.9) "
            "from accelerator_cost_inputs where accelerator_id = ?")
    # Hopper 405B dense BF16: exp(b0 + hopper + size x log10(40.5)) / 0.9
    hand = math.exp(m["intercept"] + m["hopper"]
                    + m["hopper_log10_params"] * math.log10(40.5)) / 0.9
    assert one(con, call, ["hopper", 405e9, False, "bf16", 989.4, H100])[0] == \
        pytest.approx(hand)
    # the size term is clamped to the fitted Hopper sizes: 1B predicts as the smallest run
    smallest = one(con, call, ["hopper", m["hopper_params_min"], False, "bf16", 989.4, H100])
    assert one(con, call, ["hopper", 1e9, False, "bf16", 989.4, H100]) == smallest
    # an FP8 MoE: + moe + fp8, rescaled from the BF16 to the FP8 peak
    hand = math.exp(m["intercept"] + m["hopper"] + m["moe"] + m["fp8"]
                    + m["hopper_log10_params"] * math.log10(3.7)) / 0.9 * 989.4 / 1978.9
    assert one(con, call, ["hopper", 37e9, True, "fp8", 1978.9, H100])[0] == \
        pytest.approx(hand)
    # no group (a family no high-confidence run covers): null, the caller keeps the constant
    assert one(con, call, [None, 7e9, False, "bf16", 1307.4, "amd-mi300x-192gb"])[0] is None
    r = rows(con, "select mfu, mfu_source from training_cost_estimate(params := 7e9, "
                  "tokens := 1e12, accelerator := 'MI300X') limit 1")[0]
    # without MLPerf Training results loaded, CDNA3 is Hopper's at 7B times the cited
    # defaults' ratio mfu_cdna / mfu_hopper = 0.30 / 0.40 (mfu_family_factors), restated
    # against 6ND (the model counts attention; no shape given): the assumed shape is
    # round((7e9 / (12 x 128^2))^(1/3)) = 33 layers x 4,224 at 4,096 tokens, so the share is
    # 4.2e10 / (4.2e10 + 12 x 33 x 4,224 x 4,096 = 6.851396e9) = 0.859750
    hand = math.exp(m["intercept"] + m["hopper"]
                    + m["hopper_log10_params"] * math.log10(0.7)) / 0.9 * 0.75 * 0.859750
    assert (r["mfu"], r["mfu_source"]) == (
        pytest.approx(hand), "Hopper mfu_model x 0.75 (mfu_cdna / mfu_hopper)")


def test_mfu_model_is_the_fit_of_the_validation_mart(con):
    """catalog/mfu_model.csv is what scripts/mfu_fit.py fits from the runs: refit and compare."""
    mfu_fit = load_script("mfu_fit")

    runs = mfu_fit.high_confidence(mfu_fit.validation_rows(con))
    assert len(runs) >= 15 and all(r["confidence"] == "high" for r in runs)
    committed = mfu_model(con)
    fp8 = committed["fp8"]  # measured in MLPerf (tests/system/test_training_measured.py)
    refit = {r["term"]: float(r["coefficient"]) for r in mfu_fit.catalog_rows(
        mfu_fit.fit(runs, fp8), runs, fp8)}
    for term, value in refit.items():
        assert committed[term] == pytest.approx(value, abs=1e-6), \
            f"catalog/mfu_model.csv is stale ({term}): run `python scripts/mfu_fit.py`"
    # the ridge fit, checked on a case solvable by hand: two Ampere runs at u and 4u, lambda 0
    # -> intercept = mean of the logs; every other coefficient 0
    two = [{"mfu_group": "ampere", "params_active": 1e10, "params_total": None,
            "precision": "bf16", "implied_mfu_bf16": u} for u in (0.1, 0.4)]
    coef = mfu_fit.fit(two, 0.5, lam=1e-9)
    assert coef[0] == pytest.approx(math.log(0.2)) and max(map(abs, coef[1:])) < 1e-6


def test_leave_one_out_by_hand(con):
    """The leave-one-out figures of docs/validation.md: each run against the model fitted
    without it, checked for one run by hand; the summary's arithmetic on three ratios."""
    mfu_fit = load_script("mfu_fit")

    all_rows = mfu_fit.validation_rows(con)
    fp8 = mfu_model(con)["fp8"]
    loo = {r["run_id"]: r for r in mfu_fit.leave_one_out(all_rows, fp8)}
    runs = mfu_fit.high_confidence(all_rows)
    held = next(r for r in runs if r["run_id"] == "llama2-7b")
    rest = [r for r in runs if r is not held]
    coef = mfu_fit.fit(rest, fp8)
    assert loo["llama2-7b"]["loo_ratio"] == pytest.approx(
        held["implied_mfu_bf16"] / math.exp(coef[0]))  # Ampere dense: intercept only
    # ... and the high-confidence runs the fit does not cover (PaLM on TPU v4: a fitted curve
    # times an MLPerf factor) at the mart's prediction, out of sample as it is
    others = mfu_fit.unfitted(all_rows)
    assert [r["run_id"] for r in others] == ["palm-540b"]
    assert set(loo) == {r["run_id"] for r in runs + others}
    assert loo["palm-540b"]["loo_ratio"] == others[0]["ratio_default"]
    s = mfu_fit.summary([0.8, 1.0, 1.3])
    assert s["within"] == pytest.approx(2 / 3) and s["median"] == 1.0
    assert s["spread"] == pytest.approx(math.exp(
        (sum((math.log(x) - sum(map(math.log, [0.8, 1, 1.3])) / 3) ** 2
             for x in [0.8, 1.0, 1.3]) / 3) ** 0.5))


def test_feasibility_by_hand(con):
    def est(params, accelerator, gpus, **kw):
        extra = "".join(f", {k} := {v!r}" for k, v in kw.items())
        return rows(con, f"select * from training_cost_estimate(params := {params}, tokens := "
                         f"1e12, accelerator := '{accelerator}', n_gpus := {gpus}{extra}) "
                         "limit 1")[0]
    # 405B on H100 SXM: layers = round((405e9 / (12 x 128^2))^(1/3)) = 127, d = 16,256;
    # state 16 x 405e9 = 6.48 TB; usable 0.9 x 80 GB = 72 GB; TP 8 (the HGX domain)
    layers, d = 127, 127 * 128
    full = layers * 4096 * d * 2
    selective = layers * 4096 * d * 34
    min_full = 8 * math.ceil(6.48e12 / (8 * (72e9 - full / 8)))
    min_selective = 8 * math.ceil(6.48e12 / (8 * (72e9 - selective / 8)))
    r = est(405e9, "H100 SXM", 16384)
    assert (min_full, min_selective) == (96, 184)
    # the plan's replica spans TP 8 x PP 23 = 184 GPUs; the memory floor alone is 91
    assert r["feasible"] is True and r["gpus_per_model_replica"] == 184
    assert r["min_gpus_memory"] == math.ceil((6.48e12 + full) / 72e9) == 91
    assert (r["tensor_parallel"], r["pipeline_parallel"], r["data_parallel"]) == (8, 23, 89)
    assert r["activation_recompute"] == "selective"
    assert r["activation_gb"] == pytest.approx(selective / 1e9)
    assert r["training_state_gb"] == pytest.approx(6480)
    # 128 GPUs hold it only with full recompute; 64 do not hold it at all
    r = est(405e9, "H100 SXM", 128)
    assert r["feasible"] and r["activation_recompute"] == "full" and r["pipeline_parallel"] == 12
    r = est(405e9, "H100 SXM", 64)
    assert r["feasible"] is False and r["gpus_per_model_replica"] == 96
    assert r["infeasible_reason"].startswith("64 GPUs are fewer than the 96 needed")
    # RTX 4090 (no scale-up fabric: TP 1): 405B needs 1,383 cards in one model-parallel group
    r = est(405e9, "RTX 4090", 8)
    assert r["gpus_per_model_replica"] == math.ceil(6.48e12 / (21.6e9 - full)) == 1383
    assert r["feasible"] is False and r["scale_up_domain_size"] == 1
    assert "no scale-up fabric (PCIe (consumer))" in r["infeasible_reason"]
    # 7B on 8 x 4090: layers 33, d 4,224; 112 GB of state over 6 cards with full recompute
    full7 = 33 * 4096 * 4224 * 2
    r = est(7e9, "RTX 4090", 8)
    assert r["gpus_per_model_replica"] == math.ceil(112e9 / (21.6e9 - full7)) == 6
    assert r["feasible"] is True and r["tensor_parallel"] == 1
    # 13B needs more than one 8-GPU PCIe server: refused, as published practice keeps model
    # parallelism inside the scale-up domain (assumption pcie_max_model_parallel_gpus)
    r = est(13e9, "RTX 4090", 64)
    assert r["feasible"] is False and r["gpus_per_model_replica"] > 8
    # a MoE's memory is its total parameters; a model without params is not assessed
    moe = est(37e9, "H800", 2048, params_total=671e9)
    assert moe["training_state_gb"] == pytest.approx(16 * 671)
    r = rows(con, "select feasible, gpus_per_model_replica, min_gpus_memory from "
                  "training_cost_estimate(flops := 1e24, accelerator := 'H100 SXM', "
                  "n_gpus := 8) limit 1")[0]
    assert r == {"feasible": None, "gpus_per_model_replica": None, "min_gpus_memory": None}


def test_scale_up_domains_are_sourced(con):
    domains = rows(con, "select * from scale_up_domains")
    with_fabric = [d for d in domains if d["has_scale_up_fabric"]]
    assert len(with_fabric) >= 20
    assert all(d["scale_up_source_url"].startswith("https://") for d in with_fabric)
    by_id = {d["accelerator_id"]: d for d in domains}
    assert by_id[H100]["domain_size"] == 8 and by_id[H100]["scale_up_bw_gbps"] == 900
    assert by_id["nvidia-gb200-186gb"]["domain_size"] == 72
    assert not by_id["nvidia-rtx-4090-24gb"]["has_scale_up_fabric"]


def test_scenario_with_its_own_price_is_priced_at_it_only(con):
    bases = {b for (b,) in con.execute(
        "select distinct price_basis from training_cost "
        "where scenario_id = 'llama3-405b-h100-40pct-2usd'").fetchall()}
    assert bases == {"given"}
    # the 405B dense ranking holds only platforms that can train it
    ranked = rows(con, "select accelerator_id, feasible from training_cost "
                       "where scenario_id = '405b-dense' and price_basis = 'on_demand_min'")
    assert any(r["feasible"] for r in ranked)
    assert {r["accelerator_id"] for r in ranked if r["feasible"] is False} >= {
        "nvidia-rtx-4090-24gb"}


def test_every_run_with_reported_mfu_is_within_25pct_or_explained(con):
    runs = rows(con, "select * from validation where reported_mfu is not null")
    assert len(runs) >= 4
    for r in runs:
        ratio = r["predicted_gpu_hours_reported_mfu"] / r["reported_gpu_hours"]
        assert r["within_25pct"] == (abs(ratio - 1) <= 0.25)
        assert r["within_25pct"] or r["note"], r["run_id"]
    required = {"llama2-7b", "llama2-13b", "llama2-70b", "llama3.1-405b", "deepseek-v3",
                "opt-175b", "bloom-176b", "gpt3-175b", "falcon-180b", "mpt-7b"}
    have = {r["run_id"]: r for r in rows(con, "select * from validation")}
    assert required <= set(have)
    assert all(r["source_url"].startswith("https://") and r["implied_mfu"] > 0
               for r in have.values())
    assert runner.run_checks(con) == {}


def test_scenarios_cover_the_seed_questions(con):
    by_id = {r["scenario_id"]: r for r in rows(
        con, "select scenario_id, any_value(tokens) as tokens, any_value(flops) as flops, "
             "count(distinct accelerator_id) as n_accelerators from training_cost group by 1")}
    assert by_id["7b-chinchilla"]["tokens"] == pytest.approx(140e9)  # 20 tokens per param
    assert by_id["7b-2t"]["flops"] == pytest.approx(8.4e22)
    assert by_id["10b-vlm"]["flops"] == pytest.approx(9.456e22 + 1.3824e21)
    assert by_id["10b-vlm-frozen-vit"]["flops"] == pytest.approx(9.456e22 + 4.608e20)
    assert by_id["deepseek-v3-like-moe"]["flops"] == pytest.approx(6 * 37e9 * 14.8e12)
    assert by_id["7b-2t"]["n_accelerators"] >= 15  # every accelerator with a price
    assert by_id["llama3-405b-h100-40pct-2usd"]["n_accelerators"] == 1
    priced = one(con, "select count(distinct accelerator_id) from price_bases "
                      "where price_basis <> 'owned'")[0]
    assert by_id["7b-2t"]["n_accelerators"] >= priced
    moe = rows(con, "select mfu, mfu_source from training_cost where scenario_id = "
                    "'deepseek-v3-like-moe-fp8-h800' limit 1")[0]
    m = mfu_model(con)
    # restated against 6ND at the assumed shape of 37B active: round((37e9 / 196,608)^(1/3))
    # = 57 layers x 7,296 at 4,096 tokens: 2.22e11 / (2.22e11 + 12 x 57 x 7,296 x 4,096 =
    # 2.044094e10) = 0.915687
    assert moe["mfu"] == pytest.approx(math.exp(
        m["intercept"] + m["hopper"] + m["moe"] + m["fp8"]
        + m["hopper_log10_params"] * math.log10(3.7)) / 0.9 * 989.4 / 1978.9 * 0.915687,
        rel=1e-5)
    assert moe["mfu_source"] == "mfu_model"


# ---------------------------------------------------------------- monotonicity


def _grid(con, varying: str, values: list[float], fixed: str) -> dict[str, list[float]]:
    """cost_usd per price basis along `varying` (other arguments `fixed`), in one query."""
    grid = ", ".join(f"({i}, {v!r})" for i, v in enumerate(values))
    out: dict[str, list[float]] = {}
    for r in rows(con, f"select grid.i, e.price_basis, e.cost_usd from (values {grid}) "
                       f"as grid (i, v), lateral training_cost_estimate({fixed}, "
                       f"{varying} := grid.v) as e where e.price_basis is not null "
                       "order by e.price_basis, grid.i"):
        out.setdefault(r["price_basis"], []).append(r["cost_usd"])
    return out


@pytest.mark.parametrize("accelerator", ["H100 SXM", "A100 80GB", "TPU v5p", "MI300X"])
def test_more_tokens_never_cost_less(con, accelerator):
    tokens = [1e6, 3.3e9, 1e11, 1.4e11, 2e12, 2.0001e12, 1.5e13, 1e15]
    grid = _grid(con, "tokens", tokens, f"params := 7e9, accelerator := '{accelerator}'")
    assert grid
    for basis, costs in grid.items():
        assert len(costs) == len(tokens)
        assert all(b >= a for a, b in zip(costs, costs[1:], strict=False)), basis


@pytest.mark.parametrize("accelerator", ["H100 SXM", "A100 80GB", "B200"])
def test_higher_mfu_never_costs_more(con, accelerator):
    mfus = [0.05, 0.2, 0.3, 0.375, 0.4, 0.45, 0.6, 0.99, 1.0]
    grid = _grid(con, "mfu", mfus, f"params := 70e9, tokens := 2e12, accelerator := "
                                   f"'{accelerator}'")
    assert grid
    for basis, costs in grid.items():
        assert all(b <= a for a, b in zip(costs, costs[1:], strict=False)), basis


def test_monotone_in_params_and_goodput_and_inference_batch(con):
    more_params = _grid(con, "params", [1e8, 1e9, 7e9, 70e9, 405e9],
                        "tokens := 1e12, accelerator := 'H100 SXM'")
    better_goodput = _grid(con, "goodput", [0.5, 0.8, 0.9, 1.0],
                           "params := 7e9, tokens := 1e12, accelerator := 'H100 SXM'")
    for costs in more_params.values():
        assert all(b >= a for a, b in zip(costs, costs[1:], strict=False))
    for costs in better_goodput.values():
        assert all(b <= a for a, b in zip(costs, costs[1:], strict=False))
    # serving: a larger batch never raises the cost per output token (same replica)
    per_token = [one(con, "select usd_per_million_output_tokens from inference_cost_estimate("
                          "params := 70e9, accelerator := 'H100 SXM', n_gpus := 4, "
                          f"batch_size := {b}, price_per_gpu_hour := 2) "
                          "where price_basis = 'given'")[0] for b in (1, 2, 8, 64, 512, 4096)]
    assert all(b <= a for a, b in zip(per_token, per_token[1:], strict=False))


# ---------------------------------------------------------------- the runner's macros


def test_runner_rejects_a_macro_on_a_temp_model_or_misnamed(tmp_path):
    models_dir = write_models(tmp_path / "a", {
        "staging/stg_x.sql": "select 1 as x",
        "macros/uses_staging.sql": "create or replace macro uses_staging() as table "
                                   "select * from stg_x",
    })
    with pytest.raises(runner.ModelError, match="marts and macros only"):
        runner.discover(models_dir)
    models_dir = write_models(tmp_path / "b", {
        "macros/one_name.sql": "create or replace macro other_name(a) as a + 1",
    })
    with pytest.raises(runner.ModelError, match="must hold"):
        runner.discover(models_dir)
    models_dir = write_models(tmp_path / "c", {
        "marts/m.sql": "select plus_one(41) as answer",
        "macros/plus_one.sql": "-- returns a + 1\ncreate or replace macro plus_one(a) as a + 1",
    })
    con = duckdb.connect()
    runner.build(con, models_dir)
    assert con.execute("select answer from m").fetchone() == (42,)


def test_no_macro_depends_on_a_temp_model():
    """Every macro binds in the published file, which has no staging/intermediate relations."""
    models = runner.discover()
    macros = [m for m in models.values() if m.layer == "macros"]
    assert len(macros) >= 10
    for model in macros:
        assert all(models[d].layer in runner.PERSISTED_LAYERS for d in model.depends_on), \
            model.name


def test_cost_checks_catch_unsourced_unresolved_and_unexplained_rows(tmp_path):
    from test_models import copy_catalog

    catalog = copy_catalog(tmp_path / "catalog")
    with (catalog / "training_scenarios.csv").open("a", encoding="utf-8") as fh:
        fh.write("ghost,a GPU nobody sells,Nonexistent GPU 9000,7e9,,2e12,,bf16,,,,,,,,8,,,,,"
                 "https://example.test/q,\n")
    with (catalog / "training_runs.csv").open("a", encoding="utf-8") as fh:
        # 8.4e22 FLOPs at 45% of 312 TFLOP/s = 166,200 h, reported 100,000: 66% off, no note
        # ... and a shape (32 layers x 4,096 at 4,096 tokens) without shape_source_url
        fh.write("off-run,Off,a2-ultragpu-1g,7e9,,2e12,100000,basis,,32,4096,4096,bf16,0.45,"
                 "mfu basis,none,low,t,,,,\n")
    with (catalog / "scale_up_domains.csv").open("a", encoding="utf-8") as fh:
        fh.write("nvidia-l4-24gb,2,a bridge nobody sourced,,,,\n")
    con, _ = build(tmp_path, catalog, with_rows=False)
    try:
        failures = runner.run_checks(con)
    finally:
        con.close()
    assert set(failures) == {"cost_inputs_resolve", "validation_explained",
                             "cost_catalog_sourced"}
    assert failures["cost_inputs_resolve"][0][:3] == ("training_scenarios", "ghost",
                                                      "Nonexistent GPU 9000")
    assert failures["validation_explained"][0][0] == "off-run"
    assert {r[:3] for r in failures["cost_catalog_sourced"]} == {
        ("training_runs", "off-run", "source_url"), ("training_runs", "off-run", "mfu_source_url"),
        ("training_runs", "off-run", "shape_source_url"),
        ("scale_up_domains", "nvidia-l4-24gb", "source_url")}


def test_cost_catalog_rows_cite_sources():
    import csv

    for name in ("training_scenarios", "training_runs", "cost_presets", "inference_scenarios"):
        with (CATALOG_DIR / f"{name}.csv").open(newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                for column in ("source_url", "mfu_source_url", "claim_source_url",
                               "shape_source_url"):
                    url = row.get(column) or ""
                    assert not url or url.startswith(("https://", "../shared/")), (name, row)
                assert row["source_url"], (name, row)
