-- guards: gpu_offers has one row per source x provider x sku x region x pricing_model.

select source, provider, sku, region, pricing_model, count(*) as n_rows
from gpu_offers
group by all
having count(*) > 1
