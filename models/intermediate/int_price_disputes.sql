-- one row per disputed price: an offer in force of a lower-ranked source that disagrees by more
-- than price_dispute_pct (assumption, 25%) with a higher-ranked source's offer in force of the
-- same provider, sku, pricing model and GPU count, in the same region (or one region is a zone
-- of the other: us-central1 / us-central1-a; or either names no region). Source precedence
-- within one provider (issue 37, DESIGN invariant 14): 1 the provider's own page or API (and
-- the curated reference prices typed from it), 2 a catalog built from it by a third party
-- (SkyPilot, gpuhunt: curated.sources.authority 'catalog'), 3 an aggregator's resale
-- (listing_kind 'resold'). Curated public tables (crosscheck) are never a price and dispute
-- nothing.
--
-- * a dispute needs the higher-ranked observation to be at least as new as the lower-ranked
--   one (within a day): where the provider's page is the older of the two, the gap may be a
--   price change, and the newest price of the seller decides (int_provider_prices);
-- * the lower-ranked row's sku is then disputed in every region and pricing model of that
--   source (int_disputed_skus): listed in gpu_offers (is_disputed), never a minimum, a median
--   input or a price basis;
-- * one row per (provider, sku, pricing model, the two sources, the higher-ranked region): of
--   the lower-ranked source's rows that match that region, the one in the same region first,
--   then the cheapest.

with

offers as (

    select * from int_offers_mapped

),

sources as (

    select * from stg_curated__sources

),

assumptions as (

    select * from stg_curated__assumptions

),

threshold as (

    select assumptions.value / 100.0 as max_gap
    from assumptions
    where assumptions.assumption_key = 'price_dispute_pct'

),

ranked as (

    select
        offers.*,
        case
            when offers.listing_kind = 'resold' then 3
            when sources.authority = 'catalog' then 2
            else 1
        end as source_rank
    from offers
    left join sources using (source)
    where offers.source_kind in ('first_hand', 'reference')
        and offers.observed_at_known
        and offers.price_per_hour > 0
        and offers.gpu_count is not null

),

pairs as (

    select
        higher.provider,
        higher.sku,
        higher.pricing_model,
        higher.accelerator_id,
        higher.gpu_count,
        higher.currency,
        higher.source as higher_source,
        higher.source_rank as higher_source_rank,
        higher.region as higher_region,
        higher.price_per_hour as higher_price_per_hour,
        higher.price_per_gpu_hour as higher_price_per_gpu_hour,
        higher.observed_at as higher_observed_at,
        higher.fetch_id as higher_fetch_id,
        higher.source_url as higher_source_url,
        lower.source as lower_source,
        lower.source_rank as lower_source_rank,
        lower.region as lower_region,
        lower.price_per_hour as lower_price_per_hour,
        lower.price_per_gpu_hour as lower_price_per_gpu_hour,
        lower.observed_at as lower_observed_at,
        lower.fetch_id as lower_fetch_id,
        lower.source_url as lower_source_url,
        round(100.0 * (lower.price_per_hour - higher.price_per_hour)
            / higher.price_per_hour, 1) as pct_diff
    from ranked as higher
    inner join ranked as lower
        on lower.provider = higher.provider
        and lower.sku = higher.sku
        and lower.pricing_model = higher.pricing_model
        and lower.gpu_count = higher.gpu_count
        and lower.currency = higher.currency
        and lower.source_rank > higher.source_rank
        and (
            lower.region = higher.region
            or lower.region like higher.region || '-%'
            or higher.region like lower.region || '-%'
            or lower.region = ''
            or higher.region = ''
        )
    cross join threshold
    where abs(lower.price_per_hour - higher.price_per_hour) / higher.price_per_hour
            > threshold.max_gap
        and higher.observed_at >= lower.observed_at - interval 1 day
    qualify row_number() over (
        partition by higher.provider, higher.sku, higher.pricing_model, higher.source,
            higher.region, lower.source
        order by lower.region <> higher.region, lower.price_per_hour, lower.region
    ) = 1

)

select * from pairs
