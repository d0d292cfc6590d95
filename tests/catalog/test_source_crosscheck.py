"""The crosscheck source: the recorded curated tables (FSDL CSV, cloud-gpus.com JSON) and
small fixtures of our own."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpucost.catalog.records import ParseError, Payload
from gpucost.catalog.sources import crosscheck

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "crosscheck"
RECORDED = Path("prices") / "curated_tables"


def _parse(path: Path):
    return crosscheck.parse(Payload(name=path.name, content=path.read_bytes()))


def test_recorded_fsdl_tables(shared_data: Path) -> None:
    old = _parse(shared_data / RECORDED / "fullstack_cloud-gpus_2023-10-30.csv")
    new = _parse(shared_data / RECORDED / "fullstack_cloud-gpus_2025-03-07.csv")
    assert old.stream == new.stream == "fullstack"
    assert len({o.provider for o in new.prices}) == 18
    p4de = next(o for o in new.prices if o.sku == "p4de.24xlarge" and o.pricing_model ==
                "on_demand")
    assert (p4de.provider, p4de.price_per_hour, p4de.gpu_count, p4de.gpu_name_raw) == (
        "aws", 40.97, 8.0, "A100 (80 GB)")
    p4d_spot = next(o for o in new.prices if o.sku == "p4d.24xlarge" and o.pricing_model ==
                    "spot")
    assert p4d_spot.price_per_hour == 9.83
    assert {o.provider for o in new.prices} >= {"oracle", "datacrunch", "lambda", "runpod"}


def test_recorded_cloud_gpus_com_tables(shared_data: Path) -> None:
    old = _parse(shared_data / RECORDED / "cloud-gpus-com_cloud_gpu_2024-11-14.json")
    new = _parse(shared_data / RECORDED / "cloud-gpus-com_cloud_gpu_2025-09-17.json")
    assert old.stream == new.stream == "cloud-gpus"
    keys_old = {o.sku for o in old.prices}
    keys_new = {o.sku for o in new.prices}
    assert {"costb200", "costh200", "costmi300x"} <= keys_new - keys_old  # the schema grows
    lambda_h100 = next(o for o in new.prices if o.provider == "lambda" and o.sku == "costh100")
    assert (lambda_h100.price_per_hour, lambda_h100.currency, lambda_h100.gpu_count) == (
        2.49, "USD", 1.0)
    assert {o.currency for o in old.prices} == {"USD", "EUR"}  # Seeweb's "€2.10"


def test_fixture_tables() -> None:
    fsdl = _parse(FIXTURES / "fullstack_min.csv")
    got = {(o.provider, o.sku, o.pricing_model): o for o in fsdl.prices}
    assert got[("dataoorts", "gc2.h100-80-1", "on_demand")].vcpus is None  # "20-26"
    assert got[("lambda", "1x H100 (80 GB)", "on_demand")].price_per_hour == 2.49  # Per-GPU x 1
    assert got[("cudo", "1x A6000 (48 GB)", "on_demand")].price_per_hour == 0.45
    assert sorted(r.reason for r in fsdl.rejects) == ["duplicate_offer", "zero_or_missing_price"]
    cg = _parse(FIXTURES / "cloud_gpu_min.json")
    prices = {(o.provider, o.sku): (o.price_per_hour, o.currency) for o in cg.prices}
    assert prices == {
        ("lambda", "costh100"): (2.49, "USD"), ("lambda", "costa100_80"): (1.79, "USD"),
        ("seeweb", "costh100"): (2.1, "EUR"), ("oracle", "costh100"): (10.0, "USD"),
        ("oracle", "costb200"): (14.0, "USD"), ("tensorwave", "costmi325x"): (2250.0, "USD"),
    }
    assert [r.detail for r in cg.rejects] == ["Broken costa100_40: 'call us'"]


@pytest.mark.parametrize("text,expected", [
    ("$3.06", (3.06, "USD")), ("€2.10", (2.1, "EUR")), ("4.40", (4.4, "USD")),
    ("$2,250.00", (2250.0, "USD")), ("-", None), ("", None), ("$0.00", None),
    ("call us", None), (3, (3.0, "USD")),
])
def test_price_strings(text, expected) -> None:
    assert crosscheck.parse_price(text) == expected


def test_not_a_table() -> None:
    with pytest.raises(ParseError):
        crosscheck.parse(Payload(name="x.csv", content=b"a,b\n1,2\n"))
    with pytest.raises(ParseError):
        crosscheck.parse(Payload(name="x.json", content=b'{"providers": []}'))
