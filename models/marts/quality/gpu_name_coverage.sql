-- one row per source x provider: how many GPU-bearing offer-days of the whole price history
-- (daily rollup: one row per day and offer key, rows with a GPU name or a GPU count) map to
-- a curated accelerator, and the share. The names that do not map are in unmapped_gpu_names.
-- Counted from the monthly name counts (int_price_name_months), never from every daily row.
--
-- columns:
--   offer_days [offer-days]: GPU-bearing offer-days of the source and provider in the whole price
--     history (one per UTC day and offer key, Linux, known price)
--   offer_days_mapped [offer-days]: those whose GPU name maps to a curated accelerator
--   share_mapped [fraction]: offer_days_mapped / offer_days
--   unmapped_names [names]: distinct GPU names (gpu_name_raw, non-null) among the offer-days that
--     map to no accelerator

with

name_months as (

    select * from int_price_name_months

),

name_map as (

    select * from int_gpu_name_map

),

gpu_rows as (

    select
        name_months.*,
        name_map.accelerator_id
    from name_months
    left join name_map
        on name_map.provider = name_months.provider
        and name_map.sku = name_months.sku
        and name_map.gpu_name_raw is not distinct from name_months.gpu_name_raw

),

final as (

    select
        gpu_rows.source,
        gpu_rows.provider,
        sum(gpu_rows.offer_days)::bigint as offer_days,
        coalesce(sum(gpu_rows.offer_days) filter (where gpu_rows.accelerator_id is not null),
            0)::bigint as offer_days_mapped,
        coalesce(sum(gpu_rows.offer_days) filter (where gpu_rows.accelerator_id is not null),
            0) / sum(gpu_rows.offer_days) as share_mapped,
        count(distinct gpu_rows.gpu_name_raw) filter (where gpu_rows.accelerator_id is null)
            as unmapped_names
    from gpu_rows
    group by gpu_rows.source, gpu_rows.provider

)

select * from final
order by final.source, final.provider
