"""SkyPilot catalog CSV parser: every recorded catalog and small fixtures of our own."""

from __future__ import annotations

from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from catalog.records import EmptyPayloadError, ParseError, ParseResult, Payload
from catalog.sources import skypilot

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "skypilot"
RECORDED = "prices/skypilot_format"
HEADER_ONLY = "lambda_vms_2026-05-07_failed_run_header_only.csv"

# file -> (stream, accepted rows by pricing model, rejects by reason)
EXPECTED = {
    "azure_vms_2026-05-20.csv": ("azure", {"on_demand": 829, "spot": 803}, {}),
    "gcp_vms_2026-04-02.csv": ("gcp", {"on_demand": 2436, "spot": 2431},
                               {"duplicate_offer": 308, "gpu_price_missing": 5}),
    "gcp_vms_2026-05-20.csv": ("gcp", {"on_demand": 2436, "spot": 2431},
                               {"duplicate_offer": 308, "gpu_price_missing": 2}),
    "lambda_vms_2026-04-02.csv": ("lambda", {"on_demand": 255}, {}),
    "lambda_vms_2026-05-07.csv": ("lambda", {"on_demand": 391}, {}),
    "vast_vms_2026-04-29.csv": ("vast", {"community": 64}, {}),
}


def _payload(path: Path, name: str | None = None) -> Payload:
    return Payload(name=name or path.name, content=path.read_bytes(), ext="csv")


@cache
def _parse_file(path: Path) -> ParseResult:
    return skypilot.parse(_payload(path))


def _one(result: ParseResult, sku: str, region: str, model: str = "on_demand"):
    rows = [o for o in result.prices
            if o.sku == sku and o.region == region and o.pricing_model == model]
    assert len(rows) == 1, rows
    return rows[0]


# --- real recorded catalogs ------------------------------------------------------------------

def test_every_recorded_skypilot_file_is_covered(shared_data: Path) -> None:
    names = {p.name for p in (shared_data / RECORDED).glob("*.csv")}
    assert names == set(EXPECTED) | {HEADER_ONLY}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_recorded_catalog_counts(shared_data: Path, name: str) -> None:
    stream, models, rejects = EXPECTED[name]
    result = _parse_file(shared_data / RECORDED / name)
    assert result.stream == stream
    assert dict(Counter(o.pricing_model for o in result.prices)) == models
    assert dict(Counter(r.reason for r in result.rejects)) == rejects
    assert all(o.provider == stream and o.gpu_name_raw for o in result.prices)
    assert all(o.price_per_hour and o.price_per_hour > 0 for o in result.prices)


def test_recorded_header_only_catalog_is_refused(shared_data: Path) -> None:
    with pytest.raises(EmptyPayloadError, match="header only"):
        skypilot.parse(_payload(shared_data / RECORDED / HEADER_ONLY))


def test_recorded_gcp_combines_vm_and_gpu_rows(shared_data: Path) -> None:
    result = _parse_file(shared_data / RECORDED / "gcp_vms_2026-05-20.csv")
    a2 = _one(result, "a2-highgpu-1g", "us-central1-a")
    assert a2.price_per_hour == pytest.approx(3.67339)  # 0.73948 + A100x1 2.93391
    assert (a2.gpu_name_raw, a2.gpu_count, a2.gpu_memory_gb) == ("A100", 1.0, 40.0)
    assert (a2.vcpus, a2.ram_gb) == (12.0, 85.0)
    assert _one(result, "a2-highgpu-1g", "us-central1-a", "spot").price_per_hour == \
        pytest.approx(0.36975 + 1.4341)
    g2 = _one(result, "g2-standard-4", "us-central1-a")
    assert g2.price_per_hour == pytest.approx(0.70683)  # 0.14679 + L4x1 0.56004
    assert (g2.gpu_name_raw, g2.gpu_count, g2.gpu_memory_gb) == ("L4", 1.0, 24.0)
    a3 = _one(result, "a3-highgpu-8g", "us-central1-a")
    assert (a3.gpu_name_raw, a3.gpu_count) == ("H100", 8.0)
    a4 = _one(result, "a4-highgpu-8g", "us-central1-b")  # VM row 0.0, B200 slice SKUs
    assert (a4.price_per_hour, a4.gpu_name_raw, a4.gpu_count) == (90.216, "B200", 8.0)
    assert _one(result, "a2-ultragpu-1g", "us-central1-a").gpu_name_raw == "A100-80GB"
    # bundled GPU rows are folded into their machines, never offers of their own
    assert not any(o.sku in {"A100x1", "L4x1", "H100x8", "B200x8"} for o in result.prices)
    # attachable N1 GPUs are GPU-only offers
    t4 = _one(result, "T4x1", "us-central1-a")
    assert (t4.price_per_hour, t4.gpu_name_raw, t4.gpu_count, t4.vcpus) == (0.35, "T4", 1.0,
                                                                             None)
    tpu = _one(result, "tpu-v2-8", "us-central1-b")
    assert (tpu.price_per_hour, tpu.gpu_name_raw, tpu.gpu_count) == (4.5, "tpu-v2-8", 4.0)
    # plain VMs are not GPU offers
    assert not any(o.sku.startswith(("n1-", "e2-", "c4-")) for o in result.prices)
    # zones stay distinct
    assert {o.region for o in result.prices if o.sku == "a2-highgpu-1g"} >= {
        "us-central1-a", "us-central1-b", "us-central1-c", "us-central1-f"}


