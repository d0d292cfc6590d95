-- one row per currency x business day of the ECB's euro reference rates (source ecb_fx): how
-- many US dollars one unit of the currency was worth that day, derived from the euro cross
-- rates the ECB publishes (units per 1 EUR): USD per X = (USD per EUR) / (X per EUR) of the same
-- day (macro usd_per_unit); EUR itself is USD per EUR. Weekends and TARGET holidays have no row:
-- a price observed on such a day converts at the last rate published before it
-- (int_offers_usd, docs/currencies.md). USD itself is not listed. A day stated by two fetches
-- (the daily and the history file) takes the newest fetch's rate.
--
-- columns:
--   currency: ISO 4217 code of the currency (EUR, GBP, JPY, ...)
--   rate_date [date]: the business day the ECB published the rate for
--   usd_per_unit [USD per unit of currency]: US dollars one unit of the currency was worth
--   units_per_eur [units of currency per EUR]: the ECB's reference rate as published (1 for EUR)
--   usd_per_eur [USD per EUR]: the ECB's USD reference rate of the same day
--   source: the source of the rate (ecb_fx)
--   fetch_id: the first fetch that stated the rate (raw.fetches: its payload)

with

rates as (

    select * from int_fx_rates

),

final as (

    select
        rates.currency,
        rates.rate_date,
        rates.usd_per_unit,
        rates.units_per_eur,
        rates.usd_per_eur,
        rates.source,
        rates.fetch_id
    from rates

)

select * from final
order by final.currency, final.rate_date
