-- one row per accelerator x price basis used by the cost marts: the observed hourly bases of
-- int_price_bases (the one relation of price bases; estimated bases are left to the answers
-- that say they estimate) plus 'purchase' (when a purchase price estimate exists). Every row carries
-- the purchase price so that per-purchase-dollar figures are queryable on any basis; the
-- 'purchase' row has null hourly columns.

with

-- purchase prices are curated only
accelerator_specs as (

    select * from stg_curated__accelerators

),

observed_bases as (

    select * from int_price_bases
    where int_price_bases.basis_kind = 'observed'
        and int_price_bases.min_gpus_per_instance = 1  -- every instance size

),

hourly_bases as (

    select
        observed_bases.accelerator_id,
        observed_bases.price_basis,
        observed_bases.provider,
        observed_bases.source,
        observed_bases.sku,
        observed_bases.region,
        observed_bases.fetch_id,
        observed_bases.source_url,
        observed_bases.price_per_gpu_hour,
        observed_bases.currency,
        observed_bases.observed_at
    from observed_bases
    inner join accelerator_specs
        on accelerator_specs.accelerator_id = observed_bases.accelerator_id

),

purchase_basis as (

    select
        accelerator_specs.accelerator_id,
        'purchase' as price_basis,
        cast(null as varchar) as provider,
        'catalog' as source,
        cast(null as varchar) as sku,
        cast(null as varchar) as region,
        cast(null as bigint) as fetch_id,
        cast(null as varchar) as source_url,
        cast(null as double) as price_per_gpu_hour,
        'USD' as currency,
        cast(null as timestamptz) as observed_at
    from accelerator_specs
    where accelerator_specs.purchase_price_usd > 0

),

all_bases as (

    select * from hourly_bases
    union all by name
    select * from purchase_basis

),

final as (

    select
        all_bases.accelerator_id,
        all_bases.price_basis,
        all_bases.provider,
        all_bases.source,
        all_bases.sku,
        all_bases.region,
        all_bases.fetch_id,
        all_bases.source_url,
        all_bases.price_per_gpu_hour,
        all_bases.currency,
        all_bases.observed_at,
        case
            when accelerator_specs.purchase_price_usd > 0
                then accelerator_specs.purchase_price_usd
        end as purchase_price_usd
    from all_bases
    inner join accelerator_specs
        on accelerator_specs.accelerator_id = all_bases.accelerator_id

)

select * from final
