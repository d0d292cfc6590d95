"""Voltage Park pricing page scraper: the recorded 2025 cards and fixtures of our own."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from gpucost.catalog.records import EmptyPayloadError, ParseError, ParseResult, Payload
from gpucost.catalog.sources import voltagepark

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "voltagepark"
RECORDED = "prices/pricing_pages_html/voltagepark"
PAGE = "voltagepark_pricing_20250712040631.html"


def _parse(path: Path) -> ParseResult:
    return voltagepark.parse(Payload(name=path.name, content=path.read_bytes(), ext="html"))


def test_every_recorded_voltagepark_page_is_covered(shared_data: Path) -> None:
    assert {p.name for p in (shared_data / RECORDED).glob("*.html")} == {PAGE}


def test_recorded_cards(shared_data: Path) -> None:
    result = _parse(shared_data / RECORDED / PAGE)
    assert result.observed_at == datetime(2025, 7, 12, 4, 6, 31, tzinfo=UTC)
    got = [(o.sku, o.gpu_name_raw, o.gpu_count, o.price_per_hour, o.pricing_model)
           for o in result.prices]
    # per GPU-hour on the page: Ethernet 1.99 from 1 GPU, InfiniBand 2.49 from 8 GPUs
    assert got == [
        ("1x HGX H100 (On-Demand, Ethernet)", "HGX H100", 1.0, 1.99, "on_demand"),
        ("8x HGX H100 (On-demand, 3200 Gbps Infiniband)", "HGX H100", 8.0, 19.92, "on_demand"),
    ]
    assert [(r.reason, r.detail.split(":")[0]) for r in result.rejects] == [
        ("reserved_term_unknown", "'Long-Term Reserve'")]


# --- own fixtures ----------------------------------------------------------------------------

def test_fixture_cards() -> None:
    result = _parse(FIXTURES / "cards_min.html")
    assert [(o.sku, o.price_per_hour) for o in result.prices] == [
        ("1x HGX H100 (On-Demand, Ethernet)", 1.99),
        ("8x HGX H100 (On-demand, 3200 Gbps Infiniband)", 19.92),
    ]
    assert [r.reason for r in result.rejects] == ["zero_or_missing_price",
                                                  "reserved_term_unknown"]


def test_unknown_layout_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="no known Voltage Park pricing layout"):
        _parse(FIXTURES / "unknown_layout.html")


def test_cards_without_prices_are_an_empty_payload() -> None:
    with pytest.raises(EmptyPayloadError, match="no priced on-demand card"):
        _parse(FIXTURES / "no_prices.html")
