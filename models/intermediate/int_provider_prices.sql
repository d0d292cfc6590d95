-- one row per accelerator x pricing_model x provider: that provider's cheapest per-GPU
-- offer in force (USD, whole GPUs, known price), across all its sources, regions and skus.
-- A first-hand or reference offer always wins over a crosscheck one (curated public tables
-- never override): a provider is is_crosscheck only when no other source prices it.
-- provider_rank orders the non-crosscheck providers of one accelerator x pricing_model,
-- cheapest first (null for crosscheck providers); n_providers counts those providers,
-- n_providers_crosscheck the providers known only from crosscheck tables.

with

offers as (

    select * from int_offers_mapped

),

priced_offers as (

    select
        offers.*,
        offers.source_kind = 'crosscheck' as is_crosscheck,
        count(*) over (
            partition by
                offers.accelerator_id,
                offers.pricing_model,
                offers.provider,
                offers.source_kind = 'crosscheck'
        ) as n_offers,
        row_number() over (
            partition by offers.accelerator_id, offers.pricing_model, offers.provider
            order by
                offers.source_kind = 'crosscheck',
                offers.price_per_gpu_hour,
                offers.observed_at desc,
                offers.source,
                offers.sku,
                offers.region
        ) as offer_rank
    from offers
    where offers.accelerator_id is not null
        and offers.currency = 'USD'
        and offers.price_per_gpu_hour is not null

),

cheapest_per_provider as (

    select * from priced_offers
    where priced_offers.offer_rank = 1

),

final as (

    select
        cheapest_per_provider.accelerator_id,
        cheapest_per_provider.pricing_model,
        cheapest_per_provider.provider,
        cheapest_per_provider.price_per_gpu_hour,
        cheapest_per_provider.currency,
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
        count(*) filter (where not cheapest_per_provider.is_crosscheck) over (
            partition by cheapest_per_provider.accelerator_id, cheapest_per_provider.pricing_model
        ) as n_providers,
        count(*) filter (where cheapest_per_provider.is_crosscheck) over (
            partition by cheapest_per_provider.accelerator_id, cheapest_per_provider.pricing_model
        ) as n_providers_crosscheck,
        case
            when not cheapest_per_provider.is_crosscheck
                then row_number() over (
                    partition by
                        cheapest_per_provider.accelerator_id,
                        cheapest_per_provider.pricing_model,
                        cheapest_per_provider.is_crosscheck
                    order by
                        cheapest_per_provider.price_per_gpu_hour,
                        cheapest_per_provider.provider
                )
        end as provider_rank
    from cheapest_per_provider

)

select * from final
