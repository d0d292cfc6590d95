-- one row per crosscheck offer in force (curated public tables: source 'crosscheck') that
-- maps to an accelerator, USD, whole GPUs: its per-GPU price against the range of first-hand
-- (and reference) per-GPU prices of the same provider, and against the market median.
--
-- * compared_by 'sku': first-hand offers of the same provider, sku and pricing model exist
--   (their range over regions; skus compared lowercase, letters and digits only, without an
--   Azure "Standard_" prefix: "NC12s v3" = "Standard_NC12s_v3"); 'accelerator': else the
--   provider's first-hand offers of that accelerator and pricing model (any sku and region,
--   so host sizes differ: a coarser test); null: the provider has none.
-- * difference_pct: 0 inside the first-hand range, else the distance to the nearest end of
--   it, (crosscheck / bound - 1) x 100; verdict 'agrees' within 15 % (a table typed by people
--   rounds and lags list prices), 'disagrees' beyond, 'no_first_hand_price' when the provider
--   has no first-hand price to compare with.
-- * market_median_price_per_gpu_hour: the median over first-hand providers (each at its
--   cheapest offer, as in gpu_prices) of the accelerator and pricing model.
-- * the crosscheck price never replaces the first-hand one anywhere (see gpu_prices).
--
-- columns:
--   crosscheck_price_per_gpu_hour [USD per GPU-hour]: the crosscheck table's per-GPU price
--   crosscheck_observed_at [timestamp (UTC)]: when the crosscheck price was observed (the table's
--     date)
--   compared_by: which first-hand offers the range is taken over: 'sku' (same provider, sku and
--     pricing model, any region), 'accelerator' (the provider's offers of the same accelerator and
--     pricing model, any sku and region) or null (none)
--   first_hand_min_price_per_gpu_hour [USD per GPU-hour]: cheapest first-hand (or reference)
--     per-GPU price among those offers
--   first_hand_max_price_per_gpu_hour [USD per GPU-hour]: dearest first-hand (or reference) per-GPU
--     price among those offers
--   first_hand_n_offers [offers]: first-hand and reference offers in force compared with
--   first_hand_sources: their sources, comma-separated
--   first_hand_observed_at [timestamp (UTC)]: newest observation among them
--   market_median_price_per_gpu_hour [USD per GPU-hour]: median over the first-hand and reference
--     providers of the accelerator and pricing model, each at its cheapest offer
--     (gpu_prices.median_price_per_gpu_hour)
--   market_n_providers [providers]: providers behind market_median_price_per_gpu_hour
--   difference_pct [%]: 0 inside the first-hand range, else (crosscheck price / nearest end of the
--     range - 1) x 100; null without a first-hand price
--   difference_from_market_pct [%]: (crosscheck price / market_median_price_per_gpu_hour - 1) x 100
--   verdict: 'agrees' (difference_pct within +/-15), 'disagrees' (beyond) or 'no_first_hand_price'

with

offers as (

    select * from int_offers_standing

),

provider_prices as (

    select * from int_provider_prices

),

crosscheck_offers as (

    select
        offers.*,
        name_key(regexp_replace(lower(offers.sku), '^standard_', ''))
            as sku_key
    from offers
    where offers.source_kind = 'crosscheck'
        and offers.accelerator_id is not null
        and offers.currency = 'USD'
        and offers.price_per_gpu_hour is not null

),

first_hand_offers as (

    select
        offers.*,
        name_key(regexp_replace(lower(offers.sku), '^standard_', ''))
            as sku_key
    from offers
    where offers.source_kind in ('first_hand', 'reference')
        and offers.accelerator_id is not null
        and offers.currency = 'USD'
        and offers.price_per_gpu_hour is not null
        -- only prices someone could pay (as gpu_prices): no disputed row, no GPU component
        and not offers.is_disputed
        and offers.price_kind not in ('gpu_component', 'gpu_only')

),

