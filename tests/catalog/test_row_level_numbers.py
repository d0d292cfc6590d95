"""Row-level numbers (issue 27, item 6): one `inf` GPU count once refused a whole catalog
(OverflowError at load), and counts 0, -1, 1.5 or unparseable text were published as offers.
A bad count now refuses its row with the reason `gpu_count_invalid` (the parsers, through
catalog.parsing.read_gpu_count; the loader's gate as the last line of defence), and the
other rows load and publish. Sources whose rows can be a slice of one GPU keep their slices."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest

from gpucost.catalog.pages import leading_gpu_count
from gpucost.catalog.parsing import GPU_COUNT_INVALID, read_gpu_count
from gpucost.catalog.records import Payload
from gpucost.catalog.sources import crosscheck, gcp_pricing_page, oci, skypilot, vast
from gpucost.flows.ingest import ingest_files

WHEN = datetime(2026, 3, 1, tzinfo=UTC)
BAD = ["inf", 0, -1, 1.5, "four"]  # one row each: Infinity, zero, negative, 1.5, text


def _warehouse(data: Path, sql: str, db: str = "raw.duckdb") -> list[tuple]:
    with duckdb.connect(str(data / db), read_only=True) as con:
        return con.execute(sql).fetchall()


@pytest.mark.parametrize("value, fractions, count, why", [
    (8, False, 8.0, ""), ("8", False, 8.0, ""), (" 1,024 ", False, 1024.0, ""),
    (None, False, None, ""), ("  ", False, None, ""),
    ("inf", False, None, "not finite"), (float("inf"), True, None, "not finite"),
    ("1e400", False, None, "not finite"), ("NaN", True, None, "not finite"),
    (10 ** 400, False, None, "not a number"), (True, False, None, "not a number"),
    ([1], False, None, "not a number"), ("four", False, None, "not a number"),
    (0, True, None, "not above zero"), (-1, True, None, "not above zero"),
    (1.5, False, None, "not a whole number"), (1.5, True, None, "nor a slice of one"),
    (0.5, False, None, "not a whole number"), (1 / 3, True, 1 / 3, ""), (2.0, True, 2.0, ""),
])
def test_read_gpu_count(value, fractions, count, why):
    got, problem = read_gpu_count(value, fractions=fractions)
    assert got == count
    assert (why in problem) if why else problem == ""


def test_leading_gpu_count_reads_the_number_a_cell_starts_with():
    assert leading_gpu_count("4^1") == (4.0, "")
    assert leading_gpu_count("8 GPUs") == (8.0, "")
    assert leading_gpu_count("") == (None, "")
    assert leading_gpu_count("0")[1] == "GPU count 0 is not above zero"
    assert "not a whole number" in leading_gpu_count("1.5")[1]


# ---- a JSON API source: Vast ------------------------------------------------------------

def _vast_body() -> bytes:
    good = [{"id": 1, "gpu_name": "RTX 4090", "num_gpus": 1, "gpu_ram": 24564, "dph_base": 0.4},
            {"id": 2, "gpu_name": "RTX 4090", "num_gpus": 2, "gpu_ram": 24564, "dph_base": 0.8},
            {"id": 3, "gpu_name": "A100 SXM4", "num_gpus": 0.5, "gpu_ram": 40960,
             "dph_base": 0.6}]  # half a card: Vast's documented slice, kept and flagged
    bad = [{"id": 10 + i, "gpu_name": "RTX 4090", "num_gpus": n, "dph_base": 0.4}
           for i, n in enumerate(BAD)]
    text = json.dumps({"offers": good + bad})
    # JSON's own Infinity (Python's json reads it): the `inf` offer as a number, not a string
    return text.replace('"num_gpus": "inf"', '"num_gpus": Infinity').encode()


def test_vast_refuses_each_bad_count_alone():
    result = vast.parse(Payload(name="bundles.json", content=_vast_body()))
    community = sorted((o.sku, o.gpu_count) for o in result.prices
                       if o.pricing_model == "community")
    assert community == [("0.5x A100 SXM4 40GB", 0.5), ("1x RTX 4090", 1.0),
                         ("2x RTX 4090", 2.0)]
    assert [r.reason for r in result.rejects] == [GPU_COUNT_INVALID] * 5
    details = [r.detail for r in result.rejects]
    assert "offer 10: GPU count inf is not finite" in details[0]
    assert "not above zero" in details[1] and "not above zero" in details[2]
    assert "1.5 is not a whole number" in details[3]
    assert "'four' is not a number" in details[4]


def test_vast_with_bad_counts_loads_and_publishes_its_good_rows(tmp_path):
    path = tmp_path / "bundles.json"
    path.write_bytes(_vast_body())
    # dated after the Vast reference prices of catalog/reference_prices.csv (2026-04-29),
    # which a bucket observed earlier yields to (tests/catalog/test_source_vast.py)
    [outcome], published = ingest_files("vast", [path], data_dir=tmp_path / "wh",
                                        observed_at=datetime(2026, 11, 1, tzinfo=UTC))
    assert outcome.status == "replayed" and outcome.rows_loaded == 3
    assert outcome.rows_rejected == 5 and published is not None
    reasons = _warehouse(tmp_path / "wh", "select reason, count(*) from rejects group by 1")
    assert reasons == [(GPU_COUNT_INVALID, 5)]
    counts = _warehouse(tmp_path / "wh", "select gpu_count from gpu_offers where source = "
                        "'vast' and pricing_model = 'community' order by 1", "gpucost.duckdb")
    assert counts == [(0.5,), (1.0,), (2.0,)]


# ---- a CSV source: SkyPilot -------------------------------------------------------------

HEADER = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo," \
         "SpotPrice\n"
SKY_GOOD = ("gpu_1x_a10,A10,1.0,30,200,0.75,us-east-1,,\n"
            "gpu_8x_h100_sxm5,H100,8.0,208,1800,23.92,us-east-1,,\n"
            "cpu_4x,,,4,16,0.2,us-east-1,,\n")  # a CPU row: skipped, not a reject


def _sky_body() -> str:
    bad = "".join(f"gpu_bad_{i},A10,{n},30,200,0.75,us-east-1,,\n" for i, n in enumerate(BAD))
    return HEADER + SKY_GOOD + bad


def test_skypilot_refuses_each_bad_count_alone():
    result = skypilot.parse(Payload(name="lambda_vms.csv", content=_sky_body().encode()))
    assert sorted((o.sku, o.gpu_count) for o in result.prices) == [
        ("gpu_1x_a10", 1.0), ("gpu_8x_h100_sxm5", 8.0)]
    assert [(r.reason, r.detail.split(":")[0]) for r in result.rejects] == [
        (GPU_COUNT_INVALID, f"gpu_bad_{i} A10") for i in range(5)]


def test_skypilot_keeps_the_slices_it_states():
    """Azure's partitions (0.333 of an A10) and a name that states a share (A10*1/3)."""
    body = HEADER + ("Standard_NV12ads_A10_v5,A10,0.333,12,110,0.908,eastus,,\n"
                     "ecs.gn7i-c8g1.2xlarge,A10*1/3,1,8,30,0.9,cn-hangzhou,,\n"
                     "Standard_bad,A10,1.333,12,110,0.908,eastus,,\n")
    azure = skypilot.parse(Payload(name="azure_vms.csv", content=body.encode()))
    counts = {o.sku: o.gpu_count for o in azure.prices}
    assert counts["Standard_NV12ads_A10_v5"] == pytest.approx(1 / 3, abs=1e-3)
    assert counts["ecs.gn7i-c8g1.2xlarge"] == pytest.approx(1 / 3, abs=1e-3)
    assert [r.reason for r in azure.rejects] == [GPU_COUNT_INVALID]


