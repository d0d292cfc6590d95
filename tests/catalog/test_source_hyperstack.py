"""Hyperstack GPU pricing page scraper: both recorded layouts and fixtures of our own."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gpucost.catalog.records import EmptyPayloadError, ParseError, ParseResult, Payload
from gpucost.catalog.sources import hyperstack

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "hyperstack"
RECORDED = "prices/pricing_pages_html/hyperstack"
PAGE_2024 = "hyperstack_gpu-pricing_20240822101707.html"
PAGE_2025 = "hyperstack_gpu-pricing_20250724001416.html"


def _parse(path: Path) -> ParseResult:
    return hyperstack.parse(Payload(name=path.name, content=path.read_bytes(), ext="html"))


def _prices(result: ParseResult) -> dict[tuple[str, str], float | None]:
    return {(o.sku, o.pricing_model): o.price_per_hour for o in result.prices}


def test_every_recorded_hyperstack_page_is_covered(shared_data: Path) -> None:
    assert {p.name for p in (shared_data / RECORDED).glob("*.html")} == {PAGE_2024, PAGE_2025}


def test_recorded_2024_table(shared_data: Path) -> None:
    result = _parse(shared_data / RECORDED / PAGE_2024)
    assert result.observed_at == datetime(2024, 8, 22, 10, 17, 7, tzinfo=UTC)
    assert _prices(result) == {
        ("NVIDIA RTX A4000", "on_demand"): 0.30,  # "$" and "0.30 Per Hour" apart
        ("NVIDIA RTX A5000", "on_demand"): 0.50,
        ("NVIDIA RTX A6000", "on_demand"): 1.00,  # "NVIDIA RTX A6000/A40": one per GPU
        ("A40", "on_demand"): 1.00,
        ("NVIDIA L40", "on_demand"): 1.15,
        ("NVIDIA A100 PCIe 80GB", "on_demand"): 2.20,  # "$ &nbsp;2.20 per Hour"
        ("NVIDIA A100 80GB PCIe NVLink", "on_demand"): 2.30,
        ("NVIDIA H100 PCIe 80GB", "on_demand"): 3.44,
        ("NVIDIA H100 PCIe NVLink 80GB", "on_demand"): 3.54,
        ("NVIDIA H100 SXM 80GB", "on_demand"): 3.75,
    }
    sxm = next(o for o in result.prices if o.sku == "NVIDIA H100 SXM 80GB")
    assert (sxm.gpu_count, sxm.gpu_memory_gb, sxm.vcpus, sxm.ram_gb, sxm.region) == (
        1.0, 80.0, 24.0, 240.0, "")
    # every "Starts from" reservation price: term not stated
    assert dict(Counter(r.reason for r in result.rejects)) == {"reserved_term_unknown": 9}
    assert any("$2.25/hour" in r.detail for r in result.rejects)


def test_recorded_2025_cards(shared_data: Path) -> None:
    result = _parse(shared_data / RECORDED / PAGE_2025)
    assert result.observed_at == datetime(2025, 7, 24, 0, 14, 16, tzinfo=UTC)
    prices = _prices(result)
    assert prices[("NVIDIA H200 SXM", "on_demand")] == 3.50
    assert prices[("NVIDIA H100 SXM", "on_demand")] == 2.40
    assert prices[("NVIDIA H100 NVLink", "on_demand")] == 1.95
    assert prices[("NVIDIA H100", "on_demand")] == 1.90
    assert prices[("NVIDIA A100", "on_demand")] == 1.35
    assert prices[("NVIDIA A4000", "on_demand")] == 0.15
    # spot above the reservation price: kept as published
    assert prices[("NVIDIA A100", "spot")] == 1.08
    assert prices[("NVIDIA L40", "spot")] == 0.80
    assert prices[("NVIDIA A6000", "spot")] == 0.40
    assert len(prices) == 13
    spot = next(o for o in result.prices if o.sku == "NVIDIA A100" and o.pricing_model == "spot")
    assert spot.gpu_memory_gb == 80.0  # from the on-demand card
    assert dict(Counter(r.reason for r in result.rejects)) == {"reserved_term_unknown": 10}
    assert any("NVIDIA H100 SXM" in r.detail and "$2.04" in r.detail for r in result.rejects)


# --- own fixtures ----------------------------------------------------------------------------

def test_fixture_cards() -> None:
    result = _parse(FIXTURES / "cards_min.html")
    assert _prices(result) == {
        ("NVIDIA H100", "on_demand"): 1.90, ("NVIDIA RTX A6000", "on_demand"): 0.50,
        ("A40", "on_demand"): 0.50, ("NVIDIA H100", "spot"): 1.05,
    }
    assert [r.reason for r in result.rejects] == ["zero_or_missing_price",
                                                  "reserved_term_unknown"]
    assert result.observed_at is None


def test_unknown_layout_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="no known Hyperstack pricing layout"):
        _parse(FIXTURES / "unknown_layout.html")


def test_layout_without_prices_is_an_empty_payload() -> None:
    with pytest.raises(EmptyPayloadError, match="no priced row"):
        _parse(FIXTURES / "no_prices.html")
