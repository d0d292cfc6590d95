-- one row per provider whose listings are not its own machines at its own list price
-- (catalog/providers.csv): aggregators that resell other providers' machines, and
-- marketplaces of independent hosts. Providers not listed here list their own machines.

with

source as (

    select * from curated.providers

),

renamed as (

    select
        lower(trim(source.provider)) as provider,
        lower(trim(source.listing_kind)) as listing_kind,
        nullif(trim(source.sku_seller_regex), '') as sku_seller_regex,
        nullif(trim(source.source_url), '') as source_url,
        nullif(trim(source.note), '') as note
    from source

)

select * from renamed
