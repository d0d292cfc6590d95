-- one row per disputed price: an offer in force of a lower-ranked source that disagrees by more
-- than price_dispute_pct (assumption, 25%) per GPU with a higher-ranked source's offer in force
-- of the same provider, sku, pricing model and GPU count, in the same region (or one region is
-- a zone of the other: us-central1 / us-central1-a; or either names no region); where the
-- higher-ranked source lists no row of that sku, with every row of the same part it lists
-- there (compared_by 'part'; not for a marketplace, whose hosts each set a price). Source precedence
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

candidates as (

    -- every lower-ranked row beside a higher-ranked one of the same provider, pricing model,
    -- currency and region (a zone counts as its region), observed no later than the higher:
    -- of the same sku and GPU count ('sku'), or, where the higher-ranked source lists no row
    -- of that sku, of the same part ('part': the page prices the part, the catalog a shape
    -- the page omits, such as GCP's a3-highgpu-4g beside the page's a3-highgpu-8g); never a
    -- marketplace's part (its hosts price each machine, a spread is no dispute)
    select
        lower.*,
        higher.sku as higher_sku,
        higher.source as higher_source,
        higher.source_rank as higher_source_rank,
        higher.region as higher_region,
        higher.price_per_hour as higher_price_per_hour,
        higher.price_per_gpu_hour as higher_price_per_gpu_hour,
        higher.observed_at as higher_observed_at,
        higher.fetch_id as higher_fetch_id,
        higher.source_url as higher_source_url,
        case when lower.sku = higher.sku then 'sku' else 'part' end as compared_by,
        abs(lower.price_per_gpu_hour - higher.price_per_gpu_hour)
            / higher.price_per_gpu_hour as gap
    from ranked as higher
    inner join ranked as lower
        on lower.provider = higher.provider
        and lower.pricing_model = higher.pricing_model
        and lower.currency = higher.currency
        and lower.source_rank > higher.source_rank
        and (
            lower.region = higher.region
            or lower.region like higher.region || '-%'
            or higher.region like lower.region || '-%'
            or lower.region = ''
            or higher.region = ''
        )
        and (
            (lower.sku = higher.sku and lower.gpu_count = higher.gpu_count)
            or (
                lower.accelerator_id = higher.accelerator_id
                and lower.listing_kind <> 'marketplace'
                and lower.price_per_gpu_hour > 0
                and higher.price_per_gpu_hour > 0
                and not exists (
                    select 1 from ranked as same
                    where same.source = higher.source
                        and same.provider = higher.provider
                        and same.sku = lower.sku
                )
            )
        )
    where higher.observed_at >= lower.observed_at - interval 1 day

),

over_threshold as (

    -- a lower-ranked row is out when its gap is over the threshold against the same sku, or
    -- against every row of the part the higher-ranked source lists there
    select candidates.*
    from candidates
    cross join threshold
    qualify min(candidates.gap) over (
        partition by candidates.provider, candidates.source, candidates.sku,
            candidates.region, candidates.pricing_model, candidates.higher_source
    ) > threshold.max_gap

),

pairs as (

    -- one row per dispute: the lower-ranked row in the higher-ranked row's own region first
    select
        candidates.provider,
        candidates.sku,
        candidates.higher_sku,
        candidates.compared_by,
        candidates.pricing_model,
        candidates.accelerator_id,
        candidates.gpu_count,
        candidates.currency,
        candidates.higher_source,
        candidates.higher_source_rank,
        candidates.higher_region,
        candidates.higher_price_per_hour,
        candidates.higher_price_per_gpu_hour,
        candidates.higher_observed_at,
        candidates.higher_fetch_id,
        candidates.higher_source_url,
        candidates.source as lower_source,
        candidates.source_rank as lower_source_rank,
        candidates.region as lower_region,
        candidates.price_per_hour as lower_price_per_hour,
        candidates.price_per_gpu_hour as lower_price_per_gpu_hour,
        candidates.observed_at as lower_observed_at,
        candidates.fetch_id as lower_fetch_id,
        candidates.source_url as lower_source_url,
        round(100.0 * (candidates.price_per_gpu_hour - candidates.higher_price_per_gpu_hour)
            / candidates.higher_price_per_gpu_hour, 1) as pct_diff
    from over_threshold as candidates
    qualify row_number() over (
        partition by candidates.provider, candidates.sku, candidates.pricing_model,
            candidates.higher_source, candidates.higher_region, candidates.source
        order by candidates.region <> candidates.higher_region, candidates.gap,
            candidates.price_per_hour, candidates.region
    ) = 1

)

select * from pairs
