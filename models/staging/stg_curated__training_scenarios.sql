-- one row per training-cost scenario (catalog/training_scenarios.csv): a question the cost
-- models answer, typed. Empty strings become null; accelerator_key is the normalised alias
-- (lowercase letters and digits) of the pinned accelerator, null = every accelerator.

with

source as (

    select * from curated.training_scenarios

),

renamed as (

    select
        ---------- ids
        nullif(trim(source.scenario_id), '') as scenario_id,
        nullif(trim(source.question), '') as question,
        nullif(trim(source.accelerator), '') as accelerator,
        nullif(name_key(source.accelerator), '')
            as accelerator_key,

        ---------- model and data
        cast(nullif(trim(source.params_active), '') as double) as params_active,
        cast(nullif(trim(source.params_total), '') as double) as params_total,
        cast(nullif(trim(source.tokens), '') as double) as tokens,
        cast(nullif(trim(source.tokens_per_param), '') as double) as tokens_per_param,
        coalesce(lower(nullif(trim(source.precision), '')), 'bf16') as precision,
        cast(nullif(trim(source.n_layers), '') as double) as n_layers,
        cast(nullif(trim(source.d_model), '') as double) as d_model,
        cast(nullif(trim(source.seq_len), '') as double) as seq_len,
        coalesce(cast(nullif(trim(source.images), '') as double), 0) as images,
        coalesce(cast(nullif(trim(source.tokens_per_image), '') as double), 0)
            as tokens_per_image,
        coalesce(cast(nullif(trim(source.vision_params), '') as double), 0) as vision_params,
        coalesce(cast(nullif(trim(source.vision_frozen), '') as boolean), false)
            as vision_frozen,

        ---------- cluster and overrides (null = catalog default)
        cast(nullif(trim(source.n_gpus), '') as double) as n_gpus,
        cast(nullif(trim(source.days), '') as double) as days,
        cast(nullif(trim(source.mfu), '') as double) as mfu,
        cast(nullif(trim(source.goodput), '') as double) as goodput,
        cast(nullif(trim(source.price_per_gpu_hour), '') as double) as price_per_gpu_hour,

        ---------- provenance
        nullif(trim(source.source_url), '') as source_url,
        nullif(trim(source.note), '') as note

    from source

)

select * from renamed
