"""AWS EC2 Capacity Blocks (source aws_capacity_blocks): the recorded table and our fixtures."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gpucost.catalog.records import EmptyPayloadError, ParseError, ParseResult, Payload
from gpucost.catalog.sources import aws_capacity_blocks

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "aws_capacity_blocks"
RECORDED = "prices/aws_capacity_blocks"
TABLE = "aws_capacity_blocks_pricing_2026-01-31.json"


def _parse(path: Path) -> ParseResult:
    return aws_capacity_blocks.parse(Payload(name=path.name, content=path.read_bytes(),
                                             ext=path.suffix.lstrip(".")))


def _prices(result: ParseResult) -> dict[tuple[str, str], float | None]:
    return {(o.sku, o.region): o.price_per_hour for o in result.prices}


def test_every_recorded_table_is_covered(shared_data: Path) -> None:
    assert {p.name for p in (shared_data / RECORDED).glob("*.json")} == {TABLE}


def test_recorded_table(shared_data: Path) -> None:
    """Figures read by hand from the recorded JSON (and its README's "Expected values"):
    p5.48xlarge (8 x H100) us-east-1 31.464 per instance-hour = 3.933 per GPU-hour; p5en
    us-east-1 41.612; p5e us-east-2 39.799; p4d us-east-1 11.8; p4de us-east-1 14.7663; the
    UltraServer u-p6e-gb200x72 prints 10.582 (its per-GPU rate, accelerator rate 0.0):
    72 x 10.582 = 761.904 per UltraServer-hour, x36: 36 x 10.582 = 380.952."""
    result = _parse(shared_data / RECORDED / TABLE)
    assert result.stream == "capacity_blocks"
    assert result.observed_at == datetime(2026, 1, 31, 14, 16, 57, tzinfo=UTC)  # last_updated
    prices = _prices(result)
    assert prices[("p5.48xlarge", "us-east-1")] == 31.464
    assert prices[("p5en.48xlarge", "us-east-1")] == 41.612
    assert prices[("p5e.48xlarge", "us-east-2")] == 39.799
    assert prices[("p4d.24xlarge", "us-east-1")] == 11.8
    assert prices[("p4de.24xlarge", "us-east-1")] == 14.7663
    assert prices[("p5.48xlarge", "us-west-1")] == 39.33  # N. California is dearer
    assert prices[("u-p6e-gb200x72", "us-east-1-dfw-2a")] == pytest.approx(761.904)
    assert prices[("u-p6e-gb200x36", "us-east-1-dfw-2a")] == pytest.approx(380.952)
    p5 = next(o for o in result.prices if (o.sku, o.region) == ("p5.48xlarge", "us-east-1"))
    assert (p5.gpu_name_raw, p5.gpu_count, p5.price_kind, p5.payment) == (
        "H100", 8.0, "instance", None)
    assert round(p5.price_per_hour / p5.gpu_count, 3) == 3.933
    gb200 = next(o for o in result.prices if o.sku == "u-p6e-gb200x72")
    assert (gb200.gpu_name_raw, gb200.gpu_count, gb200.price_kind) == (
        "GB200", 72.0, "shape_per_gpu")
    assert gb200.price_per_hour / gb200.gpu_count == pytest.approx(10.582)
    # every row of the table is an offer (14 instance types, 60 type x region rows)
    assert len(result.prices) == 60 and result.rejects == []
    assert {o.pricing_model for o in result.prices} == {"capacity_block"}
    assert {o.provider for o in result.prices} == {"aws"}
    # the Local Zone stays a region of its own, never us-east-1
    assert {o.region for o in result.prices if o.sku.startswith("u-")} == {"us-east-1-dfw-2a"}


def test_fixture_table_traps() -> None:
    """Our JSON in the recorded shape: the UltraServer x36 is 36 x 10.582 = 380.952; GovCloud
    p5 37.757 (a region of its own); p4d 11.8 / 8 = 1.475 is not the 2.5 printed per
    accelerator (refused); a 0.0 rate is unknown; trn1's single figure for 16 devices is
    ambiguous; a region without a code is refused."""
    result = _parse(FIXTURES / "table_min.json")
    assert result.observed_at == datetime(2026, 1, 31, 14, 16, 57, tzinfo=UTC)
    assert _prices(result) == {("u-p6e-gb200x36", "us-east-1-dfw-2a"): pytest.approx(380.952),
                               ("p5.48xlarge", "us-east-1"): 31.464,
                               ("p5.48xlarge", "us-gov-west-1"): 37.757}
    assert Counter(r.reason for r in result.rejects) == {
        "region_unknown": 1, "per_gpu_mismatch": 1, "zero_or_missing_price": 1,
        "per_gpu_figure_ambiguous": 1}


def test_fixture_page() -> None:
    """The AWS page's shape (embedded jsonData tables, "$31.464 USD ($3.933 USD)"): region
    names mapped to codes, the UltraServer's single figure x 72, the page undated."""
    result = _parse(FIXTURES / "pricing_page_min.html")
    assert result.observed_at is None
    assert _prices(result) == {
        ("p5.48xlarge", "us-east-1"): 31.464, ("p5.48xlarge", "us-west-1"): 39.33,
        ("p5.4xlarge", "us-east-1"): 3.933,
        ("u-p6e-gb200x72", "us-east-1-dfw-2a"): pytest.approx(761.904),
        ("p4d.24xlarge", "us-gov-west-1"): 14.16}
    assert Counter(r.reason for r in result.rejects) == {
        "region_unknown": 1, "per_gpu_mismatch": 1, "zero_or_missing_price": 1}


def test_unknown_shapes_are_parse_errors() -> None:
    with pytest.raises(ParseError, match="no known Capacity Blocks pricing layout"):
        aws_capacity_blocks.parse(Payload(name="x.html", content=b"<html><div>x</div></html>"))
    with pytest.raises(ParseError, match="no known Capacity Blocks table"):
        aws_capacity_blocks.parse(Payload(name="x.json", content=b'{"message": "moved"}'))
    with pytest.raises(ParseError, match="not valid JSON"):
        aws_capacity_blocks.parse(Payload(name="x.json", content=b"{" * 100_000))
    with pytest.raises(ParseError, match="last_updated"):
        aws_capacity_blocks.parse(Payload(
            name="x.json", content=b'{"metadata": {}, "instance_types": {}}'))


def test_page_without_prices_is_an_empty_payload() -> None:
    with pytest.raises(EmptyPayloadError, match="no priced row"):
        _parse(FIXTURES / "no_prices.html")
