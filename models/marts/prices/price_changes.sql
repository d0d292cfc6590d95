-- one row per change of an offer's listed price: source x provider x sku x region x
-- pricing_model, between two consecutive days on which it was observed (daily rollup,
-- price = the last price of each day). old / new whole-instance prices, their per-GPU
-- equivalents (whole GPUs), change_pct = (new / old - 1) x 100, changed_on (the UTC day on
-- which the new price was observed), previous_observed_at (when the old price was last
-- seen) and observed_at (when the new one was last seen that day). Linux only; a
-- day without an observation is no change (the offer is compared with its previous
-- observed day, whatever the gap).
--
-- columns:
--   old_price_per_hour [USD/hour (in currency)]: whole-instance price on previous_day (the last
--     price seen that day)
--   new_price_per_hour [USD/hour (in currency)]: whole-instance price on changed_on (the last price
--     seen that day)
--   old_price_per_gpu_hour [USD per GPU-hour (in currency)]: old_price_per_hour / gpu_count, whole
--     GPUs only
--   new_price_per_gpu_hour [USD per GPU-hour (in currency)]: new_price_per_hour / gpu_count, whole
--     GPUs only
--   change_pct [%]: (new_price_per_hour / old_price_per_hour - 1) x 100
--   changed_on: the UTC day on which the new price was observed
--   previous_day: the previous UTC day on which the offer was observed (at the old price); days in
--     between had no observation
--   previous_observed_at [timestamp (UTC)]: when the old price was last seen (on previous_day)
--   observed_at [timestamp (UTC)]: when the new price was last seen on changed_on

-- Built incrementally (models/incremental.py, SPECS["price_changes"]): a refresh runs this SQL
-- over the offers it touched only (their tail of two days in int_price_offer_tail and every
-- newer day) and replaces their changes from the first touched day; keep it correct over such
-- a subset of int_price_daily_mapped.

with

daily as (

    select * from int_price_daily_mapped

),

sequenced as (

    select
        daily.*,
        lag(daily.price_per_hour) over offer_days as old_price_per_hour,
        lag(daily.currency) over offer_days as old_currency,
        lag(daily.day) over offer_days as previous_day,
        lag(daily.last_observed_at) over offer_days as previous_observed_at
    from daily
    window offer_days as (
        partition by daily.source, daily.provider, daily.sku, daily.region, daily.pricing_model
        order by daily.day
    )

),

final as (

    select
        sequenced.accelerator_id,
        sequenced.provider,
        sequenced.source,
        sequenced.source_kind,
        sequenced.sku,
        sequenced.region,
        sequenced.pricing_model,
        sequenced.currency,
        sequenced.gpu_count,
        sequenced.old_price_per_hour,
        sequenced.price_per_hour as new_price_per_hour,
        case
            when sequenced.price_per_gpu_hour is not null
                then sequenced.old_price_per_hour / round(sequenced.gpu_count)
        end as old_price_per_gpu_hour,
        sequenced.price_per_gpu_hour as new_price_per_gpu_hour,
        (sequenced.price_per_hour / sequenced.old_price_per_hour - 1) * 100 as change_pct,
        sequenced.day as changed_on,
        sequenced.previous_day,
        sequenced.previous_observed_at,
        sequenced.last_observed_at as observed_at
    from sequenced
    where sequenced.old_price_per_hour is not null
        and sequenced.old_currency = sequenced.currency
        and abs(sequenced.price_per_hour - sequenced.old_price_per_hour)
        > 1e-9 * sequenced.old_price_per_hour

)

select * from final
order by final.changed_on, final.source, final.provider, final.sku, final.region,
    final.pricing_model
