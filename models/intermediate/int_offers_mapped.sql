-- one row per offer in force: source x provider x sku x region x pricing_model, from the
-- scraped observations in force plus curated reference prices (source 'reference'), with the
-- accelerator resolved and the per-GPU price computed.
--
-- * accelerator_id precedence (normalised keys: lowercase letters and digits only):
--   sku alias for that provider > sku alias for any provider
--   > gpu_name alias for that provider > gpu_name alias for any provider.
--   A reference price carries its accelerator_id.
-- * a reference price is used only for a (provider, accelerator_id, pricing_model) that no
--   scraped offer in force covers with a known price.
-- * Windows-licensed rows are left out (prices are Linux); several rows with the same offer
--   key in one source collapse to the cheapest known price (then the newest).
-- * price_per_gpu_hour only for whole GPUs (gpu_count >= 1 and whole); fractional offers are
--   flagged is_fractional_gpu and keep a null per-GPU price.

with

snapshots as (

    select * from int_price_snapshots_current

),

aliases as (

    select * from stg_curated__aliases

),

reference_prices as (

    select * from stg_curated__reference_prices

),

-- one accelerator per (kind, provider, key); conflicting aliases are caught by a check
alias_lookup as (

    select
        aliases.alias_kind,
        aliases.provider,
        aliases.alias_key,
        min(aliases.accelerator_id) as accelerator_id
    from aliases
    where aliases.alias_key <> ''
        and aliases.accelerator_id is not null
    group by aliases.alias_kind, aliases.provider, aliases.alias_key

),

scraped as (

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
        snapshots.observed_at,
        snapshots.confirmed_at,
        snapshots.fetch_id,
        regexp_replace(lower(snapshots.sku), '[^a-z0-9]', '', 'g') as sku_key,
        regexp_replace(lower(snapshots.gpu_name_raw), '[^a-z0-9]', '', 'g') as gpu_name_key
    from snapshots
    where snapshots.os not like '%windows%'

),

scraped_mapped as (

    select
        scraped.*,
        coalesce(
            sku_provider_alias.accelerator_id,
            sku_any_alias.accelerator_id,
            gpu_name_provider_alias.accelerator_id,
            gpu_name_any_alias.accelerator_id
        ) as accelerator_id,
        case
            when sku_provider_alias.accelerator_id is not null then 'sku_alias_provider'
            when sku_any_alias.accelerator_id is not null then 'sku_alias'
            when gpu_name_provider_alias.accelerator_id is not null then 'gpu_name_alias_provider'
            when gpu_name_any_alias.accelerator_id is not null then 'gpu_name_alias'
        end as mapped_by
    from scraped
    left join alias_lookup as sku_provider_alias
        on sku_provider_alias.alias_kind = 'sku'
        and sku_provider_alias.provider = scraped.provider
        and sku_provider_alias.alias_key = scraped.sku_key
    left join alias_lookup as sku_any_alias
        on sku_any_alias.alias_kind = 'sku'
        and sku_any_alias.provider is null
        and sku_any_alias.alias_key = scraped.sku_key
    left join alias_lookup as gpu_name_provider_alias
        on gpu_name_provider_alias.alias_kind = 'gpu_name'
        and gpu_name_provider_alias.provider = scraped.provider
        and gpu_name_provider_alias.alias_key = scraped.gpu_name_key
    left join alias_lookup as gpu_name_any_alias
        on gpu_name_any_alias.alias_kind = 'gpu_name'
        and gpu_name_any_alias.provider is null
        and gpu_name_any_alias.alias_key = scraped.gpu_name_key

),

scraped_coverage as (

    select distinct
        scraped_mapped.provider,
        scraped_mapped.accelerator_id,
        scraped_mapped.pricing_model
    from scraped_mapped
    where scraped_mapped.accelerator_id is not null
        and scraped_mapped.price_per_hour is not null

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
        reference_prices.observed_at,
        reference_prices.observed_at as confirmed_at,
        cast(null as bigint) as fetch_id,
        reference_prices.accelerator_id,
        'reference' as mapped_by
    from reference_prices
    anti join scraped_coverage
        on scraped_coverage.provider = reference_prices.provider
        and scraped_coverage.accelerator_id = reference_prices.accelerator_id
        and scraped_coverage.pricing_model = reference_prices.pricing_model

),

all_offers as (

    select * exclude (sku_key, gpu_name_key) from scraped_mapped
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
        flagged.currency,
        flagged.gpu_memory_gb,
        flagged.vcpus,
        flagged.ram_gb,
        flagged.os,
        flagged.source,
        flagged.fetch_id,
        flagged.observed_at,
        flagged.confirmed_at
    from flagged

)

select * from final
