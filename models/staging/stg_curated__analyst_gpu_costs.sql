-- one row per accelerator x analyst cost basis (catalog/analyst_gpu_costs.csv): a cost or price
-- of one GPU-hour published by an analyst model, with its source. SemiAnalysis's AI Cloud TCO
-- Model and market pricing survey, as InferenceX prices its measured tokens: tco_hyperscaler and
-- tco_neocloud (total cost of ownership per GPU-hour, basis_kind owned), rental_3y_survey (the
-- 3-year rental market price, basis_kind estimated).

with

source as (

    select * from curated.analyst_gpu_costs

),

renamed as (

    select
        ---------- ids
        trim(source.accelerator_id) as accelerator_id,
        lower(trim(source.price_basis)) as price_basis,
        lower(trim(source.basis_kind)) as basis_kind,

        ---------- numerics
        cast(source.price_per_gpu_hour as double) as price_per_gpu_hour,

        ---------- provenance
        cast(nullif(trim(source.price_date), '') as date) as price_date,
        nullif(trim(source.source_url), '') as source_url,
        nullif(trim(source.document), '') as document,
        -- a short phrase for tables (price_bases.basis_note); note says more
        nullif(trim(source.basis_note), '') as basis_note,
        nullif(trim(source.note), '') as note

    from source

)

select * from renamed
