"""The vast source: a marketplace search answer of 305 offers (our own fixture in the
documented shape), aggregated per GPU model and GPU count. The expected p10 / median / p90
are computed here independently, with numpy, from the raw offers."""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import numpy as np
import pytest

from gpucost.catalog.records import EmptyPayloadError, ParseError, Payload
from gpucost.catalog.sources import vast
from gpucost.flows.ingest import ingest_files

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "vast" / "bundles_305_offers.json"


def _expected() -> dict[tuple[str, float], dict[str, float]]:
    """Per (label, GPUs per offer): offers and per-GPU p10 / median / p90 of dph_base."""
    groups: dict[tuple[str, float], list[float]] = defaultdict(list)
    for offer in json.loads(FIXTURE.read_bytes())["offers"]:
        base, name, count = offer.get("dph_base"), offer.get("gpu_name"), offer.get("num_gpus")
        if not name or not count or not base or base <= 0 or offer.get("rentable") is False:
            continue
        if name.startswith(("A100", "Tesla V100")):  # sold in two memory sizes
            name = f"{name} {round(offer['gpu_ram'] / 1024)}GB"
        groups[(name, float(count))].append(base / count)
    return {key: {"n": len(v), "p10": float(np.percentile(v, 10)),
                  "median": float(np.percentile(v, 50)), "p90": float(np.percentile(v, 90))}
            for key, v in groups.items()}


def test_parse_aggregates_offers_into_buckets() -> None:
    result = vast.parse(Payload(name="bundles.json", content=FIXTURE.read_bytes()))
    expected = _expected()
    community = {(o.gpu_name_raw, o.gpu_count): o for o in result.prices
                 if o.pricing_model == "community"}
    assert set(community) == set(expected)
    assert sum(e["n"] for e in expected.values()) == 301
    for key, want in expected.items():
        obs = community[key]
        count = key[1]
        assert obs.offer_count == want["n"], key
        assert obs.price_per_hour / count == pytest.approx(want["median"], rel=1e-6), key
        assert obs.price_p10_per_hour / count == pytest.approx(want["p10"], rel=1e-6), key
        assert obs.price_p90_per_hour / count == pytest.approx(want["p90"], rel=1e-6), key
        assert obs.sku == f"{count:g}x {key[0]}" and obs.region == ""
    assert ("A100 SXM4 80GB", 8.0) in community or ("A100 SXM4 80GB", 1.0) in community
    assert {o.pricing_model for o in result.prices} == {"community", "interruptible_bid"}
    assert sorted(r.reason for r in result.rejects) == [
        "gpu_unknown", "not_rentable", "zero_or_missing_price", "zero_or_missing_price"]


def test_marts_carry_the_percentiles(tmp_path: Path) -> None:
    # dated, as a live fetch is: a replay without a date would yield each bucket to the dated
    # reference prices of Vast host offers (catalog/reference_prices.csv, 2026-04-29)
    outcomes, published = ingest_files("vast", [FIXTURE], data_dir=tmp_path,
                                       observed_at=datetime(2026, 11, 1, tzinfo=UTC))
    assert [o.status for o in outcomes] == ["replayed"] and published is not None
    con = duckdb.connect(str(tmp_path / "gpucost.duckdb"), read_only=True)
    try:
        rows = con.execute(
            "select gpu_name_raw, gpu_count, accelerator_id, offer_count, "
            "p10_price_per_gpu_hour, price_per_gpu_hour, p90_price_per_gpu_hour, "
            "is_fractional_gpu from gpu_offers where source = 'vast' "
            "and pricing_model = 'community'").fetchall()
        h100 = con.execute(
            "select providers from gpu_prices "
            "where accelerator_id = 'nvidia-h100-sxm5-80gb' and pricing_model = 'community'"
        ).fetchone()
    finally:
        con.close()
    expected = _expected()
    assert len(rows) == len(expected)
    for name, count, _accelerator, n, p10, median, p90, fractional in rows:
        want = expected[(name, count)]
        if fractional:  # the half A100: kept, flagged, no per-GPU figures
            assert (p10, median, p90) == (None, None, None)
            continue
        assert n == want["n"]
        assert (p10, median, p90) == (pytest.approx(want["p10"]), pytest.approx(want["median"]),
                                      pytest.approx(want["p90"]))
        assert p10 <= median <= p90
    mapped = {name: acc for name, _, acc, *_ in rows}
    assert mapped["H100 SXM"] == "nvidia-h100-sxm5-80gb"
    assert mapped["RTX 4090"] == "nvidia-rtx-4090-24gb"
    assert mapped["A100 SXM4 80GB"] == "nvidia-a100-sxm4-80gb"
    # vast lists in gpu_prices as a community-capacity provider of the H100 SXM
    assert "vast" in h100[0].split(", ")


def test_quantile_is_linear_interpolation() -> None:
    values = [4.0, 1.0, 3.0, 2.0]
    for p in (0.0, 0.1, 0.5, 0.9, 1.0):
        assert vast.quantile(values, p) == pytest.approx(float(np.percentile(values, p * 100)))


def test_bad_answers() -> None:
    with pytest.raises(ParseError, match="offers"):
        vast.parse(Payload(name="b.json", content=b'{"error": "rate limited"}'))
    with pytest.raises(ParseError, match="JSON"):
        vast.parse(Payload(name="b.json", content=b'{"offers": ['))
    with pytest.raises(EmptyPayloadError):
        vast.parse(Payload(name="b.json", content=b'{"offers": []}'))


# --- the projected offers list (provider_api/vastai): dph_total, no ids ----------------------

PROJECTED = "prices/provider_api/vastai/vastai_bundles_offers_projected_1f5b058.json"


