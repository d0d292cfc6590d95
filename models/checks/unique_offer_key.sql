-- guards: gpu_offers has one row per source x provider x sku x region x pricing_model.

with

offers as (

    select * from gpu_offers

)

select
    offers.source,
    offers.provider,
    offers.sku,
    offers.region,
    offers.pricing_model,
    count(*) as n_rows
from offers
group by
    offers.source,
    offers.provider,
    offers.sku,
    offers.region,
    offers.pricing_model
having count(*) > 1
