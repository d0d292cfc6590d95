"""Crusoe pricing page scraper: both recorded layouts and small fixtures of our own."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gpucost.catalog.records import EmptyPayloadError, ParseError, ParseResult, Payload
from gpucost.catalog.sources import crusoe

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "crusoe"
RECORDED = "prices/pricing_pages_html/crusoe"
PAGE_2025_05 = "crusoe_cloud-pricing_20250521220413.html"
PAGE_2025_12 = "crusoe_cloud-pricing_20251215002446.html"


def _parse(path: Path) -> ParseResult:
    return crusoe.parse(Payload(name=path.name, content=path.read_bytes(), ext="html"))


def _offers(result: ParseResult) -> dict[tuple[str, str], float | None]:
    return {(o.sku, o.pricing_model): o.price_per_hour for o in result.prices}


def test_every_recorded_crusoe_page_is_covered(shared_data: Path) -> None:
    assert {p.name for p in (shared_data / RECORDED).glob("*.html")} == {
        PAGE_2025_05, PAGE_2025_12}


def test_recorded_2025_05_table(shared_data: Path) -> None:
    result = _parse(shared_data / RECORDED / PAGE_2025_05)
    assert result.stream == "pricing_page"
    assert result.observed_at == datetime(2025, 5, 21, 22, 4, 13, tzinfo=UTC)
    offers = _offers(result)
    assert offers[("NVIDIA H100 80GB SXM", "on_demand")] == 3.90
    assert offers[("AMD MI300X 192GB OAM", "spot")] == 0.95
    assert offers[("NVIDIA H200 141GB SXM", "on_demand")] == 4.29
    assert offers[("NVIDIA A100 80GB SXM", "on_demand")] == 1.95
    assert offers[("NVIDIA A100 80GB PCIe", "on_demand")] == 1.65
    assert offers[("NVIDIA A100 40GB PCIe", "on_demand")] == 1.45
    assert offers[("NVIDIA L40S 48GB PCIe", "on_demand")] == 1.00
    assert offers[("NVIDIA L40S 48GB PCIe", "spot")] == 0.50
    assert offers[("NVIDIA H100 80GB SXM", "reserved_1y")] == 2.93
    assert offers[("NVIDIA H100 80GB SXM", "reserved_3y")] == 2.54
    # the 6-month column, read by hand from the page: "$ 3.12 /hr" beside 3.90 on demand,
    # 2.93 for 1 year and 2.54 for 3 years (H100 80GB SXM); "$ 2.76 /hr" for the MI300X
    assert offers[("NVIDIA H100 80GB SXM", "reserved_6m")] == 3.12
    assert offers[("AMD MI300X 192GB OAM", "reserved_6m")] == 2.76
    assert offers[("NVIDIA L40S 48GB PCIe", "reserved_6m")] == 0.80
    assert ("NVIDIA H100 80GB SXM", "spot") not in offers  # "Contact Sales"
    # 7 GPUs x (on-demand, 6-month, 1-year, 3-year) + 2 spot prices
    assert len(result.prices) == 30
    assert {o.payment for o in result.prices} == {None}  # the page states no payment terms
    assert all(o.gpu_count == 1.0 and o.region == "" and o.provider == "crusoe"
               for o in result.prices)
    h100 = next(o for o in result.prices if o.sku == "NVIDIA H100 80GB SXM")
    assert (h100.gpu_name_raw, h100.gpu_memory_gb) == ("NVIDIA H100 80GB SXM", 80.0)
    assert Counter(r.reason for r in result.rejects) == {
        "no_price_contact_sales": 5,  # spot of H200, H100, A100 x3
        "truncated_row": 1,  # the cut ends at the NVIDIA A40 label
    }


def test_recorded_2025_12_webflow(shared_data: Path) -> None:
    result = _parse(shared_data / RECORDED / PAGE_2025_12)
    assert result.observed_at == datetime(2025, 12, 15, 0, 24, 46, tzinfo=UTC)
    assert _offers(result) == {
        ("NVIDIA H200 141GB HGX", "on_demand"): 4.29,
        ("NVIDIA H100 80GB HGX", "on_demand"): 3.90,
        ("NVIDIA H100 80GB HGX", "spot"): 1.60,
    }
    contact = [r.detail for r in result.rejects if r.reason == "no_price_contact_sales"]
    assert contact == [
        "NVIDIA GB200 186GB NVL72 on_demand: 'Contact sales'",
        "NVIDIA GB200 186GB NVL72 spot: 'Contact sales'",
        "NVIDIA B200 180GB HGX on_demand: 'Contact sales'",
        "NVIDIA B200 180GB HGX spot: 'Contact sales'",
        "NVIDIA H200 141GB HGX spot: 'Contact sales'",
    ]
    assert [r.raw_row for r in result.rejects if r.reason == "truncated_row"] == ["NVIDIA A100"]


def test_fixture_webflow() -> None:
    result = _parse(FIXTURES / "webflow_min.html")
    assert result.observed_at is None
    assert _offers(result) == {
        ("NVIDIA H100 80GB HGX", "on_demand"): 3.90,
        ("NVIDIA H100 80GB HGX", "spot"): 1.60,
        ("NVIDIA A100 80GB PCIe", "on_demand"): 1.65,
    }
    assert Counter(r.reason for r in result.rejects) == {
        "no_price_contact_sales": 2, "price_not_available": 1}


def test_fixture_table() -> None:
    result = _parse(FIXTURES / "table_min.html")
    assert _offers(result)[("AMD MI300X 192GB OAM", "spot")] == 0.95
    assert _offers(result)[("NVIDIA H100 80GB SXM", "reserved_1y")] == 2.93
    assert Counter(r.reason for r in result.rejects) == {
        "no_price_contact_sales": 1, "truncated_row": 1}


def test_unknown_layout_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="no known Crusoe pricing layout"):
        _parse(FIXTURES / "unknown_layout.html")
    with pytest.raises(ParseError):
        crusoe.parse(Payload(name="empty.html", content=b""))


def test_layout_without_prices_is_an_empty_payload() -> None:
    with pytest.raises(EmptyPayloadError, match="no priced row"):
        _parse(FIXTURES / "no_prices.html")
