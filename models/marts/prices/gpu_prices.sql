-- one row per accelerator x pricing_model: per-GPU hourly prices across sellers (USD, whole
-- GPUs, offers in force). Each seller (who runs the machine) counts once, however many
-- providers list it (its own page, an aggregator's resale): at its dated offer when it has one,
-- its own listing before a resold one, then its cheapest (seller_prices); min / p25 /
-- median are taken over those per-seller prices (quantile_cont), and the cheapest is named.
--
-- Fresh sellers decide: each seller at its newest price, and a seller whose newest price is more
-- than price_max_age_days (180) older than the accelerator's newest is left out (counted in
-- n_providers_stale). Disputed offers (a catalog the provider's own page contradicts) never
-- count.
--
-- A price without a date is not a current price: the statistics and the cheapest are over the
-- dated sellers only (undated ones are counted in n_providers_undated; a pricing model priced
-- only without a date has no statistics, n_providers 0) whenever the accelerator has a dated
-- price in any pricing model; only for an accelerator priced only without a date are they over
-- the undated ones, and observed_at_known is false.
--
-- Curated crosscheck tables never move these statistics: they are computed over first-hand
-- and reference prices only (n_providers). Providers known only from a crosscheck table are
-- listed and counted apart (n_providers_crosscheck, crosscheck_median_price_per_gpu_hour);
-- n_providers_listed counts every provider with a price, `providers` names them (a
-- crosscheck-only provider is marked "(crosscheck)"). A row whose prices all come from
-- crosscheck tables has n_providers 0 and null statistics.
--
-- Every pricing model of the vocabulary (catalog/records.py PRICING_MODELS) has rows of its
-- own: a 6-month, a 1-year and a 3-year commitment (reserved_6m, reserved_1y, reserved_3y), a
-- savings plan, queued capacity and a capacity block are never pooled into one statistic;
-- term_months says how long the commitment of the row's pricing model is.
--
-- columns:
--   term_months [months]: length of the commitment the pricing model sells (term_months
--     macro: reserved_1m 1, reserved_6m 6, reserved_1y and savings_plan_1y 12, reserved_3y
--     and savings_plan_3y 36); null for a price with no commitment (on_demand, spot,
--     community, interruptible_bid, queued, capacity_block)
--   currency: always USD (non-USD offers are left out)
--   n_offers [offers]: first-hand and reference offers in force behind the statistics, across
--     providers
--   n_providers [providers]: sellers behind the statistics (first-hand or reference offers in
--     force; dated ones when any seller has a dated price), each counted once
--   n_providers_undated [providers]: sellers with only an undated price, left out of the
--     statistics because the accelerator has a dated price
--   n_providers_stale [providers]: sellers all of whose prices are more than price_max_age_days
--     (180) older than the accelerator's newest price, left out of the statistics
--   cheapest_seller: who runs the cheapest machine (cheapest_provider lists it)
--   observed_at_known: false when the statistics rest on undated prices only
--   min_price_per_gpu_hour [USD per GPU-hour]: cheapest provider's price
--   p25_price_per_gpu_hour [USD per GPU-hour]: 25th percentile over the providers' cheapest prices
--   median_price_per_gpu_hour [USD per GPU-hour]: median over the providers' cheapest prices
--   cheapest_provider: provider of the cheapest price
--   cheapest_sku: sku of the cheapest offer
--   cheapest_region: region of the cheapest offer
--   cheapest_source: source of the cheapest offer
--   source: source of the cheapest offer (as cheapest_source; every price answer names it)
--   sku: sku of the cheapest offer (as cheapest_sku)
--   region: region of the cheapest offer (as cheapest_region)
--   fetch_id: raw.fetches row of the cheapest offer (`gpucost explain fetch FETCH_ID`); null for
--     a reference price
--   observed_at [timestamp (UTC)]: when the cheapest offer was observed
--   age_days [days]: age of the cheapest offer's observation at the build; null when its date
--     is unknown (a file replayed without any date)
--   n_providers_crosscheck [providers]: providers priced only by a crosscheck table (kept out of
--     the statistics)
--   n_providers_listed [providers]: every provider with a price: n_providers +
--     n_providers_crosscheck
--   crosscheck_median_price_per_gpu_hour [USD per GPU-hour]: median over the crosscheck-only
--     providers' cheapest prices; null when there are none
--   providers: the sellers with a price, comma-separated, those behind the statistics first; a
--     seller priced only without a date is marked "(undated)", a stale one "(stale)", a
--     crosscheck-only one "(crosscheck)"

with

provider_prices as (

    select * from seller_prices

),

statistics as (

    select
        provider_prices.accelerator_id,
        provider_prices.pricing_model,
        'USD' as currency,
        coalesce(
            cast(sum(provider_prices.n_offers) filter (where provider_prices.in_statistics)
                as bigint),
            0
        ) as n_offers,
        count(*) filter (where provider_prices.in_statistics) as n_providers,
        count(*) filter (
            where not provider_prices.is_crosscheck and not provider_prices.in_statistics
                and not provider_prices.is_stale
        ) as n_providers_undated,
        count(*) filter (
            where provider_prices.is_stale and not provider_prices.is_crosscheck
        ) as n_providers_stale,
        count(*) filter (where provider_prices.is_crosscheck) as n_providers_crosscheck,
        count(*) as n_providers_listed,
        min(provider_prices.price_per_gpu_hour)
            filter (where provider_prices.in_statistics) as min_price_per_gpu_hour,
        quantile_cont(provider_prices.price_per_gpu_hour, 0.25)
            filter (where provider_prices.in_statistics) as p25_price_per_gpu_hour,
        quantile_cont(provider_prices.price_per_gpu_hour, 0.5)
            filter (where provider_prices.in_statistics) as median_price_per_gpu_hour,
        quantile_cont(provider_prices.price_per_gpu_hour, 0.5)
            filter (where provider_prices.is_crosscheck) as crosscheck_median_price_per_gpu_hour,
        string_agg(
            provider_prices.seller
            || case
                when provider_prices.is_crosscheck then ' (crosscheck)'
                when provider_prices.is_stale then ' (stale)'
                when not provider_prices.in_statistics then ' (undated)'
                else ''
            end,
            ', '
            order by
                provider_prices.is_crosscheck,
                not provider_prices.in_statistics,
                provider_prices.seller
        ) as providers
    from provider_prices
    group by provider_prices.accelerator_id, provider_prices.pricing_model

),

cheapest as (

    select * from provider_prices
    where provider_prices.provider_rank = 1

),

final as (

    select
        statistics.accelerator_id,
        statistics.pricing_model,
        term_months(statistics.pricing_model) as term_months,
        statistics.currency,
        statistics.n_offers,
        statistics.n_providers,
        statistics.n_providers_undated,
        statistics.n_providers_stale,
        statistics.n_providers_crosscheck,
        statistics.n_providers_listed,
        statistics.min_price_per_gpu_hour,
        statistics.p25_price_per_gpu_hour,
        statistics.median_price_per_gpu_hour,
        statistics.crosscheck_median_price_per_gpu_hour,
        cheapest.provider as cheapest_provider,
        cheapest.seller as cheapest_seller,
        cheapest.sku as cheapest_sku,
        cheapest.region as cheapest_region,
        cheapest.source as cheapest_source,
        cheapest.source,
        cheapest.sku,
        cheapest.region,
        cheapest.fetch_id,
        cheapest.source_url,
        cheapest.observed_at,
        cheapest.observed_at_known,
        cheapest.age_days,
        statistics.providers
    from statistics
    left join cheapest using (accelerator_id, pricing_model)

)

select * from final
order by final.accelerator_id, final.pricing_model
