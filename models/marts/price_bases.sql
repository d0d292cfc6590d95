-- one row per accelerator x price basis: the per-GPU hourly price (USD) every cost model
-- prices GPU-hours with, and who offers it.
--
-- * observed rental bases (int_price_bases): on_demand_min, on_demand_median, spot_min,
--   community_min, reserved_1y_min, reserved_3y_min (the cheapest provider, named; the
--   median names none);
-- * reserved_1y_cud_est, reserved_3y_cud_est: where no observed committed price exists, the
--   cheapest on-demand price of AWS, GCP, Azure or Lambda less Epoch's default committed-use
--   discount for that provider (assumptions cud_discount_<provider>_<term>);
-- * owned: Epoch AI's amortised owned cost (ownership_cost.owned_usd_per_gpu_hour).
--
-- columns:
--   price_basis: which price: observed rental bases on_demand_min, on_demand_median, spot_min,
--     community_min, reserved_1y_min, reserved_3y_min; reserved_1y_cud_est / reserved_3y_cud_est
--     (the cheapest on-demand price less that provider's default committed-use discount, where no
--     reserved price is observed); owned (Epoch AI's amortised owned cost,
--     ownership_cost.owned_usd_per_gpu_hour)
--   pricing_model: the pricing model the basis prices (on_demand, spot, community, reserved_1y,
--     reserved_3y), or 'owned'
--   price_per_gpu_hour [USD per GPU-hour]: the basis price of one GPU-hour
--   provider: the provider behind the basis (the cheapest one for _min and _cud_est); null for
--     on_demand_median and owned
--   source: the source of that price; null for on_demand_median; 'ownership_cost' for owned
--   n_providers [providers]: providers the basis is taken over (first-hand and reference providers
--     of the pricing model; for _cud_est those with a discount assumption); null for owned
--   observed_at [timestamp (UTC)]: when the price was observed (for on_demand_median the oldest
--     price behind it); null for owned
--   basis_note: how the basis price was formed ('observed on_demand price', 'on-demand less 41%
--     (cud_discount_aws_1y)', ...)

with

observed as (

    select * from int_price_bases

),

provider_prices as (

    select * from int_provider_prices

),

assumptions as (

    select * from cost_assumptions

),

owned_costs as (

    select * from ownership_cost

),

observed_bases as (

    select
        observed.accelerator_id,
        observed.price_basis,
        observed.pricing_model,
        observed.price_per_gpu_hour,
        observed.provider,
        observed.source,
        observed.n_providers,
        observed.observed_at,
        'observed ' || observed.pricing_model || ' price' as basis_note
    from observed

),

discounted as (

    select
        provider_prices.accelerator_id,
        terms.term,
        provider_prices.provider,
        provider_prices.source,
        provider_prices.observed_at,
        provider_prices.price_per_gpu_hour * (1 - assumptions.value) as price_per_gpu_hour,
        assumptions.assumption_key,
        assumptions.value as discount
    from provider_prices
    cross join (select unnest(['1y', '3y']) as term) as terms
    inner join assumptions
        on assumptions.assumption_key
            = 'cud_discount_' || provider_prices.provider || '_' || terms.term
    where provider_prices.pricing_model = 'on_demand'

),

cud_bases as (

    select
        discounted.accelerator_id,
        'reserved_' || discounted.term || '_cud_est' as price_basis,
        'reserved_' || discounted.term as pricing_model,
        discounted.price_per_gpu_hour,
        discounted.provider,
        discounted.source,
        count(*) over (
            partition by discounted.accelerator_id, discounted.term
        ) as n_providers,
        discounted.observed_at,
        'on-demand less ' || cast(round(discounted.discount * 100) as integer)
            || '% (' || discounted.assumption_key || ')' as basis_note
    from discounted
    anti join observed
        on observed.accelerator_id = discounted.accelerator_id
        and observed.price_basis = 'reserved_' || discounted.term || '_min'
    qualify row_number() over (
        partition by discounted.accelerator_id, discounted.term
        order by discounted.price_per_gpu_hour, discounted.provider
    ) = 1

),

owned_bases as (

    select distinct
        owned_costs.accelerator_id,
        'owned' as price_basis,
        'owned' as pricing_model,
        owned_costs.owned_usd_per_gpu_hour as price_per_gpu_hour,
        cast(null as varchar) as provider,
        'ownership_cost' as source,
        cast(null as bigint) as n_providers,
        cast(null as timestamptz) as observed_at,
        'Epoch amortised hardware + interconnect + energy' as basis_note
    from owned_costs

),

final as (

    select * from observed_bases
    union all by name
    select * from cud_bases
    union all by name
    select * from owned_bases

)

select
    final.accelerator_id,
    final.price_basis,
    final.pricing_model,
    final.price_per_gpu_hour,
    'USD' as currency,
    final.provider,
    final.source,
    final.n_providers,
    final.observed_at,
    final.basis_note
from final
where final.price_per_gpu_hour > 0
order by final.accelerator_id, final.price_basis
