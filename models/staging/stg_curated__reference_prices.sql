-- one row per reference price typed from a public price page (catalog/reference_prices.csv).
-- price_per_hour is the whole instance; zero or negative prices are unknown (null), never free.

with

source as (

    select * from curated.reference_prices

),

renamed as (

    select
        ---------- ids
        lower(nullif(trim(source.provider), '')) as provider,
        coalesce(nullif(trim(source.sku), ''), '') as sku,
        nullif(trim(source.accelerator_id), '') as accelerator_id,
        coalesce(nullif(trim(source.region), ''), '') as region,
        lower(nullif(trim(source.pricing_model), '')) as pricing_model,

        ---------- numerics
        cast(nullif(trim(source.gpu_count), '') as double) as gpu_count,
        case
            when cast(nullif(trim(source.price_per_hour), '') as double) > 0
                then cast(nullif(trim(source.price_per_hour), '') as double)
        end as price_per_hour,
        upper(coalesce(nullif(trim(source.currency), ''), 'USD')) as currency,

        ---------- timestamps
        cast(nullif(trim(source.observed_date), '') as date) as observed_date,
        timezone('UTC', cast(cast(nullif(trim(source.observed_date), '') as date) as timestamp))
            as observed_at,

        ---------- provenance
        nullif(trim(source.source_url), '') as source_url,
        nullif(trim(source.note), '') as note

    from source

)

select * from renamed
