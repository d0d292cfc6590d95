-- one row per offer in force (int_offers_mapped, its prices in USD: int_offers_usd), with
-- whether its price may stand in a statistic or a price basis (issue 37): every answer about
-- what a GPU costs reads these flags, gpu_offers shows them.
--
-- * is_disputed: the offer's source is outranked for its sku by the provider's own page or
--   API, which states a price more than price_dispute_pct (25%) away (int_price_disputes):
--   the lower-ranked source's rows of that sku, in every region and pricing model;
-- * is_stale: dated, and more than price_max_age_days (assumption, 180) older than the newest
--   dated observation of the same accelerator (any seller, pricing model or size): a price
--   from a market that has moved on. Listed, never in a statistic or a price basis;
-- * newest_observed_at: that newest observation of the accelerator.
-- * available (from int_offers_mapped): true / false where the payload states whether it can
--   be launched now; null = not stated.

with

offers as (

    select * from int_offers_usd

),

disputes as (

    select * from int_price_disputes

),

assumptions as (

    select * from stg_curated__assumptions

),

max_age as (

    select assumptions.value as days
    from assumptions
    where assumptions.assumption_key = 'price_max_age_days'

),

disputed_skus as (

    select distinct
        disputes.lower_source as source,
        disputes.provider,
        disputes.sku
    from disputes

),

accelerator_newest as (

    select
        offers.accelerator_id,
        max(offers.observed_at) as newest_observed_at
    from offers
    anti join disputed_skus using (source, provider, sku)
    where offers.accelerator_id is not null
        and offers.source_kind in ('first_hand', 'reference')
        and offers.observed_at_known
        and offers.price_per_hour > 0
        and offers.price_kind not in ('gpu_component', 'gpu_only')
    group by offers.accelerator_id

),

final as (

    select
        offers.*,
        disputed_skus.sku is not null as is_disputed,
        coalesce(
            offers.observed_at_known
            and offers.observed_at
                < accelerator_newest.newest_observed_at - to_days(cast(max_age.days as integer)),
            false
        ) as is_stale,
        accelerator_newest.newest_observed_at
    from offers
    left join max_age on true
    left join disputed_skus using (source, provider, sku)
    left join accelerator_newest using (accelerator_id)

)

select * from final
