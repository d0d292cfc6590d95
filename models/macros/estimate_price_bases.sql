-- returns one row per accelerator x price basis an estimate prices its GPU-hours at: every
-- basis of price_bases_by_size (rental bases per instance size, an offer of at least
-- basis_min_gpus GPUs; owned and analyst costs at any size, basis_min_gpus null), plus the
-- basis 'given' on every accelerator when `price_per_gpu_hour` is passed. The one basis union
-- of training_cost_estimate and inference_cost_estimate.

create or replace macro estimate_price_bases(price_per_gpu_hour := null) as table

select
    sized.accelerator_id as basis_accelerator_id,
    sized.price_basis as basis_name,
    sized.provider as basis_provider,
    sized.basis_kind,
    sized.basis_rank,
    sized.source as basis_source,
    sized.sku as basis_sku,
    sized.region as basis_region,
    sized.fetch_id as basis_fetch_id,
    sized.source_url as basis_source_url,
    sized.price_per_gpu_hour as basis_price,
    sized.observed_at as basis_observed_at,
    sized.basis_note,
    sized.min_gpus_per_instance as basis_min_gpus,
    sized.gpu_count as basis_gpu_count
from price_bases_by_size as sized

union all by name

select
    given_for.accelerator_id as basis_accelerator_id,
    'given' as basis_name,
    cast(null as varchar) as basis_provider,
    'given' as basis_kind,
    cast(null as integer) as basis_rank,
    cast(null as varchar) as basis_source,
    cast(null as varchar) as basis_sku,
    cast(null as varchar) as basis_region,
    cast(null as bigint) as basis_fetch_id,
    cast(null as varchar) as basis_source_url,
    cast(price_per_gpu_hour as double) as basis_price,
    cast(null as timestamptz) as basis_observed_at,
    'price per GPU-hour given by the caller' as basis_note
from accelerator_cost_inputs as given_for
where price_per_gpu_hour is not null