def test_recorded_gcp_spot_moves_between_dates(shared_data: Path) -> None:
    april = _parse_file(shared_data / RECORDED / "gcp_vms_2026-04-02.csv")
    may = _parse_file(shared_data / RECORDED / "gcp_vms_2026-05-20.csv")
    assert _one(april, "g2-standard-4", "us-central1-a").price_per_hour == \
        _one(may, "g2-standard-4", "us-central1-a").price_per_hour
    assert _one(april, "g2-standard-4", "us-central1-a", "spot").price_per_hour == \
        pytest.approx(0.05874 + 0.2231)
    assert _one(may, "g2-standard-4", "us-central1-a", "spot").price_per_hour == \
        pytest.approx(0.06168 + 0.2343)


def test_recorded_lambda_prices_change(shared_data: Path) -> None:
    april = _parse_file(shared_data / RECORDED / "lambda_vms_2026-04-02.csv")
    may = _parse_file(shared_data / RECORDED / "lambda_vms_2026-05-07.csv")
    h100_apr = [o for o in april.prices if o.sku == "gpu_8x_h100_sxm5"]
    assert len(h100_apr) == 17  # every type listed in all 17 regions
    assert {o.price_per_hour for o in h100_apr} == {27.52}
    h100 = next(o for o in may.prices if o.sku == "gpu_8x_h100_sxm5")
    assert (h100.price_per_hour, h100.gpu_name_raw, h100.gpu_count, h100.gpu_memory_gb) == (
        31.92, "H100", 8.0, 80.0)
    assert {o.price_per_hour for o in april.prices if o.sku == "gpu_1x_a10"} == {0.86}
    assert {o.price_per_hour for o in may.prices if o.sku == "gpu_1x_a10"} == {1.29}
    assert not any(o.sku.startswith("cpu_") for o in may.prices)


def test_recorded_vast_and_azure_quirks(shared_data: Path) -> None:
    vast = _parse_file(shared_data / RECORDED / "vast_vms_2026-04-29.csv")
    assert "Denmark, DK, EU" in {o.region for o in vast.prices}
    two_h200 = next(o for o in vast.prices if o.sku == "2x-H200-32-65536")
    assert two_h200.gpu_memory_gb == 140.4  # 287542 MiB is the total of both GPUs
    assert not any(o.pricing_model != "community" for o in vast.prices)  # 0.00 spot = unknown
    az = _parse_file(shared_data / RECORDED / "azure_vms_2026-05-20.csv")
    nv6 = {o.gpu_count for o in az.prices if o.sku == "Standard_NV6ads_A10_v5"}
    assert nv6 == {0.167}


# --- own fixtures ----------------------------------------------------------------------------