def test_recorded_projected_offers(shared_data: Path) -> None:
    path = shared_data / PROJECTED
    raw = json.loads(path.read_bytes())
    result = vast.parse(Payload(name=path.name, content=path.read_bytes(), ext="json"))
    assert result.stream == "marketplace_projected" and result.observed_at is None  # undated
    assert result.rejects == []
    assert {o.pricing_model for o in result.prices} == {"community"}  # no min_bid here
    # duplicates are kept: every one of the 138 lines is one offer of a bucket
    assert sum(o.offer_count for o in result.prices) == len(raw) == 138
    by_key = {(o.gpu_name_raw, o.gpu_count): o for o in result.prices}
    # read by hand: the cheapest H100 SXM is 4.194844.../2 = 2.097 per GPU (2x offer) and
    # 2.099644... (1x offer); the 1x bucket holds 8 offers
    h100 = [(o["dph_total"] / o["num_gpus"]) for o in raw if o["gpu_name"] == "H100 SXM"]
    assert len(h100) == 16 and round(min(h100), 2) == 2.10
    assert round(float(np.median(h100)), 2) == 3.17
    one = by_key[("H100 SXM", 1.0)]
    ones = [o["dph_total"] for o in raw if o["gpu_name"] == "H100 SXM" and o["num_gpus"] == 1]
    assert one.offer_count == 8 and one.sku == "1x H100 SXM"
    assert one.price_per_hour == pytest.approx(float(np.median(ones)), abs=1e-6)
    assert one.price_p10_per_hour == pytest.approx(float(np.percentile(ones, 10)), abs=1e-6)
    assert min(ones) == pytest.approx(2.099644444444444)
    # A100 40 vs 80 GB only in gpu_ram; 39 936 MiB is the 40 GB part
    names = {o.gpu_name_raw for o in result.prices}
    assert {"A100 SXM4 40GB", "A100 SXM4 80GB", "A100 PCIE 40GB", "A100 PCIE 80GB"} <= names
    assert not any("39GB" in n for n in names)
    assert by_key[("A100 SXM4 40GB", 1.0)].offer_count == 15  # 14 x 40960 + 1 x 39936 MiB
    b200 = by_key[("B200", 1.0)]
    assert (b200.offer_count, b200.price_per_hour) == (3, pytest.approx(6.252083, abs=1e-6))


def test_projected_shape_of_our_own() -> None:
    def parse(doc: str):  # type: ignore[no-untyped-def]
        return vast.parse(Payload(name="p.json", content=doc.encode()))

    result = parse('[{"gpu_name": "H100 SXM", "gpu_ram": 81559, "num_gpus": 2, "dph_total": 6},'
                   ' {"gpu_name": "H100 SXM", "gpu_ram": 81559, "num_gpus": 2, "dph_total": 6},'
                   ' {"gpu_name": "H100 SXM", "gpu_ram": 81559, "num_gpus": 2, "dph_total": 0}]')
    (obs,) = result.prices
    assert (obs.sku, obs.offer_count, obs.price_per_hour) == ("2x H100 SXM", 2, 6.0)
    assert [r.reason for r in result.rejects] == ["zero_or_missing_price"]
    with pytest.raises(ParseError, match="dph_total"):
        parse('[{"gpu_name": "H100 SXM", "num_gpus": 1, "dph_base": 2.0}]')
    with pytest.raises(ParseError, match="not all offers"):
        parse('[1, 2]')
    with pytest.raises(EmptyPayloadError):
        parse('[]')


def test_stock_of_buckets() -> None:
    """available per bucket: True when any offer is rentable and not rented. In the 305-offer
    fixture (counted by hand with a Counter over (rentable, rented)): 300 offers rentable true /
    rented false, 4 rentable true / rented absent, 1 rentable false (rejected): every bucket
    True. A bucket whose offers are all rented is False; offers stating neither field: None."""
    result = vast.parse(Payload(name="bundles.json", content=FIXTURE.read_bytes()))
    assert {o.available for o in result.prices} == {True}

    def offer(name: str, price: float, **stock: object) -> dict[str, object]:
        return {"id": 1, "gpu_name": name, "num_gpus": 1, "gpu_ram": 81559, "dph_base": price,
                "min_bid": price / 2, **stock}

    doc = {"offers": [
        offer("H100 SXM", 2.0, rentable=True, rented=True),
        offer("H100 SXM", 2.2, rentable=True, rented=False),   # one free offer: bucket True
        offer("H200", 3.0, rentable=True, rented=True),
        offer("H200", 3.2, rentable=True, rented=True),         # all rented: False
        offer("L40S", 1.0),                                     # not stated: None
    ]}
    result = vast.parse(Payload(name="bundles.json", content=json.dumps(doc).encode()))
    stock = {(o.gpu_name_raw, o.pricing_model): o.available for o in result.prices}
    assert stock == {("H100 SXM", "community"): True, ("H100 SXM", "interruptible_bid"): True,
                     ("H200", "community"): False, ("H200", "interruptible_bid"): False,
                     ("L40S", "community"): None, ("L40S", "interruptible_bid"): None}
    assert vast.offer_available({"rentable": True}) is True
    assert vast.offer_available({"rented": False}) is None


def test_projected_recording_states_no_stock(shared_data: Path) -> None:
    """The projected recording kept gpu_name, gpu_ram, num_gpus and dph_total only."""
    path = shared_data / "prices" / "provider_api" / "vastai" \
        / "vastai_bundles_offers_projected_1f5b058.json"
    result = vast.parse(Payload(name=path.name, content=path.read_bytes()))
    assert result.prices and {o.available for o in result.prices} == {None}
