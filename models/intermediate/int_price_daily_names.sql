-- one row per provider x sku x gpu_name_raw ever seen in the daily rollup (raw.price_daily):
-- the history side of the names int_gpu_name_map resolves. Incremental (models/incremental.py):
-- the previous build's names plus those of the rollup rows the new fetches touched.

with

daily as (

    select * from stg_raw__price_daily

),

final as (

    select distinct
        daily.provider,
        daily.sku,
        daily.gpu_name_raw
    from daily

)

select * from final
