-- one row per euro reference rate as the ECB publishes it (raw.fx_observations, source
-- ecb_fx): units of currency per 1 EUR on a business day, with the first fetch that stated it
-- and that fetch's stream (daily, history).

select
    fx.fetch_id,
    fx.source,
    fetches.stream,
    upper(fx.currency) as currency,
    fx.rate_per_eur,
    fx.rate_date,
    fx.observed_at
from raw.fx_observations as fx
inner join raw.fetches as fetches
    on fetches.fetch_id = fx.fetch_id
