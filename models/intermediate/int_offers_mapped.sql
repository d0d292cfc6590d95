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
-- * price_per_gpu_hour only for whole GPUs (gpu_count >= 1 and whole); fractional offers are
--   flagged is_fractional_gpu and keep a null per-GPU price.
-- * marketplace aggregates (Vast) carry offer_count and the 10th / 90th percentile offer
--   (price_p10_per_hour / price_p90_per_hour, whole instance; price_per_hour is the median).
-- * lineage: fetch_id (raw.fetches) and source_url: the URL the payload was fetched from, or
--   for a payload replayed from a file the source's documented live endpoint; a reference
--   price's own source_url. observed_at_known is false for a file replayed without any date
--   (observed_at is then the time of the ingest, not of the price).

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

scraped_mapped as (

    select
        snapshots.source,
        snapshots.provider,
        snapshots.sku,
        snapshots.region,
        snapshots.pricing_model,
        snapshots.os,
        snapshots.currency,
        snapshots.price_per_hour,
        snapshots.gpu_name_raw,
        snapshots.gpu_count,
        snapshots.gpu_memory_gb,
        snapshots.vcpus,
        snapshots.ram_gb,
        snapshots.offer_count,
        snapshots.price_p10_per_hour,
        snapshots.price_p90_per_hour,
        snapshots.observed_at,
        snapshots.confirmed_at,
        snapshots.fetch_id,
        case
            when fetches.url like 'http%' then fetches.url
            else registered_sources.default_url
        end as source_url,
        fetches.observed_at_basis,
        name_map.accelerator_id,
        name_map.mapped_by,
        case when snapshots.source = 'crosscheck' then 'crosscheck' else 'first_hand' end
            as source_kind
    from snapshots
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
        -- a file replayed without any date is stamped with the ingest time: it covers what
        -- it lists whatever the reference row's date
    group by all

),

reference_offers as (

    select
        'reference' as source,
        reference_prices.provider,
        reference_prices.sku,
        reference_prices.region,
        reference_prices.pricing_model,
        'linux' as os,
        reference_prices.currency,
        reference_prices.price_per_hour,
        cast(null as varchar) as gpu_name_raw,
        reference_prices.gpu_count,
        cast(null as double) as gpu_memory_gb,
        cast(null as double) as vcpus,
        cast(null as double) as ram_gb,
        cast(null as integer) as offer_count,
        cast(null as double) as price_p10_per_hour,
        cast(null as double) as price_p90_per_hour,
        reference_prices.observed_at,
        reference_prices.observed_at as confirmed_at,
        cast(null as bigint) as fetch_id,
        reference_prices.source_url,
        'payload' as observed_at_basis,
        reference_prices.accelerator_id,
        'reference' as mapped_by,
        'reference' as source_kind
    from reference_prices
    anti join first_hand_coverage
        on first_hand_coverage.provider = reference_prices.provider
        and first_hand_coverage.accelerator_id = reference_prices.accelerator_id
        and first_hand_coverage.pricing_model = reference_prices.pricing_model
        and first_hand_coverage.observed_at >= reference_prices.observed_at - interval 1 day

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
superseded as (

    select distinct
        older.source,
        older.provider,
        older.sku,
        older.region,
        older.pricing_model
    from flagged as older
    inner join flagged as newer
        on newer.provider = older.provider
        and newer.accelerator_id = older.accelerator_id
        and newer.gpu_count = older.gpu_count
        and newer.pricing_model = older.pricing_model
        and (newer.source <> older.source or older.source = 'reference')
        and (older.region = '' or newer.region = older.region)
        and newer.observed_at > older.observed_at + interval 1 day
    where older.source_kind in ('first_hand', 'reference')
        and newer.source_kind in ('first_hand', 'reference')
        and newer.price_per_hour is not null
        -- a file replayed without any date is stamped with the ingest time: it supersedes
        -- nothing (its observation date is unknown)
        and newer.observed_at_basis is distinct from 'ingest_time'

),

current_offers as (

    select flagged.*
    from flagged
    anti join superseded
        on superseded.source = flagged.source
        and superseded.provider = flagged.provider
        and superseded.sku = flagged.sku
        and superseded.region = flagged.region
        and superseded.pricing_model = flagged.pricing_model

),

final as (

    select
        flagged.accelerator_id,
        flagged.mapped_by,
        flagged.gpu_name_raw,
        flagged.provider,
        flagged.sku,
        flagged.region,
        flagged.pricing_model,
        flagged.price_per_hour,
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
        flagged.gpu_memory_gb,
        flagged.vcpus,
        flagged.ram_gb,
        flagged.os,
        flagged.source,
        flagged.source_kind,
        flagged.fetch_id,
        flagged.source_url,
        flagged.observed_at,
        flagged.observed_at_basis,
        flagged.observed_at_basis is distinct from 'ingest_time' as observed_at_known,
        -- age at the build; unknown (null) for a file replayed without any date
        case
            when flagged.observed_at_basis is distinct from 'ingest_time'
                then round(date_diff('second', flagged.observed_at, current_timestamp)
                    / 86400.0, 1)
        end as age_days,
        flagged.confirmed_at
    from current_offers as flagged

)

select * from final
