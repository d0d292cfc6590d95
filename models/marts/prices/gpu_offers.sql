-- one row per offer in force: source x provider x sku x region x pricing_model, with the
-- accelerator it maps to (null when unmapped) and the per-GPU price (whole GPUs only). An
-- offer leaves the set when a newer fetch of its own stream no longer lists it, or when another
-- source (or another row of the reference catalog) holds a newer (by more than a day)
-- first-hand or reference observation of the same provider, accelerator, GPU count and pricing
-- model (int_offers_mapped).
-- source_kind: first_hand | reference | crosscheck (curated public tables: listed, never
-- used as a price basis). Marketplace aggregates (Vast) carry offer_count and the 10th / 90th
-- percentile per-GPU price; their price_per_hour is the median offer.
--
-- columns:
--   price_kind: what price_per_hour buys: instance (a whole rentable machine) |
--     gpu_with_host (an attach-only GPU priced with the cheapest host VM it attaches to from
--     the same catalog: GCP N1 + T4/V100/P100/P4; vcpus and ram_gb are that host's) |
--     gpu_only (an attach-only GPU without any host price in the catalog: the GPU alone,
--     never a minimum or a price basis) | gpu_component (a GPU price with vCPUs and RAM
--     billed on top: CoreWeave's 2023 grid; never a minimum or a price basis) |
--     shape_per_gpu (a per-GPU list price multiplied out to the only shape the part is
--     rented as: Oracle's price list, BM.GPU.H100.8 = 8 x the per-GPU price)
--   term_months [months]: the commitment the pricing model sells: 1 (reserved_1m), 6
--     (reserved_6m), 12 (reserved_1y, savings_plan_1y), 36 (reserved_3y, savings_plan_3y);
--     null for a price with no commitment (on_demand, spot, community, interruptible_bid,
--     queued, capacity_block); macro term_months
--   payment: how the commitment is paid where the source states it: no_upfront |
--     partial_upfront | all_upfront (AWS Reserved terms); null when not stated
--   currency: the currency of price_per_hour and the per-GPU prices: USD for a price listed in
--     USD or converted at an ECB reference rate (int_offers_usd, docs/currencies.md); the listed
--     currency when no rate converts it (fx_basis no_rate)
--   price_listed [currency_listed per hour]: the instance price per hour as the source lists it,
--     in currency_listed, before any conversion
--   currency_listed: the currency the source lists the price in (catalog/providers.csv states
--     each non-USD provider's, with a source)
--   fx_usd_per_unit [USD per unit of currency_listed]: the rate price_listed was multiplied by
--     (1 for a USD price; null when no rate converts it)
--   fx_rate_date [date]: the ECB business day whose rate converted the price: the last one on or
--     before the observation day (a weekend takes Friday's); null for a USD price
--   fx_basis: listed (a USD price as listed) | observation_day (converted at the rate of its
--     observation day, fx_rate_date) | newest_rate (an undated price converted at the newest rate
--     of its currency) | no_rate (no rate for its day: the price stays in its listed currency,
--     listed here and left out of every USD answer)
--   is_fractional_gpu: true when the offer is a share of one GPU or a non-whole count; such
--     offers keep a null price_per_gpu_hour
--   gpu_memory_gb [GB]: memory per GPU as the source states it
--   vcpus [vCPUs]: virtual CPUs of the instance
--   ram_gb [GB]: host RAM of the instance
--   os: operating system the price is for (linux)
--   seller: who runs the machine: the provider itself, or for an aggregator's resale the
--     provider it resells (read from the sku); canonical names (catalog/seller_names.csv)
--   listing_kind: own (the seller lists its own machines) | resold (an aggregator lists
--     another provider's machine) | marketplace (independent hosts behind one marketplace:
--     priced as community, never on_demand); catalog/providers.csv
--   observed_at_known: false for an offer from a file replayed without any date (no
--     --observed-at, no date in the payload or its name): observed_at, age_days and
--     confirmed_at are then null (unknown), never "fresh"; such an offer is never the
--     cheapest or a price basis while a dated price of the accelerator exists
--   observed_at [timestamp (UTC)]: when the price was observed (the page, payload or fetch
--     date); null when unknown; the first instant of the month when observed_at_precision is
--     month
--   observed_at_precision: how precisely observed_at is known: day (a date or an instant) |
--     month (a replayed file whose data README gives only an approximate period, loaded with
--     `--observed-at YYYY-MM`: observed_at is the month's first instant, so the offer is never
--     fresher than it may be; shown as ~YYYY-MM); null when observed_at_known is false. An
--     approximate date is a date: such an offer counts as dated everywhere
--   age_days [days]: age of the observation at the build; null when observed_at_known is false
--   confirmed_at [timestamp (UTC)]: the last time a fetch saw this same payload (an unchanged
--     refetch confirms the price is still listed); null when observed_at_known is false
--   loaded_at [timestamp (UTC)]: when the payload was loaded (fetched or ingested); null for a
--     reference price
--   offer_count [offers]: marketplace offers aggregated into the row (Vast: the host offers of this
--     GPU model and GPU count); null for price lists
--   p10_price_per_gpu_hour [USD per GPU-hour (in currency)]: 10th-percentile offer of a marketplace
--     aggregate, per GPU (whole GPUs only); null for price lists
--   p90_price_per_gpu_hour [USD per GPU-hour (in currency)]: 90th-percentile offer of a marketplace
--     aggregate, per GPU (whole GPUs only); null for price lists
--   is_disputed: the provider's own page or API states a price more than 25% away for this sku
--     (price_disputes): listed, never a minimum, median input or price basis
--   is_stale: dated more than price_max_age_days (180) before the newest price of the same
--     accelerator: listed, never in a statistic or price basis
--   available: true / false where the payload states whether it can be launched now (RunPod
--     stockStatus, Vast rentable / rented, Lambda's regions_with_capacity_available); null =
--     not stated. It is what the payload said when observed (observed_at): `gpucost offers
--     --available` counts only a dated, not stale offer flagged true as launchable now

with

offers as (

    select * from int_offers_standing

),

final as (

    select
        offers.accelerator_id,
        offers.gpu_name_raw,
        offers.provider,
        offers.seller,
        offers.listing_kind,
        offers.sku,
        offers.region,
        offers.pricing_model,
        offers.price_per_hour,
        offers.price_kind,
        term_months(offers.pricing_model) as term_months,
        offers.payment,
        offers.gpu_count,
        offers.is_fractional_gpu,
        offers.price_per_gpu_hour,
        offers.offer_count,
        offers.p10_price_per_gpu_hour,
        offers.p90_price_per_gpu_hour,
        offers.currency,
        offers.price_listed,
        offers.currency_listed,
        offers.fx_usd_per_unit,
        offers.fx_rate_date,
        offers.fx_basis,
        offers.gpu_memory_gb,
        offers.vcpus,
        offers.ram_gb,
        offers.os,
        offers.source,
        offers.source_kind,
        offers.fetch_id,
        offers.source_url,
        offers.observed_at,
        offers.observed_at_precision,
        offers.observed_at_known,
        offers.age_days,
        offers.confirmed_at,
        offers.loaded_at,
        offers.is_disputed,
        offers.is_stale,
        offers.available
    from offers

)

select * from final
order by
    final.source,
    final.provider,
    final.sku,
    final.region,
    final.pricing_model
