"""The daily price rollup (raw.price_daily) the loader keeps, and the history marts built on it:
incremental upserts, intraday updates, 'unchanged' refetches, backfilled older days, the
one-time migration of an older raw layer, and price_history / price_changes."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest

from gpucost.catalog.records import ParseResult, Payload, PriceObservation
from gpucost.flows.steps import build_and_publish
from gpucost.warehouse.store import RawStore

DAY = {d: datetime(2026, 3, d, 10, tzinfo=UTC) for d in range(1, 8)}


def _obs(sku: str, price: float, model: str = "on_demand", **kw) -> PriceObservation:
    return PriceObservation(provider="aws", sku=sku, region="us-east-1", pricing_model=model,
                            price_per_hour=price, gpu_name_raw="H100", gpu_count=8.0, **kw)


def _load(store: RawStore, con, name: str, prices: list[PriceObservation], when: datetime,
          stream: str = "us-east-1"):
    payload = Payload(name=name, content=(name + repr(prices)).encode(), url=name)
    saved = store.save_payload("aws", payload, when)
    return store.load(con, run_id="r", source="aws", mode="replay", payload=payload,
                      saved=saved, result=ParseResult(stream=stream, prices=prices),
                      started_at=when, finished_at=when, observed_at=when)


def _daily(con) -> dict[tuple[str, str], tuple]:
    return {(str(r[0]), r[1]): r[2:] for r in con.execute(
        "select day, sku, price_per_hour, min_price_per_hour, max_price_per_hour, "
        "n_observations from price_daily order by 1, 2").fetchall()}


@pytest.fixture
def store(tmp_path: Path) -> RawStore:
    return RawStore(tmp_path)


def test_rollup_is_upserted_per_day_and_key(store: RawStore) -> None:
    with store.connect() as con:
        _load(store, con, "a", [_obs("p5.48xlarge", 98.32), _obs("p4d.24xlarge", 32.77)],
              DAY[1])
        _load(store, con, "b", [_obs("p5.48xlarge", 90.0)], DAY[1].replace(hour=18))
        _load(store, con, "c", [_obs("p5.48xlarge", 55.04)], DAY[3])
        daily = _daily(con)
    assert daily == {
        ("2026-03-01", "p4d.24xlarge"): (32.77, 32.77, 32.77, 1),
        ("2026-03-01", "p5.48xlarge"): (90.0, 90.0, 98.32, 2),  # the last price of the day
        ("2026-03-03", "p5.48xlarge"): (55.04, 55.04, 55.04, 1),
    }


def test_unchanged_refetch_confirms_a_snapshot_for_its_day(store: RawStore) -> None:
    with store.connect() as con:
        first = _load(store, con, "a", [_obs("p5.48xlarge", 98.32)], DAY[1])
        again = _load(store, con, "a", [_obs("p5.48xlarge", 98.32)], DAY[4])
        daily = _daily(con)
        n_obs = con.execute("select count(*) from price_observations").fetchone()[0]
    assert (first.status, again.status) == ("replayed", "unchanged")
    assert n_obs == 1  # no observation row added ...
    assert set(daily) == {("2026-03-01", "p5.48xlarge"), ("2026-03-04", "p5.48xlarge")}


def test_history_payload_is_not_confirmed_by_a_refetch(store: RawStore) -> None:
    rows = [_obs("p5.48xlarge", 98.32, observed_at=DAY[1]),
            _obs("p5.48xlarge", 55.04, observed_at=DAY[2])]
    with store.connect() as con:
        _load(store, con, "hist", rows, DAY[2])
        _load(store, con, "hist", rows, DAY[6])  # same bytes, later: confirms nothing
        daily = _daily(con)
    assert set(daily) == {("2026-03-01", "p5.48xlarge"), ("2026-03-02", "p5.48xlarge")}


def test_backfill_of_older_days_and_history_marts(store: RawStore, tmp_path: Path) -> None:
    with store.connect() as con:
        _load(store, con, "d1", [_obs("p5.48xlarge", 98.32), _obs("p4d.24xlarge", 32.77)],
              DAY[2])
        _load(store, con, "d2", [_obs("p5.48xlarge", 55.04), _obs("p4d.24xlarge", 32.77)],
              DAY[5])
        # a backfill replayed today of a payload observed before both
        _load(store, con, "d0", [_obs("p5.48xlarge", 90.0)], DAY[1])
        # older than the newest observation of that day: the day keeps the newer price
        _load(store, con, "d2-early", [_obs("p5.48xlarge", 60.0)], DAY[5].replace(hour=1))
        # drop the observations no longer in force: the history marts must not need them
        # (they read the rollup, so a rebuild does not rescan every observation)
        con.execute("delete from price_observations where observed_at < ?", [DAY[5]])
    build_and_publish(tmp_path)
    con = duckdb.connect(str(tmp_path / "gpucost.duckdb"), read_only=True)
    try:
        changes = con.execute(
            "select sku, old_price_per_hour, new_price_per_hour, round(change_pct, 2), "
            "changed_on, previous_day, accelerator_id from price_changes order by changed_on"
        ).fetchall()
        history = con.execute(
            "select day, price_per_gpu_hour, n_offers from price_history "
            "where accelerator_id = 'nvidia-h100-sxm5-80gb' order by day").fetchall()
        offer = con.execute("select price_per_hour from gpu_offers "
                            "where sku = 'p5.48xlarge'").fetchall()
    finally:
        con.close()
    assert [c[:6] for c in changes] == [
        ("p5.48xlarge", 90.0, 98.32, 9.24, datetime(2026, 3, 2).date(),
         datetime(2026, 3, 1).date()),
        ("p5.48xlarge", 98.32, 55.04, -44.02, datetime(2026, 3, 5).date(),
         datetime(2026, 3, 2).date()),
    ]
    assert changes[0][6] == "nvidia-h100-sxm5-80gb"
    assert history == [(datetime(2026, 3, d).date(), p / 8, 1)
                       for d, p in ((1, 90.0), (2, 98.32), (5, 55.04))]
    assert offer == [(55.04,)]  # the backfill did not displace newer data in force


def test_an_older_raw_layer_gets_its_rollup_once(store: RawStore) -> None:
    with store.connect() as con:
        _load(store, con, "a", [_obs("p5.48xlarge", 98.32)], DAY[1])
        _load(store, con, "b", [_obs("p5.48xlarge", 55.04)], DAY[2])
        before = _daily(con)
        con.execute("delete from price_daily")  # a raw layer written before the rollup
    with store.connect() as con:
        assert _daily(con) == before


def test_payment_and_term_months_reach_the_rollup_and_the_marts(store: RawStore,
                                                                 tmp_path: Path) -> None:
    """A reserved term's payment (AWS PurchaseOption) reaches the daily rollup (the day's last
    observation decides, as for its price; a row that states none keeps null), then
    price_history and gpu_offers with term_months: 35.39 / 8 GPUs = 4.42375 per GPU-hour."""
    with store.connect() as con:
        _load(store, con, "a", [_obs("p5.48xlarge", 36.11, "reserved_1y", payment="no_upfront"),
                                _obs("p5.48xlarge", 55.04)], DAY[1])
        _load(store, con, "b", [_obs("p5.48xlarge", 35.39, "reserved_1y",
                                     payment="all_upfront")], DAY[1].replace(hour=18))
        rows = con.execute("select pricing_model, price_per_hour, payment from price_daily "
                           "order by 1").fetchall()
    assert rows == [("on_demand", 55.04, None), ("reserved_1y", 35.39, "all_upfront")]
    build_and_publish(tmp_path)
    con = duckdb.connect(str(tmp_path / "gpucost.duckdb"), read_only=True)
    try:
        history = con.execute("select pricing_model, term_months, price_per_gpu_hour, payment "
                              "from price_history where provider = 'aws' order by 1").fetchall()
        offers = con.execute("select pricing_model, term_months, payment from gpu_offers "
                             "where source = 'aws' order by 1").fetchall()
    finally:
        con.close()
    assert history == [("on_demand", None, 6.88, None),
                       ("reserved_1y", 12, 4.42375, "all_upfront")]
    # in force: the stream's newer fetch "b" (it lists the reserved term only)
    assert offers == [("reserved_1y", 12, "all_upfront")]
