-- one row per accelerator x price_basis: memory bandwidth (TB/s) and interconnect bandwidth
-- (GB/s) per USD/hour of rent and per 1000 purchase USD (kusd). 'purchase' rows have null
-- hourly columns; the per-purchase figures are on every row of an accelerator with a
-- purchase price.
--
-- columns:
--   provider: the provider behind the price basis (the cheapest one for <pricing_model>_min);
--     null for on_demand_median and purchase
--   tbps_per_usd_hour [TB/s per USD/hour]: memory_bw_tbps / price_per_gpu_hour
--   interconnect_gbps_per_usd_hour [GB/s per USD/hour]: interconnect_bw_gbps / price_per_gpu_hour
--   tbps_per_purchase_kusd [TB/s per 1000 USD]: memory_bw_tbps / (purchase_price_usd / 1000)
--   interconnect_gbps_per_purchase_kusd [GB/s per 1000 USD]: interconnect_bw_gbps /
--     (purchase_price_usd / 1000)

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
        accelerator_specs.memory_bw_tbps,
        accelerator_specs.interconnect_bw_gbps,
        cost_bases.price_per_gpu_hour,
        cost_bases.currency,
        cost_bases.observed_at,
        accelerator_specs.memory_bw_tbps / cost_bases.price_per_gpu_hour as tbps_per_usd_hour,
        accelerator_specs.interconnect_bw_gbps
            / cost_bases.price_per_gpu_hour as interconnect_gbps_per_usd_hour,
        cost_bases.purchase_price_usd,
        accelerator_specs.memory_bw_tbps
            / (cost_bases.purchase_price_usd / 1000) as tbps_per_purchase_kusd,
        accelerator_specs.interconnect_bw_gbps
            / (cost_bases.purchase_price_usd / 1000) as interconnect_gbps_per_purchase_kusd
    from cost_bases
    inner join accelerator_specs
        on accelerator_specs.accelerator_id = cost_bases.accelerator_id
    where accelerator_specs.memory_bw_tbps > 0
        or accelerator_specs.interconnect_bw_gbps > 0

)

select * from final
order by final.accelerator_id, final.price_basis
