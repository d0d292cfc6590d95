-- one row per serving-sweep point in force (source inferencex: InferenceX / vLLM
-- benchmark_serving results, one point per concurrency), with its accelerator and GPU count:
-- as the file states them, else from the cited folder table (catalog/inferencex_hardware.csv,
-- the longest path_prefix the file's repository path starts with), never guessed. Per-GPU
-- output throughput is the file's own figure where it states one, else output tokens/s over
-- the GPUs. Tokens per query: the input is the length the file states (a random dataset of
-- fixed input length); the output is measured where the file gives total (input + output)
-- throughput: input length x output tokens/s / input tokens/s (requests may stop before the
-- stated output length), else the stated output length.

with

points as (

    select * from stg_raw__serving_sweep_points

),

in_force as (

    select * from int_fetches_in_force

),

hardware as (

    select * from stg_curated__inferencex_hardware

),

accelerator_names as (

    select * from int_measured_accelerator_names
    where int_measured_accelerator_names.source = 'inferencex'

),

points_in_force as (

    select points.*
    from points
    inner join in_force using (fetch_id)

),

with_hardware as (

    select
        points_in_force.*,
        hardware.accelerator_name as folder_accelerator_name,
        hardware.gpus as folder_gpus,
        hardware.source_url as hardware_source_url
    from points_in_force
    left join hardware
        on starts_with(points_in_force.repository_path, hardware.path_prefix)
    qualify row_number() over (
        partition by points_in_force.fetch_id, points_in_force.sweep,
            points_in_force.concurrency
        order by length(hardware.path_prefix) desc nulls last
    ) = 1

),

resolved as (

    select
        with_hardware.*,
        -- "8x Intel Gaudi 3 HL-325L": the count is not part of the name
        coalesce(
            regexp_replace(with_hardware.hardware_raw, '^\s*\d+\s*[xX]\s*', ''),
            with_hardware.folder_accelerator_name
        ) as accelerator_name,
        case
            when with_hardware.hardware_raw is not null then 'file'
            when with_hardware.folder_accelerator_name is not null then 'folder_table'
        end as hardware_basis,
        coalesce(with_hardware.gpus, with_hardware.folder_gpus) as gpu_count
    from with_hardware

),

final as (

    select
        resolved.fetch_id,
        resolved.sweep,
        resolved.repository,
        resolved.repository_path,
        resolved.model,
        resolved.accelerator_name,
        accelerator_names.accelerator_id,
        resolved.hardware_basis,
        resolved.hardware_source_url,
        resolved.gpu_count,
        resolved.framework,
        resolved.precision,
        resolved.input_len,
        resolved.output_len,
        resolved.concurrency,
        resolved.output_tokens_per_second,
        coalesce(
            resolved.output_tokens_per_second_per_gpu_stated,
            resolved.output_tokens_per_second / resolved.gpu_count
        ) as output_tokens_per_second_per_gpu,
        resolved.total_tokens_per_second,
        resolved.total_tokens_per_second - resolved.output_tokens_per_second
            as input_tokens_per_second,
        resolved.input_len as input_tokens_per_query,
        coalesce(
            case when resolved.total_tokens_per_second > resolved.output_tokens_per_second
                then resolved.input_len * resolved.output_tokens_per_second
                    / (resolved.total_tokens_per_second - resolved.output_tokens_per_second)
            end,
            resolved.output_len
        ) as output_tokens_per_query,
        case
            when resolved.input_len > 0
                and resolved.total_tokens_per_second > resolved.output_tokens_per_second
                then 'measured: input length stated, output from the measured token rates'
            when resolved.input_len > 0 and resolved.output_len > 0
                then 'stated: the file''s input and output lengths'
        end as token_counts_basis,
        resolved.tokens_per_second_per_user,
        resolved.interactivity_basis,
        resolved.mean_ttft_ms,
        resolved.median_ttft_ms,
        resolved.p99_ttft_ms,
        resolved.mean_tpot_ms,
        resolved.median_tpot_ms,
        resolved.p99_tpot_ms,
        resolved.observed_at
    from resolved
    left join accelerator_names
        on accelerator_names.alias_key
            = name_key(resolved.accelerator_name)

)

select * from final
