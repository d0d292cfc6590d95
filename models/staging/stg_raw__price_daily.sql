-- one row per UTC day x offer key (source x provider x sku x region x pricing_model x os):
-- the daily rollup the loader maintains (raw.price_daily). price_per_hour is the last price
-- seen that day (whole instance); zero or negative prices are unknown (null), never free.
-- payment: how that last price's commitment is paid, where stated (null otherwise).
-- A price without a date is no day's price: a day whose last fetch is a file replayed without
-- any date (observed_at_basis ingest_time; the loader no longer rolls those up, a raw layer
-- written before may hold some) is left out.

with

source as (

    select * from raw.price_daily
    where not exists (
        select 1 from raw.fetches
        where fetches.fetch_id = price_daily.last_fetch_id
            and fetches.observed_at_basis = 'ingest_time'
    )

),

renamed as (

    select
        ---------- ids
        source.day,
        source.source,
        lower(trim(source.provider)) as provider,
        source.sku,
        source.region,
        lower(source.pricing_model) as pricing_model,
        lower(coalesce(source.os, 'linux')) as os,

        ---------- price
        upper(source.currency) as currency,
        case when source.price_per_hour > 0 then source.price_per_hour end as price_per_hour,
        lower(source.payment) as payment,
        source.min_price_per_hour,
        source.max_price_per_hour,

        ---------- hardware
        source.gpu_name_raw,
        source.gpu_count,

        ---------- provenance
        source.n_observations,
        source.last_fetch_id,

        ---------- timestamps
        source.first_observed_at,
        source.last_observed_at

    from source

)

select * from renamed
