-- guards: no offer is free or negative (an unknown price is null, never 0).

select source, provider, sku, region, pricing_model, price_per_hour
from gpu_offers
where price_per_hour <= 0 or price_per_gpu_hour <= 0
