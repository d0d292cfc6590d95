-- one row per system sold whole (a GB200 / GB300 NVL72 rack) with a cited price
-- (catalog/system_prices.csv): the price of the system and its accelerators, for an owned
-- cost per GPU-hour where no chip price is published.

with

source as (

    select * from curated.system_prices

),

renamed as (

    select
        ---------- ids
        trim(source.system_id) as system_id,
        trim(source.accelerator_id) as accelerator_id,

        ---------- numerics
        cast(source.accelerators_per_system as double) as accelerators_per_system,
        cast(source.system_price_usd as double) as system_price_usd,

        ---------- provenance
        nullif(trim(source.price_basis), '') as price_basis,
        cast(nullif(trim(source.price_date), '') as date) as price_date,
        nullif(trim(source.source_url), '') as source_url,
        nullif(trim(source.note), '') as note

    from source

)

select * from renamed
