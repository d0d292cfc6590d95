-- one row per inference-cost scenario (catalog/inference_scenarios.csv), typed: the model
-- served, its precision and batch, and optionally a vendor's claim: a ratio between a
-- platform (accelerator) and a baseline (baseline_accelerator), or an absolute USD per million
-- tokens on the platform.

with

source as (

    select * from curated.inference_scenarios

),

renamed as (

    select
        ---------- ids
        nullif(trim(source.scenario_id), '') as scenario_id,
        nullif(trim(source.question), '') as question,
        nullif(trim(source.accelerator), '') as accelerator,
        nullif(name_key(source.accelerator), '')
            as accelerator_key,
        nullif(trim(source.baseline_accelerator), '') as baseline_accelerator,
        nullif(name_key(source.baseline_accelerator), '')
            as baseline_accelerator_key,

        ---------- the model served
        cast(nullif(trim(source.params_active), '') as double) as params_active,
        cast(nullif(trim(source.params_total), '') as double) as params_total,
        coalesce(lower(nullif(trim(source.precision), '')), 'bf16') as precision,
        coalesce(lower(nullif(trim(source.kv_precision), '')), 'bf16') as kv_precision,
        cast(nullif(trim(source.n_layers), '') as double) as n_layers,
        cast(nullif(trim(source.n_kv_heads), '') as double) as n_kv_heads,
        cast(nullif(trim(source.head_dim), '') as double) as head_dim,
        coalesce(cast(nullif(trim(source.context_tokens), '') as double), 0) as context_tokens,
        coalesce(cast(nullif(trim(source.batch_size), '') as double), 1) as batch_size,

        ---------- the claim, if any
        cast(nullif(trim(source.claimed_ratio), '') as double) as claimed_ratio,
        -- an absolute claim: "N USD per million tokens" on the platform (no baseline)
        cast(nullif(trim(source.claimed_usd_per_million_output_tokens), '') as double)
            as claimed_usd_per_million_output_tokens,
        nullif(trim(source.claim_source_url), '') as claim_source_url,
        -- cost_per_token (N x lower USD per million tokens), throughput_per_gpu (N x more
        -- tokens/s per GPU) or usd_per_million_tokens (an absolute cost); null without a claim
        lower(nullif(trim(source.claim_kind), '')) as claim_kind,
        -- the MLPerf benchmark measuring this model (inference_throughput.benchmark), if any
        lower(nullif(trim(source.benchmark), '')) as benchmark,

        ---------- provenance
        nullif(trim(source.source_url), '') as source_url,
        nullif(trim(source.note), '') as note

    from source

)

select * from renamed
