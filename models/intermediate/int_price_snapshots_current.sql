-- one row per price observation in force: the rows loaded by the fetch in force of each
-- source x stream (see int_fetches_in_force), with that fetch's confirmed_at. A payload that
-- carries many dates (a daily price history file) contributes only the newest observation
-- of each offer key (provider x sku x region x pricing_model x os).
-- available (stg_raw__price_observations): true / false where the payload states whether it
-- can be launched now; null = not stated.

with

observations as (

    select * from stg_raw__price_observations

),

fetches_in_force as (

    select * from int_fetches_in_force

),

final as (

    select
        observations.*,
        fetches_in_force.stream,
        fetches_in_force.confirmed_at
    from observations
    inner join fetches_in_force using (fetch_id)
    -- as of a day (gpucost_as_of, int_fetches_in_force): never a row observed after it
    where getvariable('gpucost_as_of') is null
        or observations.observed_at <= getvariable('gpucost_as_of')
    qualify row_number() over (
        partition by
            observations.fetch_id,
            observations.provider,
            observations.sku,
            observations.region,
            observations.pricing_model,
            observations.os
        order by observations.observed_at desc
    ) = 1

)

select * from final
