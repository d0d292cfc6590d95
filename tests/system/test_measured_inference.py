"""Measured inference economics (issue 12), end to end on the recorded MLPerf Inference files.

Every recorded summary and system description of ../shared/data/throughput is ingested
(`gpucost ingest mlperf_results DIR`) into a warehouse holding no scraped price: the price
bases are then the curated reference prices and the owned costs, which the figures below are
worked out from by hand.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import duckdb
import pytest

from gpucost.flows.cli import main as cli

CATALOG = Path(__file__).resolve().parents[2] / "catalog"


@pytest.fixture(scope="module")
def warehouse(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    data_dir = tmp_path_factory.mktemp("measured")
    mp = pytest.MonkeyPatch()
    mp.setenv("GPUCOST_DATA_DIR", str(data_dir))
    try:
        assert cli.main(["ingest", "mlperf_results", str(shared_data / "throughput")]) == 0
    finally:
        mp.undo()
    return data_dir


@pytest.fixture
def con(warehouse: Path):  # type: ignore[no-untyped-def]
    """Per test: the CLI tests open the same file with their own connection settings."""
    c = duckdb.connect(str(warehouse / "gpucost.duckdb"), read_only=True)
    yield c
    c.close()


def _assumption(key: str) -> float:
    with (CATALOG / "assumptions.csv").open(encoding="utf-8") as fh:
        return next(float(r["value"]) for r in csv.DictReader(fh) if r["key"] == key)


def test_every_result_is_in_force_with_its_count(con) -> None:  # type: ignore[no-untyped-def]
    rows = con.execute("select count(*), count(accelerator_count), count(accelerator_id) "
                       "from inference_throughput").fetchall()
    # 104 summaries, all counted; 100 on catalogued accelerators (MI350X and the two Intel Arc
    # cards are not in the catalog; the 2 H200 NVL summaries are since issue 37 item 4)
    assert rows == [(104, 104, 100)]
    gb300 = con.execute(
        "select accelerator_count, tokens_per_second_per_accelerator, count_basis "
        "from inference_throughput where round = 'v6.0' and submitter = 'NVIDIA' "
        "and system like 'GB300-NVL72%' and benchmark = 'llama2-70b' and scenario = 'Offline'"
    ).fetchall()
    assert gb300 == [(72.0, pytest.approx(1126850 / 72), "system_description")]
    # v5.0 systems whose JSON is unpublished: counted from catalog/mlperf_systems.csv
    curated = con.execute(
        "select system, any_value(accelerator_count) from inference_throughput "
        "where count_basis = 'curated' group by 1 order by 1").fetchall()
    assert curated == [("B200-SXM-180GBx8_TRT", 8.0),
                       ("GB200-NVL72_GB200-186GB_aarch64x72_TRT_Triton", 72.0)]


def test_measured_cost_per_million_tokens_by_hand(con) -> None:  # type: ignore[no-untyped-def]
    # Cisco 2 x 8 H100 (v5.1), Llama 2 70B Offline: 62351.6 tokens/s for 16 GPUs, priced at
    # offers of its own node size (8 GPUs): Lambda's gpu_8x_h100_sxm5, 31.92 USD/h = 3.99 per
    # GPU-hour (catalog/reference_prices.csv, its SkyPilot catalog of 2026-05-07), not RunPod's
    # one-GPU 2.99
    (row,) = con.execute(
        "select price_per_gpu_hour, usd_per_million_output_tokens, provider, basis_gpu_count, "
        "gpus_per_instance, basis_fits_system from inference_measured "
        "where submitter = 'Cisco' and round = 'v5.1' and benchmark = 'llama2-70b' "
        "and scenario = 'Offline' and price_basis = 'on_demand_min'").fetchall()
    assert row[0] == pytest.approx(3.99)
    assert row[2:] == ("lambda", 8, 8, True)
    assert row[1] == pytest.approx(3.99 / (62351.6 / 16 * 3600) * 1e6)  # 0.28441 USD/M
    assert row[1] == pytest.approx(0.28441, abs=1e-5)


def test_required_platforms_are_priced(con) -> None:  # type: ignore[no-untyped-def]
    priced = dict(con.execute(
        "select benchmark || ' ' || accelerator_id, count(price_basis) from inference_measured "
        "group by 1").fetchall())
    for acc in ("nvidia-h100-sxm5-80gb", "nvidia-h200-sxm-141gb", "nvidia-b200-sxm-180gb",
                "amd-mi300x-192gb"):
        assert priced[f"llama2-70b {acc}"] > 0, acc
    for acc in ("nvidia-b200-sxm-180gb", "nvidia-gb300-288gb"):
        assert priced[f"gpt-oss-120b {acc}"] > 0, acc
    assert priced["llama2-70b amd-mi325x-256gb"] > 0


def test_mi325x_is_priced_at_the_analyst_rates_only(con) -> None:  # type: ignore[no-untyped-def]
    """No first-hand source lists an MI325X price (only aggregator listings, never a price
    basis; DigitalOcean sells it by contract) and no chip price is cited; SemiAnalysis's
    published rates (catalog/analyst_gpu_costs.csv, InferenceX-app ae3a240, July 2026) price
    it: TCO 1.0998 (hyperscaler) and 1.3235 (neocloud), 3-year rental 1.60 USD per GPU-hour.
    AMD's 8 x MI325X (v5.1, Llama 2 70B Offline) generates 34,520.4 tokens/s, 4,315.05 per GPU:
    1.3234578915 / (4,315.05 x 3600) x 10^6 = 0.0852 USD per million at the neocloud TCO."""
    rows = {r[0]: r[1:] for r in con.execute(
        "select price_basis, basis_kind, price_per_gpu_hour, usd_per_million_output_tokens, "
        "price_source from inference_measured where accelerator_id = 'amd-mi325x-256gb' "
        "and benchmark = 'llama2-70b' and scenario = 'Offline' and round = 'v5.1' "
        "and submitter = 'AMD'").fetchall()}
    assert set(rows) == {"tco_hyperscaler", "tco_neocloud", "rental_3y_survey"}
    kind, price, usd, source = rows["tco_neocloud"]
    assert (kind, source) == ("owned", "analyst")
    assert price == pytest.approx(1.3234578915100057)
    assert usd == pytest.approx(1.3234578915100057 / (34520.4 / 8 * 3600) * 1e6)  # 0.0852
    assert usd == pytest.approx(0.0852, abs=1e-4)
    assert rows["rental_3y_survey"][:2] == ("estimated", pytest.approx(1.6))


def test_gb300_is_priced_from_a_cited_rack_price(con) -> None:  # type: ignore[no-untyped-def]
    """No source rents a GB300: its owned basis is its share of the rack price in
    catalog/system_prices.csv (3.5 M USD / 72), amortised like any owned accelerator."""
    with (CATALOG / "system_prices.csv").open(encoding="utf-8") as fh:
        rack = next(r for r in csv.DictReader(fh) if r["system_id"] == "nvidia-gb300-nvl72")
    share = float(rack["system_price_usd"]) / float(rack["accelerators_per_system"])
    hours = _assumption("hours_per_year")
    hardware = share * _assumption("depreciation_ooms_per_year") * math.log(10) / hours
    f = _assumption("network_fraction_of_cluster")
    energy = (1400 / 1000 * _assumption("server_to_chip_power")
              * _assumption("avg_power_fraction_gpu") * _assumption("pue")
              * _assumption("electricity_usd_per_kwh"))
    owned = hardware + hardware * f / (1 - f) + energy  # 2.3975 USD per GPU-hour
    (row,) = con.execute(
        "select price_per_gpu_hour, usd_per_million_output_tokens, basis_note, sku "
        "from inference_measured where submitter = 'NVIDIA' and round = 'v6.0' "
        "and accelerator_id = 'nvidia-gb300-288gb' and benchmark = 'gpt-oss-120b' "
        "and scenario = 'Offline' and price_basis = 'owned'").fetchall()
    assert row[0] == pytest.approx(owned)
    assert row[0] == pytest.approx(2.3975, abs=1e-4)
    assert row[1] == pytest.approx(owned / (1.04298e6 / 72 * 3600) * 1e6)  # 0.04597 USD/M
    assert row[3] == "nvidia-gb300-nvl72" and "3,500,000 USD" in row[2]


def test_claims_show_the_measured_ratio(con) -> None:  # type: ignore[no-untyped-def]
    rows = {r[0]: r[1:] for r in con.execute(
        "select scenario_id, measured_benchmark, measured_scenario, measured_round, "
        "measured_match, measured_ratio, claim_to_measured, price_ratio_needed "
        "from inference_claims where price_basis = 'on_demand_min'").fetchall()}
    # B200 vs H100: no H100 ran gpt-oss-120b; the closest pair is Llama 2 70B Offline in one
    # round (v5.1) and one software family: Lambda's B200 102725 / 8 vs Cisco's H100 62351.6 / 16
    bench, scenario, rnd, match, ratio, _, needed = rows["gpt-oss-120b-b200-vs-hopper"]
    assert (bench, scenario, rnd, match) == ("llama2-70b", "Offline", "v5.1", 4)
    assert ratio == pytest.approx((102725 / 8) / (62351.6 / 16))  # 3.295: "about 3-4x"
    assert 3 < ratio < 4
    assert needed == pytest.approx(ratio / 15)  # the price ratio a 15x cost claim would need
    # the 4x per-GPU throughput claim is 1.21x what was measured
    *_, to_measured, _ = rows["gpt-oss-120b-blackwell-4x-per-gpu"]
    assert to_measured == pytest.approx(4 / ratio)


def test_claims_against_the_hopper_gpu_that_ran_the_claims_model(con) -> None:  # type: ignore[no-untyped-def]
    """The seeds' "vs the Hopper platform" on GPT-OSS-120B: H200 ran it (v6.0, Red Hat's llm-d,
    vLLM), so the H200 rows pair on the claim's own benchmark, round and software (match 1):
    Red Hat's 8 x B200 93,070.7 tokens/s vs 8 x H200 28,680.0, per GPU 11,633.8 / 3,585.0."""
    rows = {r[0]: r[1:] for r in con.execute(
        "select scenario_id, measured_benchmark, measured_round, measured_software, "
        "measured_baseline_software, measured_match, measured_ratio, price_ratio, "
        "measured_cost_ratio, claim_to_measured, price_ratio_needed from inference_claims "
        "where price_basis = 'on_demand_min'").fetchall()}
    ratio = (93070.7 / 8) / (28680.0 / 8)  # 3.245
    bench, rnd, sw, base_sw, match, measured, price, cost, to_measured, needed = rows[
        "gpt-oss-120b-b200-vs-h200"]
    assert (bench, rnd, sw, base_sw, match) == ("gpt-oss-120b", "v6.0", "vLLM", "vLLM", 1)
    assert measured == pytest.approx(ratio)
    # B200 at RunPod's 5.89, H200 at RunPod's 4.39 (reference prices of 2026-08-10; Lambda's
    # B200 4.99 of 2026-01-09 is 213 days behind the newest B200 price: stale, issue 37):
    # 3.245 / 1.342 = 2.42x cheaper measured
    assert price == pytest.approx(5.89 / 4.39)
    assert cost == pytest.approx(ratio / (5.89 / 4.39))
    assert to_measured == pytest.approx(15 / (ratio / (5.89 / 4.39)))  # 6.20
    assert needed == pytest.approx(ratio / 15)  # 0.216
    *_, to_measured_4x, _ = rows["gpt-oss-120b-blackwell-4x-per-gpu-h200"]
    assert to_measured_4x == pytest.approx(4 / ratio)  # 1.23
    # GB300: Nebius's NVL72 (TensorRT-LLM) 1,046,150 / 72 vs the same H200 (vLLM): match 2
    bench, rnd, sw, base_sw, match, measured, *_ = rows["gpt-oss-120b-gb300-vs-h200"]
    assert (bench, rnd, sw, base_sw, match) == ("gpt-oss-120b", "v6.0", "TensorRT-LLM", "vLLM",
                                                2)
    assert measured == pytest.approx((1.04615e6 / 72) / 3585.0, rel=1e-4)  # 4.05


