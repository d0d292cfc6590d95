-- one row per price dispute within one provider: a lower-ranked source (a catalog built from
-- the provider's prices, or an aggregator's resale) states a price more than price_dispute_pct
-- (25%) away from the provider's own page or API for the same sku, pricing model, GPU count and
-- region, observed no later than the page, or, for a sku the page omits, from every price of
-- the same part the page lists there (int_price_disputes). The lower-ranked source's rows
-- of that sku are then disputed in every region and pricing model: gpu_offers lists them with
-- is_disputed, and no minimum, median or price basis uses them. A disagreement is shown, never
-- averaged (DESIGN invariant 14). `gpucost explain fetch FETCH_ID` names the disputes of a fetch.
--
-- columns:
--   provider: the provider both sources price
--   sku: the instance type of the lower-ranked source, whose rows are disputed
--   higher_sku: the instance type the higher-ranked source prices: the same sku, or (where it
--     lists no row of that sku) a row of the same part in the same region
--   compared_by: sku (the same instance type) or part (the same accelerator, per GPU)
--   pricing_model: the pricing model both price
--   accelerator_id: the catalog accelerator of the sku
--   gpu_count [GPUs]: GPUs per instance
--   currency: the currency both state
--   higher_source: the higher-ranked source (the provider's own page or API, or a reference
--     price typed from it)
--   higher_source_rank [rank]: 1 own page or API, 2 a catalog built from it, 3 a resale
--   higher_region: the region the higher-ranked source states
--   higher_price_per_hour [USD/hour (in currency)]: its instance price
--   higher_price_per_gpu_hour [USD per GPU-hour (in currency)]: its per-GPU price
--   higher_observed_at [timestamp (UTC)]: when it was observed
--   higher_fetch_id: its fetch (gpucost explain fetch)
--   higher_source_url: where it was read
--   lower_source: the lower-ranked source, whose rows of the sku are disputed
--   lower_source_rank [rank]: 2 a catalog built from the provider's prices, 3 a resale
--   lower_region: the region of the lower-ranked row compared (the same region, or a zone of it)
--   lower_price_per_hour [USD/hour (in currency)]: its instance price
--   lower_price_per_gpu_hour [USD per GPU-hour (in currency)]: its per-GPU price
--   lower_observed_at [timestamp (UTC)]: when it was observed
--   lower_fetch_id: its fetch
--   lower_source_url: where it was read
--   pct_diff [%]: (lower - higher) / higher x 100, per GPU
--   disputed_offers [offers]: offers in force of the lower-ranked source for this sku (every
--     region and pricing model), all marked is_disputed in gpu_offers

with

disputes as (

    select * from int_price_disputes

),

offers as (

    select * from int_offers_standing

),

disputed_counts as (

    select
        offers.source as lower_source,
        offers.provider,
        offers.sku,
        count(*) as disputed_offers
    from offers
    where offers.is_disputed
    group by all

),

final as (

    select
        disputes.provider,
        disputes.sku,
        disputes.higher_sku,
        disputes.compared_by,
        disputes.pricing_model,
        disputes.accelerator_id,
        disputes.gpu_count,
        disputes.currency,
        disputes.higher_source,
        disputes.higher_source_rank,
        disputes.higher_region,
        disputes.higher_price_per_hour,
        disputes.higher_price_per_gpu_hour,
        disputes.higher_observed_at,
        disputes.higher_fetch_id,
        disputes.higher_source_url,
        disputes.lower_source,
        disputes.lower_source_rank,
        disputes.lower_region,
        disputes.lower_price_per_hour,
        disputes.lower_price_per_gpu_hour,
        disputes.lower_observed_at,
        disputes.lower_fetch_id,
        disputes.lower_source_url,
        disputes.pct_diff,
        disputed_counts.disputed_offers
    from disputes
    left join disputed_counts using (lower_source, provider, sku)

)

select * from final
order by provider, sku, pricing_model, higher_region, lower_source
