-- one row per calendar month (UTC) x source x provider x sku x gpu_name_raw of the daily
-- rollup, Linux only, priced rows that name a GPU or count one: how many offer-days it
-- holds. The history-wide name counts (gpu_name_coverage, unmapped_gpu_names) read this
-- instead of every daily row; incremental (models/incremental.py): months a load touched
-- are recounted, the others kept from the previous build.

with

daily as (

    select * from int_price_daily_mapped

),

final as (

    select
        date_trunc('month', daily.day)::date as month,
        daily.source,
        daily.provider,
        daily.sku,
        daily.gpu_name_raw,
        count(*) as offer_days
    from daily
    where daily.gpu_name_raw is not null
        or daily.gpu_count > 0
    group by all

)

select * from final
