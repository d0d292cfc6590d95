-- one row per MLPerf Training benchmark (catalog/mlperf_training_benchmarks.csv): the model it
-- trains and the model FLOPs one trained token costs (6N pretraining, about 4N for LoRA).

with

source as (

    select * from curated.mlperf_training_benchmarks

),

renamed as (

    select
        ---------- ids
        lower(trim(source.benchmark)) as benchmark,
        nullif(trim(source.model), '') as model,

        ---------- the model
        cast(nullif(trim(source.params_active), '') as double) as params_active,
        cast(nullif(trim(source.model_flops_per_token_per_param), '') as double)
            as model_flops_per_token_per_param,
        cast(nullif(trim(source.seq_len), '') as double) as seq_len,
        nullif(trim(source.training_kind), '') as training_kind,

        ---------- provenance
        nullif(trim(source.source_url), '') as source_url,
        nullif(trim(source.note), '') as note

    from source

)

select * from renamed
