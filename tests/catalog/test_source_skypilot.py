"""SkyPilot catalog CSV parser: every recorded catalog and small fixtures of our own."""

from __future__ import annotations

from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from gpucost.catalog.records import EmptyPayloadError, ParseError, ParseResult, Payload
from gpucost.catalog.sources import skypilot
from gpucost.catalog.sources._skypilot_csv import (
    gpu_name_and_count,
    per_gpu_memory_gb,
    read_rows,
    size_is_total,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "skypilot"
RECORDED = "prices/skypilot_format"
HEADER_ONLY = "lambda_vms_2026-05-07_failed_run_header_only.csv"

# file -> (stream, accepted rows by pricing model, rejects by reason)
EXPECTED = {
    "azure_vms_2026-05-20.csv": ("azure", {"on_demand": 829, "spot": 803}, {}),
    # the tpu-v6e 700.0 rows (one price for 3+ slice sizes in a zone) are placeholders
    "gcp_vms_2026-04-02.csv": ("gcp", {"on_demand": 2412, "spot": 2399},
                               {"duplicate_offer": 292, "gpu_price_missing": 5,
                                "placeholder_price": 72}),
    "gcp_vms_2026-05-20.csv": ("gcp", {"on_demand": 2412, "spot": 2399},
                               {"duplicate_offer": 292, "gpu_price_missing": 2,
                                "placeholder_price": 72}),
    "lambda_vms_2026-04-02.csv": ("lambda", {"on_demand": 255}, {}),
    "lambda_vms_2026-05-07.csv": ("lambda", {"on_demand": 391}, {}),
    "vast_vms_2026-04-29.csv": ("vast", {"community": 64}, {}),
    # SkyPilot's own catalog repository (skypilot-org/skypilot-catalog)
    "cudo_vms_113567a.csv": ("cudo", {"on_demand": 156}, {}),
    "do_vms_1fbe733.csv": ("do", {"on_demand": 2}, {}),  # 36 CPU droplets skipped
    "fluidstack_vms_002403b.csv": ("fluidstack", {"on_demand": 23}, {}),
    "hyperbolic_vms_0082b04.csv": ("hyperbolic", {"on_demand": 3}, {}),
    "hyperstack_vms_fdc9d90.csv": ("hyperstack", {"on_demand": 25}, {}),
    # 27 V100 rows, one per zone: 9 regions, the other zones' identical rows are duplicates
    "ibm_vms_6cd128a.csv": ("ibm", {"on_demand": 9}, {"duplicate_offer": 18}),
    "jarvislabs_vms_57d6578.csv": ("jarvislabs", {"on_demand": 16}, {}),
    "jarvislabs_vms_8f09711.csv": ("jarvislabs", {"on_demand": 19}, {}),
    "lium_vms_04a03ae.csv": ("lium", {"on_demand": 40}, {}),
    "nebius_vms_0082b04.csv": ("nebius", {"on_demand": 21, "spot": 8}, {}),
    "paperspace_vms_e520054.csv": ("paperspace", {"on_demand": 14}, {}),
    # 115 GPU rows: 100 priced, 15 GPU __SPOT rows (empty Price) are spot offers
    "primeintellect_vms_d9a304e.csv": ("primeintellect", {"on_demand": 100, "spot": 15}, {}),
    # OVHcloud: USD, the prices of ovhcloud.com/en/public-cloud/prices/ (catalog/providers.csv)
    "ovhcloud_vms_8a258f5.csv": ("ovhcloud", {"on_demand": 42}, {}),
    "scaleway_vms_1fbe733.csv": ("scaleway", {"on_demand": 5}, {}),  # EUR
    "scp_vms_3f8faf1.csv": ("scp", {"on_demand": 12}, {}),
    "seeweb_vms_004a1ae.csv": ("seeweb", {"on_demand": 27}, {}),  # EUR
    "shadeform_vms_002363d.csv": ("shadeform", {"on_demand": 118}, {}),
    # 22 GPU rows: 17 priced, 5 spot-only; 16 rows with a spot price
    "verda_vms_000c1d0.csv": ("verda", {"on_demand": 17, "spot": 16}, {}),
    "verda_vms_538675a.csv": ("verda", {"on_demand": 45, "spot": 38}, {}),
    "yotta_vms_1f69048.csv": ("yotta", {"on_demand": 8}, {}),
}
# files refused as a whole: every GPU row is a reject -> EmptyPayloadError (reason -> rows)
REFUSED = {
    "mithril_vms_1f9eb0c.csv": {"placeholder_price": 4},
    "alicloud_vms_003c56a_first134lines.csv": {"currency_converted": 133},
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
    assert names == set(EXPECTED) | set(REFUSED) | {HEADER_ONLY}
    assert len(names) == 29


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_recorded_catalog_refused_as_a_whole(shared_data: Path, name: str) -> None:
    with pytest.raises(EmptyPayloadError) as info:
        skypilot.parse(_payload(shared_data / RECORDED / name))
    for reason, n in REFUSED[name].items():
        assert f"'{reason}': {n}" in str(info.value)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_recorded_catalog_counts(shared_data: Path, name: str) -> None:
    stream, models, rejects = EXPECTED[name]
    result = _parse_file(shared_data / RECORDED / name)
    assert result.stream == stream
    assert dict(Counter(o.pricing_model for o in result.prices)) == models
    assert dict(Counter(r.reason for r in result.rejects)) == rejects
    provider = skypilot.PROVIDER_OF_CLOUD.get(stream, stream)
    assert all(o.provider == provider and o.gpu_name_raw for o in result.prices)
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
    # attachable N1 GPUs come with the cheapest N1 host of their zone and pricing model:
    # us-central1-a T4x1 0.35 + n1-standard-1 0.0475 = 0.3975; spot 0.1654 + 0.01744 = 0.18284
    t4 = _one(result, "n1-standard-1+T4x1", "us-central1-a")
    assert (t4.price_per_hour, t4.gpu_name_raw, t4.gpu_count, t4.vcpus, t4.ram_gb,
            t4.price_kind) == (0.3975, "T4", 1.0, 1.0, 3.75, "gpu_with_host")
    assert _one(result, "n1-standard-1+T4x1", "us-central1-a", "spot").price_per_hour == \
        pytest.approx(0.18284)
    # V100 x8 allows hosts up to 96 vCPUs: still the 1-vCPU n1-standard-1 (0.0475)
    v100 = _one(result, "n1-standard-1+V100x8", "us-central1-a")
    assert v100.price_per_hour == pytest.approx(19.84 + 0.0475)
    # every attach-only GPU row of this catalog has a host in its zone: none is GPU-only
    assert Counter(o.price_kind for o in result.prices) == {"instance": 4235,
                                                            "gpu_with_host": 576}
    assert not any(o.sku.startswith(("T4x", "V100x", "P100x", "P4x")) for o in result.prices)
    tpu = _one(result, "tpu-v2-8", "us-central1-b")
    assert (tpu.price_per_hour, tpu.gpu_name_raw, tpu.gpu_count) == (4.5, "tpu-v2-8", 4.0)
    # plain VMs are not GPU offers (an N1 VM is only ever a GPU's host)
    assert not any(o.sku.startswith(("n1-", "e2-", "c4-")) and o.price_kind != "gpu_with_host"
                   for o in result.prices)
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
    assert nv6 == {1 / 6}  # SkyPilot writes 0.167; the count comes from the azure size table
    # SkyPilot lists the NVv4 partitions as 1 GPU each: the azure table says 1/8, 1/4, 1/2
    nv4 = {o.sku: o.gpu_count for o in az.prices if o.sku.startswith("Standard_NV") and
           o.sku.endswith("as_v4")}
    assert nv4 == {"Standard_NV4as_v4": 1 / 8, "Standard_NV8as_v4": 1 / 4,
                   "Standard_NV16as_v4": 1 / 2, "Standard_NV32as_v4": 1.0}


def _rec(shared_data: Path, name: str) -> ParseResult:
    return _parse_file(shared_data / RECORDED / name)


def test_recorded_nebius_hyperstack_fluidstack(shared_data: Path) -> None:
    nebius = _rec(shared_data, "nebius_vms_0082b04.csv")
    one = _one(nebius, "gpu-h100-sxm_1gpu-16vcpu-200gb", "eu-north1")
    assert (one.price_per_hour, one.gpu_name_raw, one.gpu_count, one.gpu_memory_gb,
            one.currency) == (2.95, "H100", 1.0, 80.0, "USD")
    assert _one(nebius, "gpu-h100-sxm_1gpu-16vcpu-200gb", "eu-north1", "spot"
                ).price_per_hour == 1.25
    assert _one(nebius, "gpu-h100-sxm_8gpu-128vcpu-1600gb", "eu-north1").price_per_hour == 23.6
    assert _one(nebius, "gpu-h100-sxm_8gpu-128vcpu-1600gb", "eu-north1", "spot"
                ).price_per_hour == 10.0
    # GpuInfo with `null` (neither a Python literal nor JSON) neither crashes nor rejects
    hs = _rec(shared_data, "hyperstack_vms_fdc9d90.csv")
    sxm = [o for o in hs.prices if o.sku == "n3-H100-SXM5x8"]
    assert {o.region for o in sxm} == {"CANADA-1", "US-1"}
    assert {(o.price_per_hour / o.gpu_count, o.gpu_name_raw, o.gpu_memory_gb) for o in sxm} == {
        (2.40, "H100-80G-SXM5", 80.0)}
    fs = _rec(shared_data, "fluidstack_vms_002403b.csv")
    nvl = _one(fs, "H100_NVLINK_80GB::8", "FINLAND")
    assert (nvl.price_per_hour, nvl.gpu_name_raw, nvl.gpu_count) == (23.92, "H100", 8.0)


def test_recorded_mithril_placeholders_are_refused(shared_data: Path) -> None:
    rows = read_rows(_payload(shared_data / RECORDED / "mithril_vms_1f9eb0c.csv"))[1]
    assert skypilot.is_placeholder_catalog(rows)  # 1.0 / 8.0 = 1.00 per GPU, spot = price
    for name in ("nebius_vms_0082b04.csv", "hyperbolic_vms_0082b04.csv",
                 "yotta_vms_1f69048.csv"):  # one price per GPU everywhere, but no spot twin
        rows = read_rows(_payload(shared_data / RECORDED / name))[1]
        assert not skypilot.is_placeholder_catalog(rows), name


def test_recorded_gcp_tpu_v6e_placeholders(shared_data: Path) -> None:
    result = _rec(shared_data, "gcp_vms_2026-05-20.csv")
    assert not any(o.price_per_hour == 700.0 for o in result.prices)
    details = [r.detail for r in result.rejects if r.reason == "placeholder_price"]
    assert details and all(d.startswith("tpu-v6e-") for d in details)
    assert any(d.startswith("tpu-v6e-1 asia-east1-c on_demand: 700.0") for d in details)
    # real v6e prices stay: 2.70 per chip-hour, spot 0.51442, in us-central1-a
    assert _one(result, "tpu-v6e-1", "us-central1-a").price_per_hour == 2.7
    assert _one(result, "tpu-v6e-8", "us-central1-a").price_per_hour == 21.6
    assert _one(result, "tpu-v6e-1", "us-central1-a", "spot").price_per_hour == 0.51442
    # southamerica-west1-a: on-demand 2.7 is real, only the 700.0 spot is a placeholder
    assert _one(result, "tpu-v6e-1", "southamerica-west1-a").price_per_hour == 2.7
    assert not [o for o in result.prices if o.sku == "tpu-v6e-1" and o.pricing_model == "spot"
                and o.region == "southamerica-west1-a"]


def test_recorded_currencies(shared_data: Path) -> None:
    scw = _rec(shared_data, "scaleway_vms_1fbe733.csv")
    h100 = _one(scw, "H100-1-80G", "fr-par-2")
    assert (h100.price_per_hour, h100.currency) == (2.52, "EUR")
    assert {o.currency for o in scw.prices} == {"EUR"}
    seeweb = _rec(shared_data, "seeweb_vms_004a1ae.csv")
    assert {o.currency for o in seeweb.prices} == {"EUR"}
    ecs = _one(seeweb, "ECS1GPU8", "")  # empty Region stays empty
    assert (ecs.price_per_hour, ecs.gpu_name_raw, ecs.currency) == (1.89, "H100", "EUR")
    assert {o.currency for o in _rec(shared_data, "cudo_vms_113567a.csv").prices} == {"USD"}
    # OVHcloud's catalog is scraped from its international page, priced in USD: its 42 rows
    # are accepted with that currency (a100-180: 1 x A100 80GB at 3.07, the page's $3.07)
    ovh = _rec(shared_data, "ovhcloud_vms_8a258f5.csv")
    assert len(ovh.prices) == 42 and not ovh.rejects
    assert {o.currency for o in ovh.prices} == {"USD"}
    a100 = _one(ovh, "a100-180", "GRA11")
    assert (a100.price_per_hour, a100.gpu_count, a100.currency) == (3.07, 1.0, "USD")


def test_recorded_ibm_regions_from_zones(shared_data: Path) -> None:
    ibm = _rec(shared_data, "ibm_vms_6cd128a.csv")
    got = {o.region: o.price_per_hour for o in ibm.prices}
    assert got == {"us-south": 2.497, "us-east": 2.497, "ca-tor": 2.572, "eu-de": 2.746,
                   "eu-gb": 2.672, "jp-osa": 2.821, "jp-tok": 2.821, "au-syd": 2.996,
                   "br-sao": 2.996}
    assert {(o.gpu_name_raw, o.gpu_count, o.gpu_memory_gb) for o in ibm.prices} == {
        ("V100", 1.0, None)}  # GpuInfo is the plain string "V100"


def test_recorded_aggregators_and_spot_only_rows(shared_data: Path) -> None:
    pi = _rec(shared_data, "primeintellect_vms_d9a304e.csv")
    assert {o.provider for o in pi.prices} == {"primeintellect"}
    spot = _one(pi, "datacrunch__8xH100_80GB__176__1480__SPOT", "ICE-01", "spot")
    assert (spot.price_per_hour, spot.gpu_count) == (6.84, 8.0)
    assert _one(pi, "datacrunch__8xH100_80GB__176__1480", "ICE-01").price_per_hour == 15.77
    assert not any(o.sku.endswith("__SPOT") and o.pricing_model != "spot" for o in pi.prices)
    # GpuInfo puts the total into the per-GPU field (655360 MiB for 8 GPUs): the catalog's
    # sizes grow with the GPU count, so they are read as totals and divided (size_is_total)
    assert _one(pi, "datacrunch__8xH100_80GB__176__1480", "ICE-01").gpu_memory_gb == 80.0
    sf = _rec(shared_data, "shadeform_vms_002363d.csv")
    assert {o.provider for o in sf.prices} == {"shadeform"}
    assert any(o.sku == "lambdalabs_H100-sxm5x8" and o.price_per_hour == 31.92
               for o in sf.prices)
    verda = _rec(shared_data, "verda_vms_000c1d0.csv")
    assert _one(verda, "2B300.60V", "FIN-03", "spot").price_per_hour == 4.893
    assert not [o for o in verda.prices
                if o.sku == "2B300.60V" and o.pricing_model == "on_demand"]
    h100 = _one(verda, "1H100.80S.32V", "FIN-02")
    assert (h100.price_per_hour, h100.gpu_memory_gb) == (2.29, 80.0)
    assert _one(verda, "1H100.80S.32V", "FIN-02", "spot").price_per_hour == 0.8015
    old = _rec(shared_data, "verda_vms_538675a.csv")
    a100 = _one(old, "2A100.44V", "FIN-01")
    assert (a100.gpu_name_raw, a100.gpu_count, a100.price_per_hour) == ("A100-80GB", 2.0, 2.32)
    assert {o.gpu_name_raw for o in old.prices if o.sku.startswith("8A100.40S")} == {"A100-40GB"}


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
        # T4x1 0.35 + n1-standard-4 0.189999 (the zone's only N1 host); spot 0.1654 + 0.04
        ("n1-standard-4+T4x1", "us-central1-a", "on_demand"): 0.54,
        ("n1-standard-4+T4x1", "us-central1-a", "spot"): 0.2054,
        ("tpu-v5p-8", "us-east5-a", "on_demand"): 16.8,
    })
    tpu = next(o for o in result.prices if o.sku == "tpu-v5p-8")
    assert (tpu.gpu_name_raw, tpu.gpu_count) == ("tpu-v5p-8", 4.0)
    reasons = Counter(r.reason for r in result.rejects)
    assert reasons == {"zero_or_missing_price": 1, "gpu_price_missing": 1,
                       "unknown_accelerator_machine": 1, "duplicate_offer": 2}


