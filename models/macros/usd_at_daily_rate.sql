-- returns a daily price listed in `currency` in US dollars at the last ECB rate on or before its
-- day (`rate_date`, `usd_per_unit`: an ASOF join on int_fx_rates), used only when that rate is
-- at most 7 days before the day (a weekend or a holiday takes the business day before); with
-- no such rate the price stays in its listed currency, out of every USD figure. A struct of
-- price_per_gpu_hour, currency (USD once converted), currency_listed and fx_rate_date (null for
-- a USD price), unnested by price_history and price_index. Scaleway's 2.52 EUR on Sunday
-- 2026-10-25 at Friday's 1.1193: 2.820636 USD, fx_rate_date 2026-10-23.

create or replace macro usd_at_daily_rate(price_per_gpu_hour, currency, day, rate_date,
                                          usd_per_unit) as
    struct_pack(
        price_per_gpu_hour := case
            when currency = 'USD' then price_per_gpu_hour
            when rate_date >= day - 7 then price_per_gpu_hour * usd_per_unit
        end,
        currency := case when rate_date >= day - 7 then 'USD' else currency end,
        currency_listed := currency,
        fx_rate_date := case
            when currency <> 'USD' and rate_date >= day - 7 then rate_date
        end
    )
