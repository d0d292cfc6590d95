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

select
    accelerator_id, price_basis, provider, source, sku, region, fetch_id, source_url,
    memory_bw_tbps, interconnect_bw_gbps,
    price_per_gpu_hour, currency, observed_at,
    memory_bw_tbps / price_per_gpu_hour as tbps_per_usd_hour,
    interconnect_bw_gbps / price_per_gpu_hour as interconnect_gbps_per_usd_hour,
    purchase_price_usd,
    memory_bw_tbps / (purchase_price_usd / 1000) as tbps_per_purchase_kusd,
    interconnect_bw_gbps / (purchase_price_usd / 1000) as interconnect_gbps_per_purchase_kusd
from int_cost_basis_specs
where memory_bw_tbps > 0 or interconnect_bw_gbps > 0
order by accelerator_id, price_basis
