-- one row per accelerator x instance size (GPUs per instance) x commitment pricing model: the
-- cheapest commitment offer in force against the cheapest on-demand offer of the SAME size,
-- and the share of hours at which committing beats renting on demand.
--
-- A commitment is paid for every hour of its term, used or not; on-demand only for the hours
-- used. Over a term, committing costs commitment price x all hours, renting on demand
-- on-demand price x used hours: committing is cheaper when the share of hours used is above
-- breakeven_utilisation = commitment price / on-demand price (per GPU-hour, hourly
-- equivalents). Above 1 the commitment never pays: the on-demand offer is cheaper even at
-- every hour of the term.
--
-- * commitments: the pricing models with a term (term_months: reserved_1m, reserved_6m,
--   reserved_1y, reserved_3y, savings_plan_1y, savings_plan_3y) and capacity_block (dates
--   booked ahead and paid whether used or not; the buyer picks the block's length, so
--   term_months is null). Queued capacity (paid only while it runs) and spot are no
--   commitment.
-- * the offers are those gpu_prices counts (as int_provider_prices chooses them): in force, in
--   USD, whole GPUs, a price someone can pay (never disputed, never a GPU component or a GPU
--   without its host), never a crosscheck table, never stale, and dated whenever the
--   accelerator has any dated price (a price without a date is not a current price). Each
--   seller stands once per size and pricing model, at its dated, fresh, own listing before a
--   resold one, then its cheapest; the cheapest seller is named.
-- * the same size: an 8-GPU commitment is compared with 8-GPU on-demand offers only (a
--   1-GPU box is no alternative to an 8-GPU node), gpu_count equal.
-- * seller_*: the commitment seller's own cheapest on-demand offer of that size, for the
--   discount the seller itself gives (GCP's 1-year CUD against GCP's on-demand price), beside
--   the market answer.
--
-- columns:
--   gpu_count [GPUs]: GPUs per instance of both offers compared
--   pricing_model: the commitment (reserved_1m, reserved_6m, reserved_1y, reserved_3y,
--     savings_plan_1y, savings_plan_3y, capacity_block)
--   term_months [months]: length of the commitment (term_months macro); null for a capacity
--     block (its length is chosen when it is booked)
--   n_commitment_sellers [sellers]: sellers with a commitment offer of this pricing model and
--     size behind the answer
--   commitment_price_per_gpu_hour [USD per GPU-hour]: the cheapest commitment offer's hourly
--     equivalent, per GPU
--   commitment_price_per_hour [USD per hour]: the same offer, per instance-hour
--   commitment_provider: who lists the cheapest commitment offer
--   commitment_seller: who runs its machine
--   commitment_sku: its sku
--   commitment_region: its region ('' when the price is not regional)
--   commitment_source: the source it was read from
--   commitment_fetch_id: raw.fetches row of that offer (`gpucost explain fetch FETCH_ID`); null
--     for a reference price
--   commitment_source_url: where the price was read
--   commitment_observed_at [timestamp (UTC)]: when the commitment price was observed
--   n_on_demand_sellers [sellers]: sellers with an on-demand offer of the same size
--   on_demand_price_per_gpu_hour [USD per GPU-hour]: the cheapest on-demand offer of the same
--     accelerator and size, per GPU; null when none is in force
--   on_demand_price_per_hour [USD per hour]: the same offer, per instance-hour
--   on_demand_provider: who lists the cheapest on-demand offer
--   on_demand_seller: who runs its machine
--   on_demand_sku: its sku
--   on_demand_region: its region
--   on_demand_source: the source it was read from
--   on_demand_fetch_id: raw.fetches row of that offer; null for a reference price
--   on_demand_source_url: where the price was read
--   on_demand_observed_at [timestamp (UTC)]: when the on-demand price was observed
--   breakeven_utilisation [fraction of hours]: commitment_price_per_gpu_hour /
--     on_demand_price_per_gpu_hour: committing is cheaper when the GPUs are busy more than this
--     share of the term's hours; above 1 it never is; null without an on-demand offer of the
--     size
--   commitment_beats_on_demand: breakeven_utilisation <= 1 (committing pays at some
--     utilisation); null without an on-demand offer
--   seller_on_demand_price_per_gpu_hour [USD per GPU-hour]: the commitment seller's own
--     cheapest on-demand offer of the same size; null when it has none in force
--   seller_breakeven_utilisation [fraction of hours]: commitment_price_per_gpu_hour /
--     seller_on_demand_price_per_gpu_hour: the break-even against the seller's own on-demand
--     price
--   observed_at_known: false when the answer rests on undated prices (only for an accelerator
--     with no dated price at all)

with

