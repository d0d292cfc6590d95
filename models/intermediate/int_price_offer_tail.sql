-- the last two observed days of every offer key (source x provider x sku x region x
-- pricing_model) of int_price_daily_mapped: the rows an incremental build of price_changes
-- compares a new day with (models/incremental.py), kept from build to build.

with

daily as (

    select * from int_price_daily_mapped

),

-- the two last days per key by aggregation, then a join: a window over every daily row held
-- them all in memory (over 768 MB for 1,000,000 offers observed on two days), an aggregate and
-- a hash join spill to disk past the memory limit
last_days as (

    select
        daily.source,
        daily.provider,
        daily.sku,
        daily.region,
        daily.pricing_model,
        list_min(max(daily.day, 2)) as from_day
    from daily
    group by all

),

final as (

    select daily.*
    from daily
    inner join last_days
        on last_days.source is not distinct from daily.source
        and last_days.provider is not distinct from daily.provider
        and last_days.sku is not distinct from daily.sku
        and last_days.region is not distinct from daily.region
        and last_days.pricing_model is not distinct from daily.pricing_model
    where daily.day >= last_days.from_day

)

select * from final
