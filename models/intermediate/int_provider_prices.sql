-- one row per accelerator x pricing_model x seller: that seller's offer in force (USD, whole
-- GPUs, known price) that stands for it, across every provider listing it (its own listing,
-- an aggregator's resale, a reference price) and all their sources, regions and skus.
-- * only prices someone could pay (int_offers_standing): a disputed offer (a catalog or a
--   resale that the provider's own page contradicts by more than 25%), a GPU component (CPU
--   and RAM billed on top) and an attach-only GPU without its host (price_kind gpu_component,
--   gpu_only) are never candidates; a GPU priced with its cheapest host (gpu_with_host) and a
--   per-GPU list price of a shape sold whole, priced as that shape (shape_per_gpu), are.
-- * each seller is counted once, at a current price: a dated offer before an undated one, a
--   fresh one before a stale one (each offer in force is already the newest observation of
--   its sku and region), its own listing before a resold one, then the cheapest per GPU
--   across its regions and skus. A first-hand or
--   reference offer always wins over a crosscheck one (curated public tables never override): a
--   seller is is_crosscheck only when no other source prices it.
-- * fresh sellers decide: an offer more than price_max_age_days (180) older than the newest
--   price of the accelerator (any seller) is stale (int_offers_standing); a seller all of whose
--   offers are stale is_stale, left out of the statistics and counted in n_providers_stale.
-- * a price without a date is not a current price: in_statistics is true for the dated, fresh
--   sellers, and for undated ones only when the accelerator has no dated price at all, in any
--   pricing model or size (an undated reserved price never heads a row of an accelerator whose
--   on-demand price is dated); provider_rank orders the in_statistics sellers, cheapest first
--   (null otherwise); n_providers counts them, n_providers_undated the undated sellers left
--   out, n_providers_stale the stale ones, n_providers_crosscheck the sellers known only from
--   crosscheck tables.
-- * provider is who lists the chosen offer (an aggregator for a resold one), seller who runs it.
-- * the size of the job: min_gpus_per_instance (1, 2, 4, 8) keeps only offers whose instance
--   holds at least that many GPUs; 1 is every offer (gpu_prices). A multi-GPU run is priced at
--   its size (int_price_bases, price_bases_by_size).

with

offers as (

    select * from int_offers_standing
    where not int_offers_standing.is_disputed
        -- a GPU billed with CPU and RAM on top, or an attach-only GPU without its host, is no
        -- price anyone pays for a machine (gpu_offers.price_kind): listed, never a statistic
        and int_offers_standing.price_kind not in ('gpu_component', 'gpu_only')
        and int_offers_standing.accelerator_id is not null
        -- USD as listed or converted at the ECB rate of its day (int_offers_usd); a price
        -- no rate converts (fx_basis no_rate) is listed in gpu_offers, never a statistic
        and int_offers_standing.currency = 'USD'
        and int_offers_standing.price_per_gpu_hour is not null

),

instance_sizes as (

    select unnest([1, 2, 4, 8]) as min_gpus_per_instance

),

sized_offers as (

    select
        offers.*,
        instance_sizes.min_gpus_per_instance
    from offers
    inner join instance_sizes
        on offers.gpu_count >= instance_sizes.min_gpus_per_instance

),

priced_offers as (

    select
        offers.*,
        offers.source_kind = 'crosscheck' as is_crosscheck,
        count(*) over (
            partition by
                offers.min_gpus_per_instance,
                offers.accelerator_id,
                offers.pricing_model,
                offers.seller,
                offers.source_kind = 'crosscheck'
        ) as n_offers,
        row_number() over (
            partition by
                offers.min_gpus_per_instance,
                offers.accelerator_id,
                offers.pricing_model,
                offers.seller
            order by
                offers.source_kind = 'crosscheck',
                offers.observed_at_known desc,
                offers.is_stale,
                offers.listing_kind = 'resold',
                offers.price_per_gpu_hour,
                offers.observed_at desc,
                offers.source,
                offers.sku,
                offers.region
        ) as offer_rank
    from sized_offers as offers

),

seller_offers as (

    select
        priced_offers.*,
        not priced_offers.is_crosscheck
        and not priced_offers.is_stale
        and (
            priced_offers.observed_at_known
            -- an undated price counts only for an accelerator no dated price covers, in
            -- any pricing model or instance size
            or not coalesce(bool_or(priced_offers.observed_at_known)
                filter (where not priced_offers.is_crosscheck) over (
                    partition by priced_offers.accelerator_id
                ), false)
        ) as in_statistics
    from priced_offers
    where priced_offers.offer_rank = 1

),

final as (

    select
        cheapest_per_provider.min_gpus_per_instance,
        cheapest_per_provider.accelerator_id,
        cheapest_per_provider.pricing_model,
        cheapest_per_provider.provider,
        cheapest_per_provider.seller,
        cheapest_per_provider.listing_kind,
        cheapest_per_provider.gpu_count,
        cheapest_per_provider.price_per_gpu_hour,
        cheapest_per_provider.currency,
        cheapest_per_provider.currency_listed,
        cheapest_per_provider.fx_rate_date,
        cheapest_per_provider.fx_basis,
        cheapest_per_provider.source,
        cheapest_per_provider.source_kind,
        cheapest_per_provider.is_crosscheck,
        cheapest_per_provider.sku,
        cheapest_per_provider.region,
        cheapest_per_provider.fetch_id,
        cheapest_per_provider.source_url,
        cheapest_per_provider.observed_at_known,
        cheapest_per_provider.age_days,
        cheapest_per_provider.observed_at,
        cheapest_per_provider.n_offers,
        cheapest_per_provider.is_stale,
        cheapest_per_provider.newest_observed_at,
        cheapest_per_provider.in_statistics,
        count(*) filter (where cheapest_per_provider.in_statistics) over (
            partition by
                cheapest_per_provider.min_gpus_per_instance,
                cheapest_per_provider.accelerator_id,
                cheapest_per_provider.pricing_model
        ) as n_providers,
        count(*) filter (
            where not cheapest_per_provider.is_crosscheck
                and not cheapest_per_provider.in_statistics
                and not cheapest_per_provider.is_stale
        ) over (
            partition by
                cheapest_per_provider.min_gpus_per_instance,
                cheapest_per_provider.accelerator_id,
                cheapest_per_provider.pricing_model
        ) as n_providers_undated,
        count(*) filter (
            where cheapest_per_provider.is_stale and not cheapest_per_provider.is_crosscheck
        ) over (
            partition by
                cheapest_per_provider.min_gpus_per_instance,
                cheapest_per_provider.accelerator_id,
                cheapest_per_provider.pricing_model
        ) as n_providers_stale,
        count(*) filter (where cheapest_per_provider.is_crosscheck) over (
            partition by
                cheapest_per_provider.min_gpus_per_instance,
                cheapest_per_provider.accelerator_id,
                cheapest_per_provider.pricing_model
        ) as n_providers_crosscheck,
        case
            when cheapest_per_provider.in_statistics
                then row_number() over (
                    partition by
                        cheapest_per_provider.min_gpus_per_instance,
                        cheapest_per_provider.accelerator_id,
                        cheapest_per_provider.pricing_model,
                        cheapest_per_provider.in_statistics
                    order by
                        cheapest_per_provider.price_per_gpu_hour,
                        cheapest_per_provider.seller
                )
        end as provider_rank
    from seller_offers as cheapest_per_provider

)

select * from final
