-- returns one row per accelerator x price basis: the serving cost of one model from a
-- roofline (cost-methods.md; issue 5 §4).
--
-- * memory: weights = params_total x bytes_per_value(precision); KV cache = batch x
--   context_tokens x kv_cache_bytes_per_token (or kv_bytes_per_token as given); n_gpus (one
--   replica, tensor-parallel) = the fewest that hold both in HBM, unless given.
-- * decode, per step of `batch_size` new tokens: bytes read = weights touched (all of a dense
--   model; min(params_total, params_active x batch) for a mixture of experts) + the KV cache;
--   FLOPs = 2 x params_active x batch; step time = decode_step_seconds over the replica's
--   summed bandwidth (x inference_bandwidth_utilisation) and peak (x the training MFU default).
-- * prefill is compute-bound: 2 x params_active FLOPs per input token at the same utilisation.
-- * USD per million output / input tokens = n_gpus x price per GPU-hour over the tokens made.
-- * a rental basis is taken at the replica's size (price_bases_by_size): offers whose instance
--   holds at least n_gpus rounded up to 1, 2, 4 or 8 (gpus_per_instance); where none exists,
--   the closest smaller size (basis_gpu_count says which).
-- Peaks at `precision` fall back to the next precision the chip computes in (fp4 on H100 ->
-- fp8). accelerator: an id or any spelling in accelerator_aliases; null = every accelerator.

create or replace macro inference_cost_estimate(
    params := null,
    accelerator := null,
    params_total := null,
    precision := 'bf16',
    kv_precision := 'bf16',
    n_layers := null,
    n_kv_heads := null,
    head_dim := null,
    kv_bytes_per_token := null,
    context_tokens := 0,
    batch_size := 1,
    n_gpus := null,
    bandwidth_utilisation := null,
    compute_utilisation := null,
    price_per_gpu_hour := null
) as table
with

args as (

    select
        cast(params as double) as arg_params_active,
        cast(coalesce(params_total, params) as double) as arg_params_total,
        lower(coalesce(cast(precision as varchar), 'bf16')) as arg_precision,
        lower(coalesce(cast(kv_precision as varchar), 'bf16')) as arg_kv_precision,
        cast(
            coalesce(
                kv_bytes_per_token,
                kv_cache_bytes_per_token(
                    n_layers, n_kv_heads, head_dim,
                    bytes_per_value(coalesce(cast(kv_precision as varchar), 'bf16'))
                ),
                0
            ) as double
        ) as arg_kv_bytes_per_token,
        cast(coalesce(context_tokens, 0) as double) as arg_context_tokens,
        cast(coalesce(batch_size, 1) as double) as arg_batch_size,
        cast(n_gpus as double) as arg_n_gpus,
        cast(
            coalesce(bandwidth_utilisation, defaults.default_inference_bandwidth_utilisation)
            as double
        ) as arg_bandwidth_utilisation,
        cast(compute_utilisation as double) as arg_compute_utilisation,
        cast(price_per_gpu_hour as double) as arg_price,
        cast(accelerator as varchar) as arg_accelerator,
        name_key(cast(accelerator as varchar))
            as arg_accelerator_key,
        bandwidth_utilisation is null as arg_bandwidth_defaulted
    from cost_defaults as defaults

),

chosen as (

    select
        args.*,
        inputs.*
    from args
    cross join accelerator_cost_inputs as inputs
    left join accelerator_aliases as aliases
        on aliases.alias_key = args.arg_accelerator_key
    where (args.arg_accelerator is null or inputs.accelerator_id = aliases.accelerator_id)
        and inputs.memory_gb > 0
        and inputs.memory_bw_tbps > 0

),

sized as (

    select
        chosen.*,
        precision_peak_tflops(
            chosen.arg_precision,
            chosen.peak_bf16_dense_tflops,
            chosen.peak_fp16_dense_tflops,
            chosen.peak_fp8_dense_tflops,
            chosen.peak_fp4_dense_tflops,
            chosen.peak_int8_dense_tflops,
            allow_fallback := true
        ) as run_peak_tflops,
        coalesce(chosen.arg_compute_utilisation, chosen.mfu_default) as run_compute_utilisation,
        chosen.arg_params_total * bytes_per_value(chosen.arg_precision) as weight_bytes,
        chosen.arg_batch_size * chosen.arg_context_tokens * chosen.arg_kv_bytes_per_token
            as kv_cache_bytes
    from chosen

),

