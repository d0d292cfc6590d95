-- guards: every reference price names an accelerator that exists, a known pricing model,
-- a provider, a positive whole-instance price, an observation date and its source, and that
-- source is not a curated cross-check table (Full Stack Deep Learning's cloud-gpus.csv,
-- cloud-gpus.com): cross-check rows are shown for comparison, never used as a price.

with

reference_prices as (

    select * from stg_curated__reference_prices

),

accelerator_specs as (

    select * from stg_curated__accelerators

)

select
    reference_prices.provider,
    reference_prices.sku,
    reference_prices.accelerator_id,
    reference_prices.pricing_model,
    reference_prices.price_per_hour,
    reference_prices.observed_date,
    reference_prices.source_url
from reference_prices
left join accelerator_specs using (accelerator_id)
where accelerator_specs.accelerator_id is null
    or reference_prices.provider is null
    or reference_prices.pricing_model is null
    -- the pricing-model vocabulary (catalog/records.py PRICING_MODELS)
    or reference_prices.pricing_model not in (
        'on_demand', 'spot', 'community', 'interruptible_bid', 'reserved_1m', 'reserved_6m',
        'reserved_1y', 'reserved_3y', 'savings_plan_1y', 'savings_plan_3y', 'queued',
        'capacity_block'
    )
    or reference_prices.price_per_hour is null
    or reference_prices.observed_date is null
    or coalesce(trim(reference_prices.source_url), '') = ''
    or regexp_matches(reference_prices.source_url, 'the-full-stack|cloud-gpus\.(com|github\.io)')
