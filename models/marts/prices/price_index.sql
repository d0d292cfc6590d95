-- one row per UTC day x accelerator x pricing_model x instance size: a daily price index, the
-- median of the sellers' per-GPU hourly prices in force that day (USD, whole GPUs), with its
-- spread and the sellers behind it. The published method is docs/price-index.md.
--
-- * observations: the dated daily rollup price_history is built from (int_price_daily_mapped),
--   first-hand sources only (a curated crosscheck table or a typed reference price never
--   moves the index), USD (a price listed in another currency at the ECB rate of its day, as
--   in price_history), whole GPUs, the accelerator resolved.
-- * whose price counts, as in gpu_prices (int_provider_prices): a disputed sku (the provider's
--   own page contradicts the catalog or resale by more than price_dispute_pct) and a GPU
--   component or attach-only GPU (price_kind gpu_component, gpu_only) never count; both are
--   read from the sku's offer in force (int_offers_standing), so an offer key no longer in force
--   counts as an instance price. Each seller (who runs the machine) counts once: an
--   aggregator's resale is the seller's (its own listing first, then the resale), a
--   marketplace (Vast, lium) is one seller of community capacity.
-- * a seller's price of a day is its cheapest offer observed that day at that size (its own
--   listing before a resale); it carries forward to the following days until the seller is
--   observed again, for at most price_index_carry_days days (assumption) after its last
--   observation. A seller unseen for longer drops out.
-- * the size a buyer needs: min_gpus_per_instance (1, 2, 4, 8) keeps only offers whose
--   instance holds at least that many GPUs (as in price_bases_by_size); 1 is every offer, 8 the
--   whole 8-GPU machines a training run rents.
-- * days: from the first observation of the accelerator, pricing model and size to the newest
--   day of the whole history (the last day any price was observed), a row only for a day with at
--   least one seller in force. Below price_index_min_sellers (assumption) sellers the row is
--   kept with the sellers but no index: every statistic is null and is_published false.
--
-- columns:
--   day: the UTC day the index is for
--   min_gpus_per_instance [GPUs]: the index is over offers whose instance holds at least this
--     many GPUs (1 = every offer)
--   currency: always USD
--   index_price_per_gpu_hour [USD per GPU-hour]: the index: median (quantile_cont) over the
--     sellers' prices in force that day; null when fewer than price_index_min_sellers sellers
--   p25_price_per_gpu_hour [USD per GPU-hour]: 25th percentile over the sellers' prices
--     (quantile_cont); null when the index is not published
--   p75_price_per_gpu_hour [USD per GPU-hour]: 75th percentile over the sellers' prices
--     (quantile_cont); null when the index is not published
--   min_price_per_gpu_hour [USD per GPU-hour]: cheapest seller's price that day; null when the
--     index is not published
--   max_price_per_gpu_hour [USD per GPU-hour]: dearest seller's price that day; null when the
--     index is not published
--   n_sellers [sellers]: sellers whose price is in force that day, each counted once
--   n_sellers_observed [sellers]: of those, sellers observed that day
--   n_sellers_carried [sellers]: of those, sellers whose price is carried forward from an
--     earlier day (at most price_index_carry_days old)
--   is_published: true when n_sellers reaches price_index_min_sellers (the index has a value)
--   oldest_observed_day: the earliest last-observation day among the sellers in force
--   sellers: every seller in force, cheapest first: `seller price` (USD per GPU-hour, 4
--     decimals), and for a carried price `(from YYYY-MM-DD)`, the day it was observed;
--     comma-separated