replicas as (

    select
        sized.*,
        coalesce(
            sized.arg_n_gpus,
            greatest(1, ceil((sized.weight_bytes + sized.kv_cache_bytes)
                / (sized.memory_gb * 1e9)))
        ) as replica_gpus,
        least(sized.arg_params_total, sized.arg_params_active * sized.arg_batch_size)
            * bytes_per_value(sized.arg_precision) + sized.kv_cache_bytes as decode_bytes_read,
        2 * sized.arg_params_active * sized.arg_batch_size as decode_step_flops
    from sized

),

timed as (

    select
        replicas.*,
        decode_step_seconds(
            replicas.decode_bytes_read,
            replicas.decode_step_flops,
            replicas.memory_bw_tbps * replicas.replica_gpus,
            replicas.arg_bandwidth_utilisation,
            replicas.run_peak_tflops * replicas.replica_gpus,
            replicas.run_compute_utilisation
        ) as step_seconds,
        replicas.decode_bytes_read
            / (replicas.memory_bw_tbps * replicas.replica_gpus * 1e12
                * replicas.arg_bandwidth_utilisation)
        >= replicas.decode_step_flops
            / (replicas.run_peak_tflops * replicas.replica_gpus * 1e12
                * replicas.run_compute_utilisation) as memory_bound,
        replicas.run_peak_tflops * replicas.replica_gpus * 1e12
            * replicas.run_compute_utilisation / (2 * replicas.arg_params_active)
            as prefill_tokens_per_second
    from replicas

),

bases as (

    select * from estimate_price_bases(price_per_gpu_hour := price_per_gpu_hour)

)

select
    ---------- the accelerator and the assumptions used
    timed.accelerator_id,
    timed.name as accelerator_name,
    timed.arg_precision as precision,
    timed.run_peak_tflops as peak_dense_tflops,
    timed.memory_gb,
    timed.memory_bw_tbps,
    timed.arg_bandwidth_utilisation as bandwidth_utilisation,
    timed.run_compute_utilisation as compute_utilisation,

    ---------- the model and the replica
    timed.arg_params_active as params_active,
    timed.arg_params_total as params_total,
    timed.arg_batch_size as batch_size,
    timed.arg_context_tokens as context_tokens,
    timed.weight_bytes / 1e9 as weights_gb,
    timed.arg_kv_bytes_per_token as kv_bytes_per_token,
    timed.kv_cache_bytes / 1e9 as kv_cache_gb,
    timed.replica_gpus as n_gpus,
    (timed.weight_bytes + timed.kv_cache_bytes) <= timed.replica_gpus * timed.memory_gb * 1e9
        as fits_in_memory,

    ---------- throughput
    timed.step_seconds * 1000 as decode_step_ms,
    case when timed.memory_bound then 'memory' else 'compute' end as decode_bound,
    timed.arg_batch_size / timed.step_seconds as output_tokens_per_second,
    timed.arg_batch_size / timed.step_seconds / timed.replica_gpus
        as output_tokens_per_second_per_gpu,
    timed.prefill_tokens_per_second,

    ---------- cost per price basis
    bases.* exclude (basis_note, basis_accelerator_id, basis_min_gpus, basis_gpu_count)
        replace ('USD' as currency),
    timed.gpus_per_instance,
    bases.basis_gpu_count,
    usd_per_million_tokens(
        bases.price_per_gpu_hour * timed.replica_gpus, timed.arg_batch_size / timed.step_seconds
    ) as usd_per_million_output_tokens,
    usd_per_million_tokens(
        bases.price_per_gpu_hour * timed.replica_gpus, timed.prefill_tokens_per_second
    ) as usd_per_million_input_tokens,

    ---------- the catalog assumptions (catalog/assumptions.csv keys) this row read
    list_filter([
        case when timed.arg_bandwidth_defaulted then 'inference_bandwidth_utilisation' end,
        case when timed.arg_compute_utilisation is null then timed.mfu_assumption_key end
    ], lambda key: key is not null) as assumption_keys

from (
    select
        timed.*,
        -- the GPUs one rented instance must hold: the replica's, rounded up to 1, 2, 4 or 8
        instance_gpus(coalesce(timed.replica_gpus, 1)) as gpus_per_instance
    from timed
) as timed
left join bases
    on bases.basis_accelerator_id = timed.accelerator_id
    and (bases.basis_min_gpus is null or bases.basis_min_gpus <= timed.gpus_per_instance)
-- per basis, the offers of the replica's size, else the closest smaller size
qualify row_number() over (
    partition by timed.accelerator_id, bases.price_basis
    order by bases.basis_min_gpus desc nulls last
) = 1
