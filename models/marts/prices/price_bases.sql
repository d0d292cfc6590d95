-- one row per accelerator x price basis: the per-GPU hourly price (USD) every cost model
-- prices GPU-hours with, and who offers it.
--
-- * every rental basis comes from int_price_bases, the one relation that owns them (observed
--   on_demand_min, on_demand_median, spot_min, community_min, reserved_1y_min,
--   reserved_3y_min; estimated reserved_1y_cud_est, reserved_3y_cud_est where no committed
--   price is observed: the cheapest first-hand on-demand price of AWS, GCP, Azure or Lambda
--   less Epoch's default committed-use discount for that provider). Crosscheck rows are never
--   an input to any basis;
-- * owned: Epoch AI's amortised owned cost (ownership_cost.owned_usd_per_gpu_hour), from the
--   chip's purchase price or, for an accelerator sold only in a rack (GB200 / GB300 NVL72),
--   from its share of a cited system price (source_url, basis_note say which);
-- * analyst bases (catalog/analyst_gpu_costs.csv, source 'analyst'): SemiAnalysis's published
--   per-GPU-hour rates, the ones InferenceX prices measured tokens at: tco_hyperscaler and
--   tco_neocloud (total cost of ownership, basis_kind owned) and rental_3y_survey (3-year rental
--   market price, basis_kind estimated), for the accelerators the analyst covers;
-- * rows are ordered observed first, then estimated, then owned.
--
-- columns:
--   price_basis: which price: observed rental bases on_demand_min, on_demand_median, spot_min,
--     community_min, reserved_1y_min, reserved_3y_min (and, ranked after them, reserved_1m_min,
--     reserved_6m_min, savings_plan_1y_min, savings_plan_3y_min, queued_min,
--     capacity_block_min); reserved_1y_cud_est / reserved_3y_cud_est
--     (the cheapest on-demand price less that provider's default committed-use discount, where no
--     reserved price is observed); owned (Epoch AI's amortised owned cost,
--     ownership_cost.owned_usd_per_gpu_hour); tco_hyperscaler, tco_neocloud, rental_3y_survey
--     (SemiAnalysis's published per-GPU-hour rates, catalog/analyst_gpu_costs.csv)
--   pricing_model: the pricing model the basis prices (on_demand, spot, community, reserved_1y,
--     reserved_3y, and the other models of catalog/records.py PRICING_MODELS but
--     interruptible_bid), or 'owned', or for an analyst basis its own name
--   price_per_gpu_hour [USD per GPU-hour]: the basis price of one GPU-hour
--   provider: the provider behind the basis (the cheapest one for _min and _cud_est); null for
--     on_demand_median and owned
--   source: the source of that price; null for on_demand_median; 'ownership_cost' for owned;
--     'analyst' for an analyst basis
--   n_providers [providers]: providers the basis is taken over (first-hand and reference providers
--     of the pricing model; for _cud_est those with a discount assumption); null for owned
--   observed_at [timestamp (UTC)]: when the price was observed (for on_demand_median the oldest
--     price behind it; for rental_3y_survey the survey's publication); null for owned kinds
--   basis_kind: observed (a price seen in force), estimated (an observed price less an assumed
--     discount, or an analyst's surveyed market price: say so wherever it is used) or owned (a
--     modelled cost: Epoch's amortisation or an analyst's TCO)
--   sku: the offer behind the basis (null for on_demand_median); for owned, the system whose cited
--     price the hardware cost is a share of (catalog/system_prices.csv), null for a chip price
--   basis_note: how the basis price was formed ('observed on_demand price', 'on-demand less 41%
--     (cud_discount_aws_1y)', ...)
--   gpu_count [GPUs]: GPUs per instance of the offer behind the basis (an 8-GPU machine's
--     per-GPU price, ...); null for on_demand_median, owned and analyst bases. Bases at the size
--     of a multi-GPU job: price_bases_by_size
--   observed_at_known: false when every price of the accelerator is undated (files replayed
--     without any date): the basis is then marked, never current; null for owned and analyst
--     bases
--   basis_rank: the order a rental basis is chosen in (int_price_bases): 1 observed, 2
--     estimated (an observed price less an assumed discount), so observed prices rank before
--     estimates; 3 observed in a pricing model no default answer assumes (reserved_1m_min,
--     reserved_6m_min, savings_plan_1y_min, savings_plan_3y_min, queued_min,
--     capacity_block_min: chosen by name only); null for a basis that is no rental offer
--     (owned, analyst)

with

bases as (

    -- every instance size; price_bases_by_size holds the bases per instance size
    select * exclude (min_gpus_per_instance) from int_price_bases
    where int_price_bases.min_gpus_per_instance = 1

),

owned_costs as (

    select * from ownership_cost

),

system_prices as (

    select * from stg_curated__system_prices

),

analyst_costs as (

    select * from stg_curated__analyst_gpu_costs

),

analyst_bases as (

    select
        analyst_costs.accelerator_id,
        analyst_costs.price_basis,
        analyst_costs.price_basis as pricing_model,
        analyst_costs.basis_kind,
        analyst_costs.price_per_gpu_hour,
        'USD' as currency,
        cast(null as varchar) as provider,
        'analyst' as source,
        cast(null as varchar) as sku,
        cast(null as varchar) as region,
        cast(null as bigint) as fetch_id,
        analyst_costs.source_url,
        cast(null as bigint) as n_providers,
        case
            when analyst_costs.basis_kind = 'estimated'
                then timezone('UTC', cast(analyst_costs.price_date as timestamp))
        end as observed_at,
        analyst_costs.basis_note
    from analyst_costs
    where analyst_costs.price_per_gpu_hour > 0

),

owned_bases as (

    select distinct
        owned_costs.accelerator_id,
        'owned' as price_basis,
        'owned' as pricing_model,
        'owned' as basis_kind,
        owned_costs.owned_usd_per_gpu_hour as price_per_gpu_hour,
        'USD' as currency,
        cast(null as varchar) as provider,
        'ownership_cost' as source,
        owned_costs.system_id as sku,
        cast(null as varchar) as region,
        cast(null as bigint) as fetch_id,
        system_prices.source_url,
        cast(null as bigint) as n_providers,
        cast(null as timestamptz) as observed_at,
        case
            when owned_costs.purchase_price_kind = 'system price'
                then 'Epoch amortised hardware + interconnect + energy, hardware at '
                    || format('{:,.0f}', system_prices.system_price_usd) || ' USD per '
                    || owned_costs.system_id || ' / '
                    || cast(system_prices.accelerators_per_system as integer)
                    || ' GPUs (' || system_prices.price_basis || ')'
            else 'Epoch amortised hardware + interconnect + energy'
        end as basis_note
    from owned_costs
    left join system_prices
        on system_prices.system_id = owned_costs.system_id
    where owned_costs.owned_usd_per_gpu_hour > 0

),

final as (

    select * from bases
    union all by name
    select * from owned_bases
    union all by name
    select * from analyst_bases

)

select
    final.accelerator_id,
    final.price_basis,
    final.pricing_model,
    final.basis_kind,
    final.price_per_gpu_hour,
    final.currency,
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
    final.basis_rank
from final
order by
    final.accelerator_id,
    case final.basis_kind when 'observed' then 0 when 'estimated' then 1 else 2 end,
    final.price_basis
