-- one row per listed price of one offer (source x provider x sku x region x pricing model)
-- as loaded by one fetch. price_per_hour is the whole row's price; zero or negative prices are
-- unknown (null), never free. price_kind says what it buys (catalog/records.py PRICE_KINDS):
-- 'instance' (a whole machine; every row loaded before the column existed), 'gpu_with_host',
-- 'gpu_only', 'gpu_component', 'shape_per_gpu'. payment: how a commitment is paid where stated
-- (no_upfront, partial_upfront, all_upfront); available: the payload's stock flag (null: not
-- stated).

with

source as (

    select * from raw.price_observations

),

renamed as (

    select
        ---------- ids
        source.fetch_id,
        source.source,
        lower(trim(source.provider)) as provider,
        source.sku,
        source.region,
        lower(source.pricing_model) as pricing_model,
        lower(coalesce(source.os, 'linux')) as os,

        ---------- price
        upper(source.currency) as currency,
        case when source.price_per_hour > 0 then source.price_per_hour end as price_per_hour,
        coalesce(lower(source.price_kind), 'instance') as price_kind,
        lower(source.payment) as payment,

        ---------- stock: can it be launched now (null: the payload does not say)
        source.available,

        ---------- hardware
        source.gpu_name_raw,
        source.gpu_count,
        source.gpu_memory_gb,
        source.vcpus,
        source.ram_gb,

        ---------- marketplace aggregates (Vast): offers behind a median price, p10 / p90
        source.offer_count,
        case when source.price_p10_per_hour > 0 then source.price_p10_per_hour end
            as price_p10_per_hour,
        case when source.price_p90_per_hour > 0 then source.price_p90_per_hour end
            as price_p90_per_hour,

        ---------- timestamps
        source.observed_at

    from source

)

select * from renamed