def test_claims_at_the_analyst_rates_the_claims_benchmark_uses(con) -> None:  # type: ignore[no-untyped-def]
    """At SemiAnalysis's neocloud TCO (B200 2.0693, H100 1.5501 USD per GPU-hour), the measured
    B200 / H100 pair (3.295x per GPU) is 3.295 / 1.335 = 2.47x cheaper: 6x short of 15x."""
    rows = dict(con.execute(
        "select scenario_id, measured_cost_ratio from inference_claims "
        "where price_basis = 'tco_neocloud'").fetchall())
    ratio = (102725 / 8) / (62351.6 / 16)
    price_ratio = 2.0693175588620671 / 1.5501205804741525
    assert rows["gpt-oss-120b-b200-vs-hopper"] == pytest.approx(ratio / price_ratio)  # 2.468
    assert rows["gpt-oss-120b-b200-vs-h200"] == pytest.approx(
        (93070.7 / 28680.0) / (2.0693175588620671 / 1.5918579041035947))  # 2.496


def test_an_absolute_claim_beside_the_measured_cost(con) -> None:  # type: ignore[no-untyped-def]
    """The seeds' "B200: two cents per million tokens on GPT-OSS-120B". Its cheapest measured
    B200 result is Red Hat's llm-d 8 x B200 (v6.0 Offline, vLLM): 93,070.7 tokens/s, 11,633.8
    per GPU. At RunPod's 5.89 USD per GPU-hour (the freshest sellers' cheapest: Lambda's 4.99 of
    2026-01-09 is stale beside RunPod's 2026-08-10): 5.89 / (11,633.8 x 3600) x 10^6 = 0.1406
    USD per million, 7.03x the claim; the claim needs 0.02 x 11,633.8 x 3600 / 10^6 = 0.838
    USD per GPU-hour."""
    row = con.execute(
        "select claim_kind, claimed_usd_per_million_output_tokens, provider, price_per_gpu_hour, "
        "measured_benchmark, measured_scenario, measured_round, measured_submitter, "
        "measured_software, measured_tokens_per_second_per_gpu, "
        "measured_usd_per_million_output_tokens, claim_to_measured, price_per_gpu_hour_needed, "
        "claimed_ratio, measured_ratio from inference_claims "
        "where scenario_id = 'gpt-oss-120b-b200-two-cents' and price_basis = 'on_demand_min'"
    ).fetchall()
    assert len(row) == 1
    (kind, claimed, provider, price, bench, scenario, rnd, submitter, software, tps, usd,
     to_measured, needed, claimed_ratio, measured_ratio) = row[0]
    assert (kind, claimed, provider, price) == ("usd_per_million_tokens", 0.02, "runpod", 5.89)
    assert (bench, scenario, rnd, submitter, software) == ("gpt-oss-120b", "Offline", "v6.0",
                                                           "RedHat", "vLLM")
    assert tps == pytest.approx(93070.7 / 8)
    assert usd == pytest.approx(5.89 / (93070.7 / 8 * 3600) * 1e6)  # 0.1406
    assert to_measured == pytest.approx(usd / 0.02)  # 7.03
    assert needed == pytest.approx(0.02 * 93070.7 / 8 * 3600 / 1e6)  # 0.838
    assert claimed_ratio is None and measured_ratio is None


