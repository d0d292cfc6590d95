"""The aws source: the EC2 bulk offer file and the daily price history, recorded and fixture.

The fixture tests/fixtures/aws/ec2_offer_file_gpu_slice.csv takes the real preamble and
header of the recorded sample and holds GPU rows of the documented shape (no real GPU slice
of the bulk file could be found).
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from gpucost.catalog.records import EmptyPayloadError, ParseError, Payload
from gpucost.catalog.sources import aws

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "aws"
RECORDED = Path("prices") / "aws_price_list"


def _parse(path: Path, name: str | None = None):
    return aws.parse(Payload(name=name or path.name, content=path.read_bytes(), url=str(path)))


def test_recorded_sample_offer_file_keeps_no_row(shared_data: Path) -> None:
    # its only GPU row is a Dedicated / SUSE / unused-reservation g5.48xlarge: filtered out
    with pytest.raises(EmptyPayloadError, match=r"1 GPU-family rows"):
        _parse(shared_data / RECORDED / "ec2_offer_file_sample_20250912225308.csv")


@pytest.mark.parametrize("name", ["offers_service_index_sample.json",
                                  "ec2_version_index_sample.json"])
def test_recorded_index_files_hold_no_prices(shared_data: Path, name: str) -> None:
    with pytest.raises(EmptyPayloadError, match="index"):
        _parse(shared_data / RECORDED / name)


def test_recorded_p5_history_one_observation_per_day(shared_data: Path) -> None:
    result = _parse(shared_data / RECORDED / "p5.48xlarge_us-east-1_ondemand_history.csv")
    assert result.stream == "history/us-east-1/p5.48xlarge"
    days = [o.observed_at.date() for o in result.prices]
    assert days == sorted(days) and len(days) == len(set(days)) == 486
    assert days[0] == date(2025, 4, 23) and days[-1] == date(2026, 8, 22)
    assert result.observed_at == max(o.observed_at for o in result.prices)
    by_day = {o.observed_at.date(): o.price_per_hour for o in result.prices}
    assert by_day[date(2025, 6, 4)] == 98.32 and by_day[date(2025, 6, 5)] == 55.04
    assert {o.price_per_hour for o in result.prices} == {98.32, 55.04}
    first = result.prices[0]
    assert (first.provider, first.sku, first.region, first.pricing_model) == (
        "aws", "p5.48xlarge", "us-east-1", "on_demand")
    assert (first.gpu_name_raw, first.gpu_count) == ("H100", 8.0)
    # the 13 empty prices (a back-filled monthly block and one failed run) are unknown, not 0
    empty = [r for r in result.rejects if r.reason == "zero_or_missing_price"]
    assert len(empty) == 13
    assert {r.reason for r in result.rejects} == {"zero_or_missing_price", "duplicate_offer"}


def test_history_without_a_region_in_its_name_is_refused(shared_data: Path) -> None:
    path = shared_data / RECORDED / "p5.48xlarge_us-east-1_ondemand_history.csv"
    with pytest.raises(ParseError, match="region"):
        aws.parse(Payload(name="history.csv", content=path.read_bytes()))


def test_fixture_offer_file_filters_and_terms() -> None:
    result = _parse(FIXTURES / "ec2_offer_file_gpu_slice.csv", "us-east-1/index.csv")
    got = {(o.sku, o.region, o.pricing_model): o for o in result.prices}
    assert set(got) == {
        ("p5.48xlarge", "us-east-1", "on_demand"),
        ("p5.48xlarge", "us-east-1", "reserved_1y"),
        ("p5.48xlarge", "us-east-1", "reserved_3y"),
        ("g6f.large", "us-east-1", "on_demand"),
        ("g5.xlarge", "us-east-1", "on_demand"),
        ("g5.96xlarge", "us-east-1", "on_demand"),
        ("trn1.32xlarge", "us-east-1", "on_demand"),
        ("g4dn.xlarge", "cn-north-1", "on_demand"),
    }
    p5 = got[("p5.48xlarge", "us-east-1", "on_demand")]
    # Windows, Dedicated, capacity-reservation and SQL-preinstalled rows of the same SKU are
    # other products: the Linux shared on-demand price is the one kept
    assert p5.price_per_hour == 55.04
    assert (p5.gpu_name_raw, p5.gpu_count, p5.gpu_memory_gb, p5.vcpus, p5.ram_gb) == (
        "H100", 8.0, 80.0, 192.0, 2048.0)
    # reserved, standard only (not convertible): the 1yr All Upfront term (310,000 up front,
    # 0 an hour) is 310,000 / 8,760 = 35.388128 an hour, below No Upfront's 36.11: kept
    one_year = got[("p5.48xlarge", "us-east-1", "reserved_1y")]
    assert (one_year.price_per_hour, one_year.payment) == (35.388128, "all_upfront")
    three_years = got[("p5.48xlarge", "us-east-1", "reserved_3y")]
    assert (three_years.price_per_hour, three_years.payment) == (24.62, "no_upfront")
    # fractional L4 slice, a size missing from the table (count from the GPU column), Neuron
    assert got[("g6f.large", "us-east-1", "on_demand")].gpu_count == pytest.approx(0.125)
    assert got[("g5.96xlarge", "us-east-1", "on_demand")].gpu_count == 16.0
    assert got[("trn1.32xlarge", "us-east-1", "on_demand")].gpu_name_raw == "Trainium"
    # China is priced in CNY and keeps its currency
    assert got[("g4dn.xlarge", "cn-north-1", "on_demand")].currency == "CNY"
    assert [(r.reason, r.detail.split(":")[0]) for r in result.rejects] == [
        ("zero_or_missing_price", "p5.48xlarge us-west-2 on_demand"),
        ("duplicate_offer", "aws p5.48xlarge us-east-1 reserved_1y")]  # No Upfront 36.11
    assert result.stream == "cn-north-1,us-east-1"


def test_fixture_reserved_terms_and_payments() -> None:
    """Our offer-file rows of p4d.24xlarge us-east-1 (standard terms), worked by hand with a
    year of 365 x 24 = 8,760 hours (the per-hour equivalent = upfront / hours + hourly):
    1yr No Upfront 24.0; Partial Upfront 100,740 / 8,760 + 11.5 = 23.0; All Upfront
    197,100 / 8,760 + 0 = 22.5 (the cheapest: kept, payment all_upfront). 3yr (26,280 hours):
    No Upfront 16.0; Partial Upfront 197,100 / 26,280 + 7.5 = 15.0 (kept, partial_upfront);
    All Upfront 420,480 / 26,280 = 16.0. A convertible 9.0 is another product (not read); an
    upfront fee without its hourly row is no price."""
    result = _parse(FIXTURES / "ec2_offer_file_reserved_terms.csv", "us-east-1/index.csv")
    assert {(o.pricing_model, o.price_per_hour, o.payment) for o in result.prices} == {
        ("on_demand", 32.7726, None),
        ("reserved_1y", 22.5, "all_upfront"),
        ("reserved_3y", 15.0, "partial_upfront"),
    }
    assert aws.HOURS_PER_YEAR == 8760
    dropped = sorted(r.detail for r in result.rejects if r.reason == "duplicate_offer")
    assert dropped == [
        "aws p4d.24xlarge us-east-1 reserved_1y: 23.0 dropped, 22.5 kept",
        "aws p4d.24xlarge us-east-1 reserved_1y: 24.0 dropped, 23.0 kept",
        "aws p4d.24xlarge us-east-1 reserved_3y: 16.0 dropped, 15.0 kept",
        "aws p4d.24xlarge us-east-1 reserved_3y: 16.0 dropped, 15.0 kept",
    ]
    assert [r.detail for r in result.rejects if r.reason == "zero_or_missing_price"] == [
        "g5.xlarge us-east-1 reserved 1yr All Upfront: hourly None, upfront 5000.0"]


def test_history_rows_unsorted_and_mixed_timestamps() -> None:
    text = (
        "timestamp,instance,price_usd\n"
        "2025-06-05T07:22:36,p5.48xlarge,55.04\n"
        "2025-06-04,p5.48xlarge,98.32\n"
        "2025-06-05T01:00:00Z,p5.48xlarge,98.32\n"
        "2025-06-06T09:00:00+02:00,p4d.24xlarge,\n"
    )
    result = aws.parse(Payload(name="gpu_prices_eu-west-1.csv", content=text.encode()))
    assert [(o.observed_at, o.price_per_hour) for o in result.prices] == [
        (datetime(2025, 6, 4, tzinfo=UTC), 98.32),
        (datetime(2025, 6, 5, 7, 22, 36, tzinfo=UTC), 55.04),  # the later row of that day wins
    ]
    assert {o.region for o in result.prices} == {"eu-west-1"}
    assert sorted(r.reason for r in result.rejects) == ["duplicate_offer", "zero_or_missing_price"]


def test_gpu_table() -> None:
    assert aws.gpu_of_instance("p4de.24xlarge") == ("A100 80GB", 8.0)
    assert aws.gpu_of_instance("p5en.48xlarge") == ("H200", 8.0)
    assert aws.gpu_of_instance("c7i.large") is None
    assert aws.gpu_of_instance("g6e.96xlarge", "16") == ("L40S", 16.0)
