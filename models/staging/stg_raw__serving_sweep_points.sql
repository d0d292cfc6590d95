-- one row per concurrency point of a serving sweep (raw.serving_sweep_points: InferenceX /
-- vLLM benchmark_serving results), per fetch: what the whole server delivered at that
-- concurrency and the speed a user saw, as the file states them. `repository` and
-- `repository_path` split the sweep's key (<owner>/<repo>/<path>) so that the hardware a file
-- does not state can be looked up by path prefix (stg_curated__inferencex_hardware).

with

source as (

    select * from raw.serving_sweep_points

),

renamed as (

    select
        ---------- ids
        source.fetch_id,
        source.source,
        source.sweep,
        regexp_extract(source.sweep, '^[^/]+/[^/]+') as repository,
        regexp_replace(source.sweep, '^[^/]+/[^/]+/', '') as repository_path,
        source.concurrency,

        ---------- what was served, on what (as stated; null when the file does not say)
        source.model,
        nullif(trim(source.hardware_raw), '') as hardware_raw,
        source.gpus,
        nullif(trim(source.framework), '') as framework,
        nullif(trim(source.precision), '') as precision,
        source.input_len,
        source.output_len,

        ---------- throughput (tokens/s) and the speed a user sees
        source.output_tokens_per_second,
        source.total_tokens_per_second,
        source.output_tokens_per_second_per_gpu_stated,
        source.tokens_per_second_per_user,
        source.interactivity_basis,

        ---------- latency (ms)
        source.mean_ttft_ms,
        source.median_ttft_ms,
        source.p99_ttft_ms,
        source.mean_tpot_ms,
        source.median_tpot_ms,
        source.p99_tpot_ms,
        source.requests_completed,

        ---------- timestamps
        source.observed_at

    from source

)

select * from renamed
