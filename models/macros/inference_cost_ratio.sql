-- returns one row per price basis both platforms have: how many times cheaper per million
-- output tokens `accelerator` is than `baseline_accelerator` for the same model, precision,
-- batch and utilisations (inference_cost_estimate on each, each on the fewest GPUs that hold
-- the model), with the throughput and price ratios behind it.
-- cost_ratio = baseline USD per million output tokens / platform USD per million.

create or replace macro inference_cost_ratio(
    accelerator,
    baseline_accelerator,
    params := null,
    params_total := null,
    precision := 'bf16',
    kv_precision := 'bf16',
    n_layers := null,
    n_kv_heads := null,
    head_dim := null,
    kv_bytes_per_token := null,
    context_tokens := 0,
    batch_size := 1,
    bandwidth_utilisation := null,
    compute_utilisation := null
) as table
with

args as (

    select
        cast(accelerator as varchar) as arg_accelerator,
        cast(baseline_accelerator as varchar) as arg_baseline,
        cast(params as double) as arg_params,
        cast(params_total as double) as arg_params_total,
        cast(precision as varchar) as arg_precision,
        cast(kv_precision as varchar) as arg_kv_precision,
        cast(n_layers as double) as arg_n_layers,
        cast(n_kv_heads as double) as arg_n_kv_heads,
        cast(head_dim as double) as arg_head_dim,
        cast(kv_bytes_per_token as double) as arg_kv_bytes_per_token,
        cast(context_tokens as double) as arg_context_tokens,
        cast(batch_size as double) as arg_batch_size,
        cast(bandwidth_utilisation as double) as arg_bandwidth_utilisation,
        cast(compute_utilisation as double) as arg_compute_utilisation

),

sides as (

    select 'platform' as side, args.arg_accelerator as side_accelerator from args
    union all
    select 'baseline' as side, args.arg_baseline as side_accelerator from args

),

-- one inference_cost_estimate call for both sides: the same model, precision and utilisations
estimates as (

    select
        sides.side,
        estimate.*
    from args
    cross join sides,
        lateral inference_cost_estimate(
            params := args.arg_params,
            accelerator := sides.side_accelerator,
            params_total := args.arg_params_total,
            precision := args.arg_precision,
            kv_precision := args.arg_kv_precision,
            n_layers := args.arg_n_layers,
            n_kv_heads := args.arg_n_kv_heads,
            head_dim := args.arg_head_dim,
            kv_bytes_per_token := args.arg_kv_bytes_per_token,
            context_tokens := args.arg_context_tokens,
            batch_size := args.arg_batch_size,
            bandwidth_utilisation := args.arg_bandwidth_utilisation,
            compute_utilisation := args.arg_compute_utilisation
        ) as estimate

),

platform as (

    select * from estimates where estimates.side = 'platform'

),

baseline as (

    select * from estimates where estimates.side = 'baseline'

)

select
    platform.price_basis,
    platform.accelerator_id,
    baseline.accelerator_id as baseline_accelerator_id,
    platform.provider,
    baseline.provider as baseline_provider,
    platform.price_per_gpu_hour,
    baseline.price_per_gpu_hour as baseline_price_per_gpu_hour,
    platform.n_gpus,
    baseline.n_gpus as baseline_n_gpus,
    platform.output_tokens_per_second_per_gpu,
    baseline.output_tokens_per_second_per_gpu as baseline_output_tokens_per_second_per_gpu,
    platform.usd_per_million_output_tokens,
    baseline.usd_per_million_output_tokens as baseline_usd_per_million_output_tokens,
    platform.output_tokens_per_second_per_gpu / baseline.output_tokens_per_second_per_gpu
        as throughput_ratio_per_gpu,
    platform.price_per_gpu_hour / baseline.price_per_gpu_hour as price_ratio,
    baseline.usd_per_million_output_tokens / platform.usd_per_million_output_tokens
        as cost_ratio
from platform
inner join baseline
    on baseline.price_basis = platform.price_basis
where platform.price_basis is not null
