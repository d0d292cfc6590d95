-- one row per currency x business day the ECB published a euro reference rate for: US dollars
-- per unit of that currency (source ecb_fx, models/staging/stg_raw__fx_observations.sql).
--
-- * the ECB states units per 1 EUR; USD per X = (USD per EUR) / (X per EUR) of the same day
--   (macro usd_per_unit); the euro itself is USD per EUR. USD is not listed (1 by definition).
-- * a day's rate stated twice (the daily file and the history file, or a revised rate) is the
--   one of the newest fetch (observed_at, then fetch_id).
-- * only days with a USD rate (every ECB day since 1999-01-04).

with

observations as (

    select * from stg_raw__fx_observations

),

latest as (

    select
        observations.currency,
        observations.rate_date,
        observations.rate_per_eur,
        observations.fetch_id,
        observations.source
    from observations
    qualify row_number() over (
        partition by observations.currency, observations.rate_date
        order by observations.observed_at desc, observations.fetch_id desc
    ) = 1

),

usd as (

    select
        latest.rate_date,
        latest.rate_per_eur as usd_per_eur
    from latest
    where latest.currency = 'USD'

),

quoted as (

    select
        latest.currency,
        latest.rate_date,
        latest.rate_per_eur as units_per_eur,
        latest.fetch_id,
        latest.source
    from latest
    where latest.currency <> 'USD'

    union all

    select
        'EUR' as currency,
        latest.rate_date,
        1.0 as units_per_eur,
        latest.fetch_id,
        latest.source
    from latest
    where latest.currency = 'USD'

),

final as (

    select
        quoted.currency,
        quoted.rate_date,
        usd_per_unit(usd.usd_per_eur, quoted.units_per_eur) as usd_per_unit,
        quoted.units_per_eur,
        usd.usd_per_eur,
        quoted.source,
        quoted.fetch_id
    from quoted
    inner join usd using (rate_date)

)

select * from final
