-- one row per offer in force (int_offers_mapped), its prices in US dollars: an offer listed in
-- another currency is converted at the ECB's euro reference rates (int_fx_rates, source ecb_fx),
-- the listed price and currency kept beside it (docs/currencies.md).
--
-- * the rate of the offer's observation day (the UTC day of observed_at; for a month-dated
--   offer the month's first day): the last rate published on or before it, so a weekend or a
--   TARGET holiday takes the previous business day's rate; fx_rate_date says which day.
-- * an offer without a date (observed_at_known false: a file replayed without any date)
--   converts at the newest rate of its currency (as of gpucost_as_of when set), and says so
--   (fx_basis 'newest_rate').
-- * no rate: a currency the ECB does not quote, a day before its first rate, or a day more than
--   7 days after the last rate published before it (the longest TARGET closure is 4 days: a
--   rate that old means the rates were not refreshed): the price stays in its listed currency
--   (currency is not USD) with fx_basis 'no_rate', listed in gpu_offers and left out of every
--   USD answer (int_provider_prices keeps only USD).
-- * price_per_hour, price_per_gpu_hour and the marketplace percentiles are multiplied by the
--   same rate; currency becomes USD.
-- * columns added: price_listed (the instance price per hour as listed), currency_listed,
--   fx_usd_per_unit (USD per unit of currency_listed; 1 for USD), fx_rate_date (null for USD),
--   fx_basis (listed: a USD price as listed | observation_day | newest_rate | no_rate).

with

offers as (

    select * from int_offers_mapped

),

rates as (

    select * from int_fx_rates

),

newest_rates as (

    select rates.*
    from rates
    where getvariable('gpucost_as_of') is null
        or rates.rate_date <= cast(getvariable('gpucost_as_of') as date)
    qualify row_number() over (
        partition by rates.currency order by rates.rate_date desc
    ) = 1

),

offers_dated as (

    select
        offers.*,
        cast(timezone('UTC', offers.observed_at) as date) as fx_day
    from offers

),

-- the last rate on or before the observation day
day_rates as (

    select
        offers_dated.*,
        day_rate.rate_date as day_rate_date,
        day_rate.usd_per_unit as day_usd_per_unit
    from offers_dated
    asof left join rates as day_rate
        on day_rate.currency = offers_dated.currency
        and offers_dated.fx_day >= day_rate.rate_date

),

chosen as (

    select
        day_rates.* exclude (day_rate_date, day_usd_per_unit, fx_day),
        case
            when day_rates.currency = 'USD' then 'listed'
            when not day_rates.observed_at_known and newest_rates.rate_date is not null
                then 'newest_rate'
            when day_rates.observed_at_known
                and day_rates.day_rate_date >= day_rates.fx_day - 7
                then 'observation_day'
            else 'no_rate'
        end as fx_basis,
        case
            when not day_rates.observed_at_known then newest_rates.rate_date
            else day_rates.day_rate_date
        end as candidate_rate_date,
        case
            when not day_rates.observed_at_known then newest_rates.usd_per_unit
            else day_rates.day_usd_per_unit
        end as candidate_usd_per_unit
    from day_rates
    left join newest_rates
        on newest_rates.currency = day_rates.currency

),

final as (

    select
        chosen.* exclude (
            fx_basis, candidate_rate_date, candidate_usd_per_unit, price_per_hour,
            price_per_gpu_hour, p10_price_per_gpu_hour, p90_price_per_gpu_hour, currency
        ),
        usd_if_converted(
            chosen.price_per_hour, chosen.fx_basis, chosen.candidate_usd_per_unit
        ) as price_per_hour,
        usd_if_converted(
            chosen.price_per_gpu_hour, chosen.fx_basis, chosen.candidate_usd_per_unit
        ) as price_per_gpu_hour,
        usd_if_converted(
            chosen.p10_price_per_gpu_hour, chosen.fx_basis, chosen.candidate_usd_per_unit
        ) as p10_price_per_gpu_hour,
        usd_if_converted(
            chosen.p90_price_per_gpu_hour, chosen.fx_basis, chosen.candidate_usd_per_unit
        ) as p90_price_per_gpu_hour,
        case
            when chosen.fx_basis in ('observation_day', 'newest_rate') then 'USD'
            else chosen.currency
        end as currency,
        chosen.price_per_hour as price_listed,
        chosen.currency as currency_listed,
        case
            when chosen.fx_basis = 'listed' then 1.0
            when chosen.fx_basis in ('observation_day', 'newest_rate')
                then chosen.candidate_usd_per_unit
        end as fx_usd_per_unit,
        case
            when chosen.fx_basis in ('observation_day', 'newest_rate')
                then chosen.candidate_rate_date
        end as fx_rate_date,
        chosen.fx_basis
    from chosen

)

select * from final
