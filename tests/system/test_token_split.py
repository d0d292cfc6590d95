"""Issue 42 (item 4) on the recorded data (fixture `loaded`, tests/system/conftest.py): input
and output token costs apart in offer_token_costs, blended 3:1.

Worked by hand from the recorded file
mlperf_inference_v5.0/closed/NVIDIA/results/DGX-H100_H100-SXM-80GBx8_TRT/llama2-70b-99.9/Server/
performance/run_1/mlperf_log_summary.txt: "Completed samples per second : 106.21",
"Completed tokens per second: 31106.28", 8 GPUs (README row 23), priced at Voltage Park's
8-GPU HGX H100 node, 2.49 USD per GPU-hour:

* all-in (the whole GPU-hour on output): 2.49 / (31106.28 / 8 x 3600) x 10^6 = 0.177885 USD/M;
* output tokens per query: 31106.28 / 106.21 = 292.875 (measured); input tokens per query:
  1,024, assumed (inference_default_input_tokens: no input length is published for the
  dataset);
* the roofline ratio, Llama 2 70B (80 layers, 8 KV heads of 128) on H100 SXM (80 GB, 3.35 TB/s,
  1,978.9 dense FP8 TFLOP/s, MFU default 0.4, bandwidth utilisation 0.6) at batch 256, FP8
  weights, context round(1024 + 292.875 / 2) = 1,170: KV cache 256 x 1,170 x 327,680 B
  (2 x 80 x 8 x 128 x 2 bytes) = 98.145 GB + 70 GB weights -> 3 GPUs; decode step = max(
  168.145e9 / (3 x 3.35e12 x 0.6), 2 x 70e9 x 256 / (3 x 1978.9e12 x 0.4)) = max(27.885 ms,
  15.093 ms) = 27.885 ms -> 9,180.6 output tokens/s; prefill 3 x 1978.9e12 x 0.4 / 140e9 =
  16,962.0 input tokens/s; ratio 16,962.0 / 9,180.6 = 1.8476;
* input = 0.177885 x 292.875 / (1024 + 292.875 x 1.8476) = 0.033287 USD/M, output = 1.8476 x
  that = 0.061501, blended (3 x 0.033287 + 0.061501) / 4 = 0.040340.
"""

from __future__ import annotations

import pytest

H100 = "nvidia-h100-sxm5-80gb"


def _row(con, provider: str) -> dict:
    cur = con.execute(
        "select * from offer_token_costs where accelerator_id = ? and provider = ? and "
        "benchmark = 'llama2-70b' and scenario = 'Server' and gpu_count = 8 and "
        "price_per_gpu_hour = 2.49", [H100, provider])
    cols = [d[0] for d in cur.description]
    [row] = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
    return row


def test_input_output_and_blended_costs_worked_by_hand(loaded):
    r = _row(loaded[0], "voltagepark")
    assert (r["round"], r["system"], r["accuracy_target"]) == (
        "v5.0", "DGX-H100_H100-SXM-80GBx8_TRT", "99.9")
    assert r["usd_per_million_output_tokens_all_in"] == pytest.approx(0.177885, abs=1e-6)
    assert r["output_tokens_per_query"] == pytest.approx(31106.28 / 106.21)
    assert r["output_tokens_basis"] == "measured"
    assert r["input_tokens_per_query"] == 1024
    assert r["input_tokens_basis"] == "assumed: inference_default_input_tokens"
    assert r["context_tokens"] == 1170
    assert r["output_to_input_cost_ratio"] == pytest.approx(1.8476, abs=1e-4)
    assert "batch 256, fp8 weights, 1170 context tokens" in r["token_split_method"]
    assert r["blend_input_per_output"] == 3
    assert r["usd_per_million_input_tokens"] == pytest.approx(0.033287, abs=1e-6)
    assert r["usd_per_million_output_tokens"] == pytest.approx(0.061501, abs=1e-6)
    assert r["usd_per_million_tokens_blended"] == pytest.approx(0.040340, abs=1e-6)


def test_the_split_loses_nothing_and_input_is_cheaper(loaded):
    """On every priced row: input tokens x input cost + output tokens x output cost = the
    query's all-in cost; and input tokens never cost more than output tokens here (the
    roofline's decode is at least as slow per token as its prefill)."""
    con = loaded[0]
    n, lost, dearer = con.execute(
        "select count(*), count(*) filter (where abs(input_tokens_per_query * "
        "usd_per_million_input_tokens + output_tokens_per_query * usd_per_million_output_tokens"
        " - output_tokens_per_query * usd_per_million_output_tokens_all_in) > 1e-9 * "
        "output_tokens_per_query * usd_per_million_output_tokens_all_in), "
        "count(*) filter (where usd_per_million_input_tokens > usd_per_million_output_tokens) "
        "from offer_token_costs where usd_per_million_input_tokens is not null").fetchone()
    assert n > 1000 and lost == 0 and dearer == 0
    # a not_comparable row has no cost at all
    (priced,) = con.execute("select count(*) from offer_token_costs where match = "
                              "'not_comparable' and (usd_per_million_input_tokens is not null "
                              "or usd_per_million_output_tokens_all_in is not null)").fetchone()
    assert priced == 0


def test_sweeps_carry_their_measured_token_counts(loaded):
    """InferenceX GLM-4.7 on 8 Gaudi 3 (glm47_gaudi3_summary.json), concurrency 1: input 1,024
    tokens (stated), output_throughput 18.52 and total_throughput 46.67 tokens/s, so 28.15
    input tokens/s and 1,024 x 18.52 / 28.15 = 673.69 output tokens per query (the stated
    1,024 is a cap). Qwen3.5 (isl1024_osl128_conc4): 1,024 x 67.639 / (608.751 - 67.639) =
    128.0. Every token priced alike: the GPU-hour over (input + output) / output x the output
    rate per GPU (2.32, as the file states it)."""
    con = loaded[0]
    [(inp, out, basis, usd_out, usd_all)] = con.execute(
        "select distinct input_tokens_per_query, output_tokens_per_query, token_counts_basis, "
        "usd_per_million_output_tokens, usd_per_million_input_and_output_tokens from "
        "inference_interactivity where model = 'zai-org/GLM-4.7' and concurrency = 1 and "
        "price_basis = 'owned'").fetchall()
    assert inp == 1024 and out == pytest.approx(1024 * 18.52 / (46.67 - 18.52))
    assert basis.startswith("measured: input length stated")
    assert usd_all == pytest.approx(usd_out * out / (1024 + out))
    [(out,)] = con.execute(
        "select distinct output_tokens_per_query from inference_interactivity where model = "
        "'Qwen/Qwen3.5-397B-A17B' and concurrency = 4").fetchall()
    assert out == pytest.approx(1024 * 67.639 / (608.751 - 67.639), abs=1e-3)
    assert out == pytest.approx(128, abs=0.01)
