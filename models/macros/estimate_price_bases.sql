-- returns one row per accelerator x price basis an estimate prices its GPU-hours at: every
-- basis of price_bases_by_size (rental bases per instance size, an offer of at least
-- basis_min_gpus GPUs; owned and analyst costs at any size, basis_min_gpus null), plus the
-- basis 'given' on every accelerator when `price_per_gpu_hour` is passed. The one basis union
-- of training_cost_estimate and inference_cost_estimate, with the columns they publish
-- (price_basis ... observed_at, in their order) and basis_note, basis_accelerator_id,
-- basis_min_gpus, basis_gpu_count to join, choose the size and describe it.

create or replace macro estimate_price_bases(price_per_gpu_hour := null) as table

select
    sized.price_basis,
    sized.provider,
    sized.basis_kind,
    sized.basis_rank,
    sized.source,
    sized.sku,
    sized.region,
    sized.fetch_id,
    sized.source_url,
    sized.price_per_gpu_hour,
    'USD' as currency,
    sized.observed_at,
    sized.basis_note,
    sized.accelerator_id as basis_accelerator_id,
    sized.min_gpus_per_instance as basis_min_gpus,
    sized.gpu_count as basis_gpu_count
from price_bases_by_size as sized

union all by name

select
    'given' as price_basis,
    cast(null as varchar) as provider,
    'given' as basis_kind,
    cast(null as integer) as basis_rank,
    cast(null as varchar) as source,
    cast(null as varchar) as sku,
    cast(null as varchar) as region,
    cast(null as bigint) as fetch_id,
    cast(null as varchar) as source_url,
    cast(price_per_gpu_hour as double) as price_per_gpu_hour,
    'USD' as currency,
    cast(null as timestamptz) as observed_at,
    'price per GPU-hour given by the caller' as basis_note,
    given_for.accelerator_id as basis_accelerator_id
from accelerator_cost_inputs as given_for
where price_per_gpu_hour is not null
