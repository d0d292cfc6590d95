-- one row per spelling of an accelerator (gpu name or sku) in the curated catalog.
-- alias_key is the normalised spelling (lowercase, letters and digits only) used for matching;
-- provider null means the alias applies to any provider.

with

source as (

    select * from curated.aliases

),

renamed as (

    select
        ---------- ids
        nullif(trim(source.alias), '') as alias,
        name_key(source.alias) as alias_key,
        nullif(trim(source.accelerator_id), '') as accelerator_id,

        ---------- scope
        lower(nullif(trim(source.kind), '')) as alias_kind,
        lower(nullif(trim(source.provider), '')) as provider,

        ---------- provenance
        nullif(trim(source.note), '') as note

    from source

)

select * from renamed
