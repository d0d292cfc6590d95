-- one row per accelerator x price basis: the per-GPU hourly price (USD, whole GPUs) the cost
-- marts use. Bases, where data exist: <pricing_model>_min for on_demand, spot, community,
-- reserved_1y, reserved_3y (the cheapest provider, named), and on_demand_median (the median
-- across providers of each provider's cheapest on-demand price; no single provider).
-- Crosscheck prices (curated public tables) are never a basis.

with

provider_prices as (

    select * from int_provider_prices
    where not int_provider_prices.is_crosscheck

),

minimums as (

    select
        provider_prices.accelerator_id,
        provider_prices.pricing_model || '_min' as price_basis,
        provider_prices.pricing_model,
        provider_prices.price_per_gpu_hour,
        provider_prices.provider,
        provider_prices.source,
        provider_prices.sku,
        provider_prices.region,
        provider_prices.n_providers,
        provider_prices.observed_at
    from provider_prices
    where provider_prices.provider_rank = 1
        and provider_prices.pricing_model in (
            'on_demand', 'spot', 'community', 'reserved_1y', 'reserved_3y'
        )

),

on_demand_medians as (

    select
        provider_prices.accelerator_id,
        'on_demand_median' as price_basis,
        'on_demand' as pricing_model,
        quantile_cont(provider_prices.price_per_gpu_hour, 0.5) as price_per_gpu_hour,
        cast(null as varchar) as provider,
        cast(null as varchar) as source,
        cast(null as varchar) as sku,
        cast(null as varchar) as region,
        count(*) as n_providers,
        -- the oldest price behind the median: the basis is at least this fresh
        min(provider_prices.observed_at) as observed_at
    from provider_prices
    where provider_prices.pricing_model = 'on_demand'
    group by provider_prices.accelerator_id

),

final as (

    select * from minimums
    union all by name
    select * from on_demand_medians

)

select
    final.accelerator_id,
    final.price_basis,
    final.pricing_model,
    final.price_per_gpu_hour,
    'USD' as currency,
    final.provider,
    final.source,
    final.sku,
    final.region,
    final.n_providers,
    final.observed_at
from final