def test_skypilot_with_an_inf_count_loads_its_other_rows(tmp_path):
    """The acceptance case: was UnexpectedPayloadError (OverflowError) for the whole file."""
    path = tmp_path / "lambda_vms_2026-03-01.csv"
    path.write_text(_sky_body())
    [outcome], published = ingest_files("skypilot", [path], data_dir=tmp_path / "wh")
    assert (outcome.status, outcome.error_type) == ("replayed", None)
    assert (outcome.rows_loaded, outcome.rows_rejected) == (2, 5)
    rejects = _warehouse(tmp_path / "wh", "select reason, detail, raw_row from rejects "
                                          "order by raw_row")
    assert [r for r, _, _ in rejects] == [GPU_COUNT_INVALID] * 5
    assert any("'inf' is not finite" in d for _, d, _ in rejects)
    assert all(raw.startswith("InstanceType=gpu_bad_") or "gpu_bad_" in raw
               for _, _, raw in rejects)
    published_counts = _warehouse(tmp_path / "wh", "select sku, gpu_count from gpu_offers "
                                  "where source = 'skypilot' order by 1", "gpucost.duckdb")
    assert published_counts == [("gpu_1x_a10", 1.0), ("gpu_8x_h100_sxm5", 8.0)]
    assert published is not None


