-- guards: no offer is free or negative (an unknown price is null, never 0).

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
    offers.price_per_hour
from offers
where offers.price_per_hour <= 0
    or offers.price_per_gpu_hour <= 0
