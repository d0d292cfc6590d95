-- one row per source x provider: how many GPU-bearing offer-days of the whole price history
-- (daily rollup: one row per day and offer key, rows with a GPU name or a GPU count) map to
-- a curated accelerator, and the share. The names that do not map are in unmapped_gpu_names.
--
-- columns:
--   offer_days [offer-days]: GPU-bearing offer-days of the source and provider in the whole price
--     history (one per UTC day and offer key, Linux, known price)
--   offer_days_mapped [offer-days]: those whose GPU name maps to a curated accelerator
--   share_mapped [fraction]: offer_days_mapped / offer_days
--   unmapped_names [names]: distinct GPU names (gpu_name_raw, non-null) among the offer-days that
--     map to no accelerator

with

daily as (

    select * from int_price_daily_mapped

),

gpu_rows as (

    select * from daily
    where daily.gpu_name_raw is not null
        or daily.gpu_count > 0

),

final as (

    select
        gpu_rows.source,
        gpu_rows.provider,
        count(*) as offer_days,
        count(*) filter (where gpu_rows.accelerator_id is not null) as offer_days_mapped,
        count(*) filter (where gpu_rows.accelerator_id is not null) / count(*) as share_mapped,
        count(distinct gpu_rows.gpu_name_raw) filter (where gpu_rows.accelerator_id is null)
            as unmapped_names
    from gpu_rows
    group by gpu_rows.source, gpu_rows.provider

)

select * from final
order by final.source, final.provider
