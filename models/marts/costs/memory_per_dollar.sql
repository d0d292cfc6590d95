-- one row per accelerator x price_basis: GB of accelerator memory per USD/hour of rent and
-- per purchase USD. 'purchase' rows have null hourly columns; gb_per_purchase_usd is on every
-- row of an accelerator with a purchase price.
--
-- columns:
--   provider: the provider behind the price basis (the cheapest one for <pricing_model>_min);
--     null for on_demand_median and purchase
--   gb_per_usd_hour [GB per USD/hour]: memory_gb / price_per_gpu_hour
--   gb_per_purchase_usd [GB per USD]: memory_gb / purchase_price_usd

with

accelerator_specs as (

    select * from accelerators

),

cost_bases as (

    select * from int_cost_bases

),

final as (

    select
        cost_bases.accelerator_id,
        cost_bases.price_basis,
        cost_bases.provider,
        cost_bases.source,
        cost_bases.sku,
        cost_bases.region,
        cost_bases.fetch_id,
        cost_bases.source_url,
        accelerator_specs.memory_gb,
        cost_bases.price_per_gpu_hour,
        cost_bases.currency,
        cost_bases.observed_at,
        accelerator_specs.memory_gb / cost_bases.price_per_gpu_hour as gb_per_usd_hour,
        cost_bases.purchase_price_usd,
        accelerator_specs.memory_gb / cost_bases.purchase_price_usd as gb_per_purchase_usd
    from cost_bases
    inner join accelerator_specs
        on accelerator_specs.accelerator_id = cost_bases.accelerator_id
    where accelerator_specs.memory_gb > 0

)

select * from final
order by final.accelerator_id, final.price_basis