GCP_HEADER = ("InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,"
              "AvailabilityZone,Price,SpotPrice\n")
GCP_ATTACH = GCP_HEADER + """\
n1-highcpu-16,16.0,14.4,,,,us-east1,us-east1-b,0.5,0.2
n1-standard-8,8.0,30.0,,,,us-east1,us-east1-b,0.6,
n1-ultramem-40,40.0,961.0,,,,us-east1,us-east1-b,0.1,0.05
n1-340-48-tpu,48.0,340.0,,,,us-east1,us-east1-b,0.1,0.05
,,,V100,1,,us-east1,us-east1-b,2.48,1.24
,,,T4,1,,us-east1,us-east1-b,0.35,0.14
,,,K80,1,,us-east1,us-east1-b,0.45,0.1
,,,T4,1,,us-east1,us-east1-c,0.35,0.14
"""


def test_fixture_gcp_attached_gpus_take_the_cheapest_allowed_host() -> None:
    """V100x1 allows N1 hosts of at most 12 vCPUs: n1-standard-8 (0.6), not the cheaper
    n1-highcpu-16 (0.5); it has no spot price, so the spot V100 is GPU-only. T4x1 allows 48:
    n1-highcpu-16. n1-ultramem / n1-*-tpu take no GPU. K80 (no known host rule) and the T4 of
    a zone without N1 hosts are GPU-only."""
    result = skypilot.parse(Payload(name="gcp/vms.csv", content=GCP_ATTACH.encode(), ext="csv"))
    got = {(o.sku, o.region, o.pricing_model): (o.price_per_hour, o.price_kind, o.vcpus)
           for o in result.prices}
    assert got == {  # sums rounded to 5 decimals, as the parser does
        ("n1-standard-8+V100x1", "us-east1-b", "on_demand"): (3.08, "gpu_with_host", 8.0),
        ("V100x1", "us-east1-b", "spot"): (1.24, "gpu_only", None),
        ("n1-highcpu-16+T4x1", "us-east1-b", "on_demand"): (0.85, "gpu_with_host", 16.0),
        ("n1-highcpu-16+T4x1", "us-east1-b", "spot"): (0.34, "gpu_with_host", 16.0),
        ("K80x1", "us-east1-b", "on_demand"): (0.45, "gpu_only", None),
        ("K80x1", "us-east1-b", "spot"): (0.1, "gpu_only", None),
        ("T4x1", "us-east1-c", "on_demand"): (0.35, "gpu_only", None),
        ("T4x1", "us-east1-c", "spot"): (0.14, "gpu_only", None),
    }


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


