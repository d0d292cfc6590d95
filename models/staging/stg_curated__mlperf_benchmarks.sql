-- one row per MLPerf Inference benchmark model (catalog/mlperf_benchmarks.csv): the model's
-- shape, for the roofline of the same model the measurements are compared with.

with

source as (

    select * from curated.mlperf_benchmarks

),

renamed as (

    select
        ---------- ids
        lower(trim(source.benchmark)) as benchmark,
        nullif(trim(source.model), '') as model,

        ---------- the model's shape
        cast(nullif(trim(source.params_active), '') as double) as params_active,
        coalesce(
            cast(nullif(trim(source.params_total), '') as double),
            cast(nullif(trim(source.params_active), '') as double)
        ) as params_total,
        cast(nullif(trim(source.n_layers), '') as double) as n_layers,
        cast(nullif(trim(source.n_kv_heads), '') as double) as n_kv_heads,
        cast(nullif(trim(source.head_dim), '') as double) as head_dim,

        ---------- provenance
        nullif(trim(source.source_url), '') as source_url,
        nullif(trim(source.note), '') as note

    from source

)

select * from renamed