def test_bare_70b_estimate_on_h200_is_within_2x_of_measured(warehouse: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(warehouse))
    assert cli.main(["estimate", "--inference", "--params", "70e9", "-a", "H200",
                     "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["serving_defaults"] == {"batch_size": 256.0, "precision": "fp8"}
    measured = result["measured"][0]  # Llama 2 70B Offline, v5.1 Nebius, at on_demand_min
    assert (measured["benchmark"], measured["scenario"], measured["price_basis"]) == (
        "llama2-70b", "Offline", "on_demand_min")
    # at one price per GPU-hour (the measured 8-GPU system is priced at 8-GPU offers, the
    # roofline's replica at its own size): the cost ratio is the throughput ratio
    estimate_per_gpu = result["rows"][0]["output_tokens_per_second_per_gpu"]
    ratio = measured["tokens_per_second_per_accelerator"] / estimate_per_gpu
    assert 0.5 <= ratio <= 2, ratio
    assert cli.main(["estimate", "--inference", "--params", "70e9", "-a", "H200"]) == 0
    text = capsys.readouterr().out
    assert "serving defaults: batch 256 and weights fp8" in text
    assert "estimate/measured" in text


def test_estimate_on_mi325x_shows_its_measured_cost(warehouse: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """MI325X has no rental and no purchase price: its measured Llama 2 70B result is set
    beside the roofline at the analyst's 3-year rental survey price (1.60 USD per GPU-hour:
    0.103 USD per million), never 'no MLPerf Inference result'."""
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(warehouse))
    assert cli.main(["estimate", "--inference", "--params", "70e9", "-a", "MI325X",
                     "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    measured = result["measured"][0]
    assert (measured["benchmark"], measured["scenario"], measured["price_basis"]) == (
        "llama2-70b", "Offline", "rental_3y_survey")
    assert measured["usd_per_million_output_tokens"] == pytest.approx(
        1.6 / (34520.4 / 8 * 3600) * 1e6)  # 0.103


def test_compare_reports_measured_and_says_so(warehouse: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(warehouse))
    assert cli.main(["estimate", "--inference", "--params", "5.1e9", "--params-total", "117e9",
                     "--precision", "fp4", "-a", "H100 SXM", "--compare", "B200",
                     "--claim", "15", "--benchmark", "gpt-oss-120b"]) == 0
    text = capsys.readouterr().out
    assert "answer (measured, llama2-70b Offline)" in text
    assert "3.3x the tokens per GPU" in text
    # a pair never measured together: the roofline answers, and says so
    assert cli.main(["estimate", "--inference", "--params", "70e9", "-a", "A100 SXM4 80GB",
                     "--compare", "L4"]) == 0
    assert "answer (roofline, no measurement)" in capsys.readouterr().out


def test_roofline_calibration_for_llama2_70b(con) -> None:  # type: ignore[no-untyped-def]
    fractions = dict(con.execute(
        "select accelerator_id, median(achieved_fraction) from inference_roofline_calibration "
        "where benchmark = 'llama2-70b' group by 1").fetchall())
    assert 0.5 <= fractions["nvidia-h200-sxm-141gb"] <= 2
    within = [a for a, f in fractions.items() if 0.5 <= f <= 2]
    assert len(within) >= len(fractions) - 1  # all but Gaudi 2 (0.43)


def test_report_charts_measured_cost_per_benchmark(warehouse: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(warehouse))
    out = tmp_path / "report.html"
    assert cli.main(["report", "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    section = html[html.index('<section id="measured">'):]
    section = section[:section.index("</section>")]
    assert section.count('data-chart="measured-inference"') >= 5  # one chart per benchmark
    # the tooltip names the basis, the round, the submitter and the software. The chart prices
    # at the on-demand basis (on_demand_min, never a cheaper community or spot price: Vast's
    # community 1.80 is not used): here Lambda's gpu_8x_h100_sxm5 reference, 31.92 / 8 = 3.99
    # USD per GPU-hour (catalog/reference_prices.csv, 2026-05-07); with Cisco's
    # 62351.6 / 16 = 3897.0 tokens/s per GPU: 3.99 / (3897.0 x 3600) x 10^6 = 0.284 USD
    assert ("NVIDIA H100 SXM5 80GB on llama2-70b: 0.284 USD per million output tokens at "
            "on_demand_min (lambda); 3,897 tokens/s per GPU, MLPerf v5.1 Cisco, TensorRT-LLM"
            in section)
    assert "Price basis: on_demand_min" in section
    # MI325X: no rental observed and no purchase price cited: drawn (grey) at the analyst's
    # 3-year rental survey price, 1.60 / (34,520.4 / 8 x 3600) x 10^6 = 0.103 USD
    assert ("AMD Instinct MI325X on llama2-70b: 0.103 USD per million output tokens at "
            "rental_3y_survey; 4,315 tokens/s per GPU, MLPerf v5.1 AMD, vLLM" in section)


def test_gb300_claim_at_list_and_owned_prices(con) -> None:  # type: ignore[no-untyped-def]
    """docs/inference.md's GB300 row: Oracle's 18 USD list price against Lambda's 2.99 for the
    H100 (reference prices), and the owned cost of both."""
    rows = dict(con.execute(
        "select price_basis, measured_cost_ratio from inference_claims "
        "where scenario_id = 'gpt-oss-120b-gb300-vs-hopper'").fetchall())
    ratio = (1126850 / 72) / (62351.6 / 16)  # 4.016: GB300 v6.0 vs H100 v5.1, Llama 2 70B
    assert rows["on_demand_min"] == pytest.approx(ratio / (18 / 2.99))  # 0.667: dearer
    assert rows["owned"] == pytest.approx(3.28, abs=0.01)


def test_a_republished_result_replaces_its_predecessor(tmp_path: Path) -> None:
    """Trap 18: results repositories get fixes after publication. The same path loaded again
    with other bytes is the same stream: the newer file is in force, the older one kept raw."""
    from gpucost.flows.ingest import ingest_files

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "mlperf_results"
    rel = ("inference_results_v5.1/closed/Fixture/results/TestBox-H100x8_TRT/llama2-70b-99/"
           "Offline/performance/run_1/mlperf_log_summary.txt")
    system = "inference_results_v5.1/closed/Fixture/systems/TestBox-H100x8_TRT.json"
    fixed = tmp_path / "fixed" / rel
    fixed.parent.mkdir(parents=True)
    fixed.write_text((fixture / rel).read_text().replace("Tokens per second: 2.4e+04",
                                                         "Tokens per second: 2.5e+04"))
    data = tmp_path / "data"
    ingest_files("mlperf_results", [fixture / system, fixture / rel], data_dir=data)
    outcomes, _ = ingest_files("mlperf_results", [fixed], data_dir=data)
    assert [o.status for o in outcomes] == ["replayed"]
    con = duckdb.connect(str(data / "gpucost.duckdb"), read_only=True)
    try:
        rows = con.execute("select tokens_per_second, tokens_per_second_per_accelerator, "
                           "software_family from inference_throughput").fetchall()
    finally:
        con.close()
    assert rows == [(25000.0, 3125.0, "TensorRT-LLM")]  # 25,000 / 8 GPUs


def test_reingesting_the_tree_adds_nothing(warehouse: Path, shared_data: Path,
                                           monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Idempotent by content and path: the same tree again is 142 unchanged files, one line."""
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(warehouse))
    assert cli.main(["ingest", "mlperf_results", str(shared_data / "throughput")]) == 0
    out = capsys.readouterr().out
    assert "142 files: 0 loaded (0 rows, 0 rejected), 142 unchanged, 0 refused" in out
    con = duckdb.connect(str(warehouse / "gpucost.duckdb"), read_only=True)
    try:
        assert con.execute("select count(*) from inference_throughput").fetchall() == [(104,)]
    finally:
        con.close()