-- the first-hand prices of a provider x pricing model, by the offer's SKU and by its
-- accelerator: one aggregation, two groupings
first_hand_groups as (

    select
        first_hand_offers.provider,
        first_hand_offers.pricing_model,
        first_hand_offers.sku_key,
        first_hand_offers.accelerator_id,
        grouping(first_hand_offers.sku_key) = 0 as by_sku,
        min(first_hand_offers.price_per_gpu_hour) as min_price_per_gpu_hour,
        max(first_hand_offers.price_per_gpu_hour) as max_price_per_gpu_hour,
        count(*) as n_offers,
        string_agg(distinct first_hand_offers.source, ', ' order by first_hand_offers.source)
            as sources,
        max(first_hand_offers.observed_at) as observed_at
    from first_hand_offers
    group by grouping sets (
        (first_hand_offers.provider, first_hand_offers.pricing_model, first_hand_offers.sku_key),
        (first_hand_offers.provider, first_hand_offers.pricing_model,
            first_hand_offers.accelerator_id)
    )

),

by_sku as (

    select * exclude (accelerator_id, by_sku) from first_hand_groups
    where first_hand_groups.by_sku

),

by_accelerator as (

    select * exclude (sku_key, by_sku) from first_hand_groups
    where not first_hand_groups.by_sku

),

market as (

    select
        provider_prices.accelerator_id,
        provider_prices.pricing_model,
        quantile_cont(provider_prices.price_per_gpu_hour, 0.5)
            as market_median_price_per_gpu_hour,
        count(*) as market_n_providers
    from provider_prices
    where not provider_prices.is_crosscheck
    group by provider_prices.accelerator_id, provider_prices.pricing_model

),

compared as (

    select
        crosscheck_offers.accelerator_id,
        crosscheck_offers.provider,
        crosscheck_offers.pricing_model,
        crosscheck_offers.sku,
        crosscheck_offers.gpu_name_raw,
        crosscheck_offers.gpu_count,
        crosscheck_offers.price_per_gpu_hour as crosscheck_price_per_gpu_hour,
        crosscheck_offers.observed_at as crosscheck_observed_at,
        case
            when by_sku.n_offers is not null then 'sku'
            when by_accelerator.n_offers is not null then 'accelerator'
        end as compared_by,
        coalesce(by_sku.min_price_per_gpu_hour, by_accelerator.min_price_per_gpu_hour)
            as first_hand_min_price_per_gpu_hour,
        coalesce(by_sku.max_price_per_gpu_hour, by_accelerator.max_price_per_gpu_hour)
            as first_hand_max_price_per_gpu_hour,
        coalesce(by_sku.n_offers, by_accelerator.n_offers) as first_hand_n_offers,
        coalesce(by_sku.sources, by_accelerator.sources) as first_hand_sources,
        coalesce(by_sku.observed_at, by_accelerator.observed_at) as first_hand_observed_at,
        market.market_median_price_per_gpu_hour,
        market.market_n_providers
    from crosscheck_offers
    left join by_sku using (provider, sku_key, pricing_model)
    left join by_accelerator using (provider, accelerator_id, pricing_model)
    left join market using (accelerator_id, pricing_model)

),

measured as (

    select
        compared.*,
        case
            when compared.crosscheck_price_per_gpu_hour < compared.first_hand_min_price_per_gpu_hour
                then (compared.crosscheck_price_per_gpu_hour
                    / compared.first_hand_min_price_per_gpu_hour - 1) * 100
            when compared.crosscheck_price_per_gpu_hour > compared.first_hand_max_price_per_gpu_hour
                then (compared.crosscheck_price_per_gpu_hour
                    / compared.first_hand_max_price_per_gpu_hour - 1) * 100
            when compared.first_hand_min_price_per_gpu_hour is not null then 0.0
        end as difference_pct,
        (compared.crosscheck_price_per_gpu_hour / compared.market_median_price_per_gpu_hour - 1)
            * 100 as difference_from_market_pct
    from compared

),

final as (

    select
        measured.*,
        case
            when measured.difference_pct is null then 'no_first_hand_price'
            when abs(measured.difference_pct) <= 15 then 'agrees'
            else 'disagrees'
        end as verdict
    from measured

)

select * from final
order by final.accelerator_id, final.provider, final.pricing_model, final.sku