def test_fixture_alicloud_fractional_gpus() -> None:
    content = (FIXTURES / "alicloud_vms_fractional_tiny.csv").read_bytes()
    # the fork converts CNY at a fixed rate: every row refused, the fraction still parsed
    with pytest.raises(EmptyPayloadError, match="'currency_converted': 5"):
        skypilot.parse(Payload(name="alicloud/vms.csv", content=content))
    # the same rows from a cloud priced in USD: the fraction in the name is the count
    result = skypilot.parse(Payload(name="examplecloud/vms.csv", content=content))
    got = {(o.sku, o.pricing_model): (o.gpu_name_raw, o.gpu_count, o.price_per_hour)
           for o in result.prices}
    assert got == {
        ("ecs.gn6i-c4g1.xlarge", "on_demand"): ("T4", 1.0, 1.16517926),
        ("ecs.gn6i-c4g1.xlarge", "spot"): ("T4", 1.0, 0.36723566),
        ("ecs.sgn7i-vws-m2.xlarge", "on_demand"): ("A10", 0.083, 0.35840322),
        ("ecs.sgn7i-vws-m2.xlarge", "spot"): ("A10", 0.083, 0.11713509),
        ("ecs.sgn7i-vws-m4.2xlarge", "on_demand"): ("A10", 0.167, 0.5),
        ("ecs.sgn7i-vws-m4.2xlarge", "spot"): ("A10", 0.167, 0.2),
        ("ecs.vgn6i-m4.xlarge", "on_demand"): ("T4", 0.125, 0.3),
        ("ecs.vgn6i-m8-vws.2xlarge", "on_demand"): ("T4", 1.0, 0.9),  # 2 x T4/2
    }
    assert all(o.gpu_memory_gb is None for o in result.prices)  # GpuInfo "A10*1/12 2GB"


