"""Issue 26 acceptance on the recorded data (fixture `loaded`, tests/system/conftest.py): what
an offer costs per million tokens at a measured throughput, the speed one user sees in each
measured result, and dated results.

Figures worked out by hand from the recorded files:

* MLPerf Inference v5.0, NVIDIA DGX-H100_H100-SXM-80GBx8_TRT, llama2-70b-99.9 Server:
  "Completed tokens per second: 31106.28" on 8 GPUs = 3,888.285 tokens/s per GPU (the README's
  row 23): the newest 8-GPU H100 SXM result on llama2-70b Server. Voltage Park's 8-GPU HGX H100
  node at 2.49 per GPU-hour (its page of 2025-07-12): 2.49 / (3,888.285 x 3,600) x 10^6 =
  0.17789 USD per million generated tokens; DigitalOcean's "NVIDIA H100x8" at 2.99: 0.21361.
* MLPerf Inference v5.1, NVIDIA B200-SXM-180GBx8_TRT, llama2-70b-99 Interactive: "Mean Time to
  Output Token (ns): 34209789" = 34.21 ms, so 1000 / 34.21 = 29.23 tokens/s per user,
  measured; the TPOT limit (40 ms) guarantees at least 25.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

H100 = "nvidia-h100-sxm5-80gb"
TPS = 31106.28 / 8


def _q(con, sql: str, params=None) -> list[tuple]:
    return con.execute(sql, params or []).fetchall()


def _offers(data, *args: str) -> list[dict]:
    env = dict(os.environ, GPUCOST_DATA_DIR=str(data))
    out = subprocess.run([sys.executable, "-m", "gpucost.flows.cli.main", "offers", *args],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout) if "--format" in args else out.stdout


def test_offers_with_a_workload_price_a_million_tokens_at_the_measured_rate(loaded):
    rows = _offers(loaded[5], "H100:8", "--workload", "llama2-70b", "--format", "json")
    priced = [r for r in rows if r["usd_per_million_output_tokens_all_in"] is not None]
    assert len(priced) >= 5
    for r in priced:
        assert r["usd_per_million_output_tokens_all_in"] == pytest.approx(
            r["price_per_gpu_hour"] / (r["tokens_per_second_per_gpu"] * 3600) * 1e6)
    by_provider = {r["provider"]: r for r in priced if r["accelerator_id"] == H100}
    vp, do = by_provider["voltagepark"], by_provider["digitalocean"]
    assert (vp["round"], vp["submitter"], vp["match"], vp["workload"]) == (
        "v5.0", "NVIDIA", "same_size", "llama2-70b:server")
    assert vp["tokens_per_second_per_gpu"] == pytest.approx(TPS)
    assert vp["usd_per_million_output_tokens_all_in"] == pytest.approx(0.17789, abs=1e-5)
    assert do["usd_per_million_output_tokens_all_in"] == pytest.approx(0.21361, abs=1e-5)
    # the table says where the figure comes from
    table = _offers(loaded[5], "H100:8", "--workload", "llama2-70b")
    assert "USD/M out all-in" in table and "v5.0 NVIDIA TensorRT-LLM (same_size, 8 GPUs)" in table
    assert "USD/M in" in table and "USD/M 3:1" in table
    assert "split between its 1024 input tokens (assumed: inference_default_input_tokens)" in table


def test_the_python_api_returns_the_same_costs(loaded):
    """gpucost.offers(..., workload=...) is query_offers on the published warehouse (called
    here on the session's read-only connection: DuckDB refuses a second connection with
    another configuration in one process)."""
    from gpucost.flows.cli.offers import OffersError, query_offers

    frame = query_offers(loaded[0], "H100:8", workload="llama2-70b")
    vp = frame[frame["provider"] == "voltagepark"].iloc[0]
    assert vp["usd_per_million_output_tokens_all_in"] == pytest.approx(0.17789, abs=1e-5)
    assert vp["workload"] == "llama2-70b:server"
    with pytest.raises(OffersError, match="no measured benchmark"):
        query_offers(loaded[0], "H100:8", workload="no-such-model")
    with pytest.raises(OffersError, match="scenario must be one of"):
        query_offers(loaded[0], "H100:8", workload="llama2-70b:batch")


def test_a_smaller_offer_is_not_priced_at_a_larger_system(loaded):
    con = loaded[0]
    rows = _q(con, "select gpu_count, result_accelerator_count, match, "
                   "usd_per_million_output_tokens_all_in from offer_token_costs where "
                   "accelerator_id = ? and benchmark = 'llama2-70b' and scenario = 'Server'",
              [H100])
    one_gpu = [r for r in rows if r[0] == 1]
    assert one_gpu and all(r[2] == "not_comparable" and r[3] is None for r in one_gpu)
    assert all(r[2] == "same_size" for r in rows if r[0] == r[1])


def test_every_server_and_interactive_result_has_a_per_user_speed(loaded):
    con = loaded[0]
    missing = _q(con, "select round, system, benchmark, scenario from inference_throughput "
                      "where scenario <> 'Offline' and valid and tokens_per_second_per_user "
                      "is null")
    assert missing == []
    [(speed, basis, floor)] = _q(
        con, "select tokens_per_second_per_user, interactivity_basis, 1000 / tpot_limit_ms "
             "from inference_throughput where round = 'v5.1' and system = "
             "'B200-SXM-180GBx8_TRT' and benchmark = 'llama2-70b' and scenario = 'Interactive'")
    assert basis == "measured" and speed == pytest.approx(1000 / 34.209789)
    assert floor == 25 and speed >= 25
    # Offline has no per-user constraint
    assert _q(con, "select count(*) from inference_throughput where scenario = 'Offline' "
                   "and tokens_per_second_per_user is not null") == [(0,)]


def test_measured_results_are_dated_by_their_round_with_a_source(loaded):
    con = loaded[0]
    undated = _q(con, "select distinct round from inference_throughput where "
                      "round_published_on is null or round_source_url is null")
    assert undated == []
    [(age,)] = _q(con, "select data_age_days from source_health where source = "
                       "'mlperf_results'")
    assert age is not None
    [(observed,)] = _q(con, "select min(observed_at) from inference_throughput where "
                            "round = 'v4.1'")
    assert str(observed)[:10] == "2024-08-28"


def test_sweeps_are_points_on_a_curve_as_their_files_state_them(loaded):
    """InferenceX GLM-4.7 on 8 Gaudi 3 (glm47_gaudi3_summary.json): concurrency 1 gives
    output_tput_per_gpu 2.32 and interactivity 18.62; concurrency 128 gives 95.1 and 6.0."""
    con = loaded[0]
    points = dict((c, (u, g)) for c, u, g in _q(
        con, "select distinct concurrency, tokens_per_second_per_user, "
             "tokens_per_second_per_gpu from inference_interactivity where model = "
             "'zai-org/GLM-4.7' and accelerator_id = 'intel-gaudi3-128gb'"))
    assert points[1] == (pytest.approx(18.62), pytest.approx(2.32))
    assert points[128] == (pytest.approx(6.0), pytest.approx(95.1))
    # the Qwen3.5 sweep states no hardware: 8 x H200 from the cited serve script
    [(acc, gpus, url)] = _q(con, "select distinct accelerator_id, accelerator_count, "
                                 "hardware_source_url from inference_interactivity where "
                                 "model like 'Qwen/Qwen3.5%'")
    assert (acc, gpus) == ("nvidia-h200-sxm-141gb", 8) and "serve_qwen35_tp8_sbatch.sh" in url


def test_throughput_at_a_speed_per_user_is_interpolated_never_extrapolated(loaded):
    """GLM-4.7 frontier points around 17 tokens/s per user: (16.7, 8.0) at concurrency 4 and
    (18.22, 4.28) at concurrency 2: 8.0 + (4.28 - 8.0) x (17 - 16.7) / (18.22 - 16.7) =
    7.2658 tokens/s per GPU. 40 tokens/s per user is beyond its 6-18.62: refused."""
    con = loaded[0]
    [(tps, note)] = _q(con, "select distinct tokens_per_second_per_gpu, note from "
                            "throughput_at_interactivity(17, model := 'zai-org/GLM-4.7')")
    assert tps == pytest.approx(8.0 + (4.28 - 8.0) * (17 - 16.7) / (18.22 - 16.7))
    assert note.startswith("interpolated between 16.7 and 18.2")
    [(tps, note)] = _q(con, "select distinct tokens_per_second_per_gpu, note from "
                            "throughput_at_interactivity(40, model := 'zai-org/GLM-4.7')")
    assert tps is None and note.startswith("outside the measured range 6-18.6")


def test_estimate_answers_at_a_requested_interactivity(loaded):
    """B200 x8 (NVIDIA, v5.1) on llama2-70b-99: Server 99,123.04 tokens/s over 8 GPUs at a mean
    TPOT of 123.32 ms (8.109 tokens/s per user), Interactive 59,545.45 at 34.21 ms (29.23):
    at 20 tokens/s per user, 12,390.38 + (7,443.18 - 12,390.38) x (20 - 8.109) /
    (29.23 - 8.109) = 9,605 tokens/s per GPU."""
    x0, y0 = 1000 / 123.320085, 99123.04 / 8
    x1, y1 = 1000 / 34.209789, 59545.45 / 8
    hand = y0 + (y1 - y0) * (20 - x0) / (x1 - x0)
    env = dict(os.environ, GPUCOST_DATA_DIR=str(loaded[5]))
    out = subprocess.run([sys.executable, "-m", "gpucost.flows.cli.main", "estimate", "--inference",
                          "--params", "70e9", "-a", "B200", "--min-tokens-per-user", "20",
                          "--format", "json"], capture_output=True, text=True, env=env,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)["interactivity"]["rows"]
    nvidia = next(r for r in rows if "/NVIDIA/B200-SXM-180GBx8_TRT/llama2-70b-99" in
                  r["curve_id"] and r["curve_id"].startswith("mlperf v5.1"))
    assert nvidia["tokens_per_second_per_gpu"] == pytest.approx(hand)
    assert nvidia["price_basis"] == "on_demand_min"
    assert nvidia["usd_per_million_output_tokens"] == pytest.approx(
        nvidia["price_per_gpu_hour"] / (hand * 3600) * 1e6)
    assert any(r["tokens_per_second_per_gpu"] is None and "not extrapolated" in r["note"]
               for r in rows)


def test_inference_estimate_never_leads_with_an_undated_price(loaded):
    """`gpucost estimate inference --params 70e9` over every accelerator: Cudo's A800 PCIe
    (0.8936 USD/GPU-h, 7.1488 / 8 in a SkyPilot catalog known by its commit only) would be
    cheaper per million tokens than most dated offers; a price without a date is not a current
    price, so the undated platforms (A800, Gaudi 2, A30, A16) come after every platform with a
    dated rental, marked, and before those with no rental. The cost is the price over the
    throughput: 0.8936 / (tokens/s per GPU x 3,600) x 10^6."""
    env = dict(os.environ, GPUCOST_DATA_DIR=str(loaded[5]))
    args = [sys.executable, "-m", "gpucost.flows.cli.main", "estimate", "inference",
            "--params", "70e9"]
    out = subprocess.run(args + ["--format", "json"], capture_output=True, text=True, env=env,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    [a800] = [r for r in json.loads(out.stdout)["rows"]
              if r["accelerator_id"] == "nvidia-a800-pcie-80gb"
              and r["price_basis"] == "on_demand_min"]
    assert (a800["provider"], a800["observed_at"]) == ("cudo", None)
    assert a800["price_per_gpu_hour"] == pytest.approx(7.1488 / 8)
    assert a800["usd_per_million_output_tokens"] == pytest.approx(
        0.8936 / (a800["output_tokens_per_second_per_gpu"] * 3600) * 1e6)
    table = subprocess.run(args, capture_output=True, text=True, env=env, timeout=120).stdout
    lines = table[table.index("  accelerator "):].splitlines()[1:]
    lines = lines[:next(i for i, line in enumerate(lines) if line.startswith("  ordered"))]
    marks = ["undated" in line for line in lines]
    unpriced = [line.split()[4] == "-" and line.split()[5] == "-" for line in lines]
    undated_at = [i for i, m in enumerate(marks) if m]
    assert {lines[i].split()[0] for i in undated_at} >= {"nvidia-a800-pcie-80gb",
                                                         "intel-gaudi2-96gb"}
    # dated, then undated, then the platforms without a rental
    kinds = [2 if u else 1 if m else 0 for m, u in zip(marks, unpriced, strict=True)]
    assert kinds == sorted(kinds) and kinds[0] == 0
    assert "platforms priced only by undated offers" in table
