"""FluidStack pricing page scraper: both recorded layouts and small fixtures of our own."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gpucost.catalog.records import EmptyPayloadError, ParseError, ParseResult, Payload
from gpucost.catalog.sources import fluidstack

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fluidstack"
RECORDED = "prices/pricing_pages_html/fluidstack"
PAGE_2023 = "fluidstack_pricing_20230930024119.html"
PAGE_2025 = "fluidstack_pricing_20250109013724.html"


def _parse(path: Path) -> ParseResult:
    return fluidstack.parse(Payload(name=path.name, content=path.read_bytes(), ext="html"))


def _offers(result: ParseResult) -> dict[tuple[str, str], float | None]:
    return {(o.sku, o.pricing_model): o.price_per_hour for o in result.prices}


def test_every_recorded_fluidstack_page_is_covered(shared_data: Path) -> None:
    assert {p.name for p in (shared_data / RECORDED).glob("*.html")} == {PAGE_2023, PAGE_2025}


def test_recorded_2023_gpu_component_grid(shared_data: Path) -> None:
    result = _parse(shared_data / RECORDED / PAGE_2023)
    assert result.stream == "pricing_page"
    assert result.observed_at == datetime(2023, 9, 30, 2, 41, 19, tzinfo=UTC)
    # vCPUs ($0.01/h) and RAM ($0.005/GB/h) extra: GPU-component prices, named so in the sku
    assert _offers(result) == {
        ("gpu-component:nvidia-hgx-h100", "on_demand"): 4.76,
        ("gpu-component:nvidia-h100-pcie", "on_demand"): 4.25,
        ("gpu-component:a100-80gb-nvlink", "on_demand"): 2.21,
        ("gpu-component:a100-80gb-pcie", "on_demand"): 2.21,
        ("gpu-component:a100-40gb-nvlink", "on_demand"): 1.29,
        ("gpu-component:a100-40gb-pcie", "on_demand"): 1.40,
        # the "GPU 6 Month Cost (/hr)" column, read by hand from the page
        ("gpu-component:nvidia-hgx-h100", "reserved_6m"): 2.89,
        ("gpu-component:nvidia-h100-pcie", "reserved_6m"): 2.89,
        ("gpu-component:a100-80gb-nvlink", "reserved_6m"): 1.48,
        ("gpu-component:a100-80gb-pcie", "reserved_6m"): 1.42,
        ("gpu-component:a100-40gb-nvlink", "reserved_6m"): 1.29,
        ("gpu-component:a100-40gb-pcie", "reserved_6m"): 1.38,
    }
    h100 = next(o for o in result.prices if o.sku == "gpu-component:nvidia-hgx-h100")
    assert (h100.gpu_name_raw, h100.gpu_count, h100.gpu_memory_gb, h100.vcpus) == (
        "NVIDIA HGX H100", 1.0, 80.0, None)
    assert {o.price_kind for o in result.prices} == {"gpu_component"}
    assert Counter(r.reason for r in result.rejects) == {
        "truncated_row": 1,  # the cut ends at the A6000 label
    }


def test_recorded_2025_table(shared_data: Path) -> None:
    result = _parse(shared_data / RECORDED / PAGE_2025)
    assert result.observed_at == datetime(2025, 1, 9, 1, 37, 24, tzinfo=UTC)
    assert _offers(result) == {
        ("Nvidia H200", "reserved_1y"): 2.45,
        ("Nvidia H100 PCIe", "on_demand"): 2.89, ("Nvidia H100 PCIe", "reserved_1y"): 2.05,
        ("Nvidia A100 80GB PCIe", "on_demand"): 1.80,
        ("Nvidia A100 80GB PCIe", "reserved_1y"): 1.20,
        ("Nvidia A100 40GB PCIe", "on_demand"): 1.65,
        ("Nvidia A100 40GB PCIe", "reserved_1y"): 1.05,
        ("Nvidia L40", "on_demand"): 1.25, ("Nvidia L40", "reserved_1y"): 0.99,
    }
    assert [(r.reason, r.detail) for r in result.rejects] == [
        ("price_not_available", "Nvidia H200 on_demand: 'n/a'")]
    assert all(o.gpu_count == 1.0 and o.region == "" and o.price_kind == "instance"
               for o in result.prices)


def test_fixtures_both_layouts() -> None:
    table = _parse(FIXTURES / "table_min.html")
    assert _offers(table) == {("Nvidia H200", "reserved_1y"): 2.45,
                              ("Nvidia H100 PCIe", "on_demand"): 2.89,
                              ("Nvidia H100 PCIe", "reserved_1y"): 2.05}
    assert [r.reason for r in table.rejects] == ["price_not_available"]
    grid = _parse(FIXTURES / "grid_2023_min.html")
    assert _offers(grid) == {("gpu-component:nvidia-hgx-h100", "on_demand"): 4.76,
                             ("gpu-component:nvidia-hgx-h100", "reserved_6m"): 2.89}
    assert [r.reason for r in grid.rejects] == ["truncated_row"]


def test_unknown_layout_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="no known FluidStack pricing layout"):
        _parse(FIXTURES / "unknown_layout.html")
    with pytest.raises(ParseError):
        fluidstack.parse(Payload(name="empty.html", content=b""))


def test_layout_without_prices_is_an_empty_payload() -> None:
    with pytest.raises(EmptyPayloadError, match="no priced row"):
        _parse(FIXTURES / "no_prices.html")
