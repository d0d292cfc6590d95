-- one row per cost-model assumption (catalog/assumptions.csv), value as a number.

with

source as (

    select * from curated.assumptions

),

renamed as (

    select
        ---------- ids
        nullif(trim(source.key), '') as assumption_key,

        ---------- value
        cast(nullif(trim(source.value), '') as double) as value,
        nullif(trim(source.unit), '') as unit,

        ---------- provenance
        nullif(trim(source.description), '') as description,
        nullif(trim(source.source_url), '') as source_url

    from source

)

select * from renamed
