"""The daily price index (models/marts/prices/price_index.sql, docs/price-index.md) on a small
history written through the loader: sellers counted once, a price carried forward for at most
price_index_carry_days, no index below price_index_min_sellers, the size a buyer needs."""

from __future__ import annotations

import csv
from datetime import UTC, date, datetime
from pathlib import Path

import duckdb
import pytest

from gpucost.catalog import CATALOG_DIR
from gpucost.catalog.records import ParseResult, Payload, PriceObservation
from gpucost.flows.steps import build_and_publish
from gpucost.warehouse.store import RawStore

H100 = "nvidia-h100-sxm5-80gb"
MAR1, MAR10, APR5 = (datetime(2026, m, d, 10, tzinfo=UTC) for m, d in ((3, 1), (3, 10), (4, 5)))


def _obs(provider: str, sku: str, per_gpu: float, gpus: int = 8,
         **kw: object) -> PriceObservation:
    return PriceObservation(provider=provider, sku=sku, region="r1", pricing_model="on_demand",
                            price_per_hour=round(per_gpu * gpus, 4), gpu_name_raw="H100 SXM",
                            gpu_count=float(gpus), **kw)


def _load(store: RawStore, con, source: str, prices: list[PriceObservation],
          when: datetime) -> None:
    name = f"{source}-{when:%Y%m%d}"
    payload = Payload(name=name, content=(name + repr(prices)).encode(), url=name)
    saved = store.save_payload(source, payload, when)
    store.load(con, run_id="r", source=source, mode="replay", payload=payload, saved=saved,
               result=ParseResult(stream=name, prices=prices), started_at=when,
               finished_at=when, observed_at=when)


def _history(data: Path, *, publish_before_april: bool = False) -> list[str]:
    """Load the history below into `data` and publish; with `publish_before_april`, publish
    once before the last load too (the last publish is then incremental). The publishes'
    history modes."""
    store = RawStore(data)
    modes = []
    with store.connect() as con:
        _load(store, con, "aws", [_obs("aws", "p5.48xlarge", 12.29)], MAR1)
        _load(store, con, "lambda", [_obs("lambda", "gpu_8x_h100_sxm5", 2.99)], MAR1)
        _load(store, con, "nebius", [_obs("nebius", "8gpu-h100", 2.95)], MAR1)
        _load(store, con, "lambda", [_obs("lambda", "gpu_8x_h100_sxm5", 2.99)], MAR10)
        _load(store, con, "runpod", [_obs("runpod", "8x H100 SXM", 2.69),
                                     _obs("runpod", "1x H100 SXM", 2.00, gpus=1)], MAR10)
        # an aggregator's resale of Lambda's machine, cheaper than Lambda's own listing
        _load(store, con, "skypilot", [_obs("shadeform", "lambdalabs_gpu_8x_h100_sxm5", 2.50)],
              MAR10)
        # a GPU billed with CPU and RAM on top: no machine's price
        _load(store, con, "coreweave", [_obs("coreweave", "H100 GPU", 1.00,
                                             price_kind="gpu_component")], MAR10)
    if publish_before_april:
        modes.append(build_and_publish(data).history_mode)
    with store.connect() as con:
        _load(store, con, "aws", [_obs("aws", "p5.48xlarge", 6.88)], APR5)
    modes.append(build_and_publish(data).history_mode)
    return modes


def _rows(data: Path) -> dict[tuple[date, int], dict]:
    con = duckdb.connect(str(data / "gpucost.duckdb"), read_only=True)
    try:
        cur = con.execute("select * from price_index where accelerator_id = ? "
                          "and pricing_model = 'on_demand'", [H100])
        cols = [d[0] for d in cur.description]
        rows = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
    finally:
        con.close()
    return {(r["day"], r["min_gpus_per_instance"]): r for r in rows}


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[date, int], dict]:
    """The price_index rows of H100 SXM on-demand, by (day, min_gpus_per_instance)."""
    data = tmp_path_factory.mktemp("price-index")
    _history(data)
    return _rows(data)


def test_an_incremental_publish_gives_the_full_builds_index(index, tmp_path: Path) -> None:
    """Published before AWS's April observation, then again: the second build rebuilds the
    index from 2026-03-11 (the day after the first build's last day, 03-10) only, and equals the
    full build of the same history."""
    modes = _history(tmp_path, publish_before_april=True)
    assert modes[-1] == "incremental"
    assert _rows(tmp_path) == index