# ---- more formats: a curated CSV, OCI's JSON, a pricing page ----------------------------

def test_crosscheck_refuses_each_bad_count_alone():
    rows = "".join(f"AWS,A100 (40 GB),Ampere,{n},40,96,1152,$9.99,,,bad{i}\n"
                   for i, n in enumerate(BAD))
    body = ("Cloud,GPU Type,GPU Arch,GPUs,GPU RAM,vCPUs,RAM,On-demand,Per-GPU,Spot,Name\n"
            "AWS,A100 (40 GB),Ampere,8,40,96,1152,$32.77,,,p4d.24xlarge\n" + rows)
    result = crosscheck.parse(Payload(name="cloud-gpus.csv", content=body.encode()))
    assert [(o.sku, o.gpu_count) for o in result.prices] == [("p4d.24xlarge", 8.0)]
    assert [r.reason for r in result.rejects] == [GPU_COUNT_INVALID] * 5


def test_oci_refuses_a_shape_with_an_infinite_gpu_count():
    """JSON's Infinity and a 1.5 in gpuQty: those shapes alone (was: Infinity passed)."""
    import io
    import zipfile

    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "oci"
    shapes = json.loads((fixtures / "shapes.json").read_bytes())
    by_name = {s["name"]: s for s in shapes["items"] if isinstance(s, dict)}
    by_name["VM.GPU.A10.2"]["gpuQty"] = float("inf")
    by_name["BM.GPU.MI300X.8"]["gpuQty"] = 1.5
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in oci.DOCUMENTS:
            archive.writestr(name, json.dumps(shapes) if name.startswith("shapes")
                             else (fixtures / name).read_bytes())
    result = oci.parse(Payload(name="cost_estimator.zip", content=buffer.getvalue(),
                               ext="zip"))
    assert [o.sku for o in result.prices] == ["BM.GPU.H100.8"]
    assert sorted((r.reason, r.detail.split(":")[0]) for r in result.rejects
                  if r.reason == GPU_COUNT_INVALID) == [
        (GPU_COUNT_INVALID, "BM.GPU.MI300X.8"), (GPU_COUNT_INVALID, "VM.GPU.A10.2")]


def test_gcp_pricing_page_refuses_a_count_that_divides_by_zero():
    assert gcp_pricing_page._gpu_count("GPUs: 1/8") == (0.125, "")
    assert gcp_pricing_page._gpu_count("GPUs: 8") == (8.0, "")
    assert "divides by zero" in gcp_pricing_page._gpu_count("GPUs: 1/0")[1]
    assert "nor a slice" in gcp_pricing_page._gpu_count("GPUs: 3/2")[1]
    assert gcp_pricing_page._gpu_count("vCPUs: 4") == (None, "")
