"""Nebius price page scraper: both recorded layouts and small fixtures of our own."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gpucost.catalog.records import EmptyPayloadError, ParseError, ParseResult, Payload
from gpucost.catalog.sources import nebius

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "nebius"
RECORDED = "prices/pricing_pages_html/nebius"
PAGE_2024 = "nebius_prices_20241115043809.html"
PAGE_2026 = "nebius_prices_20260712235400.html"


def _parse(path: Path) -> ParseResult:
    return nebius.parse(Payload(name=path.name, content=path.read_bytes(), ext="html"))


def _prices(result: ParseResult) -> dict[tuple[str, str], float | None]:
    return {(o.sku, o.pricing_model): o.price_per_hour for o in result.prices}


def test_every_recorded_nebius_page_is_covered(shared_data: Path) -> None:
    assert {p.name for p in (shared_data / RECORDED).glob("*.html")} == {PAGE_2024, PAGE_2026}


def test_recorded_2026_gpu_hour_table(shared_data: Path) -> None:
    result = _parse(shared_data / RECORDED / PAGE_2026)
    assert result.stream == "pricing_page"
    assert result.observed_at == datetime(2026, 7, 12, 23, 54, 0, tzinfo=UTC)
    prices = _prices(result)
    # read by hand: the Preemptible column comes before On-demand on the page
    assert prices[("NVIDIA HGX H100", "on_demand")] == 3.85
    assert prices[("NVIDIA HGX H100", "spot")] == 2.15
    assert prices[("NVIDIA HGX H200", "spot")] == 2.45
    assert prices[("NVIDIA HGX H200", "on_demand")] == 4.50
    assert prices[("NVIDIA HGX B300", "on_demand")] == 7.85
    assert prices[("NVIDIA L40S with Intel CPU", "on_demand")] == 1.82  # "from $1.82"
    assert prices[("NVIDIA L40S with AMD CPU", "spot")] == 0.74
    assert len(prices) == 14
    h100 = next(o for o in result.prices if o.sku == "NVIDIA HGX H100")
    assert (h100.gpu_name_raw, h100.gpu_count, h100.vcpus, h100.ram_gb, h100.region) == (
        "NVIDIA HGX H100", 1.0, 16.0, 200.0, "")
    l40s = next(o for o in result.prices if o.sku == "NVIDIA L40S with AMD CPU")
    assert (l40s.gpu_name_raw, l40s.vcpus, l40s.ram_gb) == ("NVIDIA L40S", None, None)
    # GB200 / GB300 NVL72: "Contact us" on demand, a dash placeholder for preemptible
    assert dict(Counter(r.reason for r in result.rejects)) == {
        "no_price_contact_sales": 2, "zero_or_missing_price": 2}
    assert all("NVL72" in r.detail for r in result.rejects)


def test_recorded_2024_instance_table(shared_data: Path) -> None:
    result = _parse(shared_data / RECORDED / PAGE_2024)
    assert result.observed_at == datetime(2024, 11, 15, 4, 38, 9, tzinfo=UTC)
    # per instance-hour, on demand only
    assert _prices(result) == {
        ("1 × H200 SXM", "on_demand"): 3.50, ("8 × H200 SXM", "on_demand"): 28.00,
        ("1 × H100 SXM", "on_demand"): 2.95, ("8 × H100 SXM", "on_demand"): 23.60,
        ("1 × L40s PCIe", "on_demand"): 1.55,
    }
    h100 = next(o for o in result.prices if o.sku == "8 × H100 SXM")
    assert (h100.gpu_name_raw, h100.gpu_count, h100.gpu_memory_gb, h100.vcpus, h100.ram_gb) == (
        "H100 SXM", 8.0, 80.0, 128.0, 1600.0)
    assert h100.price_per_hour / h100.gpu_count == 2.95
    # Reserve (term not stated) and the "as low as" promo cards are refused, with reasons
    assert dict(Counter(r.reason for r in result.rejects)) == {
        "reserved_term_unknown": 5, "promo_card": 3}
    assert any("$16.00" in r.detail for r in result.rejects)


def test_h100_on_demand_per_gpu_went_up_between_captures(shared_data: Path) -> None:
    old = _parse(shared_data / RECORDED / PAGE_2024)
    new = _parse(shared_data / RECORDED / PAGE_2026)
    per_gpu = {(o.gpu_name_raw, o.pricing_model): o.price_per_hour / o.gpu_count
               for o in [*old.prices, *new.prices]}
    assert per_gpu[("H100 SXM", "on_demand")] == 2.95
    assert per_gpu[("NVIDIA HGX H100", "on_demand")] == 3.85


# --- own fixtures ----------------------------------------------------------------------------

def test_fixture_columns_are_read_by_header_not_position() -> None:
    result = _parse(FIXTURES / "gpu_hour_table_min.html")  # On-demand first here
    assert _prices(result) == {
        ("NVIDIA HGX H100", "on_demand"): 3.85, ("NVIDIA HGX H100", "spot"): 2.15,
        ("NVIDIA L40S with AMD CPU", "on_demand"): 1.55,
    }
    assert result.observed_at is None
    assert [r.reason for r in result.rejects] == [
        "zero_or_missing_price", "no_price_contact_sales", "zero_or_missing_price"]


def test_fixture_instance_table() -> None:
    result = _parse(FIXTURES / "instance_table_min.html")
    assert _prices(result) == {("8 × H100 SXM", "on_demand"): 23.60}
    assert [r.reason for r in result.rejects] == [
        "promo_card", "reserved_term_unknown", "no_price_contact_sales"]


def test_unknown_layout_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="no known Nebius pricing layout"):
        _parse(FIXTURES / "unknown_layout.html")
    with pytest.raises(ParseError):
        nebius.parse(Payload(name="empty.html", content=b""))


def test_layout_without_prices_is_an_empty_payload() -> None:
    with pytest.raises(EmptyPayloadError, match="no priced row"):
        _parse(FIXTURES / "no_prices.html")
