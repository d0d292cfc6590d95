-- one row per accelerator x price basis: the one relation that owns the per-GPU hourly price
-- (USD, whole GPUs) every cost answer prices GPU-hours with. Crosscheck prices (curated public
-- tables) are never an input to any basis, observed or estimated.
--
-- * basis_kind 'observed': <pricing_model>_min for on_demand, spot, community, reserved_1y,
--   reserved_3y (the cheapest provider, named), and on_demand_median (the median across
--   providers of each provider's cheapest on-demand price; no single provider); and, for the
--   other ways compute is sold (catalog/records.py PRICING_MODELS), reserved_1m_min,
--   reserved_6m_min, savings_plan_1y_min, savings_plan_3y_min, queued_min and
--   capacity_block_min: observed too, but ranked after every default basis (basis_rank 3), so
--   that the answers which take the cheapest rental by default (training, inference,
--   rent-vs-buy) price as before; they are chosen by name. interruptible_bid (a marketplace's
--   bid floor, not a price anyone is sure to get) has no basis;
-- * basis_kind 'estimated': reserved_1y_cud_est, reserved_3y_cud_est, where no committed price
--   is observed: the cheapest first-hand on-demand price of a provider with a committed-use
--   discount assumption (AWS, GCP, Azure, Lambda) less that discount
--   (assumptions cud_discount_<provider>_<term>);
-- * lineage: the provider, source, sku, region, fetch_id and source_url of the price behind
--   the basis (null for the median, which names no single offer).
-- * a price without a date is not a current price: the bases are taken over the sellers behind
--   gpu_prices' statistics (int_provider_prices.in_statistics: the dated ones whenever one
--   exists); observed_at_known is false only where every price of the accelerator is undated.
-- * the size of the job: one set of bases per min_gpus_per_instance (1, 2, 4, 8): the offers
--   whose instance holds at least that many GPUs (int_provider_prices). 1 is every offer (the
--   price_bases mart); an 8-GPU run is priced at the bases of 8 (price_bases_by_size).
-- * gpu_count: GPUs per instance of the offer behind the basis (null for the median).
-- * basis_rank: the order a rental basis is chosen in, observed prices before estimates (1
--   observed, 2 estimated, 3 observed in a pricing model no default answer assumes: a
--   1- or 6-month commitment, a savings plan, queued capacity, a capacity block): the
--   cheapest rental is the cheapest of the best rank.
-- The 'owned' basis (a cost, not a price) is added by the price_bases mart.

with

provider_prices as (

    select * from int_provider_prices
    where int_provider_prices.in_statistics

),

assumptions as (

    select * from stg_curated__assumptions

),

minimums as (

    select
        provider_prices.min_gpus_per_instance,
        provider_prices.accelerator_id,
        provider_prices.pricing_model || '_min' as price_basis,
        provider_prices.pricing_model,
        provider_prices.price_per_gpu_hour,
        provider_prices.provider,
        provider_prices.source,
        provider_prices.sku,
        provider_prices.region,
        provider_prices.fetch_id,
        provider_prices.source_url,
        provider_prices.n_providers,
        provider_prices.observed_at,
        provider_prices.observed_at_known,
        provider_prices.gpu_count,
        'observed' as basis_kind,
        'observed ' || provider_prices.pricing_model || ' price' as basis_note
    from provider_prices
    where provider_prices.provider_rank = 1
        and provider_prices.pricing_model in (
            'on_demand', 'spot', 'community', 'reserved_1y', 'reserved_3y',
            -- ranked after the default bases (basis_rank 3)
            'reserved_1m', 'reserved_6m', 'savings_plan_1y', 'savings_plan_3y', 'queued',
            'capacity_block'
        )

),

on_demand_medians as (

    select
        provider_prices.min_gpus_per_instance,
        provider_prices.accelerator_id,
        'on_demand_median' as price_basis,
        'on_demand' as pricing_model,
        quantile_cont(provider_prices.price_per_gpu_hour, 0.5) as price_per_gpu_hour,
        cast(null as varchar) as provider,
        cast(null as varchar) as source,
        cast(null as varchar) as sku,
        cast(null as varchar) as region,
        cast(null as bigint) as fetch_id,
        cast(null as varchar) as source_url,
        count(*) as n_providers,
        -- the oldest price behind the median: the basis is at least this fresh
        min(provider_prices.observed_at) as observed_at,
        bool_and(provider_prices.observed_at_known) as observed_at_known,
        cast(null as double) as gpu_count,
        'observed' as basis_kind,
        'median of ' || count(*) || ' providers'' cheapest on_demand prices' as basis_note
    from provider_prices
    where provider_prices.pricing_model = 'on_demand'
    group by provider_prices.min_gpus_per_instance, provider_prices.accelerator_id

),

discounted as (

    select
        provider_prices.*,
        terms.term,
        provider_prices.price_per_gpu_hour * (1 - assumptions.value) as discounted_price,
        assumptions.assumption_key,
        assumptions.value as discount
    from provider_prices
    cross join (select unnest(['1y', '3y']) as term) as terms
    inner join assumptions
        on assumptions.assumption_key
            = 'cud_discount_' || provider_prices.provider || '_' || terms.term
    where provider_prices.pricing_model = 'on_demand'

),

estimates as (

    select
        discounted.min_gpus_per_instance,
        discounted.accelerator_id,
        'reserved_' || discounted.term || '_cud_est' as price_basis,
        'reserved_' || discounted.term as pricing_model,
        discounted.discounted_price as price_per_gpu_hour,
        discounted.provider,
        discounted.source,
        discounted.sku,
        discounted.region,
        discounted.fetch_id,
        discounted.source_url,
        count(*) over (
            partition by
                discounted.min_gpus_per_instance, discounted.accelerator_id, discounted.term
        ) as n_providers,
        discounted.observed_at,
        discounted.observed_at_known,
        discounted.gpu_count,
        'estimated' as basis_kind,
        'on-demand less ' || cast(round(discounted.discount * 100) as integer)
            || '% (' || discounted.assumption_key || ')' as basis_note
    from discounted
    anti join minimums
        on minimums.min_gpus_per_instance = discounted.min_gpus_per_instance
        and minimums.accelerator_id = discounted.accelerator_id
        and minimums.price_basis = 'reserved_' || discounted.term || '_min'
    qualify row_number() over (
        partition by
            discounted.min_gpus_per_instance, discounted.accelerator_id, discounted.term
        order by discounted.discounted_price, discounted.provider
    ) = 1

),

final as (

    select * from minimums
    union all by name
    select * from on_demand_medians
    union all by name
    select * from estimates

)

select
    final.min_gpus_per_instance,
    final.accelerator_id,
    final.price_basis,
    final.pricing_model,
    final.basis_kind,
    final.price_per_gpu_hour,
    'USD' as currency,
    final.provider,
    final.source,
    final.sku,
    final.region,
    final.fetch_id,
    final.source_url,
    final.n_providers,
    final.gpu_count,
    final.observed_at,
    final.observed_at_known,
    final.basis_note,
    case
        when final.basis_kind = 'estimated' then 2
        when final.pricing_model in ('on_demand', 'spot', 'community', 'reserved_1y',
                                     'reserved_3y') then 1
        else 3
    end as basis_rank
from final
where final.price_per_gpu_hour > 0
