-- one row per offer in force: source x provider x sku x region x pricing_model, from the
-- scraped observations in force plus curated reference prices (source 'reference'), with the
-- accelerator resolved (int_gpu_name_map) and the per-GPU price computed.
--
-- * source_kind: 'first_hand' (a provider's own price list, page or API, or a catalog built
--   from them), 'reference' (curated reference prices), 'crosscheck' (curated public tables
--   typed in by people: source 'crosscheck'). Crosscheck offers are listed but never
--   override: the marts rank them after any first-hand or reference price.
-- * a reference price is used only for a (provider, accelerator_id, pricing_model) that no
--   first-hand offer in force covers with a known price observed as late (within a day) as
--   the reference row: a reference price typed from a newer page than the last fetch stays
--   and supersedes the older offers below.
-- * Windows-licensed rows are left out (prices are Linux); several rows with the same offer
--   key in one source collapse to the cheapest known price (then the newest).
-- * price_kind: what price_per_hour buys (stg_raw__price_observations); reference prices are
--   'instance'. payment: how a commitment is paid where the payload states it (null for
--   reference prices).
-- * price_per_gpu_hour only for whole GPUs (gpu_count >= 1 and whole); fractional offers are
--   flagged is_fractional_gpu and keep a null per-GPU price.
-- * marketplace aggregates (Vast) carry offer_count and the 10th / 90th percentile offer
--   (price_p10_per_hour / price_p90_per_hour, whole instance; price_per_hour is the median).
-- * lineage: fetch_id (raw.fetches) and source_url: the URL the payload was fetched from, or
--   for a payload replayed from a file the source's documented live endpoint; a reference
--   price's own source_url.
-- * a price without a date is not a current price: observed_at_known is false for an offer of a
--   file replayed without any date; its observed_at, age_days and confirmed_at are then null
--   (loaded_at says when it was loaded). Such an offer never supersedes anything, never covers
--   a reference price, and is superseded by any dated first-hand or reference observation of
--   the same provider, accelerator, GPU count and pricing model, whatever its date. An
--   approximate date (observed_at_precision 'month': its first instant) is a date.
-- * who sells it (catalog/providers.csv, seller_names.csv): seller is who runs the machine,
--   provider who lists it. listing_kind: 'own' (the seller lists its own machines), 'resold'
--   (an aggregator lists another provider's machine: the seller is read from the sku),
--   'marketplace' (independent hosts behind one marketplace: the seller is the marketplace).
--   A marketplace's on-demand listing is community capacity: pricing_model 'community'.
-- * per-GPU memory that disagrees with the catalog's by more than 30% is corrected when it is
--   the instance's total (divided by the GPU count it agrees), else left null.
-- * available: true / false where the payload states whether it can be launched now; null =
--   not stated (reference prices: null).

with

snapshots as (

    select * from int_price_snapshots_current

),

name_map as (

    select * from int_gpu_name_map

),

fetches as (

    select * from stg_raw__fetches

),

registered_sources as (

    select * from stg_curated__sources

),

reference_prices as (

    select * from stg_curated__reference_prices

),

listing_providers as (

    select * from stg_curated__providers

),

seller_names as (

    select * from stg_curated__seller_names

),

catalog_accelerators as (

    select * from stg_curated__accelerators

),

scraped_listed as (

    select
        snapshots.*,
        listing_providers.listing_kind as provider_listing_kind,
        resold_from(
            listing_providers.listing_kind, snapshots.sku, listing_providers.sku_seller_regex
        ) as resold_from
    from snapshots
    left join listing_providers using (provider)

),

scraped_mapped as (

    select
        snapshots.source,
        snapshots.provider,
        coalesce(seller_names.seller, snapshots.resold_from, snapshots.provider) as seller,
        case
            when snapshots.resold_from is not null then 'resold'
            when snapshots.provider_listing_kind = 'marketplace' then 'marketplace'
            else 'own'
        end as listing_kind,
        snapshots.sku,
        snapshots.region,
        case
            when snapshots.provider_listing_kind = 'marketplace'
                and snapshots.pricing_model = 'on_demand'
                then 'community'
            else snapshots.pricing_model
        end as pricing_model,
        snapshots.os,
        snapshots.currency,
        snapshots.price_per_hour,
        snapshots.price_kind,
        snapshots.payment,
        snapshots.gpu_name_raw,
        snapshots.gpu_count,
        snapshots.gpu_memory_gb,
        snapshots.vcpus,
        snapshots.ram_gb,
        snapshots.offer_count,
        snapshots.price_p10_per_hour,
        snapshots.price_p90_per_hour,
        snapshots.available,
        snapshots.observed_at,
        snapshots.confirmed_at,
        fetches.finished_at as loaded_at,
        fetches.observed_at_basis is distinct from 'ingest_time' as observed_at_known,
        snapshots.fetch_id,
        case
            when fetches.url like 'http%' then fetches.url
            else registered_sources.default_url
        end as source_url,
        fetches.observed_at_basis,
        -- a row's own date (payload rows) is exact; the fetch's date may be a month
        case
            when snapshots.observed_at = fetches.observed_at then fetches.observed_at_precision
            else 'day'
        end as observed_at_precision,
        name_map.accelerator_id,
        name_map.mapped_by,
        case when snapshots.source = 'crosscheck' then 'crosscheck' else 'first_hand' end
            as source_kind
    from scraped_listed as snapshots
    left join seller_names
        on seller_names.name = coalesce(snapshots.resold_from, snapshots.provider)
    left join name_map
        on name_map.provider = snapshots.provider
        and name_map.sku = snapshots.sku
        and name_map.gpu_name_raw is not distinct from snapshots.gpu_name_raw
    left join fetches
        on fetches.fetch_id = snapshots.fetch_id
    left join registered_sources
        on registered_sources.source = snapshots.source
    where snapshots.os not like '%windows%'

),

first_hand_coverage as (

    select
        scraped_mapped.provider,
        scraped_mapped.accelerator_id,
        scraped_mapped.pricing_model,
        max(scraped_mapped.observed_at) as observed_at
    from scraped_mapped
    where scraped_mapped.accelerator_id is not null
        and scraped_mapped.price_per_hour is not null
        and scraped_mapped.source_kind = 'first_hand'
        -- a price without a date covers no dated reference price
        and scraped_mapped.observed_at_known
    group by all

),

reference_offers as (

    select
        'reference' as source,
        reference_prices.provider,
        coalesce(seller_names.seller, reference_prices.provider) as seller,
        'own' as listing_kind,
        reference_prices.sku,
        reference_prices.region,
        reference_prices.pricing_model,
        'linux' as os,
        reference_prices.currency,
        reference_prices.price_per_hour,
        'instance' as price_kind,
        cast(null as varchar) as payment,
        cast(null as varchar) as gpu_name_raw,
        reference_prices.gpu_count,
        cast(null as double) as gpu_memory_gb,
        cast(null as double) as vcpus,
        cast(null as double) as ram_gb,
        cast(null as integer) as offer_count,
        cast(null as double) as price_p10_per_hour,
        cast(null as double) as price_p90_per_hour,
        cast(null as boolean) as available,
        reference_prices.observed_at,
        reference_prices.observed_at as confirmed_at,
        cast(null as timestamptz) as loaded_at,
        true as observed_at_known,
        cast(null as bigint) as fetch_id,
        reference_prices.source_url,
        'payload' as observed_at_basis,
        'day' as observed_at_precision,
        reference_prices.accelerator_id,
        'reference' as mapped_by,
        'reference' as source_kind
    from reference_prices
    left join seller_names
        on seller_names.name = reference_prices.provider
    anti join first_hand_coverage
        on first_hand_coverage.provider = reference_prices.provider
        and first_hand_coverage.accelerator_id = reference_prices.accelerator_id
        and first_hand_coverage.pricing_model = reference_prices.pricing_model
        and first_hand_coverage.observed_at >= reference_prices.observed_at - interval 1 day
    -- as of a day (gpucost_as_of, int_fetches_in_force): a price typed from a later page is
    -- not yet known
    where getvariable('gpucost_as_of') is null
        or reference_prices.observed_at <= getvariable('gpucost_as_of')

),

all_offers as (

    select * from scraped_mapped
    union all by name
    select * from reference_offers

),

deduplicated as (

    select * from all_offers
    qualify row_number() over (
        partition by
            all_offers.source,
            all_offers.provider,
            all_offers.sku,
            all_offers.region,
            all_offers.pricing_model
        order by
            -- the reference catalog keeps a price's earlier observations: the newest is in force
            case when all_offers.source = 'reference' then all_offers.observed_at end
                desc nulls last,
            -- a dated observation before an undated one, the newest dated one first (two
            -- streams of one source listing the same offer: RunPod's page and its API)
            all_offers.observed_at_known desc,
            case when all_offers.observed_at_known then all_offers.observed_at end
                desc nulls last,
            all_offers.price_per_hour asc nulls last,
            all_offers.observed_at desc,
            all_offers.fetch_id desc nulls last,
            all_offers.accelerator_id nulls last
    ) = 1

),

flagged as (

    select
        deduplicated.*,
        case
            when deduplicated.gpu_count is null then null
            else not (
                deduplicated.gpu_count >= 1
                and abs(deduplicated.gpu_count - round(deduplicated.gpu_count)) < 1e-9
            )
        end as is_fractional_gpu
    from deduplicated

),

-- freshness: a first-hand or reference offer leaves the in-force set when another source, or
-- another row of the reference catalog, holds a first-hand or reference observation of the same
-- provider, accelerator, GPU count and pricing model that is more than a day newer, in the
-- same region (or the older offer names no region: Lambda's page prices are not regional).
-- SkyPilot's Lambda catalog of May so supersedes Lambda's own page of January, whatever the
-- sku is called, whether either was fetched or typed into the reference catalog. Within one
-- fetched source, the fetch in force of each stream already decides (an offer its newer fetch
-- no longer lists is gone). Crosscheck tables supersede nothing and are never superseded.
-- Linear in offers: each offer is joined to the newest dated observation per source of its
-- (provider, accelerator, GPU count, pricing model) group, per region and over all regions
-- (a few rows per offer: one per source), never to every other offer of its group (a self
-- join that took 9 minutes for one source listing 1,000,000 offers of six parts).
superseding_by_region as (

    select
        flagged.provider,
        flagged.accelerator_id,
        flagged.gpu_count,
        flagged.pricing_model,
        flagged.source,
        flagged.region,
        max(flagged.observed_at) as observed_at
    from flagged
    where flagged.source_kind in ('first_hand', 'reference')
        and flagged.price_per_hour is not null
        -- a price without a date supersedes nothing (its observation date is unknown)
        and flagged.observed_at_known
    group by all

),

superseding_any_region as (

    select
        superseding_by_region.provider,
        superseding_by_region.accelerator_id,
        superseding_by_region.gpu_count,
        superseding_by_region.pricing_model,
        superseding_by_region.source,
        max(superseding_by_region.observed_at) as observed_at
    from superseding_by_region
    group by all

),

superseded as (

    select
        older.source,
        older.provider,
        older.sku,
        older.region,
        older.pricing_model
    from flagged as older
    inner join superseding_by_region as newer
        using (provider, accelerator_id, gpu_count, pricing_model, region)
    where older.source_kind in ('first_hand', 'reference')
        and (newer.source <> older.source or older.source = 'reference')
        and older.observed_at_known
        and newer.observed_at > older.observed_at + interval 1 day

    union

    select
        older.source,
        older.provider,
        older.sku,
        older.region,
        older.pricing_model
    from flagged as older
    inner join superseding_any_region as newer
        using (provider, accelerator_id, gpu_count, pricing_model)
    where older.source_kind in ('first_hand', 'reference')
        and (newer.source <> older.source or older.source = 'reference')
        and (
            -- an undated observation yields to any dated one, in any region
            not older.observed_at_known
            -- an offer that names no region yields to a newer one in any region
            or (older.region = '' and newer.observed_at > older.observed_at + interval 1 day)
        )

),

current_offers as (

    select flagged.*
    from flagged
    anti join superseded using (source, provider, sku, region, pricing_model)

),

final as (

    select
        flagged.accelerator_id,
        flagged.mapped_by,
        flagged.gpu_name_raw,
        flagged.provider,
        flagged.seller,
        flagged.listing_kind,
        flagged.sku,
        flagged.region,
        flagged.pricing_model,
        flagged.price_per_hour,
        flagged.price_kind,
        flagged.payment,
        flagged.gpu_count,
        flagged.is_fractional_gpu,
        case
            when not flagged.is_fractional_gpu
                then flagged.price_per_hour / round(flagged.gpu_count)
        end as price_per_gpu_hour,
        flagged.offer_count,
        case
            when not flagged.is_fractional_gpu
                then flagged.price_p10_per_hour / round(flagged.gpu_count)
        end as p10_price_per_gpu_hour,
        case
            when not flagged.is_fractional_gpu
                then flagged.price_p90_per_hour / round(flagged.gpu_count)
        end as p90_price_per_gpu_hour,
        flagged.currency,
        case
            when catalog_parts.memory_gb is null or flagged.gpu_memory_gb is null
                then flagged.gpu_memory_gb
            when flagged.gpu_memory_gb between catalog_parts.memory_gb / 1.3
                    and catalog_parts.memory_gb * 1.3
                then flagged.gpu_memory_gb
            -- the instance's total where the source says per GPU (SkyPilot's GpuInfo)
            when flagged.gpu_count >= 1
                and flagged.gpu_memory_gb / flagged.gpu_count
                    between catalog_parts.memory_gb / 1.3 and catalog_parts.memory_gb * 1.3
                then flagged.gpu_memory_gb / flagged.gpu_count
        end as gpu_memory_gb,
        flagged.vcpus,
        flagged.ram_gb,
        flagged.os,
        flagged.source,
        flagged.source_kind,
        flagged.fetch_id,
        flagged.source_url,
        case when flagged.observed_at_known then flagged.observed_at end as observed_at,
        flagged.observed_at_basis,
        case when flagged.observed_at_known then flagged.observed_at_precision end
            as observed_at_precision,
        flagged.observed_at_known,
        -- age at the build (as of a day: at that instant, gpucost_as_of); unknown (null) for
        -- a file replayed without any date
        case
            when flagged.observed_at_known
                then round(date_diff('second', flagged.observed_at,
                    coalesce(getvariable('gpucost_as_of'), current_timestamp)) / 86400.0, 1)
        end as age_days,
        case when flagged.observed_at_known then flagged.confirmed_at end as confirmed_at,
        flagged.loaded_at,
        flagged.available
    from current_offers as flagged
    left join catalog_accelerators as catalog_parts using (accelerator_id)

)

select * from final
