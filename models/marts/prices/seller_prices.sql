-- one row per accelerator x pricing_model x seller (who runs the machine): the offer in force
-- that stands for the seller, counted once however many providers list it (its own listing,
-- an aggregator's resale, a reference price): a dated offer before an undated one, a fresh one
-- before a stale one, its own listing before a resold one, then the cheapest per GPU;
-- disputed offers are never candidates (int_provider_prices, every instance
-- size). gpu_prices takes its statistics over these rows (in_statistics); the report's "rent
-- now" table lists them.
--
-- columns:
--   seller: who runs the machine (the provider itself, or the cloud an aggregator resells)
--   listing_kind: own | resold | marketplace (gpu_offers.listing_kind)
--   provider: who lists the offer that stands for the seller (an aggregator for a resold one)
--   gpu_count [GPUs]: GPUs per instance of that offer
--   source_kind: first_hand | reference | crosscheck
--   is_crosscheck: true when only a crosscheck table prices the seller (never in statistics)
--   observed_at_known: false for an offer of a file replayed without any date
--   n_offers [offers]: the seller's offers in force of this accelerator and pricing model
--   is_stale: every offer of the seller is more than price_max_age_days (180) older than the
--     newest price of the accelerator: listed, left out of the statistics
--   newest_observed_at [timestamp (UTC)]: the newest dated price of the accelerator (any
--     seller), the date staleness is measured from
--   in_statistics: the row counts in gpu_prices' statistics: a dated, fresh seller, or an
--     undated one of an accelerator with no dated price at all (a price without a date is not
--     current)
--   n_providers [providers]: sellers in statistics for this accelerator and pricing model
--   n_providers_undated [providers]: undated sellers left out of the statistics
--   n_providers_stale [providers]: stale sellers left out of the statistics
--   n_providers_crosscheck [providers]: sellers priced only by a crosscheck table
--   provider_rank: 1 for the cheapest seller in statistics, 2 for the next...; null otherwise

with

provider_prices as (

    select * from int_provider_prices
    where int_provider_prices.min_gpus_per_instance = 1  -- every instance size

)

select provider_prices.* exclude (min_gpus_per_instance)
from provider_prices
order by
    provider_prices.accelerator_id,
    provider_prices.pricing_model,
    provider_prices.provider_rank nulls last,
    provider_prices.seller
