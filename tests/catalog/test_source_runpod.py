"""The runpod source: both recorded pricing-page layouts and fixtures of our own."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gpucost.catalog.records import EmptyPayloadError, ParseError, Payload
from gpucost.catalog.sources import runpod

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "runpod"
RECORDED = Path("prices") / "pricing_pages_html" / "runpod"


def _parse(path: Path):
    return runpod.parse(Payload(name=path.name, content=path.read_bytes()))


def _prices(result) -> dict[tuple[str, str], float]:
    return {(o.sku, o.pricing_model): o.price_per_hour for o in result.prices}


def test_recorded_2025_data_attributes(shared_data: Path) -> None:
    result = _parse(shared_data / RECORDED / "runpod_pricing_20250909131230.html")
    assert result.observed_at == datetime(2025, 9, 9, 13, 12, 30, tzinfo=UTC)
    # Secure Cloud = on_demand, Community Cloud = community (never spot)
    assert _prices(result) == {
        ("H200", "on_demand"): 3.79, ("H200", "community"): 3.59,
        ("B200", "on_demand"): 5.99, ("B200", "community"): 5.98,
        ("H100 NVL", "on_demand"): 2.79, ("H100 NVL", "community"): 2.59,
        ("H100 PCIe", "on_demand"): 2.39, ("H100 PCIe", "community"): 1.99,
        ("H100 SXM", "on_demand"): 2.69, ("H100 SXM", "community"): 2.69,
    }
    h200 = next(o for o in result.prices if o.sku == "H200")
    assert (h200.gpu_count, h200.gpu_memory_gb, h200.ram_gb, h200.vcpus) == (1.0, 141.0, 276.0,
                                                                            24.0)
    assert result.rejects == [] and result.stream == "pricing_page"


def test_recorded_2026_json_ld(shared_data: Path) -> None:
    result = _parse(shared_data / RECORDED / "runpod_pricing_20260810082317.html")
    prices = _prices(result)
    assert len({sku for sku, _ in prices}) == 19 and len(prices) == 38
    assert prices[("B300", "community")] == 6.94 and prices[("B300", "on_demand")] == 7.39
    assert prices[("H200", "community")] == 3.59 and prices[("H200", "on_demand")] == 4.39
    # L4: community above secure, kept as published (lowPrice is the secure one)
    assert prices[("L4", "community")] == 0.44 and prices[("L4", "on_demand")] == 0.39
    assert all(o.gpu_name_raw == o.sku and " GPU on Runpod" not in o.sku for o in result.prices)
    assert {o.pricing_model for o in result.prices} == {"on_demand", "community"}
    assert result.observed_at == datetime(2026, 8, 10, 8, 23, 17, tzinfo=UTC)


def test_fixture_json_ld_refuses_placeholders_and_unknown_tiers() -> None:
    result = _parse(FIXTURES / "jsonld_min.html")
    assert _prices(result) == {
        ("H100 SXM", "community"): 2.69, ("H100 SXM", "on_demand"): 2.99,
        ("L4", "community"): 0.44, ("L4", "on_demand"): 0.39, ("A40", "on_demand"): 0.44,
    }
    assert [(r.reason, r.detail) for r in result.rejects] == [
        ("zero_or_missing_price", "A40 community: price '0'"),
        ("unknown_tier", "A40: offer 'spot cloud'"),
    ]
    assert result.observed_at is None


def test_fixture_webflow_strips_zero_width_and_refuses_empty_price() -> None:
    result = _parse(FIXTURES / "webflow_min.html")
    assert _prices(result) == {("H200", "on_demand"): 3.79, ("H200", "community"): 3.59,
                               ("L40", "on_demand"): 0.99}
    assert [r.reason for r in result.rejects] == ["zero_or_missing_price"]


def test_unknown_layout_and_layout_without_prices() -> None:
    with pytest.raises(ParseError, match="no known RunPod pricing layout"):
        _parse(FIXTURES / "unknown_layout.html")
    with pytest.raises(EmptyPayloadError, match="no priced GPU"):
        _parse(FIXTURES / "no_prices.html")


# --- the GraphQL gpuTypes answer (provider_api/runpod) -----------------------------------------

GRAPHQL = Path("prices") / "provider_api" / "runpod" / "runpod_graphql_gpuTypes_d789fed.json"


def test_recorded_graphql_gpu_types(shared_data: Path) -> None:
    result = _parse(shared_data / GRAPHQL)
    assert result.stream == "graphql_gpu_types" and result.observed_at is None  # undated
    prices = _prices(result)
    # read by hand: securePrice = on_demand, communityPrice = community, per GPU-hour
    assert prices[("H100 SXM", "on_demand")] == 3.49
    assert prices[("H100 SXM", "community")] == 2.69
    assert prices[("H100 PCIe", "on_demand")] == 2.89 and prices[("H100 NVL", "community")] == 2.59
    assert prices[("B300", "on_demand")] == 7.89 and prices[("A100 SXM", "community")] == 1.39
    assert len(prices) == 76
    h100 = next(o for o in result.prices if o.sku == "H100 SXM")
    assert (h100.gpu_name_raw, h100.gpu_count, h100.gpu_memory_gb, h100.region) == (
        "NVIDIA H100 80GB HBM3", 1.0, 80.0, "")
    # 0 = not offered; exactly 0.5 = the API's placeholder; the "unknown" entry
    reasons = Counter(r.reason for r in result.rejects)
    assert reasons == {"not_offered": 6, "placeholder_price": 12, "gpu_unknown": 1}
    assert ("MI300X", "community") not in prices and prices[("MI300X", "on_demand")] == 2.39
    assert ("H200 NVL", "community") not in prices
    assert ("A100 SXM 40GB", "on_demand") not in prices
    # MIG slices: fractional GPUs, the slice's price
    mig = {o.sku: (o.gpu_count, o.price_per_hour) for o in result.prices
           if o.pricing_model == "on_demand" and "MIG" in o.gpu_name_raw}
    assert mig == {"PRO 6000 MIG 24GB": (0.25, 0.59), "PRO 6000 MIG 48GB": (0.5, 1.09)}


def test_graphql_shapes_of_our_own() -> None:
    def payload(doc: str) -> Payload:
        return Payload(name="gpuTypes.json", content=doc.encode(), ext="json")

    result = runpod.parse(payload(
        '{"data": {"gpuTypes": [{"id": "NVIDIA L4", "displayName": "L4", "memoryInGb": 24,'
        ' "securePrice": 0.39, "communityPrice": null},'
        ' {"id": "X MIG 1g.10gb", "displayName": "X MIG", "memoryInGb": 10,'
        ' "securePrice": 0.2, "communityPrice": 0}]}}'))
    assert _prices(result) == {("L4", "on_demand"): 0.39}
    assert [r.reason for r in result.rejects] == ["zero_or_missing_price", "gpu_count_unknown"]
    with pytest.raises(ParseError, match="data.gpuTypes"):
        runpod.parse(payload('{"errors": [{"message": "rate limited"}]}'))
    with pytest.raises(ParseError, match="not valid JSON"):
        runpod.parse(payload('{"data": {"gpuTypes": ['))
    with pytest.raises(EmptyPayloadError, match="without an accepted price"):
        runpod.parse(payload('{"data": {"gpuTypes": [{"id": "unknown", "securePrice": 0}]}}'))


# --- stock: the aliased lowestPrice blocks (secure / community) -------------------------------

def test_graphql_stock_status_per_cloud() -> None:
    """tests/fixtures/runpod/graphql_stock.json (our own, in the shape of a gpuTypes query
    asking `secure: lowestPrice(input: {gpuCount: 1, secureCloud: true}) { stockStatus }` and
    `community: ...secureCloud: false...`), read by hand: H100 SXM secure High / community
    Low -> both True; H100 NVL secure null -> False, community Medium -> True; B200 secure "None"
    -> False (community price 0: not offered, no row); L4 has no stock block -> None."""
    result = _parse(FIXTURES / "graphql_stock.json")
    stock = {(o.sku, o.pricing_model): o.available for o in result.prices}
    assert stock == {
        ("H100 SXM", "on_demand"): True, ("H100 SXM", "community"): True,
        ("H100 NVL", "on_demand"): False, ("H100 NVL", "community"): True,
        ("B200", "on_demand"): False,
        ("L4", "on_demand"): None, ("L4", "community"): None,
    }
    assert _prices(result)[("H100 NVL", "on_demand")] == 3.19  # prices unchanged by stock


def test_stock_status_words() -> None:
    def status(block: object) -> bool | None:
        return runpod.stock_status({"secure": block}, "on_demand")

    assert status({"stockStatus": "high"}) is True and status({"stockStatus": "LOW"}) is True
    assert status({"stockStatus": ""}) is False and status({"stockStatus": None}) is False
    # an unknown word, a block without the field, or no block: not stated
    assert status({"stockStatus": "Plenty"}) is None and status({}) is None
    assert status(None) is None and status("High") is None


def test_recorded_graphql_states_no_stock(shared_data: Path) -> None:
    """The recorded answer asked for prices only (no lowestPrice block): every row None."""
    result = _parse(shared_data / GRAPHQL)
    assert {o.available for o in result.prices} == {None}