def test_the_method_reads_its_settings_from_the_catalog() -> None:
    """The hand computations below take a 30-day carry and a 3-seller minimum."""
    with (CATALOG_DIR / "assumptions.csv").open(encoding="utf-8") as fh:
        values = {r["key"]: float(r["value"]) for r in csv.DictReader(fh)}
    assert values["price_index_carry_days"] == 30
    assert values["price_index_min_sellers"] == 3


def test_a_day_worked_out_by_hand(index) -> None:
    """2026-03-10, whole 8-GPU machines. Sellers in force:
    runpod 2.69 (8x, observed that day), nebius 2.95 (observed 03-01, carried 9 days),
    lambda 2.99 (its own listing observed that day: it outranks Shadeform's resale of the same
    Lambda machine at 2.50, which is not a second seller), aws 12.29 (98.32/8, carried from
    03-01); CoreWeave's 1.00 GPU component is no machine's price. Sorted: 2.69, 2.95, 2.99,
    12.29 (n = 4). quantile_cont: median at position 0.5*3 = 1.5 -> (2.95+2.99)/2 = 2.97;
    p25 at 0.75 -> 2.69 + 0.75*(2.95-2.69) = 2.885; p75 at 2.25 -> 2.99 + 0.25*(12.29-2.99)
    = 5.315."""
    row = index[(date(2026, 3, 10), 8)]
    assert row["index_price_per_gpu_hour"] == pytest.approx(2.97)
    assert row["p25_price_per_gpu_hour"] == pytest.approx(2.885)
    assert row["p75_price_per_gpu_hour"] == pytest.approx(5.315)
    assert (row["min_price_per_gpu_hour"], row["max_price_per_gpu_hour"]) == (2.69, 12.29)
    assert (row["n_sellers"], row["n_sellers_observed"], row["n_sellers_carried"]) == (4, 2, 2)
    assert row["is_published"] and row["oldest_observed_day"] == date(2026, 3, 1)
    assert row["sellers"] == ("runpod 2.6900, nebius 2.9500 (from 2026-03-01), lambda 2.9900, "
                              "aws 12.2900 (from 2026-03-01)")


def test_the_size_a_buyer_needs(index) -> None:
    """Any size (1): runpod's 1-GPU machine at 2.00 is its price that day, so the sellers are
    2.00, 2.95, 2.99, 12.29: median (2.95+2.99)/2 = 2.97 again, min 2.00."""
    row = index[(date(2026, 3, 10), 1)]
    assert row["min_price_per_gpu_hour"] == 2.00
    assert row["index_price_per_gpu_hour"] == pytest.approx(2.97)
    assert row["p25_price_per_gpu_hour"] == pytest.approx(2.00 + 0.75 * 0.95)


def test_a_carried_price_expires_after_the_carry_days(index) -> None:
    """aws and nebius, last observed 03-01, are carried through 03-31 (30 days) and are gone
    on 04-01; lambda and runpod (observed 03-10) remain: 2 sellers."""
    last = index[(date(2026, 3, 31), 8)]
    assert (last["n_sellers"], last["n_sellers_carried"]) == (4, 4)
    gone = index[(date(2026, 4, 1), 8)]
    assert gone["n_sellers"] == 2
    assert gone["sellers"] == ("runpod 2.6900 (from 2026-03-10), "
                               "lambda 2.9900 (from 2026-03-10)")


def test_no_index_below_the_minimum_sellers(index) -> None:
    """04-01 has 2 sellers (< 3): the row is kept, with no statistic; 04-05 AWS is observed
    again at 55.04/8 = 6.88: 3 sellers (2.69, 2.99, 6.88), index 2.99."""
    gone = index[(date(2026, 4, 1), 8)]
    assert not gone["is_published"]
    assert [gone[c] for c in ("index_price_per_gpu_hour", "p25_price_per_gpu_hour",
                              "p75_price_per_gpu_hour", "min_price_per_gpu_hour",
                              "max_price_per_gpu_hour")] == [None] * 5
    back = index[(date(2026, 4, 5), 8)]
    assert back["is_published"] and back["index_price_per_gpu_hour"] == pytest.approx(2.99)
    assert (back["n_sellers_observed"], back["n_sellers_carried"]) == (1, 2)


def test_the_days_run_from_the_first_observation_to_the_last(index) -> None:
    days = sorted(d for d, size in index if size == 8)
    assert days[0] == date(2026, 3, 1) and days[-1] == date(2026, 4, 5)
    assert len(days) == len(set(days)) == 36  # every day between, each once
    first = index[(date(2026, 3, 1), 8)]  # aws 12.29, lambda 2.99, nebius 2.95: median 2.99
    assert first["index_price_per_gpu_hour"] == pytest.approx(2.99)
