"""price_daily, the daily rollup of the price observations (one row per day and offer key),
which the history marts read instead of rescanning all observations: the upsert of a batch
(every load), the one-time backfill of a raw layer written before it existed, the day an
unchanged refetch of a snapshot confirms, and the previous price of an offer that the jump
gate compares with (warehouse/refusals.py).
"""

from __future__ import annotations

from datetime import datetime

import duckdb
import pandas as pd

from gpucost.catalog.records import PriceObservation
from gpucost.warehouse import memory_limit, rebuild_memory_limit

OFFER_KEY = ("source", "provider", "sku", "region", "pricing_model", "os")

# the daily rollup of a batch of observations (a relation with PRICE_COLUMNS), upserted
DAILY_UPSERT = """
insert into price_daily
select
    cast(timezone('UTC', batch.observed_at) as date) as day,
    batch.source, lower(trim(batch.provider)), batch.sku, batch.region,
    batch.pricing_model, lower(coalesce(batch.os, 'linux')),
    arg_max(batch.currency, batch.observed_at),
    arg_max(batch.price_per_hour, batch.observed_at),
    min(batch.price_per_hour),
    max(batch.price_per_hour),
    arg_max(batch.gpu_name_raw, batch.observed_at),
    arg_max(batch.gpu_count, batch.observed_at),
    count(*),
    min(batch.observed_at),
    max(batch.observed_at),
    max(batch.fetch_id),
    arg_max(batch.payment, batch.observed_at)
from {relation} as batch
where batch.price_per_hour > 0
group by all
on conflict (day, source, provider, sku, region, pricing_model, os) do update set
    currency = case when excluded.last_observed_at >= price_daily.last_observed_at
        then excluded.currency else price_daily.currency end,
    price_per_hour = case when excluded.last_observed_at >= price_daily.last_observed_at
        then excluded.price_per_hour else price_daily.price_per_hour end,
    gpu_name_raw = case when excluded.last_observed_at >= price_daily.last_observed_at
        then excluded.gpu_name_raw else price_daily.gpu_name_raw end,
    gpu_count = case when excluded.last_observed_at >= price_daily.last_observed_at
        then excluded.gpu_count else price_daily.gpu_count end,
    last_fetch_id = case when excluded.last_observed_at >= price_daily.last_observed_at
        then excluded.last_fetch_id else price_daily.last_fetch_id end,
    payment = case when excluded.last_observed_at >= price_daily.last_observed_at
        then excluded.payment else price_daily.payment end,
    min_price_per_hour = least(price_daily.min_price_per_hour, excluded.min_price_per_hour),
    max_price_per_hour = greatest(price_daily.max_price_per_hour, excluded.max_price_per_hour),
    n_observations = price_daily.n_observations + excluded.n_observations,
    first_observed_at = least(price_daily.first_observed_at, excluded.first_observed_at),
    last_observed_at = greatest(price_daily.last_observed_at, excluded.last_observed_at)
"""


def backfill_daily(con: duckdb.DuckDBPyConnection) -> None:
    """One-time migration: a raw layer written before price_daily existed gets its rollup."""
    if con.execute("select count(*) from price_daily").fetchall()[0][0]:
        return
    if not con.execute("select count(*) from price_observations").fetchall()[0][0]:
        return
    # a rollup of every observation at once: like a full rebuild, it gets the rebuild's
    # memory (an upsert into a keyed table does not spill), then the load's cap again
    limit = rebuild_memory_limit()
    con.execute(f"set memory_limit = '{limit}'" if limit else "reset memory_limit")
    try:
        con.execute(DAILY_UPSERT.format(relation="price_observations"))
    finally:
        con.execute(f"set memory_limit = '{memory_limit()}'")


def prior_prices(
    con: duckdb.DuckDBPyConnection, source: str, prices: list[PriceObservation],
    observed_at: datetime,
) -> dict[int, tuple[datetime, float]]:
    """{row index: (observed_at, price)} of the previous stored observation of each row,
    of any age (a x100 price after a long silence is still a jump).

    An ASOF join against the daily rollup of this source (one row per offer and day, not
    per observation).
    """
    frame = pd.DataFrame(
        [(i, source, p.provider.strip().lower(), p.sku, p.region, p.pricing_model,
          (p.os or "linux").lower(), p.observed_at or observed_at)
         for i, p in enumerate(prices)],
        columns=["idx", *OFFER_KEY, "observed_at"],
    )
    same_key = " and ".join(f"batch.{c} = prior.{c}" for c in OFFER_KEY)
    con.register("_batch_keys", frame)
    try:
        # only the batch's providers' days, and only the columns compared: the ASOF join
        # sorts what it is given (a whole SkyPilot history: every cloud's offers)
        rows = con.execute(
            "select batch.idx, prior.last_observed_at, prior.price_per_hour "
            "from _batch_keys as batch asof inner join "
            f"(select {', '.join(OFFER_KEY)}, last_observed_at, price_per_hour "
            "from price_daily where price_daily.source = ? and price_daily.provider in "
            "(select distinct provider from _batch_keys)) as prior "
            f"on {same_key} and batch.observed_at > prior.last_observed_at",
            [source],
        ).fetchall()
    finally:
        con.unregister("_batch_keys")
    return {int(idx): (when, float(price)) for idx, when, price in rows}


def confirm_snapshot(
    con: duckdb.DuckDBPyConnection, source: str, sha256: str, fetch_id: int,
    observed_at: datetime,
) -> None:
    """An identical refetch of a snapshot: its prices were seen again at `observed_at`.

    The rows of the fetch that loaded these bytes are rolled into the day of the refetch.
    Payloads whose rows carry their own dates (a price history file) confirm nothing.
    """
    rows = con.execute(
        "select fetch_id, observed_at from fetches where source = ? and sha256 = ? "
        "and status in ('ok', 'replayed') and rows_loaded > 0 "
        "order by fetch_id desc limit 1",
        [source, sha256],
    ).fetchall()
    if not rows:
        return
    loaded_id, loaded_at = rows[0]
    relation = (
        f"(select * replace (cast({int(fetch_id)} as bigint) as fetch_id,"
        f" cast(? as timestamptz) as observed_at)"
        f" from price_observations where fetch_id = {int(loaded_id)}"
        f" and not exists (select 1 from price_observations as dated"
        f"  where dated.fetch_id = {int(loaded_id)} and dated.observed_at <> ?))"
    )
    con.execute(DAILY_UPSERT.format(relation=relation), [observed_at, loaded_at])
