-- one row per accelerator x rental price basis x instance size: the per-GPU hourly price (USD)
-- of the cheapest offer (or the median) among instances that hold at least
-- min_gpus_per_instance GPUs (1, 2, 4, 8). A job is priced at its size: an 8-GPU node of a
-- multi-node training run at the bases of 8, an 8-GPU MLPerf system at the bases of 8
-- (training_cost_estimate, inference_cost_estimate, inference_measured). min_gpus_per_instance 1
-- is every offer: the rental rows of price_bases. Bases, sellers and dates as in price_bases
-- (int_price_bases). The costs that are no instance offer (owned, the analyst's rates: sources
-- ownership_cost and analyst of price_bases) are here too, once, with a null
-- min_gpus_per_instance: they apply at any size. The cost models read their bases here only.
--
-- columns:
--   min_gpus_per_instance [GPUs]: the basis is taken over offers whose instance holds at least
--     this many GPUs (1 = every offer); null for owned and analyst bases (any size)
--   gpu_count [GPUs]: GPUs per instance of the offer behind the basis (null for the median)
--   price_basis: on_demand_min, on_demand_median, spot_min, community_min, reserved_1y_min,
--     reserved_3y_min, reserved_1m_min, reserved_6m_min, savings_plan_1y_min,
--     savings_plan_3y_min, queued_min, capacity_block_min, reserved_1y_cud_est,
--     reserved_3y_cud_est, owned, tco_hyperscaler, tco_neocloud, rental_3y_survey (as in
--     price_bases)
--   n_providers [providers]: sellers the basis is taken over at this size
--   observed_at_known: false when every price behind the basis is undated
--   basis_note: how the basis price was formed (as in price_bases)
--   basis_rank: observed rental 1, estimated rental 2, observed rental of a pricing model no
--     default answer assumes 3 (queued_min, capacity_block_min, ...), null for owned and
--     analyst bases (as in price_bases)
--   basis_kind: observed (a price seen in force), estimated (an observed price less an
--     assumed discount, or an analyst's surveyed market price) or owned, as in price_bases
--   pricing_model: the pricing model the basis prices (on_demand, spot, community, reserved_1y,
--     reserved_3y, ...; as in price_bases)
--   provider: the provider behind the basis (the cheapest one); null for on_demand_median
--   source: the source of that price; null for on_demand_median
--   sku: the offer behind the basis; null for on_demand_median
--   observed_at [timestamp (UTC)]: when the price was observed (for on_demand_median the oldest
--     price behind it)

with

rental_bases as (

    select * from int_price_bases

),

cost_bases as (

    -- owned and analyst costs: not an instance offer, the same at every size
    select
        price_bases.*,
        cast(null as integer) as min_gpus_per_instance
    from price_bases
    where price_bases.source in ('ownership_cost', 'analyst')

),

bases as (

    select * from rental_bases
    union all by name
    select * from cost_bases

)

select
    bases.accelerator_id,
    bases.min_gpus_per_instance,
    bases.price_basis,
    bases.pricing_model,
    bases.basis_kind,
    bases.price_per_gpu_hour,
    bases.currency,
    bases.gpu_count,
    bases.provider,
    bases.source,
    bases.sku,
    bases.region,
    bases.fetch_id,
    bases.source_url,
    bases.n_providers,
    bases.observed_at,
    bases.observed_at_known,
    bases.basis_note,
    bases.basis_rank
from bases
order by
    bases.accelerator_id,
    bases.price_basis,
    bases.min_gpus_per_instance nulls first