@pytest.mark.parametrize(("name", "count", "expected"), [
    ("A10*1/12", 1.0, ("A10", 0.083)),
    ("A10*1/3", 1.0, ("A10", 0.333)),
    ("T4/8", 1.0, ("T4", 0.125)),
    ("A100-80GB-640GB", 8.0, ("A100-80GB", 8.0)),
    ("A100-40GB-320GB", 8.0, ("A100-40GB", 8.0)),
    ("RTX PRO 6000 96GB", 1.0, ("RTX PRO 6000 96GB", 1.0)),
    ("H100", 8.0, ("H100", 8.0)),
])
def test_gpu_name_and_count(name: str, count: float, expected: tuple) -> None:
    assert gpu_name_and_count(name, count) == expected


def test_gpu_info_dialects() -> None:
    null = ("{'Gpus': [{'Name': 'H100-80G-PCIe', 'Manufacturer': null, 'Count': 1,"
            " 'MemoryInfo': {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 81920}")
    lower = ("{'gpus': [{'name': 'h100', 'count': 8.0, 'memoryinfo': {'sizeinmib': 81559}}],"
             " 'totalgpumemoryinmib': 81559}")
    as_json = '{"Gpus": [{"Name": "B300", "Count": 1, "MemoryInfo": {"SizeInMiB": 268288}}]}'
    total = '{"Gpus":[{"Name":"A100-80GB","Count":8,"MemoryInfo":{"SizeInMiB":655360}}]}'
    assert per_gpu_memory_gb(null, 1.0, "hyperstack") == 80.0
    assert per_gpu_memory_gb(lower, 8.0, "do") == 79.6
    assert per_gpu_memory_gb(as_json, 1.0, "verda") == 262.0
    assert per_gpu_memory_gb(total, 8.0, "primeintellect") is None  # 640 GB: implausible
    assert per_gpu_memory_gb("V100", 1.0, "ibm") is None
    assert per_gpu_memory_gb("{'Gpus': [{'Name': 'A6000', 'MemoryInfo': "
                             "{'SizeInMiB': 48}}]}", 1.0, "shadeform") == 48.0


