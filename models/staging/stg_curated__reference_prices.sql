-- one row per reference price typed from a public price page (catalog/reference_prices.csv).
-- price_per_hour is the whole instance; zero or negative prices are unknown (null), never free.

select
    lower(provider) as provider,
    coalesce(sku, '') as sku,
    accelerator_id,
    coalesce(region, '') as region,
    lower(pricing_model) as pricing_model,
    gpu_count,
    case when price_per_hour > 0 then price_per_hour end as price_per_hour,
    upper(coalesce(currency, 'USD')) as currency,
    observed_date,
    timezone('UTC', cast(observed_date as timestamp)) as observed_at,
    source_url,
    note
from curated.reference_prices
