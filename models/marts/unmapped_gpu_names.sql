-- one row per source x provider x gpu_name_raw of GPU-bearing offers in force that map to
-- no accelerator (add an alias to catalog/aliases.csv to map them).
--
-- columns:
--   sample_sku: one sku carrying this GPU name
--   offer_count [offers]: offers in force carrying this GPU name

with

offers as (

    select * from int_offers_mapped

),

unmapped_offers as (

    select * from offers
    where offers.accelerator_id is null
        and (offers.gpu_name_raw is not null or offers.gpu_count > 0)

),

final as (

    select
        unmapped_offers.source,
        unmapped_offers.provider,
        unmapped_offers.gpu_name_raw,
        min(unmapped_offers.sku) as sample_sku,
        count(*) as offer_count
    from unmapped_offers
    group by
        unmapped_offers.source,
        unmapped_offers.provider,
        unmapped_offers.gpu_name_raw

)

select * from final
order by final.offer_count desc, final.source, final.provider, final.gpu_name_raw
