-- one row per spot offer in force priced at or above the on-demand offer of the same
-- provider, sku and region (and currency): spot_above_on_demand, or spot_equals_on_demand (a
-- spot meter that only repeats the on-demand price is no spot discount: often a placeholder).
-- Real catalogs contain these (e.g. some GCP rows), so this is a table to inspect, not a check
-- that blocks publishing.
--
-- columns:
--   anomaly: the kind of anomaly (spot_above_on_demand, spot_equals_on_demand)
--   spot_source: source of the spot offer
--   spot_price_per_hour [USD/hour (in currency)]: the spot price of the whole instance
--   on_demand_source: source of the on-demand offer
--   on_demand_price_per_hour [USD/hour (in currency)]: the on-demand price of the whole instance
--   spot_to_on_demand_ratio [ratio]: spot_price_per_hour / on_demand_price_per_hour (>= 1)
--   observed_at [timestamp (UTC)]: when the spot price was observed

with

offers as (

    select * from gpu_offers

),

spot_offers as (

    select * from offers
    where offers.pricing_model = 'spot'
        and offers.price_per_hour is not null

),

on_demand_offers as (

    select * from offers
    where offers.pricing_model = 'on_demand'
        and offers.price_per_hour is not null

),

final as (

    select
        case
            when spot_offers.price_per_hour > on_demand_offers.price_per_hour
                then 'spot_above_on_demand'
            else 'spot_equals_on_demand'
        end as anomaly,
        spot_offers.accelerator_id,
        spot_offers.provider,
        spot_offers.sku,
        spot_offers.region,
        spot_offers.currency,
        spot_offers.source as spot_source,
        spot_offers.price_per_hour as spot_price_per_hour,
        on_demand_offers.source as on_demand_source,
        on_demand_offers.price_per_hour as on_demand_price_per_hour,
        spot_offers.price_per_hour / on_demand_offers.price_per_hour as spot_to_on_demand_ratio,
        spot_offers.observed_at
    from spot_offers
    inner join on_demand_offers using (provider, sku, region, currency)
    where spot_offers.price_per_hour >= on_demand_offers.price_per_hour

)

select * from final
order by final.provider, final.sku, final.region, final.spot_source, final.on_demand_source
