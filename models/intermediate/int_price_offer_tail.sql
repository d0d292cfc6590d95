-- the last two observed days of every offer key (source x provider x sku x region x
-- pricing_model) of int_price_daily_mapped: the rows an incremental build of price_changes
-- compares a new day with (models/incremental.py), kept from build to build.

with

daily as (

    select * from int_price_daily_mapped

),

final as (

    select daily.*
    from daily
    qualify row_number() over (
        partition by daily.source, daily.provider, daily.sku, daily.region, daily.pricing_model
        order by daily.day desc
    ) <= 2

)

select * from final
