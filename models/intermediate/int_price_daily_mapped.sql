-- one row per UTC day x offer key (source x provider x sku x region x pricing_model) of the
-- daily rollup, Linux only, with the accelerator resolved (int_gpu_name_map), the source
-- kind (first_hand | crosscheck) and, for whole GPUs, the per-GPU price of that day, with
-- how its commitment is paid where stated (payment).
--
-- A view, never materialised: it is as long as the whole history, and the incremental build
-- (models/incremental.py) reads only the days and offers a load touched.
-- materialized: view

with

daily as (

    select * from stg_raw__price_daily

),

name_map as (

    select * from int_gpu_name_map

),

listing_providers as (

    select * from stg_curated__providers

),

final as (

    select
        daily.day,
        name_map.accelerator_id,
        daily.source,
        case when daily.source = 'crosscheck' then 'crosscheck' else 'first_hand' end
            as source_kind,
        daily.provider,
        daily.sku,
        daily.region,
        -- a marketplace's on-demand listing is community capacity (as in int_offers_mapped)
        case
            when listing_providers.listing_kind = 'marketplace'
                and daily.pricing_model = 'on_demand'
                then 'community'
            else daily.pricing_model
        end as pricing_model,
        daily.currency,
        daily.price_per_hour,
        daily.payment,
        daily.gpu_name_raw,
        daily.gpu_count,
        case
            when daily.gpu_count >= 1
                and abs(daily.gpu_count - round(daily.gpu_count)) < 1e-9
                then daily.price_per_hour / round(daily.gpu_count)
        end as price_per_gpu_hour,
        daily.n_observations,
        daily.last_fetch_id,
        daily.first_observed_at,
        daily.last_observed_at
    from daily
    left join listing_providers using (provider)
    left join name_map
        on name_map.provider = daily.provider
        and name_map.sku = daily.sku
        and name_map.gpu_name_raw is not distinct from daily.gpu_name_raw
    where daily.os not like '%windows%'
        and daily.price_per_hour is not null

)

select * from final
