-- one row per published training run (catalog/training_runs.csv), typed: what was trained,
-- on what, the GPU-hours and MFU its authors reported, and where each figure comes from.

with

source as (

    select * from curated.training_runs

),

renamed as (

    select
        ---------- ids
        nullif(trim(source.run_id), '') as run_id,
        nullif(trim(source.model), '') as model,
        nullif(trim(source.accelerator), '') as accelerator,
        name_key(source.accelerator) as accelerator_key,

        ---------- what was trained
        cast(nullif(trim(source.params_active), '') as double) as params_active,
        cast(nullif(trim(source.params_total), '') as double) as params_total,
        cast(nullif(trim(source.tokens), '') as double) as tokens,
        coalesce(lower(nullif(trim(source.precision), '')), 'bf16') as precision,
        coalesce(lower(nullif(trim(source.recompute), '')), 'none') as recompute,

        ---------- how far the reported figures can be trusted (decided by provenance only)
        coalesce(lower(nullif(trim(source.confidence), '')), 'low') as confidence,
        nullif(trim(source.confidence_basis), '') as confidence_basis,

        ---------- what was reported
        cast(nullif(trim(source.reported_gpu_hours), '') as double) as reported_gpu_hours,
        nullif(trim(source.gpu_hours_basis), '') as gpu_hours_basis,
        cast(nullif(trim(source.n_gpus), '') as double) as n_gpus,
        cast(nullif(trim(source.reported_mfu), '') as double) as reported_mfu,
        nullif(trim(source.reported_mfu_basis), '') as reported_mfu_basis,

        ---------- provenance
        nullif(trim(source.source_url), '') as source_url,
        nullif(trim(source.mfu_source_url), '') as mfu_source_url,
        nullif(trim(source.note), '') as note

    from source

)

select * from renamed