-- Built incrementally (models/incremental.py, SPECS["price_index"]): a refresh runs this SQL
-- over the observations from price_index_carry_days before the first day it rebuilds (the first
-- day a load touched, or the day after the previous build's last) and replaces the rows from
-- that day on; keep it correct over such a suffix of int_price_daily_mapped.

with

daily_listed as (

    select * from int_price_daily_mapped

),

rates as (

    select * from int_fx_rates

),

-- a price listed in another currency in USD at the last ECB rate on or before its day, at
-- most 7 days before (macro usd_at_daily_rate; int_offers_usd for the offers in force), the
-- rate's day kept; with no such rate it stays in its listed currency, out of every USD figure
daily as (

    select
        daily_listed.* exclude (price_per_gpu_hour, currency),
        unnest(usd_at_daily_rate(
            daily_listed.price_per_gpu_hour, daily_listed.currency, daily_listed.day,
            rate.rate_date, rate.usd_per_unit
        ))
    from daily_listed
    asof left join rates as rate
        on rate.currency = daily_listed.currency
        and daily_listed.day >= rate.rate_date

),

standing as (

    select * from int_offers_standing

),

listing_providers as (

    select * from stg_curated__providers

),

seller_names as (

    select * from stg_curated__seller_names

),

assumptions as (

    select * from stg_curated__assumptions

),

settings as (

    select
        cast(
            max(assumptions.value) filter (where assumptions.assumption_key = 'price_index_carry_days')
            as integer
        ) as carry_days,
        cast(
            max(assumptions.value) filter (where assumptions.assumption_key = 'price_index_min_sellers')
            as integer
        ) as min_sellers
    from assumptions

),

-- skus whose offer in force may not stand in a statistic: disputed, or no machine's price
excluded_skus as (

    select distinct
        standing.source,
        standing.provider,
        standing.sku
    from standing
    where standing.is_disputed
        or standing.price_kind in ('gpu_component', 'gpu_only')

),

observations as (

    select
        daily.day,
        daily.accelerator_id,
        daily.pricing_model,
        daily.provider,
        daily.sku,
        daily.source,
        cast(round(daily.gpu_count) as integer) as gpu_count,
        daily.price_per_gpu_hour,
        listing_providers.listing_kind as provider_listing_kind,
        resold_from(
            listing_providers.listing_kind, daily.sku, listing_providers.sku_seller_regex
        ) as resold_from
    from daily
    left join listing_providers using (provider)
    anti join excluded_skus using (source, provider, sku)
    where daily.source_kind = 'first_hand'
        and daily.accelerator_id is not null
        and daily.currency = 'USD'
        and daily.price_per_gpu_hour is not null

),

-- one row per day x accelerator x pricing model x seller: its cheapest per-GPU price among
-- offers of at least 1, 2, 4, 8 GPUs, its own listing before a resale (one pass over the
-- observations, the sizes as columns)
seller_day_sizes as (

    select
        observations.day,
        observations.accelerator_id,
        observations.pricing_model,
        coalesce(seller_names.seller, observations.resold_from, observations.provider) as seller,
        coalesce(
            min(observations.price_per_gpu_hour) filter (
                where observations.gpu_count >= 1 and observations.resold_from is null
            ),
            min(observations.price_per_gpu_hour) filter (where observations.gpu_count >= 1)
        ) as price_1,
        coalesce(
            min(observations.price_per_gpu_hour) filter (
                where observations.gpu_count >= 2 and observations.resold_from is null
            ),
            min(observations.price_per_gpu_hour) filter (where observations.gpu_count >= 2)
        ) as price_2,
        coalesce(
            min(observations.price_per_gpu_hour) filter (
                where observations.gpu_count >= 4 and observations.resold_from is null
            ),
            min(observations.price_per_gpu_hour) filter (where observations.gpu_count >= 4)
        ) as price_4,
        coalesce(
            min(observations.price_per_gpu_hour) filter (
                where observations.gpu_count >= 8 and observations.resold_from is null
            ),
            min(observations.price_per_gpu_hour) filter (where observations.gpu_count >= 8)
        ) as price_8
    from observations
    left join seller_names
        on seller_names.name = coalesce(observations.resold_from, observations.provider)
    group by
        observations.day,
        observations.accelerator_id,
        observations.pricing_model,
        coalesce(seller_names.seller, observations.resold_from, observations.provider)

),

-- a seller's price of each day it was observed, at each size it was observed at
seller_days as (

    select
        sized.min_gpus_per_instance,
        seller_day_sizes.day,
        seller_day_sizes.accelerator_id,
        seller_day_sizes.pricing_model,
        seller_day_sizes.seller,
        sized.price_per_gpu_hour
    from seller_day_sizes,
        unnest([
            {'min_gpus_per_instance': 1, 'price_per_gpu_hour': seller_day_sizes.price_1},
            {'min_gpus_per_instance': 2, 'price_per_gpu_hour': seller_day_sizes.price_2},
            {'min_gpus_per_instance': 4, 'price_per_gpu_hour': seller_day_sizes.price_4},
            {'min_gpus_per_instance': 8, 'price_per_gpu_hour': seller_day_sizes.price_8}
        ]) as sizes(sized)
    where sized.price_per_gpu_hour is not null

),

last_day as (

    select max(seller_day_sizes.day) as day from seller_day_sizes

),

-- each observation stands from its day until the seller's next observation, the carry limit
-- or the last day of the history, whichever comes first
seller_spans as (

    select
        seller_days.*,
        least(
            coalesce(
                lead(seller_days.day) over (
                    partition by
                        seller_days.min_gpus_per_instance,
                        seller_days.accelerator_id,
                        seller_days.pricing_model,
                        seller_days.seller
                    order by seller_days.day
                ) - 1,
                last_day.day
            ),
            seller_days.day + settings.carry_days,
            last_day.day
        ) as through_day
    from seller_days
    cross join settings
    cross join last_day

),

seller_prices_in_force as (

    select
        cast(in_force.day as date) as day,
        seller_spans.min_gpus_per_instance,
        seller_spans.accelerator_id,
        seller_spans.pricing_model,
        seller_spans.seller,
        seller_spans.price_per_gpu_hour,
        seller_spans.day as observed_day
    from seller_spans,
        unnest(
            generate_series(
                cast(seller_spans.day as timestamp),
                cast(seller_spans.through_day as timestamp),
                interval 1 day
            )
        ) as in_force(day)

),

-- one aggregate per day and group, holding the day's sellers as a sorted list: the quantiles
-- and the sellers' text are read from it (several holistic aggregates side by side, quantiles
-- and an ordered string_agg, need several times the memory: out of memory at 512 MB on the
-- 10M-row benchmark history)
statistics as (

    select
        seller_prices_in_force.day,
        seller_prices_in_force.accelerator_id,
        seller_prices_in_force.pricing_model,
        seller_prices_in_force.min_gpus_per_instance,
        count(*) as n_sellers,
        count(*) filter (
            where seller_prices_in_force.observed_day = seller_prices_in_force.day
        ) as n_sellers_observed,
        count(*) filter (
            where seller_prices_in_force.observed_day < seller_prices_in_force.day
        ) as n_sellers_carried,
        min(seller_prices_in_force.observed_day) as oldest_observed_day,
        list_sort(list({
            'price': seller_prices_in_force.price_per_gpu_hour,
            'seller': seller_prices_in_force.seller,
            'observed_day': seller_prices_in_force.observed_day
        })) as in_force
    from seller_prices_in_force
    group by all

),

