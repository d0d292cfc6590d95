"""GCP GPU pricing page scraper (source gcp_pricing_page): the recorded tables and fixtures."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from gpucost.catalog.records import EmptyPayloadError, ParseError, ParseResult, Payload
from gpucost.catalog.sources import gcp_pricing_page

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "gcp_pricing_page"
RECORDED = "prices/pricing_pages_html/gcp"
PAGE = "gcp_gpus-pricing_tables_ewyluda-1e77fb7.html"


def _parse(path: Path) -> ParseResult:
    return gcp_pricing_page.parse(Payload(name=path.name, content=path.read_bytes(), ext="html"))


def _prices(result: ParseResult) -> dict[tuple[str, str], float | None]:
    return {(o.sku, o.pricing_model): o.price_per_hour for o in result.prices}


def test_every_recorded_gcp_page_is_covered(shared_data: Path) -> None:
    assert {p.name for p in (shared_data / RECORDED).glob("*.html")} == {PAGE}


def test_recorded_tables(shared_data: Path) -> None:
    result = _parse(shared_data / RECORDED / PAGE)
    assert result.stream == "pricing_page"
    assert result.observed_at is None  # undated fixture (commit hash in the name)
    prices = _prices(result)
    # read by hand (USD per instance-hour)
    assert prices[("a3-highgpu-8g", "on_demand")] == 88.490000119
    assert prices[("a3-megagpu-8g", "on_demand")] == 93.400712807
    assert prices[("a3-ultragpu-8g", "on_demand")] == 84.806908493
    assert prices[("a3-highgpu-8g", "spot")] == 52.962296548
    assert prices[("a3-highgpu-8g", "reserved_1y")] == 61.383674231
    assert prices[("a3-highgpu-8g", "reserved_3y")] == 38.864383195
    assert prices[("a2-highgpu-1g", "on_demand")] == 3.673385
    # second table: Flexible CUD columns come first, the resource CUDs are read by header
    assert prices[("g4-standard-6", "spot")] == 0.242
    assert prices[("g4-standard-6", "reserved_1y")] == 0.44634
    assert prices[("g4-standard-192", "spot")] == 6.73352
    assert prices[("g2-standard-4", "reserved_3y")] == 0.318074524
    # Dynamic Workload Scheduler, read by hand from the page's A3 row: "DWS Flex-start price"
    # $38.3200 / 1 hour -> queued, "DWS Calendar Mode price" $41.6000 / 1 hour ->
    # capacity_block, beside $88.490000119 on demand; never an on-demand offer
    assert prices[("a3-highgpu-8g", "queued")] == 38.32
    assert prices[("a3-highgpu-8g", "capacity_block")] == 41.60
    assert prices[("a3-megagpu-8g", "queued")] == 40.32
    assert prices[("a3-megagpu-8g", "capacity_block")] == 44.00
    assert prices[("a3-ultragpu-8g", "queued")] == 42.40
    assert prices[("a3-ultragpu-8g", "capacity_block")] == 59.36
    assert prices[("a4-highgpu-8g", "queued")] == 64.44
    assert prices[("a4-highgpu-8g", "capacity_block")] == 90.22
    assert prices[("g4-standard-6", "queued")] == 0.32344
    models = Counter(model for _, model in prices)
    assert (models["queued"], models["capacity_block"]) == (19, 4)
    assert {o.payment for o in result.prices} == {None}
    assert len({sku for sku, _ in prices}) == 28
    assert len(prices) == 127
    assert {o.region for o in result.prices} == {"us-central1"}
    assert {o.provider for o in result.prices} == {"gcp"}
    h100 = next(o for o in result.prices if o.sku == "a3-highgpu-8g")
    assert (h100.gpu_name_raw, h100.gpu_count, h100.vcpus, h100.ram_gb) == (
        "Nvidia H100", 8.0, 208.0, 1871.0)
    assert round(h100.price_per_hour / h100.gpu_count, 2) == 11.06
    # A100 40 GB vs 80 GB by machine family; fractional RTX PRO 6000
    memory = {o.sku: o.gpu_memory_gb for o in result.prices}
    assert memory["a2-highgpu-8g"] == 40.0 and memory["a2-megagpu-16g"] == 40.0
    assert memory["a2-ultragpu-8g"] == 80.0
    counts = {o.sku: o.gpu_count for o in result.prices}
    assert (counts["g4-standard-6"], counts["g4-standard-12"], counts["g4-standard-24"]) == (
        0.125, 0.25, 0.5)
    assert counts["a2-highgpu-4g"] == 4.0  # "GPUs:4"
    # B200 on demand is "N/A"; flexible CUD columns are refused, never priced; "N/A" or "-"
    # in a DWS column (A2, G2, G4 calendar mode) is no price
    assert ("a4-highgpu-8g", "on_demand") not in prices
    assert prices[("a4-highgpu-8g", "spot")] == 39.6336
    reasons = Counter(r.reason for r in result.rejects)
    assert reasons == {"zero_or_missing_price": 40, "price_unparseable": 1, "column_not_read": 2}
    assert any("g2-standard-24-spot" in r.detail for r in result.rejects)
    assert ("g2-standard-24", "spot") not in prices


# --- own fixtures ----------------------------------------------------------------------------

def test_fixture_tables() -> None:
    result = _parse(FIXTURES / "tables_min.html")
    assert _prices(result) == {
        ("a3-highgpu-8g", "on_demand"): 88.490000119, ("a3-highgpu-8g", "spot"): 52.962296548,
        ("a3-highgpu-8g", "reserved_1y"): 61.383674231,
        ("a3-highgpu-8g", "reserved_3y"): 38.864383195,
        ("a2-highgpu-1g", "on_demand"): 3.673385, ("a2-highgpu-1g", "spot"): 2.20401,
        ("g4-standard-6", "on_demand"): 0.64688, ("g4-standard-6", "spot"): 0.242,
        ("g2-standard-24", "on_demand"): 2.000832696,
        ("g2-standard-24", "reserved_3y"): 0.900374712,
        # the DWS Flex-start column: queued
        ("a3-highgpu-8g", "queued"): 38.32, ("a2-highgpu-1g", "queued"): 2.0,
    }
    assert [r.reason for r in result.rejects] == [
        "zero_or_missing_price", "zero_or_missing_price",
        "zero_or_missing_price", "price_unparseable", "column_not_read"]
    assert "2 priced cells" in result.rejects[4].detail  # "$2 .0000/ 1 hour" is a price


def test_price_text_traps() -> None:
    assert gcp_pricing_page._price("$2 .0000/ 1 hour") == 2.0
    assert gcp_pricing_page._price("$42.4000/ 1 hour") == 42.4
    assert gcp_pricing_page._price("$88.490000119 / 1 hour") == 88.490000119
    assert gcp_pricing_page._price("$1e308 / 1 hour") is None
    assert gcp_pricing_page._price("N/A") is None


def test_unknown_layout_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="no known GCP GPU pricing table"):
        _parse(FIXTURES / "unknown_layout.html")


def test_table_without_prices_is_an_empty_payload() -> None:
    with pytest.raises(EmptyPayloadError, match="no priced machine type"):
        _parse(FIXTURES / "no_prices.html")
