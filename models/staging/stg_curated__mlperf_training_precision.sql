-- one row per MLPerf Training result (catalog/mlperf_training_precision.csv): the numeric
-- precision its matmuls ran in (bf16, fp8, fp4, int8), read in the submitter's own config
-- (the run logs do not say), with the config's address.

with

source as (

    select * from curated.mlperf_training_precision

),

renamed as (

    select
        ---------- ids
        trim(source.round) as round,
        trim(source.submitter) as submitter,
        trim(source.system) as system,
        lower(trim(source.benchmark)) as benchmark,

        ---------- the precision
        lower(trim(source.precision)) as precision,

        ---------- provenance
        nullif(trim(source.source_url), '') as source_url,
        nullif(trim(source.note), '') as note

    from source

)

select * from renamed