-- quantile_cont over the sorted prices x[1..n]: at h = (n - 1) * q, x[floor(h) + 1] plus
-- (h - floor(h)) of the step to x[ceil(h) + 1]
positions as (

    select
        statistics.*,
        list_transform(statistics.in_force, lambda seller: seller.price) as prices,
        (statistics.n_sellers - 1) * 0.25 as h25,
        (statistics.n_sellers - 1) * 0.5 as h50,
        (statistics.n_sellers - 1) * 0.75 as h75
    from statistics

),

quantiles as (

    select
        positions.day,
        positions.accelerator_id,
        positions.pricing_model,
        positions.min_gpus_per_instance,
        positions.n_sellers,
        positions.n_sellers_observed,
        positions.n_sellers_carried,
        positions.oldest_observed_day,
        positions.prices[cast(floor(positions.h50) as integer) + 1]
        + (positions.h50 - floor(positions.h50))
        * (positions.prices[cast(ceil(positions.h50) as integer) + 1]
            - positions.prices[cast(floor(positions.h50) as integer) + 1]) as median_price,
        positions.prices[cast(floor(positions.h25) as integer) + 1]
        + (positions.h25 - floor(positions.h25))
        * (positions.prices[cast(ceil(positions.h25) as integer) + 1]
            - positions.prices[cast(floor(positions.h25) as integer) + 1]) as p25_price,
        positions.prices[cast(floor(positions.h75) as integer) + 1]
        + (positions.h75 - floor(positions.h75))
        * (positions.prices[cast(ceil(positions.h75) as integer) + 1]
            - positions.prices[cast(floor(positions.h75) as integer) + 1]) as p75_price,
        positions.prices[1] as min_price,
        positions.prices[-1] as max_price,
        array_to_string(
            list_transform(
                positions.in_force,
                lambda seller: seller.seller || ' ' || printf('%.4f', seller.price)
                || case
                    when seller.observed_day < positions.day
                        then ' (from ' || strftime(seller.observed_day, '%Y-%m-%d') || ')'
                    else ''
                end
            ),
            ', '
        ) as sellers
    from positions

),

published as (

    select
        quantiles.*,
        quantiles.n_sellers >= settings.min_sellers as is_published
    from quantiles
    cross join settings

),

final as (

    select
        statistics.day,
        statistics.accelerator_id,
        statistics.pricing_model,
        statistics.min_gpus_per_instance,
        'USD' as currency,
        case when statistics.is_published then statistics.median_price end
            as index_price_per_gpu_hour,
        case when statistics.is_published then statistics.p25_price end as p25_price_per_gpu_hour,
        case when statistics.is_published then statistics.p75_price end as p75_price_per_gpu_hour,
        case when statistics.is_published then statistics.min_price end as min_price_per_gpu_hour,
        case when statistics.is_published then statistics.max_price end as max_price_per_gpu_hour,
        statistics.n_sellers,
        statistics.n_sellers_observed,
        statistics.n_sellers_carried,
        statistics.is_published,
        statistics.oldest_observed_day,
        statistics.sellers
    from published as statistics

)

select * from final
order by final.accelerator_id, final.pricing_model, final.min_gpus_per_instance, final.day
