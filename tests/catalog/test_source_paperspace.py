"""Paperspace pricing page scraper: the recorded 2024 cards and fixtures of our own."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gpucost.catalog.records import EmptyPayloadError, ParseError, ParseResult, Payload
from gpucost.catalog.sources import paperspace

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "paperspace"
RECORDED = "prices/pricing_pages_html/paperspace"
PAGE = "paperspace_pricing_20240123092147.html"


def _parse(path: Path) -> ParseResult:
    return paperspace.parse(Payload(name=path.name, content=path.read_bytes(), ext="html"))


def _prices(result: ParseResult) -> dict[tuple[str, str], float | None]:
    return {(o.sku, o.pricing_model): o.price_per_hour for o in result.prices}


def test_every_recorded_paperspace_page_is_covered(shared_data: Path) -> None:
    assert {p.name for p in (shared_data / RECORDED).glob("*.html")} == {PAGE}


def test_recorded_cards(shared_data: Path) -> None:
    result = _parse(shared_data / RECORDED / PAGE)
    assert result.observed_at == datetime(2024, 1, 23, 9, 21, 47, tzinfo=UTC)
    prices = _prices(result)
    # 2.24* and 1.15** are 3-year commitment prices (footnotes); H100 on demand 6.00 from
    # the footnote; the hidden stale 3.09 block is not a price
    assert prices[("H100", "reserved_3y")] == 2.24
    assert prices[("H100", "on_demand")] == 6.00
    assert prices[("H100x8", "on_demand")] == 48.00
    assert prices[("A100-80G", "reserved_3y")] == 1.15
    assert ("A100-80G", "on_demand") not in prices
    assert 3.09 not in prices.values()
    one_gpu = {sku: p for (sku, model), p in prices.items()
               if model == "on_demand" and "x" not in sku}
    assert one_gpu == {"H100": 6.00, "A4000": 0.76, "A6000": 1.89, "V100": 2.30, "A5000": 1.38,
                       "P6000": 1.10, "RTX5000": 0.82, "P5000": 0.78, "RTX4000": 0.56,
                       "P4000": 0.51, "M4000": 0.45}
    assert prices[("A100-80Gx8", "reserved_3y")] == 9.20  # "multiply ... by the GPUs"
    assert ("M4000x2", "on_demand") not in prices  # "Multi-GPU types: none"
    h100 = next(o for o in result.prices if o.sku == "H100" and o.pricing_model == "on_demand")
    assert (h100.gpu_name_raw, h100.gpu_count, h100.vcpus, h100.ram_gb) == ("H100", 1.0, 20.0,
                                                                            256.0)
    a100 = next(o for o in result.prices if o.sku == "A100-80G")
    assert (a100.gpu_memory_gb, a100.vcpus, a100.ram_gb) == (80.0, 12.0, 90.0)
    assert next(o for o in result.prices if o.sku == "P6000").gpu_memory_gb == 24.0
    # the H100 card's stale block and the hidden desktop grid (P4000, P5000, P6000, V100)
    assert dict(Counter(r.reason for r in result.rejects)) == {
        "hidden_element": 5, "price_meaning_unknown": 1}
    assert any("8.96" in r.detail for r in result.rejects)
    assert {o.provider for o in result.prices} == {"paperspace"}


# --- own fixtures ----------------------------------------------------------------------------

def test_fixture_cards() -> None:
    result = _parse(FIXTURES / "cards_min.html")
    assert _prices(result) == {
        ("H100", "reserved_3y"): 2.24, ("H100x8", "reserved_3y"): 17.92,
        ("A6000", "on_demand"): 1.89, ("A6000x2", "on_demand"): 3.78,
        ("H100", "on_demand"): 6.00, ("H100x8", "on_demand"): 48.00,
    }
    assert [r.reason for r in result.rejects] == [
        "hidden_element", "reserved_term_unknown", "hidden_element", "price_meaning_unknown"]


def test_unknown_layout_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="no known Paperspace pricing layout"):
        _parse(FIXTURES / "unknown_layout.html")


def test_cards_without_prices_are_an_empty_payload() -> None:
    with pytest.raises(EmptyPayloadError, match="no visible price"):
        _parse(FIXTURES / "no_prices.html")
