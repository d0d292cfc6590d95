"""DigitalOcean GPU Droplet pricing page scraper: the recorded cards and small fixtures."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from gpucost.catalog.records import EmptyPayloadError, ParseError, ParseResult, Payload
from gpucost.catalog.sources import digitalocean

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "digitalocean"
RECORDED = "prices/pricing_pages_html/digitalocean"
PAGE = "digitalocean_gpu-droplets_20250707231929.html"


def _parse(path: Path) -> ParseResult:
    return digitalocean.parse(Payload(name=path.name, content=path.read_bytes(), ext="html"))


def _per_gpu(result: ParseResult) -> dict[tuple[str, str], float]:
    out = {}
    for o in result.prices:
        assert o.price_per_hour is not None and o.gpu_count
        out[(o.sku, o.pricing_model)] = round(o.price_per_hour / o.gpu_count, 4)
    return out


def test_every_recorded_digitalocean_page_is_covered(shared_data: Path) -> None:
    assert {p.name for p in (shared_data / RECORDED).glob("*.html")} == {PAGE}


def test_recorded_cards(shared_data: Path) -> None:
    result = _parse(shared_data / RECORDED / PAGE)
    assert result.stream == "pricing_page"
    assert result.observed_at == datetime(2025, 7, 7, 23, 19, 29, tzinfo=UTC)
    assert result.rejects == []
    # 9 cards: 2 reserved (12-month contracts), 7 on-demand
    assert _per_gpu(result) == {
        ("NVIDIA H100x8", "reserved_1y"): 1.99,
        ("AMD Instinct™ MI300Xx8", "reserved_1y"): 1.49,
        ("NVIDIA H100x8", "on_demand"): 2.99,
        ("AMD Instinct™ MI300Xx8", "on_demand"): 1.99,
        ("NVIDIA H100", "on_demand"): 3.39,  # 6.74 struck through, 3.39 promotional
        ("AMD Instinct™ MI300X", "on_demand"): 1.99,
        ("NVIDIA RTX 4000 Ada Generation", "on_demand"): 0.76,
        ("NVIDIA RTX 6000 Ada Generation", "on_demand"): 1.57,
        ("NVIDIA L40S", "on_demand"): 1.57,
    }
    h100x8 = next(o for o in result.prices
                  if (o.sku, o.pricing_model) == ("NVIDIA H100x8", "on_demand"))
    assert (h100x8.price_per_hour, h100x8.gpu_count, h100x8.gpu_name_raw) == (
        23.92, 8.0, "NVIDIA H100")
    assert (h100x8.gpu_memory_gb, h100x8.vcpus, h100x8.ram_gb) == (80.0, 160.0, 1920.0)
    reserved = next(o for o in result.prices
                    if (o.sku, o.pricing_model) == ("NVIDIA H100x8", "reserved_1y"))
    assert (reserved.price_per_hour, reserved.gpu_count) == (15.92, 8.0)
    mi300x = next(o for o in result.prices if o.sku == "AMD Instinct™ MI300X")
    assert (mi300x.gpu_name_raw, mi300x.gpu_memory_gb) == ("AMD Instinct™ MI300X", 192.0)
    assert all(o.region == "" and o.provider == "digitalocean" for o in result.prices)


def test_fixture_cards() -> None:
    result = _parse(FIXTURES / "cards_min.html")
    assert result.observed_at is None
    assert [(o.sku, o.pricing_model, o.price_per_hour) for o in result.prices] == [
        ("NVIDIA H100x8", "reserved_1y", 15.92),
        ("NVIDIA H100x8", "on_demand", 23.92),  # in the StrikeThrough wrapper, not struck
        ("NVIDIA H100", "on_demand", 3.39),  # the struck 6.74 is ignored
        # "a contractual commitment of 6 months" at $2.49/GPU/hour x 8 GPUs = 19.92
        ("NVIDIA H200x8", "reserved_6m", 19.92),
    ]
    assert result.rejects == []


def test_a_card_with_only_a_struck_price_is_a_reject() -> None:
    page = (FIXTURES / "cards_min.html").read_text()
    only_struck = page.replace(
        '<span><span class="Typographystyles-sc-o7qsl9-0 iEAtdB">$3.39</span>'
        '<span class="Typographystyles-sc-o7qsl9-0 dFfXTG">/GPU/hour*</span></span>', "")
    assert only_struck != page
    result = digitalocean.parse(Payload(name="p.html", content=only_struck.encode()))
    assert ("NVIDIA H100", "on_demand") not in {(o.sku, o.pricing_model)
                                                for o in result.prices}
    assert "struck_through_only" in [r.reason for r in result.rejects]


def test_unknown_layout_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="no known DigitalOcean pricing layout"):
        _parse(FIXTURES / "unknown_layout.html")
    with pytest.raises(ParseError):
        digitalocean.parse(Payload(name="empty.html", content=b""))


def test_layout_without_prices_is_an_empty_payload() -> None:
    with pytest.raises(EmptyPayloadError, match="no priced card"):
        _parse(FIXTURES / "no_prices.html")