# --- per-GPU memory (issue 24: GpuInfo's "per GPU" size is the row's total in some catalogs) --

def _catalog_memory() -> dict[tuple[str | None, str], float]:
    """Per GPU name alias (provider or None) -> the catalog's memory_gb, read from
    catalog/aliases.csv and catalog/accelerators.csv (gpu_name aliases, normalised keys)."""
    import csv
    import re

    catalog = Path(skypilot.__file__).resolve().parents[1]
    with (catalog / "accelerators.csv").open(newline="", encoding="utf-8") as fh:
        memory = {r["accelerator_id"]: float(r["memory_gb"]) for r in csv.DictReader(fh)
                  if r["memory_gb"]}
    out: dict[tuple[str | None, str], float] = {}
    with (catalog / "aliases.csv").open(newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            acc = (r["accelerator_id"] or "").strip()
            if r["kind"].strip() == "gpu_name" and acc in memory:
                key = re.sub(r"[^a-z0-9]", "", r["alias"].lower())
                out.setdefault(((r["provider"] or "").strip().lower() or None, key), memory[acc])
    return out


def test_recorded_per_gpu_memory_never_exceeds_the_card(shared_data: Path) -> None:
    """No offer of any recorded SkyPilot-format catalog says more memory per GPU than its
    card has (+30%): 44 multi-GPU rows of primeintellect and verda 538675a did (A100 80 GB x2
    at 160 GB), and 8-GPU rows of those had none at all."""
    import re

    memory = _catalog_memory()
    over, checked = [], 0
    for path in sorted((shared_data / "prices" / "skypilot_format").glob("*.csv")):
        try:
            result = _parse_file(path)
        except (EmptyPayloadError, ParseError):
            continue
        for o in result.prices:
            key = re.sub(r"[^a-z0-9]", "", (o.gpu_name_raw or "").lower())
            card = memory.get((o.provider, key), memory.get((None, key)))
            if card is None or o.gpu_memory_gb is None:
                continue
            checked += 1
            if o.gpu_memory_gb > 1.3 * card:
                over.append((path.name, o.sku, o.gpu_count, o.gpu_memory_gb, card))
    assert checked > 500 and over == []
    pi = _rec(shared_data, "primeintellect_vms_d9a304e.csv")
    assert {o.gpu_memory_gb for o in pi.prices if o.sku.startswith("lambdalabs__8xA100_80GB")} \
        == {80.0}
    verda = _rec(shared_data, "verda_vms_538675a.csv")
    assert {o.gpu_memory_gb for o in verda.prices if o.sku == "2A100.44V"} == {80.0}
    good = _rec(shared_data, "verda_vms_000c1d0.csv")  # this version writes per-GPU sizes
    assert {o.gpu_memory_gb for o in good.prices if o.sku == "2B300.60V"} == {262.5}


def test_size_is_total_votes_per_catalog() -> None:
    def row(name: str, count: int, mib: int) -> dict[str, str]:
        info = f"{{'Gpus': [{{'Name': '{name}', 'MemoryInfo': {{'SizeInMiB': {mib}}}}}]}}"
        return {"AcceleratorName": name, "AcceleratorCount": str(count), "GpuInfo": info}

    totals = [row("A100-80GB", 1, 81920), row("A100-80GB", 8, 655360), row("L40", 2, 98304),
              row("L40", 4, 196608)]
    per_gpu = [row("B300", 2, 268800), row("B300", 4, 268800), row("L4", 1, 24576)]
    assert size_is_total(totals) and not size_is_total(per_gpu)
    assert not size_is_total([row("H100", 1, 81920)])  # nothing to compare: per GPU
    assert per_gpu_memory_gb(totals[1]["GpuInfo"], 8.0, "primeintellect", True) == 80.0


def test_recorded_vast_gpu_name_comes_from_the_sku(shared_data: Path) -> None:
    vast = _rec(shared_data, "vast_vms_2026-04-29.csv")
    names: dict[str, set[str]] = {}
    for o in vast.prices:
        names.setdefault(o.sku.split("-")[1], set()).add(o.gpu_name_raw or "")
    assert names["H100_SXM"] == {"H100 SXM"} and names["H100_NVL"] == {"H100 NVL"}
    # Vast sells the A100 SXM4 in 40 and 80 GB under one sku: the per-GPU VRAM tells them apart
    assert names["A100_SXM4"] == {"A100 SXM4 40GB", "A100 SXM4 80GB"}
    assert names["RTX_3060_Ti"] == {"RTX 3060 Ti"}
    assert skypilot.vast_gpu_name("weird", "", 1.0) is None
