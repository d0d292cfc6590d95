-- one row per registered source (catalog/sources/*.py, loaded by warehouse/curated.py): its
-- kind and the documented live endpoint, the source_url of rows replayed from files.

with

source as (

    select * from curated.sources

),

renamed as (

    select
        source.source,
        source.kind,
        source.default_url,
        source.description
    from source

)

select * from renamed