def test_fixture_gcp_tiny() -> None:
    result = skypilot.parse(_payload(FIXTURES / "gcp_vms_tiny.csv", "gcp/vms.csv"))
    assert result.stream == "gcp"
    got = {(o.sku, o.region, o.pricing_model): o.price_per_hour for o in result.prices}
    assert got == pytest.approx({
        ("a2-highgpu-1g", "us-central1-a", "on_demand"): 3.67339,
        ("a2-highgpu-1g", "us-central1-a", "spot"): 1.80385,
        ("g2-standard-4", "us-central1-a", "on_demand"): 0.70683,
        ("g2-standard-4", "us-central1-a", "spot"): 0.29598,
        ("a4-highgpu-8g", "us-central1-b", "on_demand"): 90.216,
        ("a4-highgpu-8g", "us-central1-b", "spot"): 34.2368,
        ("T4x1", "us-central1-a", "on_demand"): 0.35,
        ("T4x1", "us-central1-a", "spot"): 0.1654,
        ("tpu-v5p-8", "us-east5-a", "on_demand"): 16.8,
    })
    tpu = next(o for o in result.prices if o.sku == "tpu-v5p-8")
    assert (tpu.gpu_name_raw, tpu.gpu_count) == ("tpu-v5p-8", 4.0)
    reasons = Counter(r.reason for r in result.rejects)
    assert reasons == {"zero_or_missing_price": 1, "gpu_price_missing": 1,
                       "unknown_accelerator_machine": 1, "duplicate_offer": 2}


def test_fixture_lambda_tiny() -> None:
    result = skypilot.parse(_payload(FIXTURES / "lambda_vms_tiny.csv",
                                     "lambda_vms_2026-06-01.csv"))
    assert result.stream == "lambda"
    assert [(o.sku, o.region, o.price_per_hour, o.gpu_count, o.gpu_memory_gb)
            for o in result.prices] == [
        ("gpu_8x_h100_sxm5", "us-east-1", 31.92, 8.0, 80.0),
        ("gpu_1x_gh200", "us-east-3", 2.29, 1.0, 96.0),
    ]
    assert [r.reason for r in result.rejects] == ["zero_or_missing_price"]


def test_fixture_vast_tiny() -> None:
    result = skypilot.parse(_payload(FIXTURES / "vast_vms_tiny.csv", "vast/vms.csv"))
    got = {(o.sku, o.pricing_model): (o.price_per_hour, o.gpu_count, o.gpu_memory_gb, o.region)
           for o in result.prices}
    assert got == {
        ("2x-H200-32-65536", "community"): (5.65, 2.0, 140.4, "Denmark, DK, EU"),
        ("1x-RTX_4090-32-65536", "community"): (0.40, 1.0, 24.0, ", US, NA"),
        ("1x-RTX_4090-32-65536", "interruptible_bid"): (0.31, 1.0, 24.0, ", US, NA"),
        ("half-A100-16-32768", "community"): (0.60, 0.5, None, "Oregon, US, NA"),
    }
    assert result.rejects == []


def test_fixture_header_only_and_missing_columns() -> None:
    with pytest.raises(EmptyPayloadError, match="header only"):
        skypilot.parse(_payload(FIXTURES / "lambda_vms_header_only.csv", "lambda/vms.csv"))
    with pytest.raises(ParseError, match="InstanceType"):
        skypilot.parse(_payload(FIXTURES / "missing_columns.csv", "lambda/vms.csv"))
    with pytest.raises(EmptyPayloadError):
        skypilot.parse(Payload(name="lambda/vms.csv", content=b""))


@pytest.mark.parametrize(("name", "cloud"), [
    ("lambda_vms_2026-04-02.csv", "lambda"),
    ("gcp/vms.csv", "gcp"),
    ("vast_vms_2026-04-29.csv", "vast"),
    ("lambda_vms_2026-05-07_failed_run_header_only.csv", "lambda"),
    ("do/vms.csv", "do"),
])
def test_cloud_of_payload_name(name: str, cloud: str) -> None:
    assert skypilot.cloud_of(Payload(name=name, content=b"")) == cloud


def test_cloud_from_url_and_unknown_name() -> None:
    p = Payload(name="0123abcd.csv", content=b"",
                url="https://example.invalid/catalogs/v8/runpod/vms.csv")
    assert skypilot.cloud_of(p) == "runpod"
    with pytest.raises(ParseError, match="cloud"):
        skypilot.cloud_of(Payload(name="0123abcd.csv", content=b""))


def test_provider_mapping_for_digitalocean() -> None:
    content = (b"InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\n"
               b"gpu-h100x1-80gb,H100,1,20,240,3.39,nyc2\n")
    result = skypilot.parse(Payload(name="do/vms.csv", content=content))
    assert [(o.provider, o.sku, o.region) for o in result.prices] == [
        ("digitalocean", "gpu-h100x1-80gb", "nyc2")]
    assert result.stream == "do"
