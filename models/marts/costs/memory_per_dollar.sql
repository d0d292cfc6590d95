-- one row per accelerator x price_basis: GB of accelerator memory per USD/hour of rent and
-- per purchase USD. 'purchase' rows have null hourly columns; gb_per_purchase_usd is on every
-- row of an accelerator with a purchase price.
--
-- columns:
--   provider: the provider behind the price basis (the cheapest one for <pricing_model>_min);
--     null for on_demand_median and purchase
--   gb_per_usd_hour [GB per USD/hour]: memory_gb / price_per_gpu_hour
--   gb_per_purchase_usd [GB per USD]: memory_gb / purchase_price_usd

select
    accelerator_id, price_basis, provider, source, sku, region, fetch_id, source_url,
    memory_gb,
    price_per_gpu_hour, currency, observed_at,
    memory_gb / price_per_gpu_hour as gb_per_usd_hour,
    purchase_price_usd,
    memory_gb / purchase_price_usd as gb_per_purchase_usd
from int_cost_basis_specs
where memory_gb > 0
order by accelerator_id, price_basis