offers as (

    select * from int_offers_standing
    where not int_offers_standing.is_disputed
        and int_offers_standing.price_kind not in ('gpu_component', 'gpu_only')
        and int_offers_standing.accelerator_id is not null
        and int_offers_standing.currency = 'USD'
        and int_offers_standing.price_per_gpu_hour > 0
        and int_offers_standing.source_kind in ('first_hand', 'reference')
        and not int_offers_standing.is_stale

),

dated_offers as (

    -- a price without a date counts only for an accelerator no dated price covers
    select offers.*
    from offers
    qualify offers.observed_at_known
        or not bool_or(offers.observed_at_known) over (partition by offers.accelerator_id)

),

compared_offers as (

    select
        dated_offers.*,
        term_months(dated_offers.pricing_model) as commitment_months
    from dated_offers
    where dated_offers.pricing_model = 'on_demand'
        or dated_offers.pricing_model = 'capacity_block'
        or term_months(dated_offers.pricing_model) is not null

),

seller_offers as (

    -- each seller once per accelerator, size and pricing model
    select compared_offers.*
    from compared_offers
    qualify row_number() over (
        partition by
            compared_offers.accelerator_id,
            compared_offers.gpu_count,
            compared_offers.pricing_model,
            compared_offers.seller
        order by
            compared_offers.observed_at_known desc,
            compared_offers.listing_kind = 'resold',
            compared_offers.price_per_gpu_hour,
            compared_offers.observed_at desc,
            compared_offers.source,
            compared_offers.sku,
            compared_offers.region
    ) = 1

),

ranked_offers as (

    select
        seller_offers.*,
        count(*) over (
            partition by
                seller_offers.accelerator_id,
                seller_offers.gpu_count,
                seller_offers.pricing_model
        ) as n_sellers,
        row_number() over (
            partition by
                seller_offers.accelerator_id,
                seller_offers.gpu_count,
                seller_offers.pricing_model
            order by seller_offers.price_per_gpu_hour, seller_offers.seller
        ) as seller_rank
    from seller_offers

),

commitments as (

    select * from ranked_offers
    where ranked_offers.pricing_model <> 'on_demand'
        and ranked_offers.seller_rank = 1

),

on_demand as (

    select * from ranked_offers
    where ranked_offers.pricing_model = 'on_demand'
        and ranked_offers.seller_rank = 1

),

seller_on_demand as (

    select * from ranked_offers
    where ranked_offers.pricing_model = 'on_demand'

),

final as (

    select
        commitments.accelerator_id,
        commitments.gpu_count,
        commitments.pricing_model,
        commitments.commitment_months as term_months,
        commitments.n_sellers as n_commitment_sellers,
        commitments.price_per_gpu_hour as commitment_price_per_gpu_hour,
        commitments.price_per_hour as commitment_price_per_hour,
        commitments.provider as commitment_provider,
        commitments.seller as commitment_seller,
        commitments.sku as commitment_sku,
        commitments.region as commitment_region,
        commitments.source as commitment_source,
        commitments.fetch_id as commitment_fetch_id,
        commitments.source_url as commitment_source_url,
        commitments.observed_at as commitment_observed_at,
        coalesce(on_demand.n_sellers, 0) as n_on_demand_sellers,
        on_demand.price_per_gpu_hour as on_demand_price_per_gpu_hour,
        on_demand.price_per_hour as on_demand_price_per_hour,
        on_demand.provider as on_demand_provider,
        on_demand.seller as on_demand_seller,
        on_demand.sku as on_demand_sku,
        on_demand.region as on_demand_region,
        on_demand.source as on_demand_source,
        on_demand.fetch_id as on_demand_fetch_id,
        on_demand.source_url as on_demand_source_url,
        on_demand.observed_at as on_demand_observed_at,
        commitments.price_per_gpu_hour / on_demand.price_per_gpu_hour
            as breakeven_utilisation,
        commitments.price_per_gpu_hour <= on_demand.price_per_gpu_hour
            as commitment_beats_on_demand,
        seller_on_demand.price_per_gpu_hour as seller_on_demand_price_per_gpu_hour,
        commitments.price_per_gpu_hour / seller_on_demand.price_per_gpu_hour
            as seller_breakeven_utilisation,
        commitments.observed_at_known
        and coalesce(on_demand.observed_at_known, true) as observed_at_known
    from commitments
    left join on_demand
        on on_demand.accelerator_id = commitments.accelerator_id
        and on_demand.gpu_count = commitments.gpu_count
    left join seller_on_demand
        on seller_on_demand.accelerator_id = commitments.accelerator_id
        and seller_on_demand.gpu_count = commitments.gpu_count
        and seller_on_demand.seller = commitments.seller

)

select * from final
order by
    final.accelerator_id,
    final.gpu_count,
    final.term_months nulls last,
    final.pricing_model
