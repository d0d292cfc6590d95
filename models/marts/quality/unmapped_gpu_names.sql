-- one row per source x provider x gpu_name_raw of GPU-bearing offers that have no per-GPU
-- price: their name maps to no accelerator (reason no_alias: add one to catalog/aliases.csv),
-- or it maps but the size's GPU count is unknown (reason gpu_count_unknown: the provider does
-- not document the count of that size, e.g. Azure's NC A10 v4 and NV V710 v5 partitions).
-- offer_count counts such offers in force now, offer_days the offer-days of the whole price
-- history (daily rollup, counted by month in int_price_name_months) carrying the name; a
-- name seen only in older payloads has
-- offer_count 0.
--
-- columns:
--   reason: no_alias (the GPU name maps to no accelerator) or gpu_count_unknown (it maps, but
--     the size's GPU count is unknown, so no per-GPU price)
--   sample_sku: one sku carrying this GPU name
--   offer_count [offers]: offers in force carrying this GPU name
--   offer_days [offer-days]: days x offers of the whole price history (daily rollup, Linux, known
--     price) carrying this GPU name unmapped

with

offers as (

    select * from int_offers_mapped

),

name_months as (

    select * from int_price_name_months

),

name_map as (

    select * from int_gpu_name_map

),

unmapped_in_force as (

    select
        offers.source,
        offers.provider,
        offers.gpu_name_raw,
        case when offers.accelerator_id is null then 'no_alias' else 'gpu_count_unknown' end
            as reason,
        min(offers.sku) as sample_sku,
        count(*) as offer_count
    from offers
    where (offers.accelerator_id is null
            and (offers.gpu_name_raw is not null or offers.gpu_count > 0))
        or (offers.accelerator_id is not null and offers.gpu_count is null
            and offers.source_kind = 'first_hand')
    group by all

),

unmapped_history as (

    select
        name_months.source,
        name_months.provider,
        name_months.gpu_name_raw,
        min(name_months.sku) as sample_sku,
        sum(name_months.offer_days)::bigint as offer_days
    from name_months
    left join name_map
        on name_map.provider = name_months.provider
        and name_map.sku = name_months.sku
        and name_map.gpu_name_raw is not distinct from name_months.gpu_name_raw
    where name_map.accelerator_id is null
    group by name_months.source, name_months.provider, name_months.gpu_name_raw

),

final as (

    select
        coalesce(unmapped_in_force.source, unmapped_history.source) as source,
        coalesce(unmapped_in_force.provider, unmapped_history.provider) as provider,
        coalesce(unmapped_in_force.gpu_name_raw, unmapped_history.gpu_name_raw)
            as gpu_name_raw,
        coalesce(unmapped_in_force.reason, 'no_alias') as reason,
        coalesce(unmapped_in_force.sample_sku, unmapped_history.sample_sku) as sample_sku,
        coalesce(unmapped_in_force.offer_count, 0) as offer_count,
        coalesce(unmapped_history.offer_days, 0) as offer_days
    from unmapped_in_force
    full outer join unmapped_history
        on unmapped_history.source = unmapped_in_force.source
        and unmapped_history.provider = unmapped_in_force.provider
        and unmapped_history.gpu_name_raw is not distinct from unmapped_in_force.gpu_name_raw
        and unmapped_in_force.reason = 'no_alias'

)

select * from final
order by final.offer_count desc, final.offer_days desc, final.source, final.provider,
    final.gpu_name_raw
