"""CoreWeave pricing page scraper: both recorded layouts and small fixtures of our own."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gpucost.catalog.records import EmptyPayloadError, ParseError, ParseResult, Payload
from gpucost.catalog.sources import coreweave

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "coreweave"
RECORDED = "prices/pricing_pages_html/coreweave"
PAGE_2023 = "coreweave_gpu-cloud-pricing_20230921194906.html"
PAGE_2026 = "coreweave_pricing_ewyluda-078a789_excerpt_chars48000-80000.html"


def _parse(path: Path) -> ParseResult:
    return coreweave.parse(Payload(name=path.name, content=path.read_bytes(), ext="html"))


def _offers(result: ParseResult) -> dict[tuple[str, str, str], float | None]:
    return {(o.sku, o.region, o.pricing_model): o.price_per_hour for o in result.prices}


def test_every_recorded_coreweave_page_is_covered(shared_data: Path) -> None:
    assert {p.name for p in (shared_data / RECORDED).glob("*.html")} == {PAGE_2023, PAGE_2026}


def test_recorded_2023_gpu_component_grid(shared_data: Path) -> None:
    result = _parse(shared_data / RECORDED / PAGE_2023)
    assert result.stream == "pricing_page"
    assert result.observed_at == datetime(2023, 9, 21, 19, 49, 6, tzinfo=UTC)
    assert len(result.prices) == 12
    assert all(o.sku.startswith("gpu-component:") and o.gpu_count == 1.0
               and o.pricing_model == "on_demand" and o.region == "" for o in result.prices)
    # vCPUs and RAM billed on top: all 12 are GPU components, never instance prices
    assert {o.price_kind for o in result.prices} == {"gpu_component"}
    offers = {o.sku: o for o in result.prices}
    h100 = offers["gpu-component:hgx-h100"]
    assert (h100.price_per_hour, h100.gpu_name_raw, h100.gpu_memory_gb) == (
        4.76, "NVIDIA HGX H100", 80.0)
    assert h100.vcpus is None and h100.ram_gb is None  # maxima billed on top, not included
    assert offers["gpu-component:h100-pcie"].price_per_hour == 4.25
    assert offers["gpu-component:nvidia-a100-80gb"].gpu_name_raw == "A100 80GB NVLINK"
    assert offers["gpu-component:nvidia-a100-80gb"].price_per_hour == 2.21
    assert offers["gpu-component:a100-80gb-pcie"].price_per_hour == 2.21
    assert offers["gpu-component:a40"].price_per_hour == 1.28
    # the cut ends at the label of the Tesla V100 NVLINK row
    assert [(r.reason, r.raw_row) for r in result.rejects] == [
        ("truncated_row", "Tesla V100 NVLINK")]


def test_recorded_2026_excerpt_instance_tables(shared_data: Path) -> None:
    result = _parse(shared_data / RECORDED / PAGE_2026)
    assert result.observed_at is None  # an undated excerpt (the file name has a commit hash)
    offers = _offers(result)
    # 9 US rows and 5 Europe rows, counted as rows, not price strings (each price is shown
    # twice per row); the fifth Europe row, GB300 NVL72, has no price at all
    rows = {(o.sku, o.region) for o in result.prices}
    assert Counter(region for _, region in rows) == {"us": 9, "europe": 4}
    assert ("NVIDIA GB300 NVL72", "europe") not in rows
    assert any(r.detail.startswith("NVIDIA GB300 NVL72 europe on_demand")
               and r.reason == "no_price_contact_sales" for r in result.rejects)
    assert offers[("NVIDIA HGX H100", "us", "on_demand")] == 49.24
    assert offers[("NVIDIA HGX H100", "us", "spot")] == 19.71
    h100 = next(o for o in result.prices
                if (o.sku, o.region, o.pricing_model) == ("NVIDIA HGX H100", "us", "on_demand"))
    assert (h100.gpu_count, h100.gpu_memory_gb, h100.vcpus, h100.ram_gb) == (
        8.0, 80.0, 128.0, 2048.0)
    assert round(h100.price_per_hour / h100.gpu_count, 4) == 6.155
    assert offers[("NVIDIA HGX B200", "us", "on_demand")] == 68.80
    assert offers[("NVIDIA HGX B200", "us", "spot")] == 34.11
    assert offers[("NVIDIA GH200", "us", "on_demand")] == 6.50
    assert offers[("NVIDIA HGX H200", "us", "on_demand")] == 50.44
    assert offers[("NVIDIA L40", "us", "on_demand")] == 10.00
    assert offers[("NVIDIA L40S", "us", "on_demand")] == 18.00
    assert offers[("NVIDIA A100", "us", "on_demand")] == 21.60
    sm = "NVIDIA RTX PRO 6000 Blackwell Server Edition (Standard Memory)"
    assert (sm, "us", "on_demand") not in offers and offers[(sm, "us", "spot")] == 9.56
    # Europe: GB200 tray of 4 GPUs ("4^1"), B300 spot only, the last row cut after its prices
    gb200 = next(o for o in result.prices if o.sku == "NVIDIA GB200 NVL72")
    assert (gb200.region, gb200.price_per_hour, gb200.gpu_count) == ("europe", 42.00, 4.0)
    assert offers[("NVIDIA HGX B300", "europe", "spot")] == 36.70
    assert offers[("NVIDIA HGX B200", "europe", "spot")] == 34.87
    hm = "NVIDIA RTX PRO 6000 Blackwell Server Edition (High Memory)"
    assert offers[(hm, "europe", "on_demand")] == 20.00
    assert offers[(hm, "europe", "spot")] == 11.01
    cut = next(o for o in result.prices if (o.sku, o.region, o.pricing_model) == (
        hm, "europe", "on_demand"))
    assert cut.ram_gb == 1024.0  # read from the summary cells: the detail block is cut
    assert len(result.prices) == 22
    assert Counter(r.reason for r in result.rejects) == {
        "no_price_contact_sales": 3,  # US RTX PRO 6000 SM, Europe GB300, Europe B300
        "price_not_available": 3,  # spot N/A: US GH200, Europe GB300 and GB200
        "truncated_row": 1,  # the nameless tail of the US B300 row the excerpt starts in
    }
    assert all(o.price_per_hour and o.price_per_hour > 0 for o in result.prices)


def test_region_headings() -> None:
    result = _parse(FIXTURES / "instances_min.html")
    assert _offers(result) == {
        ("NVIDIA HGX H100", "us", "on_demand"): 49.24,  # zero-width space in the name stripped
        ("NVIDIA HGX H100", "us", "spot"): 19.71,
        ("NVIDIA GB200 NVL72", "us", "on_demand"): 42.00,
        ("NVIDIA HGX B300", "europe", "spot"): 36.70,
    }
    assert [r.reason for r in result.rejects] == ["price_not_available",
                                                  "no_price_contact_sales"]
    gb200 = next(o for o in result.prices if o.sku == "NVIDIA GB200 NVL72")
    assert (gb200.gpu_count, gb200.gpu_memory_gb) == (4.0, 186.0)


def test_fixture_2023_component_grid() -> None:
    result = _parse(FIXTURES / "gpu_component_2023_min.html")
    assert [(o.sku, o.price_per_hour, o.gpu_count) for o in result.prices] == [
        ("gpu-component:hgx-h100", 4.76, 1.0), ("gpu-component:a40", 1.28, 1.0)]
    assert [r.reason for r in result.rejects] == ["no_price_contact_sales", "truncated_row"]


def test_unknown_layout_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="no known CoreWeave pricing layout"):
        _parse(FIXTURES / "unknown_layout.html")
    with pytest.raises(ParseError):
        coreweave.parse(Payload(name="empty.html", content=b""))


def test_layout_without_prices_is_an_empty_payload() -> None:
    with pytest.raises(EmptyPayloadError, match="no priced row"):
        _parse(FIXTURES / "no_prices.html")
