-- returns the utilisation above which owning is cheaper than renting: owned capital cost per
-- GPU-hour (paid whether used or not) / (rental price - energy per used hour). Above 1, or
-- null when the rental price does not even cover the energy, renting is always cheaper.

create or replace macro breakeven_utilisation(
    capital_usd_per_gpu_hour, energy_usd_per_gpu_hour, rental_price_per_gpu_hour
) as case
    when rental_price_per_gpu_hour > energy_usd_per_gpu_hour
        then capital_usd_per_gpu_hour / (rental_price_per_gpu_hour - energy_usd_per_gpu_hour)
end
