-- one row per curated provenance record (catalog/accelerator_spec_sources.csv): where the figure
-- of one spec cell of catalog/accelerators.csv (accelerator x column) comes from, and how far it
-- was verified.
-- renames/casts only: empty strings become null; the value is kept as written (value_text), as a
-- number (value: null for a date or an empty cell) and as a date (value_date: the two date
-- columns launch_date and announce_date); verification is lower-cased.

with

source as (

    select * from curated.accelerator_spec_sources

),

renamed as (

    select
        ---------- ids
        nullif(trim(source.accelerator_id), '') as accelerator_id,
        nullif(trim(source.metric), '') as metric,

        ---------- the cell's value as the provenance states it
        nullif(trim(source.value), '') as value_text,
        try_cast(nullif(trim(source.value), '') as double) as value,
        try_cast(nullif(trim(source.value), '') as date) as value_date,

        ---------- provenance
        nullif(trim(source.source_url), '') as source_url,
        nullif(trim(source.document), '') as document,
        lower(nullif(trim(source.verification), '')) as verification,
        nullif(trim(source.note), '') as note

    from source

)

select * from renamed
