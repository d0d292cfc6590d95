-- one row per UTC day x accelerator x provider x pricing_model: the per-GPU hourly prices
-- (USD, whole GPUs) of the offers observed that day, from the daily rollup the loader keeps
-- (raw.price_daily), so building it never rescans every observation.
--
-- * price_per_gpu_hour is the provider's cheapest offer that day (as in gpu_prices), with the
--   median and maximum across its offers (skus x regions) observed that day and how many.
-- * a day has a row only when the provider was observed that day (a scheduled fetch that
--   finds the same payload again confirms its prices for that day); which regions and skus
--   were observed can differ from day to day, so compare offers in price_changes.
-- * a price listed in another currency is converted to USD at the ECB rate of its day (the
--   last published on or before it, at most 7 days before), as int_offers_usd converts the
--   offers in force; an incremental build converts a day at the rates stored when it builds
--   that day (fx_rate_date says which).
-- * first-hand prices win: a crosscheck table (source_kind 'crosscheck') gives the day's
--   price only when no first-hand source observed that provider that day.
--
-- columns:
--   day: the UTC day of the observations
--   price_per_gpu_hour [USD per GPU-hour]: the provider's cheapest per-GPU price that day (whole
--     GPUs; each offer at its last price of the day)
--   median_price_per_gpu_hour [USD per GPU-hour]: median over the provider's offers (skus x
--     regions) observed that day
--   max_price_per_gpu_hour [USD per GPU-hour]: dearest of the provider's offers observed that day
--   n_offers [offers]: offers (source x sku x region) behind the row that day
--   source_kind: first_hand, or crosscheck when only a crosscheck table observed the provider that
--     day
--   sources: the sources behind the row, comma-separated
--   observed_at [timestamp (UTC)]: the last observation that day of the offers behind the row
--   term_months [months]: the commitment the pricing model sells (1, 6, 12, 36; macro
--     term_months); null for on_demand, spot, community, interruptible_bid, queued and
--     capacity_block
--   payment: how the commitment of the cheapest offer that day is paid, where its source states
--     it: no_upfront | partial_upfront | all_upfront; null when not stated
--   currency_listed: the currency the cheapest offer that day is listed in (USD, or EUR for
--     Scaleway and Seeweb: converted to USD, docs/currencies.md)
--   fx_rate_date [date]: the ECB business day whose rate converted the cheapest offer that day:
--     the last on or before the day, at most 7 days before (a weekend takes Friday's); null for
--     a USD price. A price with no such rate stays out of the history

-- Built incrementally (models/incremental.py, SPECS["price_history"]): a refresh runs this SQL
-- over the (day, provider, pricing_model) groups it touched only and replaces those rows; keep
-- it correct over such a subset of int_price_daily_mapped.

with

daily_listed as (

    select * from int_price_daily_mapped

),

rates as (

    select * from int_fx_rates

),

-- a price listed in another currency in USD at the last ECB rate on or before its day, at
-- most 7 days before (macro usd_at_daily_rate; int_offers_usd for the offers in force), the
-- rate's day kept; with no such rate it stays in its listed currency, out of every USD figure
daily as (

    select
        daily_listed.* exclude (price_per_gpu_hour, currency),
        unnest(usd_at_daily_rate(
            daily_listed.price_per_gpu_hour, daily_listed.currency, daily_listed.day,
            rate.rate_date, rate.usd_per_unit
        ))
    from daily_listed
    asof left join rates as rate
        on rate.currency = daily_listed.currency
        and daily_listed.day >= rate.rate_date

),

usable as (

    select
        daily.*,
        min(case when daily.source_kind = 'crosscheck' then 1 else 0 end) over (
            partition by daily.day, daily.accelerator_id, daily.provider, daily.pricing_model
        ) as best_kind_rank,
        case when daily.source_kind = 'crosscheck' then 1 else 0 end as kind_rank
    from daily
    where daily.accelerator_id is not null
        and daily.currency = 'USD'
        and daily.price_per_gpu_hour is not null

),

final as (

    select
        usable.day,
        usable.accelerator_id,
        usable.provider,
        usable.pricing_model,
        'USD' as currency,
        min(usable.price_per_gpu_hour) as price_per_gpu_hour,
        quantile_cont(usable.price_per_gpu_hour, 0.5) as median_price_per_gpu_hour,
        max(usable.price_per_gpu_hour) as max_price_per_gpu_hour,
        count(*) as n_offers,
        any_value(usable.source_kind) as source_kind,
        string_agg(distinct usable.source, ', ' order by usable.source) as sources,
        max(usable.last_observed_at) as observed_at,
        term_months(usable.pricing_model) as term_months,
        arg_min(usable.payment, usable.price_per_gpu_hour) as payment,
        arg_min(usable.currency_listed, usable.price_per_gpu_hour) as currency_listed,
        arg_min(usable.fx_rate_date, usable.price_per_gpu_hour) as fx_rate_date
    from usable
    where usable.kind_rank = usable.best_kind_rank
    group by usable.day, usable.accelerator_id, usable.provider, usable.pricing_model

)

select * from final
order by final.day, final.accelerator_id, final.provider, final.pricing_model
