"""DataCrunch (Verda) products page scraper: the recorded table and small fixtures."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gpucost.catalog.records import EmptyPayloadError, ParseError, ParseResult, Payload
from gpucost.catalog.sources import datacrunch

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "datacrunch"
RECORDED = "prices/pricing_pages_html/datacrunch"
PAGE = "datacrunch_products_20250808081801.html"


def _parse(path: Path) -> ParseResult:
    return datacrunch.parse(Payload(name=path.name, content=path.read_bytes(), ext="html"))


def _offers(result: ParseResult) -> dict[tuple[str, str], float | None]:
    return {(o.sku, o.pricing_model): o.price_per_hour for o in result.prices}


def test_every_recorded_datacrunch_page_is_covered(shared_data: Path) -> None:
    assert {p.name for p in (shared_data / RECORDED).glob("*.html")} == {PAGE}


def test_recorded_b200_table(shared_data: Path) -> None:
    """The cut starts at the first <th> (no <tr> around the header): still read."""
    result = _parse(shared_data / RECORDED / PAGE)
    assert result.stream == "pricing_page"
    assert result.observed_at == datetime(2025, 8, 8, 8, 18, 1, tzinfo=UTC)
    assert _offers(result) == {  # per instance-hour, as printed
        ("1B200.30V", "on_demand"): 3.64, ("1B200.30V", "spot"): 0.80,
        ("2B200.60V", "on_demand"): 7.27, ("2B200.60V", "spot"): 1.61,
        ("4B200.120V", "on_demand"): 14.55, ("4B200.120V", "spot"): 3.21,
        ("8B200.240V", "on_demand"): 29.10, ("8B200.240V", "spot"): 6.43,
    }
    eight = next(o for o in result.prices if o.sku == "8B200.240V")
    assert (eight.gpu_name_raw, eight.gpu_count, eight.gpu_memory_gb, eight.vcpus,
            eight.ram_gb) == ("B200 SXM6 180GB", 8.0, 180.0, 240.0, 1472.0)
    assert round(eight.price_per_hour / eight.gpu_count, 4) == 3.6375
    # the daily "Dynamic price" has no pricing model: one reject per row, never on-demand
    assert Counter(r.reason for r in result.rejects) == {"pricing_model_unsupported": 4}
    assert "$21.42/h" in next(r.detail for r in result.rejects if "8B200" in r.detail)


def test_fixture_with_whole_header_row() -> None:
    result = _parse(FIXTURES / "products_min.html")
    assert _offers(result) == {("1B200.30V", "on_demand"): 3.64, ("1B200.30V", "spot"): 0.80,
                               ("8B200.240V", "on_demand"): 29.10}
    assert Counter(r.reason for r in result.rejects) == {
        "pricing_model_unsupported": 2, "no_price_contact_sales": 1}


def test_unknown_layout_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="no known DataCrunch pricing layout"):
        _parse(FIXTURES / "unknown_layout.html")
    with pytest.raises(ParseError):
        datacrunch.parse(Payload(name="empty.html", content=b""))


def test_layout_without_prices_is_an_empty_payload() -> None:
    with pytest.raises(EmptyPayloadError, match="no priced row"):
        _parse(FIXTURES / "no_prices.html")
