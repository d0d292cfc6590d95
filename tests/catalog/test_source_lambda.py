"""Lambda pricing page scraper: both recorded layouts and small fixtures of our own."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gpucost.catalog.records import EmptyPayloadError, ParseError, ParseResult, Payload
from gpucost.catalog.sources import lambda_cloud

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "lambda"
RECORDED = "prices/pricing_pages_html/lambda"
PAGE_2024 = "lambda_gpu-cloud_20241103180910.html"
PAGE_2026 = "lambda_pricing_20260109103934.html"


def _parse(path: Path) -> ParseResult:
    return lambda_cloud.parse(Payload(name=path.name, content=path.read_bytes(), ext="html"))


def _per_gpu(result: ParseResult) -> dict[str, float]:
    out = {}
    for o in result.prices:
        assert o.price_per_hour is not None and o.gpu_count
        out[o.sku] = round(o.price_per_hour / o.gpu_count, 4)
    return out


def test_every_recorded_lambda_page_is_covered(shared_data: Path) -> None:
    assert {p.name for p in (shared_data / RECORDED).glob("*.html")} == {PAGE_2024, PAGE_2026}


def test_recorded_2024_table(shared_data: Path) -> None:
    result = _parse(shared_data / RECORDED / PAGE_2024)
    assert result.stream == "pricing_page"
    assert result.observed_at == datetime(2024, 11, 3, 18, 9, 10, tzinfo=UTC)
    assert len(result.prices) == 17
    assert dict(Counter(r.reason for r in result.rejects)) == {"no_price_contact_sales": 1}
    per_gpu = _per_gpu(result)
    assert per_gpu["8x NVIDIA H100 SXM 80GB"] == 2.99
    assert per_gpu["1x NVIDIA H100 PCIe 80GB"] == 2.49
    assert per_gpu["8x NVIDIA A100 SXM 80GB"] == 1.79
    assert per_gpu["8x NVIDIA A100 SXM 40GB"] == 1.29
    assert per_gpu["1x NVIDIA A10 24GB"] == 0.75
    assert per_gpu["1x NVIDIA Quadro RTX 6000 24GB"] == 0.50
    h100 = next(o for o in result.prices if o.sku == "8x NVIDIA H100 SXM 80GB")
    assert (h100.price_per_hour, h100.gpu_count, h100.gpu_name_raw) == (
        23.92, 8.0, "NVIDIA H100 SXM 80GB")
    assert (h100.gpu_memory_gb, h100.vcpus, h100.ram_gb) == (80.0, 208.0, 1800.0)
    assert all(o.provider == "lambda" and o.region == "" and o.pricing_model == "on_demand"
               for o in result.prices)
    assert "Reserved 8x NVIDIA H100 SXM" in result.rejects[0].detail


def test_recorded_2026_tabs(shared_data: Path) -> None:
    result = _parse(shared_data / RECORDED / PAGE_2026)
    assert result.observed_at == datetime(2026, 1, 9, 10, 39, 34, tzinfo=UTC)
    assert result.rejects == []
    assert _per_gpu(result) == {
        "8x NVIDIA B200 SXM6 180GB": 4.99,
        "8x NVIDIA H100 SXM 80GB": 2.99,
        "8x NVIDIA A100 SXM 80GB": 1.79,
        "8x NVIDIA A100 SXM 40GB": 1.29,
        "8x NVIDIA Tesla V100 16GB": 0.55,
    }
    names = {o.gpu_name_raw for o in result.prices}
    assert {"NVIDIA A100 SXM 80GB", "NVIDIA A100 SXM 40GB"} <= names
    b200 = next(o for o in result.prices if o.gpu_name_raw == "NVIDIA B200 SXM6 180GB")
    assert (b200.price_per_hour, b200.gpu_count, b200.gpu_memory_gb) == (39.92, 8.0, 180.0)


def test_both_layouts_name_the_same_offer_alike(shared_data: Path) -> None:
    old = _parse(shared_data / RECORDED / PAGE_2024)
    new = _parse(shared_data / RECORDED / PAGE_2026)
    common = {o.sku for o in old.prices} & {o.sku for o in new.prices}
    assert {"8x NVIDIA H100 SXM 80GB", "8x NVIDIA A100 SXM 80GB", "8x NVIDIA A100 SXM 40GB",
            "8x NVIDIA Tesla V100 16GB"} <= common


# --- own fixtures ----------------------------------------------------------------------------

def test_fixture_2024_table() -> None:
    result = _parse(FIXTURES / "lambda_2024_table_min.html")
    assert result.observed_at is None
    assert [(o.sku, o.price_per_hour, o.gpu_count) for o in result.prices] == [
        ("8x NVIDIA H100 SXM 80GB", 23.92, 8.0),  # zero-width space in the title stripped
        ("2x NVIDIA A6000 48GB", 1.6, 2.0),
    ]
    assert [r.reason for r in result.rejects] == ["no_price_contact_sales"]


def test_fixture_2026_tabs_count_from_the_tab() -> None:
    result = _parse(FIXTURES / "lambda_2026_tabs_min.html")
    assert [(o.sku, o.gpu_name_raw, o.price_per_hour, o.gpu_count) for o in result.prices] == [
        ("8x NVIDIA A100 SXM 80GB", "NVIDIA A100 SXM 80GB", 14.32, 8.0),
        ("8x NVIDIA A100 SXM 40GB", "NVIDIA A100 SXM 40GB", 10.32, 8.0),
        ("1x NVIDIA GH200 96GB", "NVIDIA GH200 96GB", 1.49, 1.0),
    ]
    assert [r.reason for r in result.rejects] == ["no_price_contact_sales"]


def test_unknown_layout_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="no known Lambda pricing layout"):
        _parse(FIXTURES / "unknown_layout.html")
    with pytest.raises(ParseError):
        lambda_cloud.parse(Payload(name="empty.html", content=b""))


def test_layout_without_prices_is_an_empty_payload() -> None:
    with pytest.raises(EmptyPayloadError, match="no priced row"):
        _parse(FIXTURES / "layout_without_prices.html")


def test_a_price_in_exponent_form_is_not_read_as_its_first_digit() -> None:
    """`$1e308` on the page was read as $1 (issue "Hostile input", item 5)."""
    page = (FIXTURES / "lambda_2026_tabs_min.html").read_text()
    first = page.index("$")
    end = first + 1
    while page[end] in "0123456789.,":
        end += 1
    hostile = page[:first] + "$1e308" + page[end:]
    normal = lambda_cloud.parse(Payload(name="p.html", content=page.encode()))
    result = lambda_cloud.parse(Payload(name="p.html", content=hostile.encode()))
    assert len(result.prices) == len(normal.prices) - 1
    assert all(p.price_per_hour < 1000 for p in result.prices)
    assert lambda_cloud._price("$1e308 / GPU / hr") is None
    assert lambda_cloud._price("$2.99 / GPU / hr") == 2.99


# --- the instance-types API (stock: regions_with_capacity_available) --------------------------

def test_instance_types_api_stock() -> None:
    """tests/fixtures/lambda/instance_types.json (our own, in the API's documented shape), read
    by hand: gpu_8x_h100_sxm5 2392 cents = 23.92 USD/h for 8 GPUs, two regions with capacity
    -> available True; gpu_1x_h100_sxm5 329 cents, an empty region list -> False; gpu_1x_a10
    75 cents, no regions_with_capacity_available field -> None (not stated); gpu_1x_gh200 priced
    0 -> rejected; cpu_4x_general (no GPU) skipped. One row per type, region "" (not regional)."""
    result = lambda_cloud.parse(Payload(name="instance_types.json",
                                        content=(FIXTURES / "instance_types.json").read_bytes(),
                                        ext="json"))
    assert result.stream == "instance_types_api"
    rows = {o.sku: (o.price_per_hour, o.gpu_count, o.region, o.available)
            for o in result.prices}
    assert rows == {"gpu_8x_h100_sxm5": (23.92, 8.0, "", True),
                    "gpu_1x_h100_sxm5": (3.29, 1.0, "", False),
                    "gpu_1x_a10": (0.75, 1.0, "", None)}
    h100 = next(o for o in result.prices if o.sku == "gpu_8x_h100_sxm5")
    assert (h100.gpu_name_raw, h100.vcpus, h100.ram_gb, h100.pricing_model) == (
        "H100 (80 GB SXM5)", 208.0, 1800.0, "on_demand")
    assert [r.reason for r in result.rejects] == ["zero_or_missing_price"]
    with pytest.raises(ParseError, match="'data' object"):
        lambda_cloud.parse(Payload(name="x.json", content=b'{"error": {"code": "unauthorized"}}'))


def test_pages_state_no_stock(shared_data: Path) -> None:
    """The pricing pages say nothing about capacity: every row None."""
    for page in (PAGE_2024, PAGE_2026):
        result = _parse(shared_data / RECORDED / page)
        assert {o.available for o in result.prices} == {None}
