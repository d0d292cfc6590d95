-- one row per spelling of a seller that differs from its canonical provider name
-- (catalog/seller_names.csv): lambdalabs -> lambda, crusoecloud -> crusoe, ...

with

source as (

    select * from curated.seller_names

),

renamed as (

    select
        lower(trim(source.name)) as name,
        lower(trim(source.seller)) as seller,
        nullif(trim(source.source_url), '') as source_url,
        nullif(trim(source.note), '') as note
    from source

)

select * from renamed
